// Parallel rules of convolution and pooling (rules.h), NCHW.
//
//   Conv2D(x[N,C,H,W], w[O,C/g,kh,kw])   loop dimensions N, O, C: x runs along N and C, w
//       along O and C; H, W and the kernel are whole (a spatial split needs halo exchange,
//       not built yet), and with groups (g > 1) C and O are whole too. The output [N,O,H',W']
//       is split along N and O and partial over the axes splitting C; each device runs the
//       convolution with its slice's out_channel (local_attrs).
//   MaxPool, AvgPool (x[N,C,H,W])        loop dimensions N, C; H and W whole.
#include "base/error.h"
#include "ops/op_semantics.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {

constexpr const char* kSpatial = "is spatial (a split needs halo exchange, not built yet)";

// The op's output shape on the whole inputs.
Shape whole_output(const OpCall& call) {
  std::vector<TensorMeta> metas;
  for (const Shape& s : call.shapes)
    metas.push_back({DType::Float32, mycel::Shape(s.begin(), s.end())});
  MetaList out = infer_op(op_def(call.op), metas, call.attrs);
  return Shape(out[0].shape.begin(), out[0].shape.end());
}

void check_nchw(const OpCall& call) {
  MC_CHECK(call.shapes[0].size() == 4, Value, "For '", op_def(call.op).name,
           "', semi-automatic parallelism needs a 4-d NCHW input, but got ",
           shape_str(call.shapes[0]), call.where);
}

std::vector<std::vector<int>> conv_dims(const OpCall& call) {
  check_nchw(call);
  return {{0, 2, -1, -1}, {1, 2, -1, -1}};
}

void check_groups(const OpCall& call, const std::vector<int64_t>& splits, const std::string& what) {
  MC_CHECK(call.attrs.get_int("group") == 1 || (splits[1] == 1 && splits[2] == 1), Value, what,
           ": a grouped convolution (group ", call.attrs.get_int("group"),
           ") cannot split its channels yet", call.where);
}

}  // namespace

LoopSpace conv2d_loops(const OpCall& call, const Strategy& s) {
  LoopSpace l = loops_along(call, s, conv_dims(call), 3, kSpatial);
  check_groups(call, l.splits, describe(call, s));
  return l;
}

TensorLayout conv2d_layout(const OpCall& call, std::span<const TensorLayout> in) {
  // Loop dimensions N, O, C are laid out as a [N, O, C] "tensor" would be; the output takes
  // N and O and is partial over C.
  const Shape &x = call.shapes[0], &w = call.shapes[1];
  TensorLayout loops = layout_along(call, in, conv_dims(call), {x[0], w[0], x[1]}, kSpatial);
  std::vector<int64_t> splits{loops.splits(0), loops.splits(1), loops.splits(2)};
  check_groups(call, splits, describe(call, in));
  Shape out = whole_output(call);
  const TensorMap& m = loops.map();
  return TensorLayout(in[0].mesh(), std::move(out), {m[0], m[1], {}, {}}, m[2]);
}

LoopSpace pool_loops(const OpCall& call, const Strategy& s) {
  check_nchw(call);
  return loops_along(call, s, {{0, 1, -1, -1}}, 2, kSpatial);
}

TensorLayout pool_layout(const OpCall& call, std::span<const TensorLayout> in) {
  check_nchw(call);
  const Shape& x = call.shapes[0];
  TensorLayout loops = layout_along(call, in, {{0, 1, -1, -1}}, {x[0], x[1]}, kSpatial);
  const TensorMap& m = loops.map();
  return TensorLayout(in[0].mesh(), whole_output(call), {m[0], m[1], {}, {}});
}

}  // namespace mycel::parallel::rules
