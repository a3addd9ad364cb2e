// Backward rules of the elementwise family (ops/defs/elementwise.def), and bprop_rule, the
// lookup over all families. Each rule: its math first, then the IR it emits. Binary ops
// broadcast, so each cotangent is summed back to its input's shape (sum_to). Integer inputs
// get their cotangent in their dtype (ad.h) where the rule is linear arithmetic (add, sub,
// mul, neg, abs, square, select, max/min, cast); the rules with division, powers or
// transcendental functions give them none, and bool inputs never have one.
#include <cmath>
#include <numbers>

#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

bool has_cot(const Node* n) { return has_cotangent(IrBuilder::dtype_of(n)); }

// The cotangent of input i of a binary op: sum_to(g, in[i]'s shape), or none for bools.
Node* reduce_for(BpropArgs& a, size_t i, Node* g) {
  if (!has_cot(a.in[i])) return nullptr;
  return a.b.sum_to(g, IrBuilder::shape_of(a.in[i]));
}
// The same for a rule that is not linear arithmetic: none for integers too.
Node* reduce_float(BpropArgs& a, size_t i, Node* g) {
  return is_float_node(a.in[i]) ? reduce_for(a, i, g) : nullptr;
}

// A unary rule: none for non-float x, else f(b, x, out, dout).
template <class F>
Grads unary(BpropArgs& a, F f) {
  if (!is_float_node(a.in[0])) return {nullptr};
  return {f(a.b, a.in[0], a.out, a.dout)};
}
// A unary rule that is linear arithmetic in dout (neg, abs, square, piecewise constant):
// integer x gets its cotangent too.
template <class F>
Grads unary_int(BpropArgs& a, F f) {
  if (!has_cot(a.in[0])) return {nullptr};
  return {f(a.b, a.in[0], a.out, a.dout)};
}

// mask ? dout : 0, as dout * cast(mask) (broadcasts like the forward op).
Node* masked(IrBuilder& b, Node* mask, Node* dout) {
  return b.mul(dout, b.cast(mask, IrBuilder::dtype_of(dout)));
}
// Maximum: da = dout * (a >= b), db = dout * (a < b)   (ties go to a)
// Minimum: da = dout * (a <= b), db = dout * (a > b)
template <bool kMax>
Grads minmax(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* first = kMax ? b.greater_equal(a.in[0], a.in[1]) : b.greater_equal(a.in[1], a.in[0]);
  Node* da = masked(b, first, a.dout);
  Node* db = b.sub(a.dout, da);
  return {reduce_for(a, 0, da), reduce_for(a, 1, db)};
}

}  // namespace

