// Full int8 post-training quantization (converter/quant.h): calibration of the activations
// (MAX_MIN or KL), int8 weights and int32 biases, the activations kept uint8 between int8
// layers, and bias correction. The graph runs on the runtime's own kernels (a small runner keeping every
// tensor), so calibration sees exactly what the runtime computes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>

#include "base/error.h"
#include "converter/passes/passes.h"
#include "converter/quant.h"
#include "lite/kernels.h"
#include "lite/quant.h"

namespace mycel::converter {

namespace {

using lite::Graph;
using lite::NodeDesc;
using lite::TensorDesc;

constexpr int kBins = 2048;

// Runs a graph node by node on the runtime's kernels, keeping every tensor's values.
struct Runner {
  const Graph& g;
  std::vector<std::unique_ptr<lite::Kernel>> kernels;
  std::vector<std::vector<float>> vals;

  explicit Runner(const Graph& graph) : g(graph), vals(graph.tensors.size()) {
    for (const NodeDesc& n : g.nodes) kernels.push_back(lite::make_kernel(g, n, false));
  }
  const float* ptr(int t) const {
    return g.tensors[t].constant ? g.tensors[t].f32() : vals[t].data();
  }
  void run(const Sample& s) {
    for (size_t i = 0; i < g.inputs.size(); ++i) vals[g.inputs[i]] = s[i];
    std::vector<const float*> in;
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      const NodeDesc& n = g.nodes[k];
      in.clear();
      for (int t : n.inputs) in.push_back(ptr(t));
      vals[n.outputs[0]].resize(static_cast<size_t>(lite::numel(g.tensors[n.outputs[0]].shape)));
      kernels[k]->run(in.data(), vals[n.outputs[0]].data());
    }
  }
};

// What calibration learns of one activation tensor.
struct Stats {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  std::vector<double> hist;  // of nonzero |x| over [0, max(|lo|, |hi|)], KL only
  float amax() const { return std::max(std::fabs(lo), std::fabs(hi)); }
};

// The threshold of |x| whose clipped, `levels`-level quantization of the histogram is
// closest in KL divergence to the histogram itself (TensorRT's entropy calibration).
float kl_threshold(const Stats& s, int levels) {
  const std::vector<double>& h = s.hist;
  const double width = s.amax() / kBins;
  double best = std::numeric_limits<double>::max();
  int best_i = kBins;
  std::vector<double> p, qd;
  for (int i = levels; i <= kBins; ++i) {
    p.assign(h.begin(), h.begin() + i);
    for (int j = i; j < kBins; ++j) p[i - 1] += h[j];
    qd.assign(i, 0.0);
    for (int l = 0; l < levels; ++l) {  // bins [a, b) merge into level l, spread back evenly
      const int a = static_cast<int>(int64_t{l} * i / levels);
      const int b = static_cast<int>(int64_t{l + 1} * i / levels);
      double sum = 0;
      int nonzero = 0;
      for (int j = a; j < b; ++j) sum += h[j], nonzero += h[j] > 0;
      for (int j = a; j < b; ++j) qd[j] = h[j] > 0 ? sum / nonzero : 0.0;
    }
    double ps = 0, qs = 0, kl = 0;
    for (int j = 0; j < i; ++j) ps += p[j], qs += qd[j];
    if (ps <= 0 || qs <= 0) continue;
    for (int j = 0; j < i; ++j)
      if (p[j] > 0) kl += p[j] / ps * std::log((p[j] / ps) / std::max(qd[j] / qs, 1e-12));
    if (kl < best) best = kl, best_i = i;
  }
  return static_cast<float>((best_i + 0.5) * width);
}

// Asymmetric uint8 parameters of the range [lo, hi] (widened to hold 0).
lite::Quant activation_params(float lo, float hi) {
  lo = std::min(lo, 0.f), hi = std::max(hi, 0.f);
  const float scale = hi > lo ? (hi - lo) / 255.f : 1.f;
  const int64_t zp = std::clamp<int64_t>(std::llround(-lo / scale), 0, 255);
  return lite::Quant{{scale}, {zp}, -1, 8};
}

// The input tensors of the nodes to quantize: Conv2D / FullyConnected with a float32
// constant weight and an activation input.
std::vector<int> quantizable(const Graph& g) {
  std::vector<int> out;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const NodeDesc& n = g.nodes[k];
    if (n.op != lite::OpType::Conv2D && n.op != lite::OpType::FullyConnected) continue;
    const TensorDesc &x = g.tensors[n.inputs[0]], &w = g.tensors[n.inputs[1]];
    if (x.constant || !w.constant || w.dtype != lite::DType::Float32) continue;
    if (n.inputs.size() == 3 && !g.tensors[n.inputs[2]].constant) continue;
    out.push_back(static_cast<int>(k));
  }
  return out;
}

