// Backward rules of the complex-number ops (Real, Imag, Conj, Angle, ComplexAbs, Complex;
// ops/defs/elementwise.def). The convention is PyTorch's and MindSpore's: for a real loss L
// of z = x + iy the cotangent of z is dL/dx + i dL/dy (the conjugate Wirtinger derivative,
// times 2), so a holomorphic f has dz = dout * conj(f'(z)) and a real-valued g of z has
// dz = dout * (dg/dx + i dg/dy).
//   Real:       dz = complex(dout, 0)                  (real x: dx = dout)
//   Imag:       dz = complex(0, dout)                  (real x: dx = 0)
//   Conj:       dz = conj(dout)                        (real x: dx = dout)
//   ComplexAbs: dz = dout * z / |z| = dout * sign(z)   (real x: dout * sign(x))
//   Angle:      dz = dout * i z / |z|^2                (real x: dx = 0)
//   Complex(re, im): dre = real(dout), dim = imag(dout), each summed back to its shape.
#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

bool complex_node(const Node* n) { return is_complex(IrBuilder::dtype_of(n)); }

Node* make_complex(IrBuilder& b, Node* re, Node* im) { return b.prim(OpId::Complex, {re, im}); }

}  // namespace

bool bprop_conjugates(OpId op) {
  switch (op) {
    case OpId::Square:
    case OpId::Exp:
    case OpId::Log:
    case OpId::Sqrt:
    case OpId::Reciprocal:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tan:
    case OpId::Atan:
    case OpId::Sinh:
    case OpId::Cosh:
    case OpId::Tanh:
    case OpId::Mul:
    case OpId::Div:
    case OpId::Pow:
    case OpId::MatMul:
    case OpId::BatchMatMul:
    case OpId::ReduceProd:
      return true;
    default:
      return false;
  }
}

Grads bprop_real(BpropArgs& a) {
  IrBuilder& b = a.b;
  if (!complex_node(a.in[0]))
    return {has_cotangent(IrBuilder::dtype_of(a.in[0])) ? a.dout : nullptr};
  return {make_complex(b, a.dout, b.zeros_like(a.dout))};
}

Grads bprop_imag(BpropArgs& a) {
  IrBuilder& b = a.b;
  if (!complex_node(a.in[0]))
    return {has_cotangent(IrBuilder::dtype_of(a.in[0])) ? b.zeros_like(a.in[0]) : nullptr};
  return {make_complex(b, b.zeros_like(a.dout), a.dout)};
}

Grads bprop_conj(BpropArgs& a) {
  IrBuilder& b = a.b;
  if (!complex_node(a.in[0]))
    return {has_cotangent(IrBuilder::dtype_of(a.in[0])) ? a.dout : nullptr};
  return {b.prim(OpId::Conj, {a.dout})};
}

Grads bprop_complex_abs(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* x = a.in[0];
  const DType t = IrBuilder::dtype_of(x);
  if (!complex_node(x)) {
    if (!is_floating(t)) return {nullptr};
    return {b.mul(a.dout, b.sign(x))};
  }
  return {b.mul(b.cast(a.dout, t), b.sign(x))};
}

Grads bprop_angle(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* z = a.in[0];
  const DType t = IrBuilder::dtype_of(z);
  if (!complex_node(z)) return {is_floating(t) ? b.zeros_like(z) : nullptr};
  Node* re = b.prim(OpId::Real, {z});
  Node* im = b.prim(OpId::Imag, {z});
  Node* scale = b.div(a.dout, b.add(b.square(re), b.square(im)));  // dout / |z|^2
  // i z = -im + i re
  return {make_complex(b, b.neg(b.mul(scale, im)), b.mul(scale, re))};
}

Grads bprop_complex(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* dre = b.prim(OpId::Real, {a.dout});
  Node* dim = b.prim(OpId::Imag, {a.dout});
  return {b.sum_to(dre, IrBuilder::shape_of(a.in[0])), b.sum_to(dim, IrBuilder::shape_of(a.in[1]))};
}

}  // namespace mycel::ir
