#include "lite/train.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/grad_kernels.h"
#include "lite/kernels.h"
#include "lite/model_file.h"

namespace mycel::lite {

namespace {

constexpr const char* kWhat = "lite TrainModel";

void check_cfg(const TrainCfg& c) {
  MC_CHECK(c.optimizer == "SGD" || c.optimizer == "Momentum" || c.optimizer == "Adam", Value, kWhat,
           ": optimizer must be SGD, Momentum or Adam; got '", c.optimizer, "'");
  MC_CHECK(std::isfinite(c.learning_rate) && c.learning_rate >= 0.f, Value, kWhat,
           ": learning_rate must be finite and >= 0; got ", c.learning_rate);
  MC_CHECK(c.momentum >= 0.f && c.dampening >= 0.f && c.weight_decay >= 0.f, Value, kWhat,
           ": momentum, dampening and weight_decay must be >= 0; got ", c.momentum, ", ",
           c.dampening, ", ", c.weight_decay);
  MC_CHECK(c.beta1 >= 0.f && c.beta1 < 1.f && c.beta2 >= 0.f && c.beta2 < 1.f && c.eps > 0.f, Value,
           kWhat, ": Adam needs beta1 and beta2 in [0, 1) and eps > 0; got ", c.beta1, ", ",
           c.beta2, ", ", c.eps);
}

}  // namespace

struct TrainModel::Impl {
  std::string what;
  Context ctx;
  TrainCfg cfg;
  Graph g;
  std::vector<std::vector<float>> val;   // per tensor: a weight's values or an activation
  std::vector<std::vector<float>> grad;  // per tensor that needs a gradient
  std::vector<std::vector<float>> m, v;  // optimizer state per trained weight
  std::vector<char> active;              // depends on a trained weight (or is one)
  std::vector<int> trained;
  std::vector<std::unique_ptr<Kernel>> kernels;
  float b1p = 1.f, b2p = 1.f;  // Adam's beta powers (float32, as mycel keeps them)
  int64_t steps = 0;

