#include "lite/model.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/arena.h"
#include "lite/fuse.h"
#include "lite/kernels.h"
#include "lite/layout.h"
#include "lite/model_file.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

Buffer aligned_buffer(size_t bytes, const std::string& what) {
  void* p = bytes ? std::aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr;
  MC_CHECK(p || !bytes, Value, what, ": cannot allocate ", bytes, " bytes");
  return Buffer(static_cast<uint8_t*>(p));
}
}  // namespace

Tensor::Tensor(std::string name, DType dtype, Dims shape)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {
  buf_ = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(dims_numel(shape_, name_)) *
                                                dtype_size(dtype_));
}

int64_t Tensor::ElementNum() const { return dims_numel(shape_, name_); }

struct Model::Impl {
  std::string what;
  std::unique_ptr<MappedFile> file;  // the mapped file, or
  Buffer bytes;                      // the copied buffer
  Context ctx;
  Graph g;  // as read (shapes current)
  Graph x;  // as run: g with residual Adds folded (lite/fuse.h) and layouts chosen
  std::vector<std::unique_ptr<Kernel>> kernels;
  ArenaPlan plan;
  Buffer arena;
  std::vector<Tensor> outputs;

  void prepare() {
    kernels.clear();
    x = g;
    const bool bf16 = ctx.precision == Precision::BFloat16;
    if (!ctx.reference) {
      fold_residual_adds(x);
      choose_layouts(x, bf16);
    }
    for (const NodeDesc& n : x.nodes) kernels.push_back(make_kernel(x, n, ctx.reference, bf16));
    plan = plan_arena(x);
    MC_CHECK(plan.bytes <= ctx.max_arena_bytes, Value, what, ": the model needs ", plan.bytes,
             " bytes of activations, more than the context allows (", ctx.max_arena_bytes, ")");
    arena = aligned_buffer(plan.bytes, what);
    outputs.clear();
    for (int t : g.outputs)
      outputs.emplace_back(g.tensors[t].name, DType::Float32, g.tensors[t].shape);
  }

  float* at(int t) { return reinterpret_cast<float*>(arena.get() + plan.offset[t]); }
  const float* ptr(int t) {
    const TensorDesc& d = g.tensors[t];
    return d.constant ? d.f32() : at(t);
  }
};

Model::Model() = default;
Model::~Model() = default;

void Model::Build(const std::string& path, const Context& ctx) {
  auto impl = std::make_unique<Impl>();
  impl->what = "model file '" + path + "'";
  impl->ctx = ctx;
  impl->file = std::make_unique<MappedFile>(path);
  impl->g = read_model(impl->file->data(), impl->file->size(), impl->what, ctx.verify_checksum);
  dequantize_constants(impl->g);
  if (ctx.thread_num > 0) set_num_threads(ctx.thread_num);
  impl->prepare();
  impl_ = std::move(impl);
}

void Model::Build(const void* data, size_t size, const Context& ctx) {
  auto impl = std::make_unique<Impl>();
  impl->what = "model buffer";
  impl->ctx = ctx;
  impl->bytes = aligned_buffer(size, impl->what);
  if (size) std::memcpy(impl->bytes.get(), data, size);
  impl->g = read_model(impl->bytes.get(), size, impl->what, ctx.verify_checksum);
  dequantize_constants(impl->g);
  if (ctx.thread_num > 0) set_num_threads(ctx.thread_num);
  impl->prepare();
  impl_ = std::move(impl);
}

const Graph& Model::graph() const {
  MC_CHECK(impl_, Value, "lite Model: Build it first");
  return impl_->g;
}

const Graph& Model::exec_graph() const {
  graph();
  return impl_->x;
}

size_t Model::arena_bytes() const { return impl_ ? impl_->plan.bytes : 0; }

std::vector<Tensor> Model::GetInputs() const {
  const Graph& g = graph();
  std::vector<Tensor> out;
  for (int t : g.inputs) out.emplace_back(g.tensors[t].name, DType::Float32, g.tensors[t].shape);
  return out;
}

std::vector<Tensor> Model::GetOutputs() const {
  graph();
  return impl_->outputs;
}

void Model::Resize(const std::vector<Tensor>& inputs, const std::vector<Dims>& shapes) {
  const Graph& cur = graph();
  MC_CHECK(inputs.size() == cur.inputs.size() && shapes.size() == inputs.size(), Value,
           "lite Model.Resize: the model has ", cur.inputs.size(), " input(s); got ", inputs.size(),
           " tensor(s) and ", shapes.size(), " shape(s)");
  Graph g = cur;  // on any error the model keeps its shapes
  for (size_t i = 0; i < shapes.size(); ++i) {
    TensorDesc& d = g.tensors[g.inputs[i]];
    MC_CHECK(inputs[i].Name() == d.name, Value, "lite Model.Resize: input ", i, " is '", d.name,
             "', not '", inputs[i].Name(), "'");
    MC_CHECK(shapes[i].size() == d.shape.size(), Value, "lite Model.Resize: input '", d.name,
             "' has rank ", d.shape.size(), "; got shape ", dims_str(shapes[i]));
    dims_numel(shapes[i], "lite Model.Resize: input '" + d.name + "'");
    d.shape = shapes[i];
  }
  infer_shapes(g);
  std::swap(impl_->g, g);
  try {
    impl_->prepare();
  } catch (...) {
    std::swap(impl_->g, g);
    impl_->prepare();
    throw;
  }
}

void Model::Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  Predict(inputs, outputs, nullptr);
}

void Model::Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs,
                    std::vector<double>* node_seconds) {
  const Graph& g = graph();
  Impl& m = *impl_;
  MC_CHECK(inputs.size() == g.inputs.size(), Value, "lite Model.Predict: the model has ",
           g.inputs.size(), " input(s); got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc& d = g.tensors[g.inputs[i]];
    MC_CHECK(inputs[i].DataType() == DType::Float32 && inputs[i].Shape() == d.shape, Value,
             "lite Model.Predict: input '", d.name, "' must be float32 ", dims_str(d.shape),
             "; got ", dtype_name(inputs[i].DataType()), " ", dims_str(inputs[i].Shape()),
             " (Resize the model for other shapes)");
    if (d.nbytes()) std::memcpy(m.at(g.inputs[i]), inputs[i].Data(), d.nbytes());
  }
  const std::vector<NodeDesc>& nodes = m.x.nodes;
  if (node_seconds) node_seconds->resize(nodes.size(), 0.0);
  std::vector<const float*> in;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeDesc& n = nodes[i];
    in.clear();
    for (int t : n.inputs) in.push_back(m.ptr(t));
    if (!node_seconds) {
      m.kernels[i]->run(in.data(), m.at(n.outputs[0]));
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    m.kernels[i]->run(in.data(), m.at(n.outputs[0]));
    (*node_seconds)[i] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  m.outputs.clear();
  for (int t : g.outputs) {
    Tensor o(g.tensors[t].name, DType::Float32, g.tensors[t].shape);
    if (o.DataSize()) std::memcpy(o.MutableData(), m.at(t), o.DataSize());
    m.outputs.push_back(std::move(o));
  }
  if (outputs) *outputs = m.outputs;
}

}  // namespace mycel::lite
