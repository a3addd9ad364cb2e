// ONNX import, the elementwise, activation, reduction and cast translations (onnx_ops.def).
// ONNX ops without a primitive of their own are compositions of primitives, written out
// at each translation (Floor as FloorDiv by 1, Elu from Select and Exp, ...).
#include <cmath>
#include <limits>

#include "serialize/onnx_translate.h"

namespace mycel::serialize::onnx_detail {

namespace {

Attrs reduce_attrs(std::vector<int64_t> axes, bool keep) {
  Attrs a;
  a.set("axis", std::move(axes));
  a.set("keep_dims", keep);
  return a;
}

// x < 0 ? neg : pos, elementwise.
Val where_negative(Translator& t, const Val& x, const Val& neg, const Val& pos) {
  Val lt = t.op1(OpId::Less, {x, t.scalar(0, x.meta.dtype)});
  return t.op1(OpId::Select, {lt, neg, pos});
}

Val mul_scalar(Translator& t, const Val& x, double v) {
  return t.op1(OpId::Mul, {x, t.scalar(v, x.meta.dtype)});
}

// min(max(x, lo), hi) for the scalars lo and hi.
Val clamp(Translator& t, const Val& x, double lo, double hi) {
  Val y = t.op1(OpId::Maximum, {x, t.scalar(lo, x.meta.dtype)});
  return t.op1(OpId::Minimum, {y, t.scalar(hi, x.meta.dtype)});
}

}  // namespace

void unary(Translator& t, OpId id) { t.set_out(0, t.op1(id, {t.in(0)})); }

void binary(Translator& t, OpId id) { t.set_out(0, t.op1(id, {t.in(0), t.in(1)})); }

// Integer division truncates toward zero, computed exactly: the floor quotient, plus one
// where the remainder is not zero and the operands' signs differ.
void div(Translator& t, OpId) {
  const Val& a = t.in(0);
  const Val& b = t.in(1);
  DType dt = a.meta.dtype;
  if (!is_integral(dt) || b.meta.dtype != dt) return t.set_out(0, t.op1(OpId::Div, {a, b}));
  Val q = t.op1(OpId::FloorDiv, {a, b});
  if (dt == DType::UInt8) return t.set_out(0, q);
  Val zero = t.scalar(0, dt);
  Val inexact = t.op1(OpId::NotEqual, {t.op1(OpId::FloorMod, {a, b}), zero});
  Val signs = t.op1(OpId::NotEqual, {t.op1(OpId::Less, {a, zero}), t.op1(OpId::Less, {b, zero})});
  Val fix = t.op1(OpId::LogicalAnd, {inexact, signs});
  t.set_out(0, t.op1(OpId::Add, {q, t.cast(fix, dt)}));
}

// The result has the base's dtype (an integer base with a float exponent truncates).
void pow(Translator& t, OpId) {
  const Val& a = t.in(0);
  t.set_out(0, t.cast(t.op1(OpId::Pow, {a, t.in(1)}), a.meta.dtype));
}

// fmod=1: C's fmod (the sign of the dividend); fmod=0: Python's % (of the divisor), integers
// only.
void mod(Translator& t, OpId) {
  bool fmod = t.attr_int("fmod", 0) != 0;
  const Val& a = t.in(0);
  if (!fmod && is_floating(a.meta.dtype)) t.fail("fmod=0 on floating-point inputs is invalid");
  t.set_out(0, t.op1(fmod ? OpId::Mod : OpId::FloorMod, {a, t.in(1)}));
}

void floor(Translator& t, OpId) {
  const Val& x = t.in(0);
  t.set_out(0, t.op1(OpId::FloorDiv, {x, t.scalar(1, x.meta.dtype)}));
}

void ceil(Translator& t, OpId) {  // -floor(-x)
  const Val& x = t.in(0);
  Val f = t.op1(OpId::FloorDiv, {t.op1(OpId::Neg, {x}), t.scalar(1, x.meta.dtype)});
  t.set_out(0, t.op1(OpId::Neg, {f}));
}

// Max, Min, Sum: a fold of the binary op over the inputs; Mean: the Sum over the count.
void variadic(Translator& t, OpId id) {
  Val acc = t.in(0);
  for (int i = 1; i < t.num_inputs(); ++i) acc = t.op1(id, {acc, t.in(i)});
  if (t.op_type() == "Mean")
    acc = t.op1(OpId::Div, {acc, t.scalar(t.num_inputs(), acc.meta.dtype)});
  t.set_out(0, acc);
}

void where(Translator& t, OpId) { t.set_out(0, t.op1(OpId::Select, {t.in(0), t.in(1), t.in(2)})); }

void leaky_relu(Translator& t, OpId) {
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 0.01);
  t.set_out(0, where_negative(t, x, mul_scalar(t, x, alpha), x));
}

