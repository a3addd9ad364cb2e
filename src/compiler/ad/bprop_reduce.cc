// Backward rules of the reduce family (ops/defs/reduce.def). All of them first bring the
// output (and dout) back to the input's rank with the reduced axes as 1 (keep_dims form),
// then broadcast against x.
#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

// x's shape with the reduced axes set to 1, and the number of elements reduced into each
// output element (kDynamicDim when a reduced axis is dynamic: known at run time only).
Shape kept_shape(const Shape& x, const std::vector<int64_t>& axes, int64_t* count) {
  const int64_t nd = static_cast<int64_t>(x.size());
  Shape k = x;
  *count = 1;
  for (int64_t d = 0; d < nd; ++d) {
    bool red = axes.empty();
    for (int64_t ax : axes) red = red || (ax < 0 ? ax + nd : ax) == d;
    if (!red) continue;
    const int64_t n = k[static_cast<size_t>(d)];
    *count = n < 0 || *count < 0 ? kDynamicDim : *count * n;
    k[static_cast<size_t>(d)] = 1;
  }
  return k;
}

struct Kept {
  Node* dout;  // dout broadcast to x's shape
  Node* out;   // out in keep_dims form (not broadcast)
  Shape keep;
  int64_t count;
};

Kept kept(BpropArgs& a) {
  const Shape& xs = IrBuilder::shape_of(a.in[0]);
  Kept k;
  k.keep = kept_shape(xs, a.attrs.get_ints("axis"), &k.count);
  k.dout = a.b.broadcast_like(a.b.reshape(a.dout, k.keep), a.in[0]);
  k.out = a.b.reshape(a.out, k.keep);
  return k;
}

}  // namespace

// ReduceSum: dx = broadcast(dout)
Grads bprop_reduce_sum(BpropArgs& a) {
  if (!has_cotangent(IrBuilder::dtype_of(a.in[0]))) return {nullptr};  // integers too (ad.h)
  return {kept(a).dout};
}
// ReduceMean: dx = broadcast(dout) / count; a count over a dynamic axis is counted at run
// time, as the sum of ones over the reduced axes.
Grads bprop_reduce_mean(BpropArgs& a) {
  Kept k = kept(a);
  if (k.count < 0) {
    Node* n = a.b.reduce_sum(a.b.ones_like(a.in[0]), a.attrs.get_ints("axis"), true);
    return {a.b.div(k.dout, n)};
  }
  return {a.b.mul_scalar(k.dout, 1.0 / static_cast<double>(std::max<int64_t>(k.count, 1)))};
}
// ReduceMax / ReduceMin: dx = broadcast(dout) * m / sum(m), m = (x == broadcast(out)):
// ties share the gradient equally.
Grads bprop_reduce_extreme(BpropArgs& a) {
  if (!is_float_node(a.in[0])) return {nullptr};
  IrBuilder& b = a.b;
  Kept k = kept(a);
  Node* m = b.cast(b.equal(a.in[0], k.out), IrBuilder::dtype_of(a.in[0]));
  std::vector<int64_t> axes = a.attrs.get_ints("axis");
  Node* n = b.reduce_sum(m, axes, true);
  return {b.mul(k.dout, b.div(m, n))};
}
// ReduceProd: dx = broadcast(dout) * broadcast(out) / x   (x without zeros)
Grads bprop_reduce_prod(BpropArgs& a) {
  if (!is_float_node(a.in[0])) return {nullptr};
  Kept k = kept(a);
  return {a.b.mul(k.dout, a.b.div(k.out, a.in[0]))};
}
}  // namespace mycel::ir
