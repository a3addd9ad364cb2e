// Backward rules of the scans and sorts (the end of ops/defs/reduce.def). Every rule is built
// from differentiable ops (CumSum, CumProd, Select, Mul, Div, GatherDGrad), so gradients of
// gradients work. Integer and bool inputs get no gradient, but for CumSum (linear), whose
// integer inputs get one in their dtype.
#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

bool is_float(const Node* n) { return is_floating(IrBuilder::dtype_of(n)); }

// CumSum or CumProd of x along the forward call's axis, with the given flags.
Node* cum(BpropArgs& a, OpId op, Node* x, bool exclusive, bool reverse) {
  Attrs g;
  g.set("exclusive", exclusive);
  g.set("reverse", reverse);
  g.set("axis", a.attrs.get_int("axis"));
  return a.b.prim(op, {x}, g);
}

// Sort and TopK: the values are x gathered along `dim` at the indices, so dx scatters dvalues
// back there: dx = GatherDGrad(indices, dvalues) (indices are distinct, nothing adds up).
Grads scatter_back(BpropArgs& a, int64_t dim) {
  IrBuilder& b = a.b;
  if (!is_float(a.in[0])) return {nullptr};
  Node* dvalues = b.tuple_get(a.dout, 0);
  const Shape& xs = IrBuilder::shape_of(a.in[0]);
  if (xs.empty()) return {dvalues};  // a 0-d input is its own (one-element) sort
  Attrs g;
  g.set("dim", dim);
  g.set("shape", std::vector<int64_t>(xs.begin(), xs.end()));
  return {b.prim(OpId::GatherDGrad, {b.tuple_get(a.out, 1), dvalues}, g)};
}

}  // namespace

// y = CumSum(x, exclusive, reverse): y_i sums x_j over j <= i (j < i when exclusive; j >= i,
// j > i when reversed). Each x_k reaches the outputs on the other side of it, so
//   dx = CumSum(dout, exclusive, !reverse).
// A sum is linear arithmetic: an integer input gets this gradient in its dtype too (as
// MindSpore's), a bool one none.
Grads bprop_cumsum(BpropArgs& a) {
  if (IrBuilder::dtype_of(a.in[0]) == DType::Bool) return {nullptr};
  return {
      cum(a, OpId::CumSum, a.dout, a.attrs.get_bool("exclusive"), !a.attrs.get_bool("reverse"))};
}

// y = CumProd(x, exclusive, reverse); write "before k" for the positions the walk visits
// before k (j < k, or j > k when reversed), "after" likewise, and S for CumSum(., exclusive,
// !reverse) (the sum over the outputs that include x_k). Then
//   dx_k = sum over outputs i that include x_k of dout_i * prod_{j in i's product, j != k} x_j.
// Where x_k != 0 that is the standard formula  dx_k = S(dout * y)_k / x_k.
// Where x_k == 0 it divides by zero, so zeros take another route: a zero with an earlier zero
// gets 0 (every product it is in holds the other zero too); for the first zero, the products
// are P_k = prod(x before k) = CumProd(x, exclusive=true) times the product of the nonzero x
// after k up to output i, and they end at the next zero. With x' = x where x != 0, else 1,
// Q = CumProd(x', exclusive, reverse) (the forward's flags), Q_k = CumProd(x', inclusive)_k
// and the count of zeros Z = CumSum(x == 0, exclusive, reverse) (1 up to the next zero):
//   dx_k = CumProd(x, exclusive=true)_k * S(dout * Q * [Z == 1])_k / CumProd(x')_k.
// Both routes only multiply, add and divide by nonzero values, so the gradient is exact at
// zeros (torch's, tests/python/test_grad_ops.py) and stays finite. Its own derivative (the
// second order) is exact where a line holds at most one zero; with two or more, the terms
// between two zeros are missing (the route ends the first zero's span at the next zero and
// gives later zeros a constant 0; the two-zeros row checks the first order only). Exact
// second order would need every zero's span (a segmented scan) and the products across
// zeros, which these ops cannot express in O(n) (an O(n^2) triangle of products would).
Grads bprop_cumprod(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* x = a.in[0];
  if (!is_float(x)) return {nullptr};
  const bool excl = a.attrs.get_bool("exclusive"), rev = a.attrs.get_bool("reverse");
  Node* zero = b.equal(x, b.zeros_like(x));
  Node* ones = b.ones_like(x);
  Node* safe_x = b.select(zero, ones, x);
  // Nonzero x_k: S(dout * y) / x_k.
  Node* nonzero_route = b.div(cum(a, OpId::CumSum, b.mul(a.dout, a.out), excl, !rev), safe_x);
  // The first zero: the products before it times those after it up to the next zero.
  Node* zeros_seen = cum(a, OpId::CumSum, b.cast(zero, IrBuilder::dtype_of(x)), excl, rev);
  Node* until_next =
      b.select(b.equal(zeros_seen, ones), b.mul(a.dout, cum(a, OpId::CumProd, safe_x, excl, rev)),
               b.zeros_like(x));
  Node* after = b.div(cum(a, OpId::CumSum, until_next, excl, !rev),
                      cum(a, OpId::CumProd, safe_x, false, rev));
  Node* zero_route = b.mul(cum(a, OpId::CumProd, x, true, rev), after);
  return {b.select(zero, zero_route, nonzero_route)};
}

// Sort(x, axis): dx = GatherDGrad(indices, dvalues) along axis.
Grads bprop_sort(BpropArgs& a) { return scatter_back(a, a.attrs.get_int("axis")); }

// TopK(x, k): dx = GatherDGrad(indices, dvalues) along the last axis (zeros where x was not
// among the k largest).
Grads bprop_topk(BpropArgs& a) { return scatter_back(a, -1); }

}  // namespace mycel::ir