void prelu(Translator& t, OpId) {
  const Val& x = t.in(0);
  t.set_out(0, where_negative(t, x, t.op1(OpId::Mul, {x, t.in(1)}), x));
}

void elu(Translator& t, OpId) {  // x < 0 ? alpha * (exp(x) - 1) : x
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 1.0);
  Val em1 = t.op1(OpId::Sub, {t.op1(OpId::Exp, {x}), t.scalar(1, x.meta.dtype)});
  t.set_out(0, where_negative(t, x, mul_scalar(t, em1, alpha), x));
}

void selu(Translator& t, OpId) {  // gamma * (x <= 0 ? alpha * exp(x) - alpha : x)
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 1.67326319217681884765625);
  double gamma = t.attr_float("gamma", 1.05070102214813232421875);
  Val neg = t.op1(OpId::Sub,
                  {mul_scalar(t, t.op1(OpId::Exp, {x}), alpha), t.scalar(alpha, x.meta.dtype)});
  Val gt = t.op1(OpId::Greater, {x, t.scalar(0, x.meta.dtype)});
  t.set_out(0, mul_scalar(t, t.op1(OpId::Select, {gt, x, neg}), gamma));
}

void celu(Translator& t, OpId) {  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 1.0);
  Val e = t.op1(OpId::Exp, {mul_scalar(t, x, 1.0 / alpha)});
  Val neg = mul_scalar(t, t.op1(OpId::Sub, {e, t.scalar(1, x.meta.dtype)}), alpha);
  Val zero = t.scalar(0, x.meta.dtype);
  t.set_out(0,
            t.op1(OpId::Add, {t.op1(OpId::Maximum, {x, zero}), t.op1(OpId::Minimum, {neg, zero})}));
}

void hard_sigmoid(Translator& t, OpId) {  // clamp(alpha * x + beta, 0, 1)
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 0.2), beta = t.attr_float("beta", 0.5);
  Val lin = t.op1(OpId::Add, {mul_scalar(t, x, alpha), t.scalar(beta, x.meta.dtype)});
  t.set_out(0, clamp(t, lin, 0, 1));
}

void hard_swish(Translator& t, OpId) {  // x * clamp(x / 6 + 1 / 2, 0, 1)
  const Val& x = t.in(0);
  Val lin = t.op1(OpId::Add, {mul_scalar(t, x, 1.0 / 6), t.scalar(0.5, x.meta.dtype)});
  t.set_out(0, t.op1(OpId::Mul, {x, clamp(t, lin, 0, 1)}));
}

void softsign(Translator& t, OpId) {  // x / (1 + |x|)
  const Val& x = t.in(0);
  Val den = t.op1(OpId::Add, {t.op1(OpId::Abs, {x}), t.scalar(1, x.meta.dtype)});
  t.set_out(0, t.op1(OpId::Div, {x, den}));
}

void thresholded_relu(Translator& t, OpId) {  // x > alpha ? x : 0
  const Val& x = t.in(0);
  double alpha = t.attr_float("alpha", 1.0);
  Val gt = t.op1(OpId::Greater, {x, t.scalar(alpha, x.meta.dtype)});
  t.set_out(0, t.op1(OpId::Select, {gt, x, t.scalar(0, x.meta.dtype)}));
}

// Clip: bounds from attributes (opset < 11) or optional inputs; [0, 6] on floats is ReLU6.
void clip(Translator& t, OpId) {
  const Val& x = t.in(0);
  DType dt = x.meta.dtype;
  std::optional<Val> lo, hi;
  if (t.opset() < 11) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double a = t.attr_float("min", -inf), b = t.attr_float("max", inf);
    if (a != -inf) lo = t.scalar(a, dt);
    if (b != inf) hi = t.scalar(b, dt);
  } else {
    if (t.has_input(1)) lo = t.cast(t.in(1), dt);
    if (t.has_input(2)) hi = t.cast(t.in(2), dt);
  }
  auto is = [](const std::optional<Val>& v, double want) {
    return v && v->value && v->value->numel() == 1 && v->value->item().to_double() == want;
  };
  if (is_floating(dt) && is(lo, 0) && is(hi, 6)) return t.set_out(0, t.op1(OpId::ReLU6, {x}));
  Val y = x;
  if (lo) y = t.op1(OpId::Maximum, {y, *lo});
  if (hi) y = t.op1(OpId::Minimum, {y, *hi});
  t.set_out(0, y);
}

