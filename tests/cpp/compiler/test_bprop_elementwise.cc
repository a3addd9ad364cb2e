// Numerical checks of the elementwise family's backward rules (see test_bprop_util.h).
#include <utility>

#include "test_bprop_util.h"

namespace mycel::bproptest {
namespace {

Attrs attr(const char* k, AttrValue v) {
  Attrs a;
  a.set(k, std::move(v));
  return a;
}

Tensor bools(Shape s, std::vector<int64_t> v) { return ints(DType::Bool, std::move(s), v); }

// Not `a + "b"`: GCC 12 warns (-Wrestrict) on it at -O3.
std::string cat(const std::string& a, const char* b) {
  std::string s;
  s.reserve(a.size() + 16);
  s.append(a).append(b);
  return s;
}

}  // namespace

std::vector<Case> elementwise_cases() {
  std::vector<Case> c;
  auto unary = [&](const char* n, OpId op, double lo = -1.5, double hi = 1.5, Attrs a = {}) {
    c.push_back(C(n, op, {f64({2, 3}, lo, hi)}, std::move(a)));
  };
  // The complex-number ops on float64 inputs (their complex inputs are checked against
  // torch's autograd in tests/python/test_dtype_complex.py); Complex's output is complex.
  unary("Real", OpId::Real);
  unary("Imag", OpId::Imag);
  unary("Conj", OpId::Conj);
  unary("Angle", OpId::Angle, 0.2, 1.5);
  unary("Angle_neg", OpId::Angle, -1.5, -0.2);
  unary("ComplexAbs", OpId::ComplexAbs);
  c.push_back(C("Complex", OpId::Complex, {f64({2, 3}), f64({2, 3})}));
  c.push_back(C("Complex_broadcast", OpId::Complex, {f64({2, 3}), f64({3})}));
  unary("Neg", OpId::Neg);
  unary("Abs", OpId::Abs);
  unary("Sign", OpId::Sign);
  unary("Square", OpId::Square);
  unary("ReLU", OpId::ReLU);
  unary("ReLU6", OpId::ReLU6, -3, 9);
  unary("Exp", OpId::Exp);
  unary("Log", OpId::Log, 0.5, 2);
  unary("Log1p", OpId::Log1p, -0.5, 2);
  unary("Sqrt", OpId::Sqrt, 0.5, 2);
  unary("Rsqrt", OpId::Rsqrt, 0.5, 2);
  unary("Reciprocal", OpId::Reciprocal, 0.5, 2);
  unary("Sin", OpId::Sin);
  unary("Cos", OpId::Cos);
  unary("Tanh", OpId::Tanh);
  unary("Sigmoid", OpId::Sigmoid);
  unary("Erf", OpId::Erf);
  unary("SiLU", OpId::SiLU);
  unary("Softplus", OpId::Softplus);
  unary("GeLU_tanh", OpId::GeLU, -2, 2, attr("approximate", std::string("tanh")));
  unary("GeLU_erf", OpId::GeLU, -2, 2, attr("approximate", std::string("none")));
  unary("ACos", OpId::ACos, -0.8, 0.8);
  unary("Asin", OpId::Asin, -0.8, 0.8);
  unary("Atan", OpId::Atan);
  unary("Acosh", OpId::Acosh, 1.2, 3);
  unary("Asinh", OpId::Asinh);
  unary("Atanh", OpId::Atanh, -0.8, 0.8);
  unary("Sinh", OpId::Sinh);
  unary("Cosh", OpId::Cosh);
  unary("Tan", OpId::Tan, -1.2, 1.2);
  unary("Expm1", OpId::Expm1);
  unary("Erfc", OpId::Erfc);
  // piecewise constant: inputs between integers, where the derivative is 0
  unary("Floor", OpId::Floor, 0.1, 0.9);
  unary("Ceil", OpId::Ceil, 0.1, 0.9);
  unary("Round", OpId::Round, 0.6, 1.4);
  unary("Rint", OpId::Rint, 0.1, 0.4);
  c.push_back(C("Scalar0d_Tanh", OpId::Tanh, {f64({})}, {}));

  struct Bin {
    const char* n;
    OpId op;
    double lo, hi;
  };
  for (Bin bn :
       {Bin{"Add", OpId::Add, -1, 1}, Bin{"Sub", OpId::Sub, -1, 1}, Bin{"Mul", OpId::Mul, -1, 1},
        Bin{"Div", OpId::Div, 0.5, 2}, Bin{"Pow", OpId::Pow, 0.5, 2},
        Bin{"Maximum", OpId::Maximum, -1, 1}, Bin{"Minimum", OpId::Minimum, -1, 1},
        Bin{"Mod", OpId::Mod, 0.3, 2}, Bin{"FloorMod", OpId::FloorMod, 0.3, 2},
        Bin{"ReluGrad", OpId::ReluGrad, 0.1, 1}}) {
    const std::string n = bn.n;
    c.push_back(
        C(cat(n, "_same"), bn.op, {f64({2, 3}, bn.lo, bn.hi), f64({2, 3}, bn.lo, bn.hi)}, {}));
    c.push_back(
        C(cat(n, "_bcast_row"), bn.op, {f64({2, 3}, bn.lo, bn.hi), f64({3}, bn.lo, bn.hi)}, {}));
    c.push_back(
        C(cat(n, "_bcast_both"), bn.op, {f64({2, 1, 3}, bn.lo, bn.hi), f64({4, 1}, bn.lo, bn.hi)}));
    c.push_back(
        C(cat(n, "_scalar"), bn.op, {f64({}, bn.lo, bn.hi), f64({2, 2}, bn.lo, bn.hi)}, {}));
  }
  // The updates that compute a value from their variable (optim.def): Assign's cotangent goes
  // to the value (reduced over its broadcast), AssignAdd's to both as Add's.
  for (auto [n, op] :
       {std::pair{"Assign", OpId::Assign}, std::pair{"AssignAdd", OpId::AssignAdd}}) {
    c.push_back(C(cat(n, "_same"), op, {f64({2, 3}), f64({2, 3})}));
    c.push_back(C(cat(n, "_bcast_row"), op, {f64({2, 3}), f64({3})}));
    c.push_back(C(cat(n, "_scalar"), op, {f64({2, 2}), f64({})}));
  }
  // Mod and FloorMod with negative operands (truncation vs floor differ).
  c.push_back(C("Mod_neg", OpId::Mod, {f64({2, 3}, -3, -0.3), f64({2, 3}, 0.4, 1)}, {}));
  c.push_back(C("FloorMod_neg", OpId::FloorMod, {f64({2, 3}, -3, -0.3), f64({2, 3}, 0.4, 1)}, {}));
  c.push_back(C("Select", OpId::Select,
                {fixed(bools({2, 3}, {1, 0, 1, 1, 0, 0})), f64({2, 3}), f64({2, 3})}, {}));
  c.push_back(
      C("Select_bcast", OpId::Select, {fixed(bools({2, 1}, {1, 0})), f64({3}), f64({2, 3})}, {}));
  // A float32 output: a larger step (Cast is linear).
  c.push_back(
      C("Cast_f32", OpId::Cast, {f64({2, 3})}, attr("dtype", DType::Float32), {}, 1e-5, 1e-2));
  c.push_back(C("Cast_from_int", OpId::Cast, {fixed(ints(DType::Int32, {3}, {1, 2, 3}))},
                attr("dtype", DType::Float64)));
  c.push_back(
      C("Mul_int_operand", OpId::Mul, {fixed(ints(DType::Int32, {3}, {1, -2, 3})), f64({2, 3})}));
  c.push_back(C("Cast_f64", OpId::Cast, {f64({2, 3})}, attr("dtype", DType::Float64)));
  return c;
}

namespace {

class BpropElementwise : public testing::TestWithParam<Case> {};
TEST_P(BpropElementwise, MatchesFiniteDifferences) { check_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bprop, BpropElementwise, testing::ValuesIn(elementwise_cases()),
                         case_name);

}  // namespace
}  // namespace mycel::bproptest