// Neg: dx = -dout
Grads bprop_neg(BpropArgs& a) {
  return unary_int(a, [](IrBuilder& b, Node*, Node*, Node* d) { return b.neg(d); });
}
// Abs: dx = dout * sign(x)
Grads bprop_abs(BpropArgs& a) {
  return unary_int(a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.sign(x)); });
}
// Sign, Floor, Ceil, Round, Rint (piecewise constant): dx = 0
Grads bprop_zero(BpropArgs& a) {
  return unary_int(a, [](IrBuilder& b, Node* x, Node*, Node*) { return b.zeros_like(x); });
}
// Square: dx = 2 x dout
Grads bprop_square(BpropArgs& a) {
  return unary_int(
      a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.mul_scalar(x, 2.0)); });
}
// ReLU: dx = ReluGrad(dout, out)   (dout where out > 0)
Grads bprop_relu(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) {
    return b.prim(OpId::ReluGrad, {d, y});
  });
}
// ReluGrad(dy, y): ddy = ReluGrad(dout, y), dy_out = 0 (piecewise constant in y)
Grads bprop_relu_grad(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* ddy = b.prim(OpId::ReluGrad, {a.dout, a.in[1]});
  return {reduce_for(a, 0, ddy), is_float_node(a.in[1]) ? b.zeros_like(a.in[1]) : nullptr};
}
// ReLU6: dx = dout * (0 < x < 6)
Grads bprop_relu6(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    Node* in = b.logical_and(b.greater(x, b.scalar_like(0, x)), b.less(x, b.scalar_like(6, x)));
    return masked(b, in, d);
  });
}
// Exp: dx = dout * out
Grads bprop_exp(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) { return b.mul(d, y); });
}
// Log: dx = dout / x
Grads bprop_log(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.div(d, x); });
}
// Log1p: dx = dout / (1 + x)
Grads bprop_log1p(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.div(d, b.add_scalar(x, 1.0)); });
}
// Sqrt: dx = dout * 0.5 / out
Grads bprop_sqrt(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node*, Node* y, Node* d) { return b.div(b.mul_scalar(d, 0.5), y); });
}
// Rsqrt: dx = dout * -0.5 * out^3
Grads bprop_rsqrt(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) {
    return b.mul(b.mul_scalar(d, -0.5), b.mul(y, b.square(y)));
  });
}
// Reciprocal: dx = -dout * out^2
Grads bprop_reciprocal(BpropArgs& a) {
  return unary(a,
               [](IrBuilder& b, Node*, Node* y, Node* d) { return b.neg(b.mul(d, b.square(y))); });
}
// Sin: dx = dout * cos(x)
Grads bprop_sin(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.cos(x)); });
}
// Cos: dx = -dout * sin(x)
Grads bprop_cos(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.neg(b.mul(d, b.sin(x))); });
}
// Tanh: dx = dout * (1 - out^2)
Grads bprop_tanh(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) {
    return b.mul(d, b.sub(b.scalar_like(1, y), b.square(y)));
  });
}
// Sigmoid: dx = dout * out * (1 - out)
Grads bprop_sigmoid(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) {
    return b.mul(d, b.mul(y, b.sub(b.scalar_like(1, y), y)));
  });
}
// Erf: dx = dout * 2/sqrt(pi) * exp(-x^2)
Grads bprop_erf(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.mul(d, b.mul_scalar(b.exp(b.neg(b.square(x))), 2.0 / std::sqrt(std::numbers::pi)));
  });
}
// ACos: dx = -dout / sqrt(1 - x^2)
Grads bprop_acos(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.neg(b.div(d, b.sqrt(b.sub(b.scalar_like(1, x), b.square(x)))));
  });
}
// Asin: dx = dout / sqrt(1 - x^2)
Grads bprop_asin(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.div(d, b.sqrt(b.sub(b.scalar_like(1, x), b.square(x))));
  });
}
// Atan: dx = dout / (1 + x^2)
Grads bprop_atan(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.div(d, b.add_scalar(b.square(x), 1));
  });
}
// Acosh: dx = dout / sqrt(x^2 - 1) = dout / sinh(out)
Grads bprop_acosh(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node*, Node* y, Node* d) { return b.div(d, b.prim(OpId::Sinh, {y})); });
}
// Asinh: dx = dout / sqrt(x^2 + 1) = dout / cosh(out)
Grads bprop_asinh(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node*, Node* y, Node* d) { return b.div(d, b.prim(OpId::Cosh, {y})); });
}
// Atanh: dx = dout / (1 - x^2)
Grads bprop_atanh(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.div(d, b.sub(b.scalar_like(1, x), b.square(x)));
  });
}
// Sinh: dx = dout * cosh(x)
Grads bprop_sinh(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.prim(OpId::Cosh, {x})); });
}
// Cosh: dx = dout * sinh(x)
Grads bprop_cosh(BpropArgs& a) {
  return unary(
      a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.prim(OpId::Sinh, {x})); });
}
// Tan: dx = dout * (1 + out^2)
Grads bprop_tan(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node*, Node* y, Node* d) {
    return b.mul(d, b.add_scalar(b.square(y), 1));
  });
}
// Expm1: dx = dout * (out + 1)
Grads bprop_expm1(BpropArgs& a) {
  return unary(a,
               [](IrBuilder& b, Node*, Node* y, Node* d) { return b.mul(d, b.add_scalar(y, 1)); });
}
// Erfc: dx = -dout * 2/sqrt(pi) * exp(-x^2)
Grads bprop_erfc(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    return b.mul(d, b.mul_scalar(b.exp(b.neg(b.square(x))), -2.0 / std::sqrt(std::numbers::pi)));
  });
}
// SiLU (x * s, s = sigmoid(x)): dx = dout * s * (1 + x * (1 - s))
Grads bprop_silu(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) {
    Node* s = b.sigmoid(x);
    Node* t = b.add_scalar(b.mul(x, b.sub(b.scalar_like(1, s), s)), 1.0);
    return b.mul(d, b.mul(s, t));
  });
}
// Softplus (log(1 + e^x)): dx = dout * sigmoid(x)
Grads bprop_softplus(BpropArgs& a) {
  return unary(a, [](IrBuilder& b, Node* x, Node*, Node* d) { return b.mul(d, b.sigmoid(x)); });
}
// GeLU, erf form:  dx = dout * (Phi(x) + x phi(x)),  Phi(x) = (1 + erf(x/sqrt2))/2,
//                                                      phi(x) = exp(-x^2/2)/sqrt(2 pi)
// GeLU, tanh form: y = x/2 (1 + t), t = tanh(k (x + c x^3)), k = sqrt(2/pi), c = 0.044715
//                  dx = dout * ((1 + t)/2 + x/2 (1 - t^2) k (1 + 3 c x^2))
Grads bprop_gelu(BpropArgs& a) {
  bool tanh_form = a.attrs.get_str("approximate") == "tanh";
  return unary(a, [tanh_form](IrBuilder& b, Node* x, Node*, Node* d) {
    Node* x2 = b.square(x);
    if (!tanh_form) {
      Node* cdf =
          b.mul_scalar(b.add_scalar(b.erf(b.mul_scalar(x, 1 / std::numbers::sqrt2)), 1), 0.5);
      Node* pdf = b.mul_scalar(b.exp(b.mul_scalar(x2, -0.5)), 1 / std::sqrt(2 * std::numbers::pi));
      return b.mul(d, b.add(cdf, b.mul(x, pdf)));
    }
    const double k = std::sqrt(2 / std::numbers::pi), c = 0.044715;
    Node* t = b.tanh(b.mul_scalar(b.add(x, b.mul_scalar(b.mul(x, x2), c)), k));
    Node* left = b.mul_scalar(b.add_scalar(t, 1), 0.5);
    Node* sech2 = b.sub(b.scalar_like(1, t), b.square(t));
    Node* inner = b.add_scalar(b.mul_scalar(x2, 3 * c), 1);
    Node* right = b.mul(b.mul_scalar(x, 0.5 * k), b.mul(sech2, inner));
    return b.mul(d, b.add(left, right));
  });
}

