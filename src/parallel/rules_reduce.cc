// Parallel rules of reductions and softmax (rules.h). ReduceSum and ReduceMean: each device
// reduces its slice; the axes that split a reduced dimension become partial (a ReduceMean's
// local mean is scaled by local_scale first, so the sum of the addends is the mean).
// Softmax and LogSoftmax: the softmax axis must be whole on every device; the output is laid
// out as the input.
#include <algorithm>

#include "base/error.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {

int norm_axis(const OpCall& call, int64_t a, size_t nd) {
  const auto n = static_cast<int64_t>(nd);
  MC_CHECK(a >= -n && a < std::max<int64_t>(n, 1), Value, "For '", op_def(call.op).name,
           "', the axis ", a, " is out of range for an input of ", nd, " dimensions", call.where);
  return static_cast<int>(a < 0 ? a + n : a);
}

std::vector<int> softmax_axes(const OpCall& call) {
  const AttrValue& v = call.attrs.get("axis");
  std::vector<int64_t> raw;
  if (const auto* one = std::get_if<int64_t>(&v)) raw.push_back(*one);
  if (const auto* many = std::get_if<std::vector<int64_t>>(&v)) raw = *many;
  std::vector<int> out;
  for (int64_t a : raw) out.push_back(norm_axis(call, a, call.shapes[0].size()));
  return out;
}

}  // namespace

std::vector<int> reduce_axes(const OpCall& call) {
  const size_t nd = call.shapes[0].size();
  std::vector<int> out;
  for (int64_t a : call.attrs.get_ints("axis")) out.push_back(norm_axis(call, a, nd));
  if (out.empty()) {
    for (size_t d = 0; d < nd; ++d) out.push_back(static_cast<int>(d));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LoopSpace reduce_loops(const OpCall& call, const Strategy& s) { return identity_loops(call, s); }

TensorLayout reduce_layout(const OpCall& call, std::span<const TensorLayout> in) {
  std::vector<int> axes = reduce_axes(call);
  const bool keep = call.attrs.get_bool("keep_dims");
  Shape shape;
  TensorMap map;
  Axes partial;
  for (int d = 0; d < in[0].ndim(); ++d) {
    const Axes& a = in[0].map()[static_cast<size_t>(d)];
    if (!std::binary_search(axes.begin(), axes.end(), d)) {
      shape.push_back(in[0].shape()[static_cast<size_t>(d)]);
      map.push_back(a);
      continue;
    }
    partial.insert(partial.end(), a.begin(), a.end());
    if (keep) {
      shape.push_back(1);
      map.emplace_back();
    }
  }
  return TensorLayout(in[0].mesh(), std::move(shape), std::move(map), std::move(partial));
}

LoopSpace softmax_loops(const OpCall& call, const Strategy& s) {
  LoopSpace l = identity_loops(call, s);
  for (int a : softmax_axes(call)) {
    MC_CHECK(s[0][static_cast<size_t>(a)] == 1, Value, describe(call, s), ": the softmax axis ", a,
             " must not be split", call.where);
  }
  return l;
}

TensorLayout softmax_layout(const OpCall& call, std::span<const TensorLayout> in) {
  for (int a : softmax_axes(call)) {
    MC_CHECK(in[0].map()[static_cast<size_t>(a)].empty(), Value, describe(call, in),
             ": the softmax axis ", a, " must not be split", call.where);
  }
  return in[0];
}

}  // namespace mycel::parallel::rules