// The statistics of every activation (any may be an int8 node's input or a uint8 one).
std::vector<Stats> calibrate(const Graph& g, const std::vector<Sample>& samples, bool kl) {
  Runner r(g);
  std::vector<Stats> st(g.tensors.size());
  std::vector<int> acts;
  for (const NodeDesc& n : g.nodes) acts.push_back(n.outputs[0]);
  acts.insert(acts.end(), g.inputs.begin(), g.inputs.end());
  for (const Sample& s : samples) {
    r.run(s);
    for (int t : acts)
      for (float v : r.vals[t]) st[t].lo = std::min(st[t].lo, v), st[t].hi = std::max(st[t].hi, v);
  }
  if (!kl) return st;
  for (int t : acts)  // one-sided tensors only (see full_quantize)
    if (st[t].lo >= 0.f) st[t].hist.assign(kBins, 0.0);
  for (const Sample& s : samples) {
    r.run(s);
    for (int t : acts) {
      Stats& a = st[t];
      if (a.hist.empty() || a.amax() <= 0.f) continue;
      const float inv = kBins / a.amax();
      for (float v : r.vals[t])  // zeros (ReLU's many) are exact at any threshold: left out
        if (v != 0.f) ++a.hist[std::min(kBins - 1, static_cast<int>(std::fabs(v) * inv))];
    }
  }
  return st;
}

// The parameters of activation t from its statistics (KL: one-sided tensors clipped).
lite::Quant params_of(const Stats& s, bool kl) {
  float lo = s.lo, hi = s.hi;
  if (kl && lo >= 0.f && hi > 0.f) hi = std::min(hi, kl_threshold(s, 255));
  return activation_params(lo, hi);
}

// The activations kept uint8 (lite/quant.h): every tensor a node writes and other nodes read,
// less, until none changes, each whose writer may not write it or some reader may not read it
// as uint8 (reads_u8 / writes_u8, the runtime's rule). Graph outputs stay float32.
std::vector<char> u8_activations(const Graph& g) {
  const size_t nt = g.tensors.size();
  std::vector<char> u8(nt, 0);
  std::vector<int> writer(nt, -1);
  std::vector<std::vector<std::pair<int, size_t>>> reads(nt);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const NodeDesc& n = g.nodes[k];
    writer[n.outputs[0]] = static_cast<int>(k), u8[n.outputs[0]] = 1;
    for (size_t i = 0; i < n.inputs.size(); ++i) reads[n.inputs[i]].emplace_back(k, i);
  }
  for (int t : g.outputs) u8[t] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t t = 0; t < nt; ++t) {
      if (!u8[t]) continue;
      bool ok = lite::writes_u8(g, g.nodes[writer[t]], u8);
      for (auto [k, i] : reads[t]) ok = ok && lite::reads_u8(g, g.nodes[k], i, u8);
      if (!ok) u8[t] = 0, changed = true;
    }
  }
  return u8;
}

// A constant of its own for node input `slot` (a shared one is copied) and its index.
int own_constant(Graph& g, NodeDesc& n, size_t slot) {
  const int t = n.inputs[slot];
  if (passes::readers(g, t) == 1) return t;
  TensorDesc copy = g.tensors[t];
  copy.name += "/" + n.name;
  n.inputs[slot] = g.add_tensor(std::move(copy));
  return n.inputs[slot];
}

