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
}  // namespace mycel::ir
