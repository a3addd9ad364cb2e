// Backward rules of the linalg family (ops/defs/linalg.def).
#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

}  // namespace

// MatMul / BatchMatMul, out = op(a) op(b) with op = transpose or not:
//   (F, F): da = dout b^T     db = a^T dout
//   (F, T): da = dout b       db = dout^T a
//   (T, F): da = b dout^T     db = a dout
//   (T, T): da = b^T dout^T   db = dout^T a^T
// BatchMatMul's batch dims broadcast, so each cotangent is summed back to its input's shape.
Grads bprop_matmul(BpropArgs& a) {
  if (!is_float_node(a.in[0])) return {nullptr, nullptr};
  IrBuilder& b = a.b;
  const bool ta = a.attrs.get_bool("transpose_a"), tb = a.attrs.get_bool("transpose_b");
  const bool batched = IrBuilder::shape_of(a.out).size() > 2;  // else MatMul does it
  Node *x = a.in[0], *y = a.in[1], *d = a.dout;
  Node *dx, *dy;
  if (!ta && !tb) {
    dx = b.matmul(d, y, false, true, batched);
    dy = b.matmul(x, d, true, false, batched);
  } else if (!ta && tb) {
    dx = b.matmul(d, y, false, false, batched);
    dy = b.matmul(d, x, true, false, batched);
  } else if (ta && !tb) {
    dx = b.matmul(y, d, false, true, batched);
    dy = b.matmul(x, d, false, false, batched);
  } else {
    dx = b.matmul(y, d, true, true, batched);
    dy = b.matmul(d, x, true, true, batched);
  }
  return {b.sum_to(dx, IrBuilder::shape_of(x)), b.sum_to(dy, IrBuilder::shape_of(y))};
}

// BiasAdd: dx = dout, dbias = sum of dout over every axis but the channel axis
// (1 for NCHW/NCDHW, the last for NHWC).
Grads bprop_bias_add(BpropArgs& a) {
  if (!is_float_node(a.in[0])) return {nullptr, nullptr};
  const int64_t nd = static_cast<int64_t>(IrBuilder::shape_of(a.in[0]).size());
  const int64_t c = a.attrs.get_str("data_format") == "NHWC" ? nd - 1 : 1;
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < nd; ++d)
    if (d != c) axes.push_back(d);
  return {a.dout, a.b.reduce_sum(a.dout, axes, false)};
}

// CSRMM, out = op(A) @ D for the CSR matrix A (indptr, indices, values) and the dense D:
//   out = A D:    dD = A^T dout           dvalues[j] = dout[row_j, :] . D[col_j, :]
//   out = A^T D:  dD = A dout             dvalues[j] = dout[col_j, :] . D[row_j, :]
// (dD is CSRMM itself with transpose_a flipped). row_j, the row of stored value j, comes from
// indptr: the count of row starts indptr[1..M-1] at or before j, i.e. the running sum of
// UnsortedSegmentSum(1, indptr[1:M]) over positions 0..nnz. No cotangents for the indices.
Grads bprop_csrmm(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *ptr = a.in[0], *idx = a.in[1], *val = a.in[2], *d = a.in[3], *dy = a.dout;
  const std::vector<int64_t>& ds = a.attrs.get_ints("dense_shape");
  const bool ta = a.attrs.get_bool("transpose_a");
  Attrs t = a.attrs;
  t.set("transpose_a", !ta);
  Node* dd = b.prim(OpId::CSRMM, {ptr, idx, val, dy}, t);
  const int64_t nnz = IrBuilder::shape_of(val)[0];
  MC_CHECK(nnz >= 0, Value,
           "For 'CSRMM', the gradient of the values needs their number when the program "
           "compiles, but it is known only when it runs.");
  const int64_t m = ds[0];
  if (nnz == 0) return {nullptr, nullptr, b.zeros_like(val), dd};
  Node* rows;
  if (m <= 1) {
    rows = b.zeros_like(idx);
  } else {
    Node* starts = b.strided_slice(ptr, {1}, {m}, {1});
    Attrs us;
    us.set("num_segments", nnz + 1);
    Node* counts = b.prim(OpId::UnsortedSegmentSum, {b.ones_like(starts), starts}, us);
    Attrs cs;
    cs.set("axis", int64_t{0});
    rows = b.strided_slice(b.prim(OpId::CumSum, {counts}, cs), {0}, {nnz}, {1});
    rows = b.cast(rows, IrBuilder::dtype_of(idx));
  }
  Attrs g;
  g.set("axis", int64_t{0});
  Node* at_out = b.prim(OpId::Gather, {dy, ta ? idx : rows}, g);
  Node* at_d = b.prim(OpId::Gather, {d, ta ? rows : idx}, g);
  Node* dval = b.reduce_sum(b.mul(at_out, at_d), {1}, false);
  return {nullptr, nullptr, dval, dd};
}

// COOMM (rows, cols, values, dense; dense_shape [M, K]): entry j is values[j] at (row_j, col_j),
//   out = A D:    dD = A^T dout           dvalues[j] = dout[row_j, :] . D[col_j, :]
//   out = A^T D:  dD = A dout             dvalues[j] = dout[col_j, :] . D[row_j, :]
// (dD is COOMM itself with transpose_a flipped). No cotangents for the indices.
Grads bprop_coomm(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *rows = a.in[0], *cols = a.in[1], *val = a.in[2], *d = a.in[3], *dy = a.dout;
  const bool ta = a.attrs.get_bool("transpose_a");
  Attrs t = a.attrs;
  t.set("transpose_a", !ta);
  Node* dd = b.prim(OpId::COOMM, {rows, cols, val, dy}, t);
  Attrs g;
  g.set("axis", int64_t{0});
  Node* at_out = b.prim(OpId::Gather, {dy, ta ? cols : rows}, g);
  Node* at_d = b.prim(OpId::Gather, {d, ta ? rows : cols}, g);
  Node* dval = b.reduce_sum(b.mul(at_out, at_d), {1}, false);
  return {nullptr, nullptr, dval, dd};
}

}  // namespace mycel::ir