// The float32 bias of node k of the float graph `fp` (zeros without one).
std::vector<float> float_bias(const Graph& fp, int k) {
  const NodeDesc& n = fp.nodes[k];
  std::vector<float> bias(static_cast<size_t>(fp.tensors[n.inputs[1]].shape[0]), 0.f);
  if (n.inputs.size() == 3) std::copy_n(fp.tensors[n.inputs[2]].f32(), bias.size(), bias.begin());
  return bias;
}

// Sets int8 node k's Int32 bias from the float one, at scale s_x s_w[o] of its input's and
// weight's current parameters.
void set_int32_bias(Graph& g, int k, const std::vector<float>& bias) {
  const NodeDesc& n = g.nodes[k];
  const float sx = g.tensors[n.inputs[0]].quant.scale[0];
  const std::vector<float>& sw = g.tensors[n.inputs[1]].quant.scale;
  const int64_t O = static_cast<int64_t>(bias.size());
  TensorDesc& b = g.tensors[n.inputs[2]];
  std::vector<int32_t> bq(static_cast<size_t>(O));
  lite::Quant bp{{}, std::vector<int64_t>(static_cast<size_t>(O), 0), 0, 8};
  for (int64_t o = 0; o < O; ++o) {
    const float s = sx * sw[sw.size() == 1 ? 0 : o];
    bp.scale.push_back(s);
    bq[o] = static_cast<int32_t>(
        std::clamp<double>(std::nearbyint(bias[o] / s), -2147483647.0, 2147483647.0));
  }
  auto bb = std::make_shared<std::vector<uint8_t>>(bq.size() * 4);
  std::memcpy(bb->data(), bq.data(), bb->size());
  b.owned = bb, b.data = bb->data(), b.dtype = lite::DType::Int32, b.quant = bp;
}

// Rewrites node k to int8: Int8 weights, an Int32 bias (made when absent).
void quantize_node(Graph& g, int k, bool per_channel) {
  NodeDesc& n = g.nodes[k];
  const std::vector<float> bias = float_bias(g, k);
  TensorDesc& w = g.tensors[own_constant(g, n, 1)];
  QuantizedWeight q = quantize_symmetric(w, per_channel);
  w.quant = lite::Quant{q.scale, std::vector<int64_t>(q.scale.size(), 0), 0, 8};
  auto wb = std::make_shared<std::vector<uint8_t>>(q.q.size());
  std::memcpy(wb->data(), q.q.data(), q.q.size());
  w.owned = wb, w.data = wb->data(), w.dtype = lite::DType::Int8;
  if (n.inputs.size() == 3) {
    own_constant(g, n, 2);
  } else {
    TensorDesc b;
    b.name = n.name + "/bias";
    b.constant = true;
    b.shape = {static_cast<int64_t>(bias.size())};
    n.inputs.push_back(g.add_tensor(std::move(b)));
  }
  set_int32_bias(g, k, bias);
}

// Keeps the activations `u8` marks uint8: parameters from calibration (an int8 node's input
// keeps its own), a Pool's or Reshape's output its input's (an int8 node reading it gets its
// bias again at the new scale); then the dtype. Returns how many.
int keep_u8(Graph& g, const Graph& fp, const std::vector<char>& u8, const std::vector<Stats>& st,
            bool kl) {
  int count = 0;
  for (const NodeDesc& n : g.nodes) {
    const int t = n.outputs[0];
    if (!u8[t]) continue;
    ++count;
    if (n.op == lite::OpType::Pool || n.op == lite::OpType::Reshape)
      g.tensors[t].quant = g.tensors[n.inputs[0]].quant;
    else if (g.tensors[t].quant.scale.empty())
      g.tensors[t].quant = params_of(st[t], kl);
  }
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const int t = g.nodes[k].inputs[0];
    if (u8[t] && lite::is_int8_node(g, g.nodes[k]))
      set_int32_bias(g, static_cast<int>(k), float_bias(fp, static_cast<int>(k)));
  }
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (u8[t]) g.tensors[t].dtype = lite::DType::UInt8;
  return count;
}

