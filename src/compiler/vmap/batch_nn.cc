// Batching rules of the matrix products and the neural-network ops (ops/defs/linalg.def,
// nn.def). Ops over a leading N axis take the batch folded into N; convolutions whose weights
// are batched take it folded into the channels, as groups (one group of channels and filters
// per example); normalisations fold it into the channels.
#include <algorithm>

#include "base/error.h"
#include "compiler/vmap/batch.h"

namespace mycel::ir {

namespace {

// [B, N, C, ...] -> [N, B*C, ...]: the batch beside the channels.
Node* into_channels(IrBuilder& b, Node* x) {
  Node* t = move_axis(b, x, 0, 1);
  const Shape& s = IrBuilder::shape_of(t);  // [N, B, C, ...]
  Shape r{s[0], s[1] * s[2]};
  for (auto it = s.begin() + 3; it != s.end(); ++it) r.push_back(*it);
  return b.reshape(t, r);
}

// [N, B*C, ...] -> [B, N, C, ...].
Node* out_of_channels(IrBuilder& b, Node* y, int64_t size) {
  const Shape& s = IrBuilder::shape_of(y);
  Shape r{s[0], size, size == 0 ? 0 : s[1] / size};
  for (auto it = s.begin() + 2; it != s.end(); ++it) r.push_back(*it);
  return move_axis(b, b.reshape(y, r), 1, 0);
}

// Every output of y unfolded ([B*N, ...] -> [B, N, ...]).
Node* unfold_all(IrBuilder& b, Node* y, int64_t size) {
  if (y->abstract()->kind != AbsKind::Tuple) return unfold_batch(b, y, size);
  std::vector<Node*> el;
  for (size_t j = 0; j < y->abstract()->elems.size(); ++j)
    el.push_back(unfold_batch(b, b.tuple_get(y, j), size));
  return b.make_tuple(el);
}

bool nchw(const BatchArgs& a) { return a.attrs.get_str("data_format") == "NCHW"; }

// The attributes of a grouped convolution over B examples at once.
Attrs grouped(const BatchArgs& a) {
  Attrs at = a.attrs;
  at.set("group", a.attrs.get_int("group") * a.size);
  at.set("out_channel", a.attrs.get_int("out_channel") * a.size);
  return at;
}

// [B, O, ...] -> [B*O, ...] of a batched weight (or a batched filter-shaped value).
Node* weights_folded(BatchArgs& a, size_t i) { return fold_batch(a.b, a.full(i)); }

}  // namespace

// Ops over a leading N axis, each example its own rows: every input batched and folded into
// N, every output unfolded (pooling and its gradients, SoftmaxCrossEntropyWithLogits).
Node* batch_fold(BatchArgs& a) {
  std::vector<Node*> xs;
  for (size_t i = 0; i < a.in.size(); ++i) xs.push_back(fold_batch(a.b, a.full(i)));
  return unfold_all(a.b, a.call(xs, a.attrs), a.size);
}

// MatMul / BatchMatMul: with only the left operand batched (and not transposed), its rows
// fold into M of one product; otherwise a BatchMatMul whose batch dims broadcast.
Node* batch_matmul(BatchArgs& a) {
  IrBuilder& b = a.b;
  const bool ta = a.attrs.get_bool("transpose_a");
  if (a.op.id == OpId::MatMul && a.is_batched(0) && !a.is_batched(1) && !ta)
    return unfold_batch(b, a.call({fold_batch(b, a.in[0]), a.in[1]}, a.attrs), a.size);
  const int64_t r = std::max(a.rank(0), a.rank(1));
  const OpDef& bmm = op_def(OpId::BatchMatMul);
  return b.emit_typed(bmm, b.type_prim(bmm, {a.aligned(0, r), a.aligned(1, r)}, a.attrs));
}

// BiasAdd(x, bias): an unbatched bias is added to x folded into N; a batched one [B, C] is
// an Add of it shaped to x's channel axis.
Node* batch_bias_add(BatchArgs& a) {
  IrBuilder& b = a.b;
  if (!a.is_batched(1))
    return unfold_batch(b, a.call({fold_batch(b, a.in[0]), a.in[1]}, a.attrs), a.size);
  const int64_t r = a.rank(0);
  const int64_t c = IrBuilder::shape_of(a.in[1]).back();
  Shape s(static_cast<size_t>(r) + 1, 1);
  s[0] = a.size;
  s[nchw(a) ? 2 : static_cast<size_t>(r)] = c;
  return b.add(a.full(0), b.reshape(a.in[1], s));
}

// Conv2D(x, w): unbatched weights see the batch folded into N; batched weights one group
// per example (x [N, B*C, H, W], w [B*O, C/g, kh, kw], group B*g).
Node* batch_conv2d(BatchArgs& a) {
  IrBuilder& b = a.b;
  if (!a.is_batched(1))
    return unfold_batch(b, a.call({fold_batch(b, a.in[0]), a.in[1]}, a.attrs), a.size);
  if (!nchw(a)) return batch_loop(a);
  Node* y = a.call({into_channels(b, a.full(0)), weights_folded(a, 1)}, grouped(a));
  return out_of_channels(b, y, a.size);
}

// Conv2DBackpropInput(dout, w) -> dx of input_size: as Conv2D.
Node* batch_conv2d_backprop_input(BatchArgs& a) {
  IrBuilder& b = a.b;
  std::vector<int64_t> size = a.attrs.get_ints("input_size");
  Attrs at = a.is_batched(1) ? grouped(a) : a.attrs;
  if (!a.is_batched(1)) {
    size[0] *= a.size;
    at.set("input_size", size);
    return unfold_batch(b, a.call({fold_batch(b, a.in[0]), a.in[1]}, at), a.size);
  }
  if (!nchw(a)) return batch_loop(a);
  size[1] *= a.size;
  at.set("input_size", size);
  Node* y = a.call({into_channels(b, a.full(0)), weights_folded(a, 1)}, at);
  return out_of_channels(b, y, a.size);
}

// Conv2DBackpropFilter(dout, x) -> dw of filter_size: one group per example, so each
// example's filter gradient is its own block of B*O filters (per-sample gradients).
Node* batch_conv2d_backprop_filter(BatchArgs& a) {
  IrBuilder& b = a.b;
  if (!nchw(a)) return batch_loop(a);
  Attrs at = grouped(a);
  std::vector<int64_t> size = a.attrs.get_ints("filter_size");
  size[0] *= a.size;
  at.set("filter_size", size);
  Node* dw = a.call({into_channels(b, a.full(0)), into_channels(b, a.full(1))}, at);
  return unfold_batch(b, dw, a.size);
}

// BatchNorm: the batch folded into the channels (each example normalised by its own
// statistics, with its own parameters). In training mode the op also writes the running
// statistics in place, which the examples of a batch cannot share.
Node* batch_batch_norm(BatchArgs& a) {
  IrBuilder& b = a.b;
  MC_CHECK(!a.attrs.get_bool("is_training"), Value,
           "vmap: BatchNorm in training mode updates its running statistics in place, which the "
           "examples of a vmap batch cannot share; use the network in inference mode "
           "(set_train(False)) inside vmap");
  MC_CHECK(nchw(a), Value, "vmap: BatchNorm is batched in the NCHW layout only");
  std::vector<Node*> xs{into_channels(b, a.full(0))};
  for (size_t i = 1; i < 5; ++i)
    xs.push_back(b.reshape(a.full(i), {a.size * IrBuilder::shape_of(a.in[i]).back()}));
  Node* y = a.call(xs, a.attrs);
  std::vector<Node*> el{out_of_channels(b, b.tuple_get(y, 0), a.size)};
  for (size_t j = 1; j < 5; ++j) el.push_back(unfold_batch(b, b.tuple_get(y, j), a.size));
  return b.make_tuple(el);
}

// BatchNormGrad(dy, x, scale, saved_mean, saved_invstd) -> (dx, dscale, dbias): as BatchNorm.
Node* batch_batch_norm_grad(BatchArgs& a) {
  IrBuilder& b = a.b;
  MC_CHECK(nchw(a), Value, "vmap: BatchNormGrad is batched in the NCHW layout only");
  std::vector<Node*> xs{into_channels(b, a.full(0)), into_channels(b, a.full(1))};
  for (size_t i = 2; i < 5; ++i)
    xs.push_back(b.reshape(a.full(i), {a.size * IrBuilder::shape_of(a.in[i]).back()}));
  Node* y = a.call(xs, a.attrs);
  return b.make_tuple({out_of_channels(b, b.tuple_get(y, 0), a.size),
                       unfold_batch(b, b.tuple_get(y, 1), a.size),
                       unfold_batch(b, b.tuple_get(y, 2), a.size)});
}

// LayerNorm(x, gamma, beta): the normalised and parameter axes shift past the batch; batched
// parameters apply after a normalisation with ones and zeros.
Node* batch_layer_norm(BatchArgs& a) {
  IrBuilder& b = a.b;
  const int64_t r = a.rank(0);
  Attrs at = a.attrs;
  at.set("begin_norm_axis", batched_axis(a.attrs.get_int("begin_norm_axis"), r));
  at.set("begin_params_axis", batched_axis(a.attrs.get_int("begin_params_axis"), r));
  if (!a.is_batched(1) && !a.is_batched(2)) return a.call({a.full(0), a.in[1], a.in[2]}, at);
  Shape ps = IrBuilder::shape_of(a.in[1]);
  if (a.is_batched(1)) ps.erase(ps.begin());
  DType dt = IrBuilder::dtype_of(a.in[1]);
  Node* ones = b.constant(Tensor::full(ps, Scalar::from_float(1.0), dt));
  Node* zeros = b.constant(Tensor::full(ps, Scalar::from_float(0.0), dt));
  Node* y = a.call({a.full(0), ones, zeros}, at);
  Node* out = b.add(b.mul(b.tuple_get(y, 0), a.aligned(1, r)), a.aligned(2, r));
  return b.make_tuple({out, b.tuple_get(y, 1), b.tuple_get(y, 2)});
}

// Dropout(x) -> (y, mask): as MindSpore's vmap, a random draw inside vmap is the same for every
// example (a batch of different draws is made outside and passed in): the mask is drawn once
// for one example's shape and applied to each.
Node* batch_dropout(BatchArgs& a) {
  IrBuilder& b = a.b;
  Shape ex = IrBuilder::shape_of(a.in[0]);
  ex.erase(ex.begin());
  DType dt = IrBuilder::dtype_of(a.in[0]);
  Node* d = a.call({b.constant(Tensor::full(ex, Scalar::from_float(1.0), dt))}, a.attrs);
  Node* mask = b.tuple_get(d, 1);
  Shape full = IrBuilder::shape_of(a.in[0]);
  return b.make_tuple({b.mul(a.in[0], b.tuple_get(d, 0)), b.broadcast_to(mask, full)});
}

// CSRMM / COOMM (three sparse parts, dense [R, N]): with only the dense operand batched, the
// batch goes into its columns ([B, R, N] -> [R, B*N]), one product, and back out of the
// output's. A batched sparse part runs per example (batch_loop): one block-diagonal product
// would let a bad index of one example land unchecked in another example's block.
Node* batch_sparse_mm(BatchArgs& a) {
  if (a.is_batched(0) || a.is_batched(1) || a.is_batched(2)) return batch_loop(a);
  IrBuilder& b = a.b;
  const Shape s = IrBuilder::shape_of(a.in[3]);
  if (s.size() != 3 || s[1] < 0 || s[2] < 0) return batch_loop(a);
  Node* d = b.reshape(move_axis(b, a.in[3], 0, 1), {s[1], a.size * s[2]});
  Node* y = a.call({a.in[0], a.in[1], a.in[2], d}, a.attrs);
  const int64_t rows = IrBuilder::shape_of(y)[0];
  return move_axis(b, b.reshape(y, {rows, a.size, s[2]}), 1, 0);
}

// FFTN: the batch axis is not transformed; every axis (normalised per example) shifts by one.
Node* batch_fftn(BatchArgs& a) {
  Attrs at = a.attrs;
  std::vector<int64_t> axes = a.attrs.get_ints("axes");
  for (int64_t& ax : axes) ax = batched_axis(ax, a.rank(0));
  at.set("axes", axes);
  return a.call({a.in[0]}, at);
}

}  // namespace mycel::ir