// Add: da = dout, db = dout
Grads bprop_add(BpropArgs& a) { return {reduce_for(a, 0, a.dout), reduce_for(a, 1, a.dout)}; }
// Assign(variable, value) -> value (broadcast, cast): the old variable gets none.
Grads bprop_assign(BpropArgs& a) { return {nullptr, reduce_for(a, 1, a.dout)}; }
// AssignAdd(variable, value) -> variable + value: as Add.
Grads bprop_assign_add(BpropArgs& a) { return bprop_add(a); }
// Sub: da = dout, db = -dout
Grads bprop_sub(BpropArgs& a) {
  return {reduce_for(a, 0, a.dout), reduce_for(a, 1, a.b.neg(a.dout))};
}
// Mul: da = dout * b, db = dout * a
Grads bprop_mul(BpropArgs& a) {
  return {reduce_for(a, 0, a.b.mul(a.dout, a.in[1])), reduce_for(a, 1, a.b.mul(a.dout, a.in[0]))};
}
// Div: da = dout / b, db = -dout * out / b
Grads bprop_div(BpropArgs& a) {
  Node* da = a.b.div(a.dout, a.in[1]);
  return {reduce_float(a, 0, da), reduce_float(a, 1, a.b.neg(a.b.mul(da, a.out)))};
}
// Mod / FloorMod (out = a - b q, q = trunc or floor of a/b, piecewise constant):
//   da = dout, db = -dout * q = -dout * (a - out) / b
Grads bprop_mod(BpropArgs& a) {
  Node* q = a.b.div(a.b.sub(a.in[0], a.out), a.in[1]);
  return {reduce_float(a, 0, a.dout), reduce_float(a, 1, a.b.neg(a.b.mul(a.dout, q)))};
}
// Pow: da = dout * b * a^(b-1), db = dout * out * log(a) (0 where a <= 0)
Grads bprop_pow(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node *x = a.in[0], *y = a.in[1];
  if (!is_float_node(x)) return {nullptr, nullptr};
  Node* da = b.mul(a.dout, b.mul(y, b.pow(x, b.sub(y, b.scalar_like(1, y)))));
  Node* db;
  if (is_complex(IrBuilder::dtype_of(x))) {  // the principal log (k_transform conjugates)
    db = b.mul(a.dout, b.mul(a.out, b.log(x)));
  } else {
    Node* pos = b.greater(x, b.scalar_like(0, x));
    Node* safe = b.select(pos, x, b.ones_like(x));  // log(1) = 0 where a <= 0
    db = b.mul(a.dout, b.mul(a.out, b.log(safe)));
  }
  return {reduce_float(a, 0, da), reduce_float(a, 1, db)};
}
// Select(c, x, y): dc = none, dx = dout * c, dy = dout * !c
Grads bprop_select(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* dx = masked(b, a.in[0], a.dout);
  Node* dy = b.sub(a.dout, dx);
  return {nullptr, reduce_for(a, 1, dx), reduce_for(a, 2, dy)};
}
// Cast: dx = cast(dout, x.dtype) (as MindSpore, also between integer and float dtypes;
// none to or from bool)
Grads bprop_cast(BpropArgs& a) {
  if (!has_cot(a.in[0]) || !has_cot(a.out)) return {nullptr};
  return {a.b.cast(a.dout, IrBuilder::dtype_of(a.in[0]))};
}

Grads bprop_maximum(BpropArgs& a) { return minmax<true>(a); }

Grads bprop_minimum(BpropArgs& a) { return minmax<false>(a); }
}  // namespace mycel::ir
