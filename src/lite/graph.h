// The lite graph: the one in-memory form of a mycel lite model, shared by the runtime (which
// reads it from a .ms file, src/lite/model_file.h) and the converter (which builds it from
// mycel's IR, rewrites it with its passes and writes it). Tensors are one flat table; nodes
// name their inputs and outputs by index into it, in execution order.
//
// Shape inference (`infer_shapes`) is the one place where each op's rules live: the runtime
// runs it at load and on Resize, the converter as its shape-inference pass, and the kernels
// rely on what it checked (ranks, channel counts, broadcasting, sizes), so a file that passes
// it never makes a kernel read or write out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mycel::lite {

enum class DType : uint8_t { Float32, Float16, BFloat16, Int8, UInt8, Int32, Int64, Bool };
constexpr int kNumDTypes = 8;
size_t dtype_size(DType t);
const char* dtype_name(DType t);

// The operators, in the order of the schema's Op union (model.fbs) minus its NONE.
enum class OpType : uint8_t {
  Conv2D,
  Pool,
  FullyConnected,
  MatMul,
  BiasAdd,
  Eltwise,
  Act,
  Reshape,
  Transpose,
  Softmax,
  BatchNorm,
};
constexpr int kNumOpTypes = 11;
const char* op_type_name(OpType t);

enum class Act : uint8_t { None, ReLU, ReLU6, Sigmoid, Tanh };
constexpr int kNumActs = 5;
enum class PoolKind : uint8_t { Max, Avg };
enum class EltKind : uint8_t { Add, Sub, Mul, Div };

using Dims = std::vector<int64_t>;
std::string dims_str(const Dims& d);
// The element count of `d` (ValueError naming `what` for a negative dimension or a count
// past 2^40 elements, far beyond any model this runtime serves).
int64_t dims_numel(const Dims& d, const std::string& what);
// The element count of a shape already checked (by infer_shapes or dims_numel).
inline int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

// Per-tensor (one entry) or per-channel (one per index of `axis`) quantization parameters,
// carried by the file for the int8 path (lite/quant.h).
struct Quant {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t axis = -1;
  int32_t num_bits = 8;
};

// How the runtime's arena orders a rank-4 float32 activation's bytes (lite/layout.h; never in
// the file, whose shapes stay NCHW): NCHW, NHWC, or oneDNN's nChw16c (channels in blocks of
// 16, each block an NHWC image: what its Winograd convolution reads and writes).
enum class Layout : uint8_t { Nchw, Nhwc, Blocked16 };

struct TensorDesc {
  std::string name;
  DType dtype = DType::Float32;
  Dims shape;
  bool constant = false;
  const void* data = nullptr;                         // a constant's bytes: in a mapped file, or
  std::shared_ptr<const std::vector<uint8_t>> owned;  // here (converter-made constants)
  Quant quant;
  bool trainable = false;        // a constant on-device training updates (lite/train.h)
  Layout layout = Layout::Nchw;  // runtime only: the arena's order (lite/layout.h)

  size_t nbytes() const;  // shape's elements times the dtype's size (shape checked before)
  const float* f32() const { return static_cast<const float*>(data); }
};

// The attributes of every op in one flat record (each op reads its own fields).
struct OpAttrs {
  int64_t kernel[2] = {1, 1};     // Pool
  int64_t stride[2] = {1, 1};     // Conv2D, Pool
  int64_t dilation[2] = {1, 1};   // Conv2D
  int64_t pad[4] = {0, 0, 0, 0};  // Conv2D, Pool: top, bottom, left, right
  bool pad_same = false;          // Conv2D, Pool: `pad` derived from the input size
  int64_t group = 1;              // Conv2D
  Act act = Act::None;            // Conv2D, FullyConnected, Eltwise (fused), Act (the op)
  PoolKind pool = PoolKind::Max;
  bool ceil_mode = false;
  bool count_include_pad = true;
  bool transpose_a = false, transpose_b = false;  // MatMul
  EltKind elt = EltKind::Add;
  Dims shape;             // Reshape: 0 copies the input's dimension, one -1 inferred
  Dims perm;              // Transpose
  int64_t axis = -1;      // Softmax
  float epsilon = 1e-5f;  // BatchNorm
  // Conv2D, runtime only (never in the file; lite/fuse.h): the last input, of the output's
  // shape and layout, is added to the result before the activation.
  bool sum = false;
};

struct NodeDesc {
  std::string name;
  OpType op = OpType::Act;
  OpAttrs a;
  std::vector<int> inputs, outputs;
};

// The loss of a training model (lite/train.h), over output 0.
enum class Loss : uint8_t { None, SoftmaxCrossEntropy };
constexpr int kNumLosses = 2;

struct Graph {
  std::string name;
  Loss loss = Loss::None;  // None: an inference model
  std::vector<TensorDesc> tensors;
  std::vector<NodeDesc> nodes;  // in execution order
  std::vector<int> inputs, outputs;

  int add_tensor(TensorDesc t);
  // A new constant float32 tensor holding `values` with shape `shape`.
  int add_constant(std::string name, Dims shape, std::vector<float> values);
  // Replaces tensor t's contents by float32 `values` (a constant from then on).
  void set_constant(int t, Dims shape, std::vector<float> values);
};

// The input count an op takes: [min, max].
void op_arity(OpType op, int* min_in, int* max_in);

// Checks the structure: indices in range, arities, every non-constant tensor a graph input or
// the output of exactly one earlier node, graph outputs produced, float32 activations (or
// uint8 ones where validate_quant, lite/quant.h, allows them).
// ValueError naming `what` (the file) and the node.
void validate(const Graph& g, const std::string& what);

// Infers every node's output shapes from its inputs, in order, checking each op's rules
// (ValueError naming the op, the node and the shapes). Pads of pad_same ops are set for the
// current input sizes.
void infer_shapes(Graph& g);

}  // namespace mycel::lite
