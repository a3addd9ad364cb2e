// Parallel rules of elementwise ops (rules.h): unary ops, binary ops with broadcasting and
// BiasAdd. Loop dimensions: the output's. An input dimension aligned (from the right) with an
// output dimension runs along it, unless it broadcasts (size 1 against a larger size): then it
// is whole. The inputs that run along one loop dimension must split it alike.
#include <algorithm>

#include "base/error.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {
constexpr const char* kBroadcasts = "broadcasts (size 1)";
}  // namespace

// Per input, per dimension: the output dimension it runs along, -1 where it broadcasts; and
// the output shape.
std::vector<std::vector<int>> aligned_dims(const OpCall& call, Shape* out_shape) {
  size_t nd = 0;
  for (const Shape& s : call.shapes) nd = std::max(nd, s.size());
  Shape out(nd, 1);
  for (const Shape& s : call.shapes) {
    for (size_t j = 0; j < s.size(); ++j) {
      int64_t& o = out[j + nd - s.size()];
      MC_CHECK(o == 1 || s[j] == 1 || s[j] == o, Value, "For '", op_def(call.op).name,
               "', the input shapes do not broadcast (", o, " vs ", s[j], ")", call.where);
      if (s[j] != 1) o = s[j];
    }
  }
  std::vector<std::vector<int>> dims;
  for (const Shape& s : call.shapes) {
    std::vector<int> d;
    for (size_t j = 0; j < s.size(); ++j) {
      size_t o = j + nd - s.size();
      d.push_back(s[j] == 1 && out[o] != 1 ? -1 : static_cast<int>(o));
    }
    dims.push_back(std::move(d));
  }
  if (out_shape) *out_shape = std::move(out);
  return dims;
}

LoopSpace loops_along(const OpCall& call, const Strategy& s, std::vector<std::vector<int>> dims,
                      size_t n, const char* whole_why) {
  check_rows(call, s);
  LoopSpace l;
  l.splits.assign(n, 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < dims[i].size(); ++j) {
      int loop = dims[i][j];
      if (loop < 0) {
        MC_CHECK(s[i][j] == 1, Value, describe(call, s), ": dimension ", j, " of input ", i, " ",
                 whole_why, " and cannot be split", call.where);
        continue;
      }
      int64_t& split = l.splits[static_cast<size_t>(loop)];
      MC_CHECK(split == 0 || split == s[i][j], Value, describe(call, s), ": the inputs share",
               " output dimension ", loop, " but cut it into ", split, " and ", s[i][j], " slices",
               call.where);
      split = s[i][j];
    }
  }
  for (int64_t& k : l.splits) k = k == 0 ? 1 : k;
  l.in_dims = std::move(dims);
  return l;
}

TensorLayout layout_along(const OpCall& call, std::span<const TensorLayout> in,
                          const std::vector<std::vector<int>>& dims, Shape shape,
                          const char* whole_why) {
  std::vector<const Axes*> axes(shape.size(), nullptr);
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < dims[i].size(); ++j) {
      const Axes& a = in[i].map()[j];
      int loop = dims[i][j];
      if (loop < 0) {
        MC_CHECK(a.empty(), Value, describe(call, in), ": dimension ", j, " of input ", i, " ",
                 whole_why, " and cannot be split", call.where);
        continue;
      }
      const Axes*& seen = axes[static_cast<size_t>(loop)];
      MC_CHECK(seen == nullptr || *seen == a, Value, describe(call, in),
               ": the inputs split output dimension ", loop, " differently", call.where);
      seen = &a;
    }
  }
  TensorMap map;
  for (const Axes* a : axes) map.push_back(a ? *a : Axes{});
  return TensorLayout(in[0].mesh(), std::move(shape), std::move(map));
}

namespace {

size_t channel_axis(const OpCall& call) {
  const Shape& x = call.shapes[0];
  MC_CHECK(x.size() >= 2 && call.shapes[1].size() == 1, Value, "For 'BiasAdd', the input shapes ",
           shape_str(x), " and ", shape_str(call.shapes[1]), " do not fit the op", call.where);
  return call.attrs.get_str("data_format") == "NHWC" ? x.size() - 1 : 1;
}

}  // namespace

std::vector<std::vector<int>> bias_dims(const OpCall& call) {
  std::vector<int> x;
  for (size_t j = 0; j < call.shapes[0].size(); ++j) x.push_back(static_cast<int>(j));
  return {x, {static_cast<int>(channel_axis(call))}};
}

LoopSpace elementwise_loops(const OpCall& call, const Strategy& s) {
  check_rows(call, s);
  Shape out;
  auto dims = aligned_dims(call, &out);
  return loops_along(call, s, std::move(dims), out.size(), kBroadcasts);
}

TensorLayout elementwise_layout(const OpCall& call, std::span<const TensorLayout> in) {
  Shape out;
  auto dims = aligned_dims(call, &out);
  return layout_along(call, in, dims, std::move(out), kBroadcasts);
}

LoopSpace bias_add_loops(const OpCall& call, const Strategy& s) {
  check_rows(call, s);
  return loops_along(call, s, bias_dims(call), call.shapes[0].size(), kBroadcasts);
}

TensorLayout bias_add_layout(const OpCall& call, std::span<const TensorLayout> in) {
  return layout_along(call, in, bias_dims(call), call.shapes[0], kBroadcasts);
}

}  // namespace mycel::parallel::rules

namespace mycel::parallel {

std::vector<TensorLayout> elementwise_inputs(const OpCall& call, const TensorLayout& out) {
  auto dims =
      call.op == OpId::BiasAdd ? rules::bias_dims(call) : rules::aligned_dims(call, nullptr);
  std::vector<TensorLayout> in;
  for (size_t i = 0; i < dims.size(); ++i) {
    TensorMap map;
    for (int loop : dims[i])
      map.push_back(loop < 0 ? Axes{} : out.map()[static_cast<size_t>(loop)]);
    in.emplace_back(out.mesh(), call.shapes[i], std::move(map));
  }
  return in;
}

}  // namespace mycel::parallel