  void setup(const std::vector<std::string>& names) {
    MC_CHECK(g.loss == Loss::SoftmaxCrossEntropy, Value, what,
             ": not a training model (convert it with --trainModel=true)");
    const Dims& y = g.tensors[g.outputs[0]].shape;
    MC_CHECK(y.size() == 2, Value, what, ": the loss needs 2-d logits [batch, classes]; output '",
             g.tensors[g.outputs[0]].name, "' is ", dims_str(y));
    // The weights, copied out of the file so that they can change.
    val.assign(g.tensors.size(), {});
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      TensorDesc& d = g.tensors[t];
      if (d.constant) {
        MC_CHECK(d.dtype == DType::Float32, Value, what, ": constant '", d.name,
                 "' is not float32");
        val[t].assign(d.f32(), d.f32() + numel(d.shape));
        d.owned.reset();
      } else {
        val[t].assign(static_cast<size_t>(numel(d.shape)), 0.f);
      }
      d.data = d.constant ? val[t].data() : nullptr;
    }
    pick_trained(names);
    active.assign(g.tensors.size(), 0);
    for (int t : trained) active[t] = 1;
    for (const NodeDesc& n : g.nodes) {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (!active[n.inputs[i]]) continue;
        active[n.outputs[0]] = 1;
        MC_CHECK(n.op != OpType::BatchNorm || i < 3, Value, what, ": '",
                 g.tensors[n.inputs[i]].name, "' is a BatchNorm statistic: not trainable");
      }
    }
    MC_CHECK(active[g.outputs[0]], Value, what, ": output '", g.tensors[g.outputs[0]].name,
             "' does not depend on the trained weights");
    grad.assign(g.tensors.size(), {});
    for (size_t t = 0; t < g.tensors.size(); ++t)
      if (active[t]) grad[t].assign(val[t].size(), 0.f);
    m.assign(g.tensors.size(), {});
    v.assign(g.tensors.size(), {});
    for (int t : trained) m[t].assign(val[t].size(), 0.f), v[t].assign(val[t].size(), 0.f);
    kernels.clear();
    for (const NodeDesc& n : g.nodes) {
      bool reads_trained = false;
      for (int t : n.inputs)
        reads_trained |= std::find(trained.begin(), trained.end(), t) != trained.end();
      const bool gemm_like =
          n.op == OpType::Conv2D || n.op == OpType::FullyConnected || n.op == OpType::MatMul;
      kernels.push_back(reads_trained && gemm_like ? make_ref_kernel(g, n)
                                                   : make_kernel(g, n, ctx.reference));
    }
  }

  void pick_trained(const std::vector<std::string>& names) {
    std::vector<std::string> marked;
    for (size_t t = 0; t < g.tensors.size(); ++t)
      if (g.tensors[t].trainable) marked.push_back(g.tensors[t].name);
    std::string list;
    for (const std::string& s : marked) list += (list.empty() ? "'" : ", '") + s + "'";
    trained.clear();
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const TensorDesc& d = g.tensors[t];
      if (!d.trainable) continue;
      if (names.empty() || std::find(names.begin(), names.end(), d.name) != names.end())
        trained.push_back(static_cast<int>(t));
    }
    for (const std::string& name : names)
      MC_CHECK(std::find(marked.begin(), marked.end(), name) != marked.end(), Value, what, ": '",
               name, "' is not a trainable weight of the model (trainable: ", list, ")");
    MC_CHECK(!trained.empty(), Value, what, ": the model marks no trainable weight");
  }

  void load_inputs(const std::vector<Tensor>& inputs) {
    MC_CHECK(inputs.size() == g.inputs.size(), Value, what, ": the model has ", g.inputs.size(),
             " input(s); got ", inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorDesc& d = g.tensors[g.inputs[i]];
      MC_CHECK(inputs[i].DataType() == DType::Float32 && inputs[i].Shape() == d.shape, Value, what,
               ": input '", d.name, "' must be float32 ", dims_str(d.shape), "; got ",
               dtype_name(inputs[i].DataType()), " ", dims_str(inputs[i].Shape()));
      if (d.nbytes()) std::memcpy(val[g.inputs[i]].data(), inputs[i].Data(), d.nbytes());
    }
  }

  void forward() {
    std::vector<const float*> in;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      in.clear();
      for (int t : g.nodes[i].inputs) in.push_back(val[t].data());
      kernels[i]->run(in.data(), val[g.nodes[i].outputs[0]].data());
    }
  }

  // Softmax cross-entropy of output 0 against `labels`, batch mean; its gradient into grad.
  float loss(const Tensor& labels) {
    const int out = g.outputs[0];
    const int64_t B = g.tensors[out].shape[0], C = g.tensors[out].shape[1];
    MC_CHECK(labels.DataType() == DType::Int32 && labels.Shape() == Dims{B}, Value, what,
             ": labels must be int32 [", B, "]; got ", dtype_name(labels.DataType()), " ",
             dims_str(labels.Shape()));
    const int32_t* y = static_cast<const int32_t*>(labels.Data());
    for (int64_t b = 0; b < B; ++b)
      MC_CHECK(y[b] >= 0 && y[b] < C, Value, what, ": label ", y[b], " (sample ", b,
               ") is outside [0, ", C, ")");
    const float* z = val[out].data();
    float* dz = grad[out].data();
    double total = 0;
    for (int64_t b = 0; b < B; ++b) {
      const float* zb = z + b * C;
      const float mx = *std::max_element(zb, zb + C);
      double sum = 0;
      for (int64_t c = 0; c < C; ++c) sum += std::exp(double(zb[c]) - mx);
      total += std::log(sum) + mx - zb[y[b]];
      for (int64_t c = 0; c < C; ++c)
        dz[b * C + c] += static_cast<float>(
            (std::exp(double(zb[c]) - mx) / sum - (c == y[b] ? 1.0 : 0.0)) / double(B));
    }
    return static_cast<float>(total / double(B));
  }

  void backward() {
    std::vector<const float*> x;
    std::vector<float*> dx;
    std::vector<Dims> shapes;
    for (size_t i = g.nodes.size(); i-- > 0;) {
      const NodeDesc& n = g.nodes[i];
      const int o = n.outputs[0];
      if (!active[o]) continue;
      x.clear(), dx.clear(), shapes.clear();
      for (int t : n.inputs) {
        x.push_back(val[t].data());
        dx.push_back(active[t] ? grad[t].data() : nullptr);
        shapes.push_back(g.tensors[t].shape);
      }
      lite::backward(n, shapes, g.tensors[o].shape, x.data(), val[o].data(), grad[o].data(),
                     dx.data());
    }
  }

  void update() {
    const TrainCfg& c = cfg;
    if (c.optimizer == "Adam") b1p *= c.beta1, b2p *= c.beta2;
    const float adam_lr = c.learning_rate * std::sqrt(1.f - b2p) / (1.f - b1p);
    for (int t : trained) {
      float *p = val[t].data(), *gr = grad[t].data(), *mt = m[t].data(), *vt = v[t].data();
      for (size_t i = 0; i < val[t].size(); ++i) {
        const float gi = gr[i] + c.weight_decay * p[i];
        if (c.optimizer == "SGD") {
          mt[i] = steps == 0 ? gi : c.momentum * mt[i] + (1.f - c.dampening) * gi;
          p[i] -= c.learning_rate * (c.nesterov ? gi + c.momentum * mt[i] : mt[i]);
        } else if (c.optimizer == "Momentum") {
          mt[i] = c.momentum * mt[i] + gi;
          p[i] -= c.learning_rate * (c.nesterov ? gi + c.momentum * mt[i] : mt[i]);
        } else {
          mt[i] = c.beta1 * mt[i] + (1.f - c.beta1) * gi;
          vt[i] = c.beta2 * vt[i] + (1.f - c.beta2) * gi * gi;
          p[i] -= adam_lr * mt[i] / (std::sqrt(vt[i]) + c.eps);
        }
      }
    }
  }

  std::vector<Tensor> outputs() const {
    std::vector<Tensor> out;
    for (int t : g.outputs) {
      Tensor o(g.tensors[t].name, DType::Float32, g.tensors[t].shape);
      if (o.DataSize()) std::memcpy(o.MutableData(), val[t].data(), o.DataSize());
      out.push_back(std::move(o));
    }
    return out;
  }
};

