// Backward rules of the array family (ops/defs/array.def): views reshape the cotangent
// back, slices scatter it (StridedSliceGrad), gathers scatter-add it (UnsortedSegmentSum,
// GatherDGrad), joins slice it.
#include <numeric>

#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

const Shape& shape(const Node* n) { return IrBuilder::shape_of(n); }
int64_t rank(const Node* n) { return static_cast<int64_t>(shape(n).size()); }
int64_t norm_axis(int64_t a, int64_t nd) { return a < 0 ? a + nd : a; }
std::vector<int64_t> ints(const Shape& s) { return {s.begin(), s.end()}; }
// Gather(params, indices, axis): out = params[:axis] + idx + params[axis+1:] (batch_dims 0;
// gather_batched below for the rest).
// Move the index dims of dout to the front, flatten them, scatter-add the rows into axis
// with UnsortedSegmentSum, and move that axis back:
//   dparams = transpose(USS(reshape(transpose(dout, idx dims first), [n] + rest),
//                           reshape(indices, [n]), params.shape[axis]), axis to its place)
// With batch_dims k (params [B..., M..., N, R...], indices [B..., I...], output
// [B..., M..., I..., R...]), each batch b gathers from its own rows: flattening B, M, I, R
// to one axis each, row b*N + idx[b, i] of params [B*N, M*R] receives dout[b, :, i, :]:
//   dparams = UnsortedSegmentSum(dout as [B*I, M*R], idx + b*N, B*N), back to params' shape.
Grads gather_batched(BpropArgs& a, int64_t bd) {
  IrBuilder& b = a.b;
  Node *params = a.in[0], *idx = a.in[1];
  const Shape& ps = shape(params);
  const Shape& is = shape(idx);
  const int64_t pn = rank(params), in = rank(idx);
  const int64_t axis = norm_axis(a.attrs.get_int("axis"), pn);
  auto prod = [](const Shape& sh, int64_t from, int64_t to) {
    int64_t r = 1;
    for (int64_t d = from; d < to; ++d) r *= sh[static_cast<size_t>(d)];
    return r;
  };
  const int64_t bt = prod(ps, 0, bd), mt = prod(ps, bd, axis), n = ps[static_cast<size_t>(axis)];
  const int64_t rt = prod(ps, axis + 1, pn), it = prod(is, bd, in);
  Node* d = b.reshape(a.dout, {bt, mt, it, rt});
  d = b.reshape(b.transpose(d, {0, 2, 1, 3}), {bt * it, mt * rt});
  // Row ids: indices made non-negative, offset by b * N.
  Node* ix = b.reshape(idx, {bt, it});
  Node* neg = b.cast(b.less(ix, b.scalar_like(0, ix)), IrBuilder::dtype_of(ix));
  ix = b.add(ix, b.mul_scalar(neg, static_cast<double>(n)));
  Tensor off = Tensor::empty({bt, 1}, IrBuilder::dtype_of(ix));
  for (int64_t k = 0; k < bt; ++k)
    off.reshape({bt})
        .slice(0, k, k + 1, 1)
        .copy_from(Tensor::scalar(Scalar::from_float(static_cast<double>(k * n)), off.dtype())
                       .reshape({1}));
  ix = b.reshape(b.add(ix, b.constant(off)), {bt * it});
  Attrs us;
  us.set("num_segments", bt * n);
  Node* r = b.prim(OpId::UnsortedSegmentSum, {d, ix}, us);
  r = b.transpose(b.reshape(r, {bt, n, mt, rt}), {0, 2, 1, 3});
  return {b.reshape(r, ps), nullptr};
}

// dout[indices] for indices [..., K] into dout's first K axes (a GatherNd, which the op
// table lacks): flat = sum(indices * row-major strides of dout.shape[:K], -1), then
// Gather(reshape(dout, [prod(shape[:K])] + shape[K:]), flat, axis 0) -> [...] + shape[K:].
Node* gather_nd(IrBuilder& b, Node* x, Node* idx) {
  const Shape& xs = shape(x);
  const Shape& is = shape(idx);
  const size_t k = static_cast<size_t>(is.back());
  Tensor st = Tensor::empty({static_cast<int64_t>(k)}, DType::Int64);
  int64_t stride = 1;
  for (size_t d = k; d-- > 0;) {
    st.data<int64_t>()[d] = stride;
    stride *= xs[d];
  }
  Node* flat = b.reduce_sum(b.mul(idx, b.constant(st.cast(IrBuilder::dtype_of(idx)))), {-1});
  Shape rows{stride};
  for (size_t d = k; d < xs.size(); ++d) rows.push_back(xs[d]);
  Attrs g;
  g.set("axis", int64_t{0});
  return b.prim(OpId::Gather, {b.reshape(x, rows), flat}, g);
}

}  // namespace

