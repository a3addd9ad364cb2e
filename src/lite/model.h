// The mycel lite runtime's C++ API, in MindSpore Lite's form (mindspore::Model, Context,
// MSTensor): build a model from a .ms file, get its inputs, fill them, Predict, Resize.
//
//   mycel::lite::Context ctx;  ctx.thread_num = 2;
//   mycel::lite::Model model;  model.Build("lenet.ms", ctx);
//   auto inputs = model.GetInputs();            // named, shaped, zero-filled
//   std::memcpy(inputs[0].MutableData(), image, inputs[0].DataSize());
//   std::vector<mycel::lite::Tensor> outputs;
//   model.Predict(inputs, &outputs);
//
// A Model runs one Predict at a time (its arena and kernels are its own): one Model per
// thread for concurrent inference; different Models may run on different threads at once.
// Errors are mycel::Error (ValueError for bad files, inputs or shapes; the C API,
// mycel_lite_c.h, turns them into status codes and messages). The file is mapped, not read:
// constants are used where they lie. Activations live in one arena planned at Build (and at
// Resize) from the tensors' lifetimes (lite/arena.h). The library links base (threads,
// errors), oneDNN and zlib, and nothing of the compiler, Python or protobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lite/graph.h"

namespace mycel::lite {

// How float32 layers compute. BFloat16 (mycel's `enable_fp16`-like switch; these CPUs have
// bf16 dot products and no float16 arithmetic) runs Conv2D and FullyConnected with bfloat16
// inputs and weights through oneDNN, accumulating and writing float32; the other ops stay
// float32. Int8 nodes
// of a quantized file run in int8 under either (lite/quant.h).
enum class Precision : uint8_t { Float32, BFloat16 };

struct Context {
  int thread_num = 0;  // > 0: OpenMP's thread count, process-wide (as OpenMP's setting is)
  Precision precision = Precision::Float32;
  bool verify_checksum = true;  // false: skip the file's CRC (trusted files; other checks stay)
  bool reference = false;       // run the naive reference kernels (tests, accuracy checks)
  size_t max_arena_bytes = size_t{16} << 30;  // a model needing more activations is refused
};

// A named host tensor (MSTensor's role): owns its bytes, shared on copy.
class Tensor {
 public:
  Tensor() = default;
  Tensor(std::string name, DType dtype, Dims shape);  // zero-filled
  const std::string& Name() const { return name_; }
  DType DataType() const { return dtype_; }
  const Dims& Shape() const { return shape_; }
  int64_t ElementNum() const;
  size_t DataSize() const { return buf_ ? buf_->size() : 0; }
  const void* Data() const { return buf_ ? buf_->data() : nullptr; }
  void* MutableData() { return buf_ ? buf_->data() : nullptr; }

 private:
  std::string name_;
  DType dtype_ = DType::Float32;
  Dims shape_;
  std::shared_ptr<std::vector<uint8_t>> buf_;
};

class Model {
 public:
  Model();
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Maps and checks the file (model_file.h), infers shapes, makes the kernels, plans the
  // arena. A second Build replaces the model.
  void Build(const std::string& path, const Context& ctx = {});
  // The same from bytes in memory (copied).
  void Build(const void* data, size_t size, const Context& ctx = {});

  // One zero-filled tensor per graph input, with its name and current shape.
  std::vector<Tensor> GetInputs() const;
  // The outputs of the last Predict (empty tensors of the current shapes before any).
  std::vector<Tensor> GetOutputs() const;
  // Gives the inputs new shapes (in GetInputs order): shapes are inferred again (a ValueError
  // names the node that cannot take them), kernels and the arena are made again.
  void Resize(const std::vector<Tensor>& inputs, const std::vector<Dims>& shapes);
  // Runs the graph: `inputs` in GetInputs order, float32 of the current shapes (a ValueError
  // names the input otherwise). `outputs` gets fresh tensors.
  void Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);
  // The same, adding each node's wall time in seconds to (*node_seconds)[i] (resized to the
  // node count, in exec_graph().nodes order): mycel_benchmark --timeProfiling's per-layer
  // profile.
  void Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs,
               std::vector<double>* node_seconds);

  const Graph& graph() const;  // the loaded graph (shapes current)
  // The graph as it runs: graph() with residual Adds folded into their convolutions
  // (lite/fuse.h) and the arena's layouts chosen (lite/layout.h); the same tensors.
  const Graph& exec_graph() const;
  size_t arena_bytes() const;  // the planned activation arena

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mycel::lite