// Bias correction: each int8 node's mean output error per channel (its float32 input from the
// float model, before the activation) moved out of its int32 bias.
void correct_biases(const Graph& fp, Graph& q, const std::vector<int>& nodes,
                    const std::vector<Sample>& samples) {
  Runner r(fp);
  struct Layer {
    std::unique_ptr<lite::Kernel> f, i;
    std::vector<double> err;
    int64_t inner = 1;
  };
  std::vector<Layer> layers;
  Graph qf = q;  // each node alone, from and to float32
  for (TensorDesc& d : qf.tensors)
    if (lite::is_u8(d)) d.dtype = lite::DType::Float32;
  for (int k : nodes) {
    NodeDesc nf = fp.nodes[k], nq = q.nodes[k];
    nf.a.act = nq.a.act = lite::Act::None;
    Layer l{lite::make_kernel(fp, nf, false), lite::make_kernel(qf, nq, false), {}, 1};
    const lite::Dims& y = fp.tensors[nf.outputs[0]].shape;
    l.err.assign(static_cast<size_t>(y[1]), 0.0);
    for (size_t d = 2; d < y.size(); ++d) l.inner *= y[d];
    layers.push_back(std::move(l));
  }
  std::vector<float> yf, yq;
  for (const Sample& s : samples) {
    r.run(s);
    for (size_t j = 0; j < nodes.size(); ++j) {
      const NodeDesc& nf = fp.nodes[nodes[j]];
      const NodeDesc& nq = q.nodes[nodes[j]];
      yf.resize(r.vals[nf.outputs[0]].size()), yq.resize(yf.size());
      std::vector<const float*> inf, inq;
      for (int t : nf.inputs) inf.push_back(r.ptr(t));
      for (int t : nq.inputs)
        inq.push_back(q.tensors[t].constant ? static_cast<const float*>(q.tensors[t].data)
                                            : r.vals[nf.inputs[0]].data());
      layers[j].f->run(inf.data(), yf.data());
      layers[j].i->run(inq.data(), yq.data());
      const int64_t C = static_cast<int64_t>(layers[j].err.size());
      for (size_t e = 0; e < yf.size(); ++e)
        layers[j].err[(static_cast<int64_t>(e) / layers[j].inner) % C] += yq[e] - yf[e];
    }
  }
  for (size_t j = 0; j < nodes.size(); ++j) {
    const NodeDesc& n = q.nodes[nodes[j]];
    TensorDesc& b = q.tensors[n.inputs[2]];
    const int64_t C = static_cast<int64_t>(layers[j].err.size());
    const double count = static_cast<double>(samples.size()) *
                         static_cast<double>(lite::numel(fp.tensors[n.outputs[0]].shape) / C);
    auto bytes = std::make_shared<std::vector<uint8_t>>(*b.owned);
    int32_t* bq = reinterpret_cast<int32_t*>(bytes->data());
    for (int64_t o = 0; o < C; ++o) {
      const double shift = std::nearbyint(layers[j].err[o] / count / b.quant.scale[o]);
      bq[o] = static_cast<int32_t>(std::clamp(bq[o] - shift, -2147483647.0, 2147483647.0));
    }
    b.owned = bytes, b.data = bytes->data();
  }
}

}  // namespace

void full_quantize(Graph& g, const QuantConfig& c, const std::vector<Sample>& samples,
                   std::ostream& out) {
  const std::vector<int> nodes = quantizable(g);
  const bool kl = c.method == QuantConfig::Method::KL;
  std::vector<Stats> st = calibrate(g, samples, kl);
  const Graph fp = g;
  for (int k : nodes) {
    const int t = g.nodes[k].inputs[0];
    if (g.tensors[t].quant.scale.empty()) g.tensors[t].quant = params_of(st[t], kl);
  }
  for (int k : nodes) quantize_node(g, k, c.per_channel);
  const int kept = keep_u8(g, fp, u8_activations(g), st, kl);
  if (c.bias_correction) correct_biases(fp, g, nodes, samples);
  lite::validate(g, "the quantized graph");
  out << "Quantized " << nodes.size() << " of " << g.nodes.size() << " nodes to int8 (activations "
      << (kl ? "KL" : "MAX_MIN") << ", weights " << (c.per_channel ? "per channel" : "per tensor")
      << (c.bias_correction ? ", bias corrected" : "") << ") on " << samples.size()
      << " calibration sample(s); " << kept << " activation(s) kept uint8\n";
}

}  // namespace mycel::converter