// Reshape, ExpandDims, Squeeze, Flatten: dx = reshape(dout, x.shape)
Grads bprop_reshape_like(BpropArgs& a) { return {a.b.reshape(a.dout, shape(a.in[0]))}; }
// Transpose: dx = transpose(dout, inverse(perm))
Grads bprop_transpose(BpropArgs& a) {
  const auto& perm = a.attrs.get_ints("perm");
  const int64_t nd = rank(a.in[0]);
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[static_cast<size_t>(norm_axis(perm[i], nd))] = static_cast<int64_t>(i);
  return {a.b.transpose(a.dout, inv)};
}
// BroadcastTo: dx = sum_to(dout, x.shape)
Grads bprop_broadcast_to(BpropArgs& a) { return {a.b.sum_to(a.dout, shape(a.in[0]))}; }
// StridedSlice: dx = StridedSliceGrad(dout, shapex = x.shape, same slice)
Grads bprop_strided_slice(BpropArgs& a) {
  Attrs g = a.attrs;
  g.set("shapex", ints(shape(a.in[0])));
  return {a.b.prim(OpId::StridedSliceGrad, {a.dout}, g)};
}
// StridedSliceGrad (linear; the transpose of StridedSlice): ddy = StridedSlice(g, slice)
Grads bprop_strided_slice_grad(BpropArgs& a) {
  Attrs s;
  for (const auto& [k, v] : a.attrs.items())
    if (k != "shapex") s.set(k, v);
  return {a.b.prim(OpId::StridedSlice, {a.dout}, s)};
}
// Concat(xs, axis): dx_i = dout[..., off_i : off_i + n_i, ...] along axis
Grads bprop_concat(BpropArgs& a) {
  const int64_t nd = rank(a.out), axis = norm_axis(a.attrs.get_int("axis"), nd);
  Grads out;
  int64_t off = 0;
  for (Node* x : a.in) {
    std::vector<int64_t> begin(static_cast<size_t>(nd), 0), end = ints(shape(a.out)),
                                                            strides(static_cast<size_t>(nd), 1);
    int64_t n = shape(x)[static_cast<size_t>(axis)];
    begin[static_cast<size_t>(axis)] = off;
    end[static_cast<size_t>(axis)] = off + n;
    off += n;
    out.push_back(has_cotangent(IrBuilder::dtype_of(x))
                      ? a.b.strided_slice(a.dout, begin, end, strides)
                      : nullptr);
  }
  return out;
}
// Stack(xs, axis): dx_i = reshape(Split(dout, axis, n)[i], x_i.shape)
Grads bprop_stack(BpropArgs& a) {
  const int64_t n = static_cast<int64_t>(a.in.size());
  if (n == 1) return {a.b.reshape(a.dout, shape(a.in[0]))};
  Attrs s;
  s.set("axis", norm_axis(a.attrs.get_int("axis"), rank(a.out)));
  s.set("output_num", n);
  Node* parts = a.b.prim(OpId::Split, {a.dout}, s);
  Grads out;
  for (size_t i = 0; i < a.in.size(); ++i)
    out.push_back(a.b.reshape(a.b.tuple_get(parts, i), shape(a.in[i])));
  return out;
}
// Split(x, axis, n): dx = Concat(douts, axis)
Grads bprop_split(BpropArgs& a) {
  size_t n = a.dout->abstract()->elems.size();
  std::vector<Node*> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(a.b.tuple_get(a.dout, i));
  if (n == 1) return {parts[0]};
  return {a.b.concat(parts, a.attrs.get_int("axis"))};
}
// Tile(x, multiples): view dout as [m_0, s_0, m_1, s_1, ...] (x's shape s padded with 1s in
// front to the length of multiples) and sum the m axes: dx = reshape(sum(dout'), x.shape)
Grads bprop_tile(BpropArgs& a) {
  const auto& m = a.attrs.get_ints("multiples");
  const Shape& xs = shape(a.in[0]);
  const size_t off = m.size() - xs.size();
  Shape split;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < m.size(); ++i) {
    axes.push_back(static_cast<int64_t>(split.size()));
    split.push_back(m[i]);
    split.push_back(i >= off ? xs[i - off] : 1);
  }
  IrBuilder& b = a.b;
  return {b.reshape(b.reduce_sum(b.reshape(a.dout, split), axes, false), xs)};
}
// Pad(x, paddings): dx = dout[before_d : before_d + x.shape[d]] per axis
Grads bprop_pad(BpropArgs& a) {
  const auto& p = a.attrs.get_ints("paddings");
  const Shape& xs = shape(a.in[0]);
  std::vector<int64_t> begin, end, strides(xs.size(), 1);
  for (size_t d = 0; d < xs.size(); ++d) {
    begin.push_back(p[2 * d]);
    end.push_back(p[2 * d] + xs[d]);
  }
  return {a.b.strided_slice(a.dout, begin, end, strides)};
}