// ReduceSum/Mean/Max/Min/Prod map to their primitives; the others (the table's arg is the
// elementwise op they apply) are compositions with ReduceSum. Axes come from the attribute
// (ReduceSum before opset 13, the others before 18) or input 1.
void reduce(Translator& t, OpId id) {
  const Val& x = t.in(0);
  int64_t rank = static_cast<int64_t>(x.meta.shape.size());
  std::vector<int64_t> axes = t.attr_ints("axes", {});
  if (t.has_input(1)) axes = t.ints_in(1, "axes");
  bool keep = t.attr_int("keepdims", 1) != 0;
  if (axes.empty() && t.attr_int("noop_with_empty_axes", 0) != 0) return t.set_out(0, x);
  for (int64_t& a : axes) a = norm_axis(t, a, rank, "axis");
  Attrs at = reduce_attrs(axes, keep);
  Val y;
  switch (id) {
    case OpId::ReduceSum:
    case OpId::ReduceMean:
    case OpId::ReduceMax:
    case OpId::ReduceMin:
    case OpId::ReduceProd:
      y = t.op1(id, {x}, at);
      break;
    case OpId::Abs:     // ReduceL1
    case OpId::Square:  // ReduceSumSquare
      y = t.op1(OpId::ReduceSum, {t.op1(id, {x})}, at);
      break;
    case OpId::Sqrt:  // ReduceL2
      y = t.op1(OpId::Sqrt, {t.op1(OpId::ReduceSum, {t.op1(OpId::Square, {x})}, at)});
      break;
    case OpId::Log:  // ReduceLogSum
      y = t.op1(OpId::Log, {t.op1(OpId::ReduceSum, {x}, at)});
      break;
    default: {  // ReduceLogSumExp, shifted by the maximum: m + log(sum(exp(x - m)))
      Val m = t.op1(OpId::ReduceMax, {x}, reduce_attrs(axes, true));
      Val e = t.op1(OpId::Exp, {t.op1(OpId::Sub, {x, m})});
      Val s = t.op1(OpId::Log, {t.op1(OpId::ReduceSum, {e}, at)});
      y = t.op1(OpId::Add, {s, keep ? m : t.op1(OpId::ReduceMax, {x}, at)});
    }
  }
  t.set_out(0, t.cast(y, x.meta.dtype));
}

// select_last_index=1: the first extreme of x reversed along the axis, counted from the end.
void arg_reduce(Translator& t, OpId id) {
  Val x = t.in(0);
  int64_t rank = static_cast<int64_t>(x.meta.shape.size());
  int64_t axis = norm_axis(t, t.attr_int("axis", 0), rank, "axis");
  bool last = t.attr_int("select_last_index", 0) != 0;
  int64_t d = x.meta.shape[axis];
  if (last) {
    std::vector<int64_t> b(rank, 0), e(x.meta.shape.begin(), x.meta.shape.end()), st(rank, 1);
    b[axis] = d - 1;
    e[axis] = 0;
    st[axis] = -1;
    Attrs s;
    s.set("begin", b);
    s.set("end", e);
    s.set("strides", st);
    s.set("end_mask", mask_bit(t, axis));
    x = t.op1(OpId::StridedSlice, {x}, s);
  }
  Attrs a;
  a.set("axis", axis);
  a.set("keep_dims", t.attr_int("keepdims", 1) != 0);
  a.set("output_type", DType::Int64);
  Val y = t.op1(id, {x}, a);
  if (last) y = t.op1(OpId::Sub, {t.scalar(static_cast<double>(d - 1), DType::Int64), y});
  t.set_out(0, y);
}

void cast(Translator& t, OpId) {
  int64_t to = t.attr_int_req("to");
  DType dt;
  if (!dtype_of_onnx(static_cast<int>(to), &dt))
    t.fail(str("casting to ONNX data type ", to, " is not supported"));
  t.ignore_attr("saturate");  // float8 only
  t.set_out(0, t.cast(t.in(0), dt));
}

void cast_like(Translator& t, OpId) { t.set_out(0, t.cast(t.in(0), t.in(1).meta.dtype)); }

void cumsum(Translator& t, OpId) {
  const Val& x = t.in(0);
  std::vector<int64_t> axis = t.ints_in(1, "axis");
  if (axis.size() != 1) t.fail("the axis input must hold one value");
  Attrs a;
  a.set("axis", norm_axis(t, axis[0], static_cast<int64_t>(x.meta.shape.size()), "axis"));
  a.set("exclusive", t.attr_int("exclusive", 0) != 0);
  a.set("reverse", t.attr_int("reverse", 0) != 0);
  t.set_out(0, t.op1(OpId::CumSum, {x}, a));
}

}  // namespace mycel::serialize::onnx_detail
