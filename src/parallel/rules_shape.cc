// Parallel rules of Reshape (and Flatten, a Reshape to [N, the rest]) and Transpose (rules.h).
// Transpose permutes the tensor map. Reshape keeps a layout only where every device's slice stays
// one block of the result: the dimensions are grouped into the shortest runs of equal size on both
// sides
// ([4, 6] -> [24], [24] -> [2, 12]); within a run only its first dimension (after size-1
// ones) may be split, and the run's first output dimension of size above 1 then takes the
// same mesh axes, which must divide it.
#include "base/error.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {

// The reshape's target shape, a -1 entry resolved; a Flatten's [N, the rest].
Shape target_shape(const OpCall& call) {
  int64_t numel = 1, known = 1;
  for (int64_t d : call.shapes[0]) numel *= d;
  if (call.op == OpId::Flatten) {
    MC_CHECK(!call.shapes[0].empty(), Value,
             "For 'Flatten', the input must have at least 1 "
             "dimension",
             call.where);
    return {call.shapes[0][0], call.shapes[0][0] ? numel / call.shapes[0][0] : 0};
  }
  Shape out;
  int infer = -1;
  for (int64_t d : call.attrs.get_ints("shape")) {
    if (d == -1)
      infer = static_cast<int>(out.size());
    else
      known *= d;
    out.push_back(d);
  }
  if (infer >= 0 && known != 0) out[static_cast<size_t>(infer)] = numel / known;
  int64_t got = 1;
  for (int64_t d : out) got *= d;
  MC_CHECK(got == numel, Value, "For 'Reshape', the input of shape ", shape_str(call.shapes[0]),
           " cannot be reshaped to ", shape_str(out), call.where);
  return out;
}

}  // namespace

LoopSpace reshape_loops(const OpCall& call, const Strategy& s) { return identity_loops(call, s); }

TensorLayout reshape_layout(const OpCall& call, std::span<const TensorLayout> in) {
  const Shape& from = call.shapes[0];
  Shape to = target_shape(call);
  const TensorMap& map = in[0].map();
  TensorMap out(to.size());
  bool empty = false;
  for (int64_t d : from) empty |= d == 0;
  for (int64_t d : to) empty |= d == 0;
  size_t i = 0, o = 0;
  while (!empty && (i < from.size() || o < to.size())) {
    // One run: [i, i1) of the input and [o, o1) of the output, of equal size.
    size_t i1 = i, o1 = o;
    int64_t pi = 1, po = 1;
    do {
      if (i1 < from.size() && (pi <= po || o1 == to.size()))
        pi *= from[i1++];
      else
        po *= to[o1++];
    } while (pi != po);
    size_t first_in = i;
    while (first_in + 1 < i1 && from[first_in] == 1) ++first_in;
    size_t first_out = o;
    while (first_out + 1 < o1 && to[first_out] == 1) ++first_out;
    for (size_t d = i; d < i1; ++d) {
      if (map[d].empty() || d == first_in) continue;
      MC_THROW(Value, describe(call, in), ": reshaping ", shape_str(from), " to ", shape_str(to),
               " would cut across split dimension ", d, " (only the leading dimension of the",
               " merged or divided dimensions may be split)", call.where);
    }
    if (first_in < i1 && !map[first_in].empty()) {
      int64_t k = in[0].splits(static_cast<int>(first_in));
      MC_CHECK(first_out < o1 && to[first_out] % k == 0, Value, describe(call, in), ": reshaping ",
               shape_str(from), " to ", shape_str(to), " would cut across split dimension ",
               first_in, " (its ", k, " slices are no blocks of the result)", call.where);
      out[first_out] = map[first_in];
    }
    i = i1;
    o = o1;
  }
  if (empty) {
    for (const Axes& a : map) {
      MC_CHECK(a.empty(), Value, describe(call, in), ": an empty tensor cannot be reshaped split",
               call.where);
    }
  }
  return TensorLayout(in[0].mesh(), std::move(to), std::move(out));
}

LoopSpace transpose_loops(const OpCall& call, const Strategy& s) { return identity_loops(call, s); }

TensorLayout transpose_layout(const OpCall& call, std::span<const TensorLayout> in) {
  const auto& perm = call.attrs.get_ints("perm");
  const auto nd = static_cast<int64_t>(in[0].ndim());
  MC_CHECK(static_cast<int64_t>(perm.size()) == nd, Value, describe(call, in), ": the permutation",
           " needs one entry per dimension", call.where);
  Shape shape;
  TensorMap map;
  for (int64_t p : perm) {
    int64_t a = p < 0 ? p + nd : p;
    MC_CHECK(a >= 0 && a < nd, Value, describe(call, in), ": the permutation entry ", p,
             " is out of range", call.where);
    shape.push_back(in[0].shape()[static_cast<size_t>(a)]);
    map.push_back(in[0].map()[static_cast<size_t>(a)]);
  }
  return TensorLayout(in[0].mesh(), std::move(shape), std::move(map));
}

}  // namespace mycel::parallel::rules