Grads bprop_gather(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *params = a.in[0], *idx = a.in[1];
  int64_t bd = a.attrs.get_int("batch_dims");
  if (bd < 0) bd += rank(idx);
  if (bd != 0) return gather_batched(a, bd);
  const Shape& ps = shape(params);
  const int64_t pn = rank(params), in = rank(idx);
  const int64_t axis = norm_axis(a.attrs.get_int("axis"), pn);
  const int64_t on = rank(a.out);
  // dout axes: [0, axis) params prefix, [axis, axis+in) index dims, then params suffix.
  std::vector<int64_t> perm;
  for (int64_t d = axis; d < axis + in; ++d) perm.push_back(d);
  for (int64_t d = 0; d < on; ++d)
    if (d < axis || d >= axis + in) perm.push_back(d);
  Node* d = b.transpose(a.dout, perm);
  int64_t n = numel(shape(idx));
  Shape rows{n};
  for (int64_t k = 0; k < pn; ++k)
    if (k != axis) rows.push_back(ps[static_cast<size_t>(k)]);
  Attrs us;
  us.set("num_segments", ps[static_cast<size_t>(axis)]);
  Node* s = b.prim(OpId::UnsortedSegmentSum, {b.reshape(d, rows), b.reshape(idx, {n})}, us);
  // s is [P_axis, prefix..., suffix...]: put axis 0 back at position `axis`.
  std::vector<int64_t> back;
  for (int64_t k = 1; k <= axis; ++k) back.push_back(k);
  back.push_back(0);
  for (int64_t k = axis + 1; k < pn; ++k) back.push_back(k);
  bool identity = axis == 0;
  return {identity ? s : b.transpose(s, back), nullptr};
}
// UnsortedSegmentSum(x, ids): dx = Gather(dout, ids, axis 0). The forward skips rows whose id
// is outside [0, n): they get 0, and their ids are clipped so that the gather stays in range:
//   dx = select(0 <= ids < n, Gather(dout, clip(ids, 0, n - 1)), 0)
Grads bprop_unsorted_segment_sum(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *x = a.in[0], *ids = a.in[1];
  const int64_t n = a.attrs.get_int("num_segments");
  if (n == 0) return {b.zeros_like(x), nullptr};
  Node* lo = b.scalar_like(0, ids);
  Node* at = b.prim(OpId::Minimum, {b.prim(OpId::Maximum, {ids, lo}), b.scalar_like(n - 1, ids)});
  Node* valid = b.logical_and(b.greater_equal(ids, lo), b.less(ids, b.scalar_like(n, ids)));
  Shape vs = shape(ids);
  vs.resize(static_cast<size_t>(rank(x)), 1);  // ids' dims, then ones: broadcasts against x
  Attrs g;
  g.set("axis", int64_t{0});
  Node* dx = b.prim(OpId::Gather, {a.dout, at}, g);
  return {b.select(b.reshape(valid, vs), dx, b.zeros_like(dx)), nullptr};
}
// GatherD(x, index, dim): dx = GatherDGrad(index, dout, dim, shape = x.shape). A dynamic
// dimension of x (off dim) is -1 in `shape`, which GatherDGrad takes from index: index must
// be dynamic there too, and is taken to span x (a loss's gather of one class per sample).
Grads bprop_gather_d(BpropArgs& a) {
  const Shape &xs = shape(a.in[0]), &is = shape(a.in[1]);
  for (size_t d = 0; d < xs.size(); ++d)
    MC_CHECK(xs[d] >= 0 || (d < is.size() && is[d] < 0), Value,
             "For the gradient of 'GatherD', dimension ", d, " of x (shape ", xs,
             ") is dynamic but the index's (shape ", is, ") is not.");
  Attrs g;
  g.set("dim", a.attrs.get_int("dim"));
  g.set("shape", ints(shape(a.in[0])));
  return {a.b.prim(OpId::GatherDGrad, {a.in[1], a.dout}, g), nullptr};
}
// GatherDGrad(index, dy) (linear in dy; the transpose of GatherD): ddy = GatherD(g, index)
Grads bprop_gather_d_grad(BpropArgs& a) {
  Attrs g;
  g.set("dim", a.attrs.get_int("dim"));
  return {nullptr, a.b.prim(OpId::GatherD, {a.dout, a.in[0]}, g)};
}
// ScatterNd(indices, updates, shape): dupdates = dout[indices]
Grads bprop_scatter_nd(BpropArgs& a) { return {nullptr, gather_nd(a.b, a.dout, a.in[0])}; }
// TensorScatterUpdate(x, indices, updates): the updated entries come from updates:
//   dx = TensorScatterUpdate(dout, indices, 0), dupdates = dout[indices]
Grads bprop_tensor_scatter_update(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* dx = b.prim(OpId::TensorScatterUpdate, {a.dout, a.in[1], b.zeros_like(a.in[2])});
  return {dx, nullptr, gather_nd(b, a.dout, a.in[1])};
}
// MaskedSelect(x, mask) -> [K]: the cotangent goes back to the selected positions of the
// broadcast x, zeros elsewhere, summed back to x's shape:
//   dx = sum_to(MaskedScatter(zeros(broadcast), broadcast(mask), dout), x.shape)
// Integer x gets its cotangent too (as MindSpore's MaskedSelectGrad); bool x none.
Grads bprop_masked_select(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *x = a.in[0], *mask = a.in[1];
  const DType t = IrBuilder::dtype_of(x);
  if (t == DType::Bool) return {nullptr, nullptr};
  const Shape& xs = shape(x);
  const Shape& ms = shape(mask);
  Node* zeros = b.zeros_like(x);
  if (xs != ms) {
    // zeros of the broadcast shape, and the mask broadcast to it (dynamic shapes: by ops).
    Node* mz = b.zeros_like(b.cast(mask, t));
    zeros = b.add(zeros, mz);
    mask = b.greater(b.add(b.cast(mask, t), zeros), mz);
  }
  Node* dx = b.prim(OpId::MaskedScatter, {zeros, mask, a.dout});
  return {b.sum_to(dx, xs), nullptr};
}
// MaskedScatter(x, mask, source): the filled positions came from source's first K elements:
//   dx = Select(mask, 0, dout)
//   dsource = the K elements MaskedSelect(dout, mask) in source's first K places, zeros after
//             (MaskedScatter of them into zeros [n] where position < K), reshaped.
// The positions are an exclusive CumSum of ones, so a dynamic source (the second derivative
// of MaskedSelect) works as a static one.
Grads bprop_masked_scatter(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *mask = a.in[1], *src = a.in[2];
  const Shape& ss = shape(src);
  Node* dx = b.select(mask, b.zeros_like(a.dout), a.dout);
  Node* picked = b.prim(OpId::MaskedSelect, {a.dout, mask});
  const int64_t n = numel(ss);
  Node* flat = b.reshape(src, {is_dynamic(ss) ? kDynamicDim : n});
  Attrs cum;
  cum.set("exclusive", true);
  cum.set("axis", int64_t{0});
  Node* pos = b.prim(OpId::CumSum, {b.cast(b.ones_like(flat), DType::Int64)}, cum);
  Node* k = b.reduce_sum(b.cast(b.ones_like(picked), DType::Int64), {0});
  Node* ds = b.prim(OpId::MaskedScatter, {b.zeros_like(flat), b.less(pos, k), picked});
  return {dx, nullptr, b.reshape(ds, ss)};
}
}  // namespace mycel::ir
