#include "parallel/cost_model.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace mycel::parallel {

namespace {

double numel(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  return n;
}

double steps(int64_t g) { return std::ceil(std::log2(static_cast<double>(g))); }

}  // namespace

CostProfile profile_from(const std::vector<double>& v) {
  if (v.empty()) return CostProfile{};
  MC_CHECK(v.size() == 6 || (v.size() >= 9 && (v.size() - 9) % 2 == 0), Value,
           "auto_parallel: a cost profile has 6 numbers (peak_flops, "
           "mem_bandwidth, alpha, beta, optimizer_factor, max_device_memory), then optionally "
           "the search's 3 bounds (fully_use_devices, approx_keep, slice_align) and k "
           "axis_alpha then k axis_beta, but got ",
           v.size());
  MC_CHECK(v[0] > 0 && v[1] > 0 && v[2] > 0 && v[3] > 0 && v[4] >= 0 && v[5] >= 0, Value,
           "auto_parallel: the cost profile's rates, latency and byte cost must be positive "
           "and its optimizer factor and memory limit not negative, but got peak_flops ",
           v[0], ", mem_bandwidth ", v[1], ", alpha ", v[2], ", beta ", v[3], ", optimizer_factor ",
           v[4], ", max_device_memory ", v[5]);
  CostProfile p;
  p.peak_flops = v[0];
  p.mem_bandwidth = v[1];
  p.alpha = v[2];
  p.beta = v[3];
  p.optimizer_factor = v[4];
  p.max_device_memory = v[5];
  if (v.size() == 9) {
    MC_CHECK(v[6] >= 0 && v[7] >= 0 && v[8] >= 0, Value,
             "auto_parallel: the search's bounds must not be negative, but got ", v[6], ", ", v[7],
             ", ", v[8]);
    p.fully_use_devices = v[6] != 0;
    p.approx_keep = static_cast<int64_t>(v[7]);
    p.slice_align = static_cast<int64_t>(v[8]);
  }
  const size_t k = v.size() > 9 ? (v.size() - 9) / 2 : 0;
  for (size_t i = 0; i < k; ++i) {
    const double a = v[9 + i], b = v[9 + k + i];
    MC_CHECK(a > 0 && b > 0, Value,
             "auto_parallel: the cost profile's axis_alpha and axis_beta must be positive, but "
             "got axis_alpha[",
             i, "] ", a, ", axis_beta[", i, "] ", b);
    p.axis_alpha.push_back(a);
    p.axis_beta.push_back(b);
  }
  return p;
}

std::pair<double, double> CostProfile::link(const Axes& axes) const {
  if (axes.empty()) return {alpha, beta};
  double a = 0, b = 0;
  for (int x : axes) {
    const size_t i = static_cast<size_t>(x);
    a = std::max(a, x >= 0 && i < axis_alpha.size() ? axis_alpha[i] : alpha);
    b = std::max(b, x >= 0 && i < axis_beta.size() ? axis_beta[i] : beta);
  }
  return {a, b};
}

double op_flops(const OpCall& call, std::span<const Shape> in, std::span<const Shape> out) {
  const double o = out.empty() ? 0 : numel(out[0]);
  const double x = in.empty() ? 0 : numel(in[0]);
  switch (rule_family(call.op)) {
    case RuleFamily::MatMul: {
      const Shape& a = in[0];
      const bool ta = call.attrs.get_bool("transpose_a");
      const double k = static_cast<double>(a[a.size() - (ta ? 2 : 1)]);
      return 2 * o * k;
    }
    case RuleFamily::Conv2D: {
      const Shape& w = in[1];  // [c_out, c_in, kh, kw] of the slice
      return 2 * o * numel(w) / static_cast<double>(std::max<int64_t>(w[0], 1));
    }
    case RuleFamily::Unary:
    case RuleFamily::Binary:
    case RuleFamily::BiasAdd:
      return o;
    case RuleFamily::Reduce:
    case RuleFamily::Pool:
      return x;
    case RuleFamily::Softmax:
      return 5 * x;
    case RuleFamily::LayerNorm:
      return 8 * x;
    case RuleFamily::SoftmaxLoss:
      return 6 * x;
    case RuleFamily::Gather:
    case RuleFamily::Reshape:
    case RuleFamily::Transpose:
    case RuleFamily::None:
      return 0;
  }
  return 0;
}