TrainModel::TrainModel() = default;
TrainModel::~TrainModel() = default;

void TrainModel::Build(const std::string& path, const Context& ctx, const TrainCfg& cfg) {
  check_cfg(cfg);
  auto impl = std::make_unique<Impl>();
  impl->what = "training model '" + path + "'";
  impl->ctx = ctx;
  impl->cfg = cfg;
  MappedFile file(path);
  impl->g = read_model(file.data(), file.size(), impl->what, ctx.verify_checksum);
  if (ctx.thread_num > 0) set_num_threads(ctx.thread_num);
  impl->setup(cfg.trainable);  // copies the weights: the mapping may go
  impl_ = std::move(impl);
}

const Graph& TrainModel::graph() const {
  MC_CHECK(impl_, Value, kWhat, ": Build it first");
  return impl_->g;
}

std::vector<Tensor> TrainModel::GetInputs() const {
  const Graph& g = graph();
  std::vector<Tensor> out;
  for (int t : g.inputs) out.emplace_back(g.tensors[t].name, DType::Float32, g.tensors[t].shape);
  return out;
}

float TrainModel::TrainStep(const std::vector<Tensor>& inputs, const Tensor& labels) {
  graph();
  Impl& m = *impl_;
  m.load_inputs(inputs);
  m.forward();
  for (int t = 0; t < static_cast<int>(m.grad.size()); ++t)
    std::fill(m.grad[t].begin(), m.grad[t].end(), 0.f);
  const float loss = m.loss(labels);
  m.backward();
  m.update();
  ++m.steps;
  return loss;
}

void TrainModel::Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  graph();
  impl_->load_inputs(inputs);
  impl_->forward();
  if (outputs) *outputs = impl_->outputs();
}

std::string TrainModel::ExportBytes() const { return write_model(graph(), "mycel lite training"); }

void TrainModel::Export(const std::string& path) const {
  const std::string bytes = ExportBytes();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  MC_CHECK(f.good(), Value, kWhat, ": cannot write '", path, "'");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  MC_CHECK(f.good(), Value, kWhat, ": writing '", path, "' failed");
}

std::vector<std::string> TrainModel::TrainableNames() const {
  const Graph& g = graph();
  std::vector<std::string> out;
  for (int t : impl_->trained) out.push_back(g.tensors[t].name);
  return out;
}

int64_t TrainModel::Steps() const { return impl_ ? impl_->steps : 0; }

}  // namespace mycel::lite
