// Batching rules of the shape and data-movement ops (ops/defs/array.def).
#include <algorithm>

#include "base/error.h"
#include "compiler/vmap/batch.h"
#include "ops/op_semantics.h"

namespace mycel::ir {

namespace {

Shape per_example(const Node* x, bool batched) {
  Shape s = IrBuilder::shape_of(x);
  if (batched) s.erase(s.begin());
  return s;
}

// The per-example output shape of the call (the op's own inference on per-example inputs).
Shape example_out(const BatchArgs& a) {
  std::vector<TensorMeta> metas;
  for (size_t i = 0; i < a.in.size(); ++i)
    metas.push_back({IrBuilder::dtype_of(a.in[i]), per_example(a.in[i], a.is_batched(i))});
  MetaList out = infer_op(a.op, metas, a.attrs);
  return out[0].shape;
}

Shape with_batch(int64_t size, const Shape& s) {
  Shape r{size};
  for (auto it = s.begin(); it != s.end(); ++it) r.push_back(*it);
  return r;
}

std::vector<int64_t> ints(const Shape& s) { return {s.begin(), s.end()}; }

}  // namespace

// Ops whose output is the input's elements in the same order (Reshape, ExpandDims, Squeeze,
// Flatten): a Reshape of the batched input to the batch and the per-example output shape.
Node* batch_reshape_like(BatchArgs& a) {
  return a.b.reshape(a.in[0], with_batch(a.size, example_out(a)));
}

// Transpose: the batch axis stays first.
Node* batch_transpose(BatchArgs& a) {
  const int64_t r = a.rank(0);
  std::vector<int64_t> perm{0};
  for (int64_t p : a.attrs.get_ints("perm")) perm.push_back(batched_axis(p, r));
  Attrs at = a.attrs;
  at.set("perm", perm);
  return a.call({a.in[0]}, at);
}

// BroadcastTo: the input brought to the per-example target rank, then broadcast.
Node* batch_broadcast_to(BatchArgs& a) {
  Shape s = example_out(a);
  Attrs at = a.attrs;
  at.set("shape", ints(with_batch(a.size, s)));
  return a.call({a.aligned(0, static_cast<int64_t>(s.size()))}, at);
}

// StridedSlice / StridedSliceGrad: one more entry, first, that keeps the whole batch axis;
// the masks move up a bit (StridedSliceGrad's shapex gains the batch).
Node* batch_strided_slice(BatchArgs& a) {
  Attrs at = a.attrs;
  auto prepend = [&](const char* name, int64_t v) {
    std::vector<int64_t> x = a.attrs.get_ints(name);
    x.insert(x.begin(), v);
    at.set(name, x);
  };
  prepend("begin", 0);
  prepend("end", 0);
  prepend("strides", 1);
  at.set("begin_mask", (a.attrs.get_int("begin_mask") << 1) | 1);
  at.set("end_mask", (a.attrs.get_int("end_mask") << 1) | 1);
  for (const char* m : {"ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    at.set(m, a.attrs.get_int(m) << 1);
  if (a.op.id == OpId::StridedSliceGrad) prepend("shapex", a.size);
  return a.call({a.in[0]}, at);
}

// Concat / Stack: every input batched, the axis past the batch (Stack's counts in the
// output, one rank more).
Node* batch_concat(BatchArgs& a) {
  std::vector<Node*> xs;
  for (size_t i = 0; i < a.in.size(); ++i) xs.push_back(a.full(i));
  const int64_t r = a.rank(0) + (a.op.id == OpId::Stack ? 1 : 0);
  Attrs at = a.attrs;
  at.set("axis", batched_axis(a.attrs.get_int("axis"), r));
  return a.call(xs, at);
}

// Tile: multiples longer than the rank prepend axes, so the input is first brought to their
// length; the batch axis is not repeated.
Node* batch_tile(BatchArgs& a) {
  std::vector<int64_t> m = a.attrs.get_ints("multiples");
  const int64_t n = static_cast<int64_t>(m.size());
  const int64_t r = std::max(a.rank(0), n);
  std::vector<int64_t> mm(static_cast<size_t>(r - n) + 1, 1);
  for (auto it = m.begin(); it != m.end(); ++it) mm.push_back(*it);
  Attrs at = a.attrs;
  at.set("multiples", mm);
  return a.call({a.aligned(0, r)}, at);
}

// Pad: no padding on the batch axis.
Node* batch_pad(BatchArgs& a) {
  std::vector<int64_t> p = a.attrs.get_ints("paddings");
  p.insert(p.begin(), {0, 0});
  Attrs at = a.attrs;
  at.set("paddings", p);
  return a.call({a.in[0]}, at);
}

// Gather(params, indices): batched params alone gather along the shifted axis; batched
// indices alone put the batch where the axis was (moved back to the front); both batched
// use batch_dims (the batch as one more shared leading dimension).
Node* batch_gather(BatchArgs& a) {
  const int64_t pr = a.rank(0), ir = a.rank(1);
  const int64_t axis = batched_axis(a.attrs.get_int("axis"), pr) - 1;
  int64_t bd = a.attrs.get_int("batch_dims");
  if (bd < 0) bd += ir;
  Attrs at = a.attrs;
  if (bd == 0 && !a.is_batched(1)) {
    at.set("axis", axis + 1);
    return a.call({a.in[0], a.in[1]}, at);
  }
  if (bd == 0 && !a.is_batched(0)) return move_axis(a.b, a.call({a.in[0], a.in[1]}, at), axis, 0);
  at.set("axis", axis + 1);
  at.set("batch_dims", bd + 1);
  return a.call({a.full(0), a.full(1)}, at);
}

// UnsortedSegmentSum(x, ids) with unbatched ids: the batch moves behind the ids' dimensions
// of x, so it is one of the summed rows' own dimensions. Batched ids: per example.
Node* batch_unsorted_segment_sum(BatchArgs& a) {
  if (a.is_batched(1)) return batch_loop(a);
  IrBuilder& b = a.b;
  const int64_t k = static_cast<int64_t>(IrBuilder::shape_of(a.in[1]).size());
  return move_axis(b, a.call({move_axis(b, a.in[0], 0, k), a.in[1]}, a.attrs), 1, 0);
}

// GatherD(x, index): both batched, dim past the batch.
Node* batch_gather_d(BatchArgs& a) {
  Attrs at = a.attrs;
  at.set("dim", batched_axis(a.attrs.get_int("dim"), a.rank(0)));
  return a.call({a.full(0), a.full(1)}, at);
}

// GatherDGrad(index, dout) -> zeros(shape) with dout added: both batched, shape gains it.
Node* batch_gather_d_grad(BatchArgs& a) {
  Attrs at = a.attrs;
  at.set("dim", batched_axis(a.attrs.get_int("dim"), a.rank(0)));
  std::vector<int64_t> s = a.attrs.get_ints("shape");
  s.insert(s.begin(), a.size);
  at.set("shape", s);
  return a.call({a.full(0), a.full(1)}, at);
}

namespace {

// indices[B, ..., K] -> [B, ..., K+1]: each index gains its example's number first.
Node* with_example_index(BatchArgs& a, size_t i) {
  IrBuilder& b = a.b;
  Node* idx = a.full(i);
  const Shape& s = IrBuilder::shape_of(idx);
  Attrs r;
  r.set("start", 0.0);
  r.set("limit", static_cast<double>(a.size));
  r.set("delta", 1.0);
  r.set("dtype", IrBuilder::dtype_of(idx));
  Node* iota = b.prim(OpId::Range, {}, r);
  Shape one(s.size(), 1);
  one[0] = a.size;
  Shape to = s;
  to.back() = 1;
  return b.concat({b.broadcast_to(b.reshape(iota, one), to), idx},
                  static_cast<int64_t>(s.size()) - 1);
}

}  // namespace

// ScatterNd(indices, updates) -> zeros(shape) with updates added at indices: one scatter
// into [B] + shape, each index led by its example's number.
Node* batch_scatter_nd(BatchArgs& a) {
  Attrs at = a.attrs;
  std::vector<int64_t> s = a.attrs.get_ints("shape");
  s.insert(s.begin(), a.size);
  at.set("shape", s);
  return a.call({with_example_index(a, 0), a.full(1)}, at);
}

// TensorScatterUpdate(x, indices, updates): as ScatterNd, into the batched x.
Node* batch_tensor_scatter_update(BatchArgs& a) {
  return a.call({a.full(0), with_example_index(a, 1), a.full(2)}, a.attrs);
}

}  // namespace mycel::ir