double compute_seconds(const OpCall& call, std::span<const TensorLayout> in,
                       std::span<const TensorLayout> out, int64_t elem_bytes,
                       const CostProfile& p) {
  std::vector<Shape> ins, outs;
  double bytes = 0;
  for (const TensorLayout& l : in) {
    ins.push_back(l.slice_shape());
    bytes += slice_bytes(l, elem_bytes);
  }
  for (const TensorLayout& l : out) {
    outs.push_back(l.slice_shape());
    bytes += slice_bytes(l, elem_bytes);
  }
  return std::max(op_flops(call, ins, outs) / p.peak_flops, bytes / p.mem_bandwidth);
}

std::vector<AlgorithmCost> algorithm_seconds(MoveKind kind, int64_t g, double s,
                                             const CostProfile& p, const Axes& axes) {
  if (g <= 1) return {};
  const auto [a, b] = p.link(axes);
  const double n = static_cast<double>(g), lg = steps(g);
  switch (kind) {
    case MoveKind::Split:
    case MoveKind::Partial:
      return {};
    case MoveKind::AllReduce:
      return {{"ring", 2 * (n - 1) * (a + s / n * b)},
              {"doubling", lg * (a + s * b)},
              {"halving-doubling", 2 * lg * a + 2 * (n - 1) / n * s * b}};
    case MoveKind::AllGather:
      return {{"ring", (n - 1) * (a + s * b)}, {"doubling", lg * a + (n - 1) * s * b}};
    case MoveKind::ReduceScatter:
      return {{"ring", (n - 1) * (a + s / n * b)}, {"halving", lg * a + (n - 1) / n * s * b}};
    case MoveKind::AllToAll:
      return {{"pairwise", (n - 1) * (a + s / n * b)}, {"Bruck", lg * (a + s / 2 * b)}};
  }
  return {};
}

namespace {

double least(const std::vector<AlgorithmCost>& algs) {
  double t = 0;
  for (size_t i = 0; i < algs.size(); ++i)
    if (i == 0 || algs[i].seconds < t) t = algs[i].seconds;
  return t;
}

}  // namespace

double collective_seconds(MoveKind kind, int64_t g, double s, const CostProfile& p,
                          const Axes& axes) {
  return least(algorithm_seconds(kind, g, s, p, axes));
}

std::vector<AlgorithmCost> broadcast_algorithms(int64_t g, double s, const CostProfile& p,
                                                const Axes& axes) {
  if (g <= 1) return {};
  const auto [a, b] = p.link(axes);
  const double n = static_cast<double>(g), lg = steps(g);
  return {{"binomial", lg * (a + s * b)},
          {"scatter-allgather", 2 * lg * a + 2 * (n - 1) / n * s * b}};
}

double broadcast_seconds(int64_t g, double s, const CostProfile& p, const Axes& axes) {
  return least(broadcast_algorithms(g, s, p, axes));
}

double slice_bytes(const TensorLayout& l, int64_t elem_bytes) {
  return static_cast<double>(l.slice_numel()) * static_cast<double>(elem_bytes);
}

std::vector<MoveCost> redistribution_costs(const TensorLayout& from, const TensorLayout& to,
                                           int64_t elem_bytes, const CostProfile& p) {
  std::vector<MoveCost> out;
  if (from == to) return out;
  TensorLayout cur = from;
  for (const Move& m : plan_redistribution(from, to, elem_bytes)) {
    const int64_t g = cur.mesh().group_size(m.axes);
    out.push_back({m.kind, m.axes, g, m.bytes,
                   collective_seconds(m.kind, g, slice_bytes(cur, elem_bytes), p, m.axes)});
    cur = apply_move(cur, m);
  }
  return out;
}

double redistribution_seconds(const TensorLayout& from, const TensorLayout& to, int64_t elem_bytes,
                              const CostProfile& p) {
  double t = 0;
  for (const MoveCost& c : redistribution_costs(from, to, elem_bytes, p)) t += c.seconds;
  return t;
}

}  // namespace mycel::parallel
