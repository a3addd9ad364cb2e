// Reference kernels of the elementwise family: one output element at a time, inputs located
// through their broadcast strides, float math in double with libm, integer math in 64 bits
// (wrapping results are taken modulo the output type's width).
#include <cmath>
#include <limits>

#include "kernels/ref/complex_ref.h"
#include "kernels/ref/ref_util.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

using ref::offset_of;  // ref_util.h

struct Operand {
  const Tensor& t;
  Shape st;
  Operand(const Tensor& x, const Shape& out)
      : t(x), st(broadcast_strides(x.shape(), x.strides(), out)) {}
  template <class T>
  T at(int64_t i, const Shape& out) const {
    return static_cast<const T*>(t.raw_data())[offset_of(i, out, st)];
  }
};

template <class T>
double to_d(T v) {
  return static_cast<double>(static_cast<compute_t<T>>(v));
}

template <class T>
T from_d(double v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Integer results wrap: taken modulo 2^64, then narrowed (modulo the type's width).
template <class T>
T wrap(uint64_t v) {
  return static_cast<T>(v);
}

double ref_float_unary(OpId id, double x, bool gelu_tanh) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (id) {
    case OpId::Neg:
      return -x;
    case OpId::Abs:
      return std::fabs(x);
    case OpId::Sign:
      return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;  // NaN and -0 give +0 (MindSpore's Sign)
    case OpId::Square:
      return x * x;
    case OpId::ReLU:
      return std::isnan(x) ? x : std::max(x, 0.0);
    case OpId::ReLU6:
      return std::isnan(x) ? x : std::min(std::max(x, 0.0), 6.0);
    case OpId::Exp:
      return std::exp(x);
    case OpId::Log:
      return std::log(x);
    case OpId::Log1p:
      return std::log1p(x);
    case OpId::Sqrt:
      return std::sqrt(x);
    case OpId::Rsqrt:
      return 1.0 / std::sqrt(x);
    case OpId::Reciprocal:
      return 1.0 / x;
    case OpId::Sin:
      return std::sin(x);
    case OpId::Cos:
      return std::cos(x);
    case OpId::Tanh:
      return std::tanh(x);
    case OpId::Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case OpId::Erf:
      return std::erf(x);
    case OpId::ACos:
      return std::acos(x);
    case OpId::Asin:
      return std::asin(x);
    case OpId::Atan:
      return std::atan(x);
    case OpId::Acosh:  // log(x + sqrt(x^2 - 1)), NaN below 1
      return x < 1 ? std::numeric_limits<double>::quiet_NaN() : std::acosh(x);
    case OpId::Asinh:
      return std::asinh(x);
    case OpId::Atanh:
      return std::atanh(x);
    case OpId::Sinh:
      return std::sinh(x);
    case OpId::Cosh:
      return std::cosh(x);
    case OpId::Tan:
      return std::sin(x) / std::cos(x);
    case OpId::Expm1:
      return std::expm1(x);
    case OpId::Erfc:
      return std::erfc(x);
    case OpId::Floor:
      return std::floor(x);
    case OpId::Ceil:
      return std::ceil(x);
    case OpId::Round:
    case OpId::Rint: {  // halves to even, written out (not the kernel's nearbyint)
      if (!std::isfinite(x)) return x;
      const double f = std::floor(x), diff = x - f;
      double r = diff > 0.5 ? f + 1 : diff < 0.5 ? f : (std::fmod(f, 2.0) == 0 ? f : f + 1);
      return r == 0 ? std::copysign(0.0, x) : r;
    }
    // At -inf, SiLU and GeLU take their limit 0.
    case OpId::SiLU:
      return x == -inf ? 0.0 : x / (1.0 + std::exp(-x));
    case OpId::Softplus:
      return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case OpId::GeLU:
      if (x == -inf) return 0.0;
      if (gelu_tanh) {
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
      }
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    default:
      MC_ASSERT(false, "ref_unary: no float rule for op ", static_cast<int>(id));
  }
}

int64_t ref_int_unary(OpId id, int64_t x) {
  const uint64_t u = static_cast<uint64_t>(x);
  switch (id) {
    case OpId::Neg:
      return static_cast<int64_t>(0 - u);
    case OpId::Abs:
      return x < 0 ? static_cast<int64_t>(0 - u) : x;
    case OpId::Sign:
      return x > 0 ? 1 : x < 0 ? -1 : 0;
    case OpId::Square:
      return static_cast<int64_t>(u * u);
    case OpId::ReLU:
      return x < 0 ? 0 : x;
    case OpId::ReLU6:
      return x < 0 ? 0 : x > 6 ? 6 : x;
    case OpId::Floor:
    case OpId::Ceil:
    case OpId::Round:
    case OpId::Rint:
      return x;
    default:
      MC_ASSERT(false, "ref_unary: no integer rule for op ", static_cast<int>(id));
  }
}

double py_floordiv(double a, double b) {
  if (b == 0) return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod == 0) return std::copysign(0.0, b);
  return (b < 0) != (mod < 0) ? mod + b : mod;
}

double ref_float_binary(OpId id, double a, double b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (id) {
    case OpId::Add:
      return a + b;
    case OpId::Sub:
      return a - b;
    case OpId::Mul:
      return a * b;
    case OpId::Div:
      return a / b;
    case OpId::FloorDiv:
      return py_floordiv(a, b);
    case OpId::Mod:
      return std::fmod(a, b);
    case OpId::FloorMod:
      return py_mod(a, b);
    case OpId::Pow:
      return std::pow(a, b);
    case OpId::ReluGrad:
      return b > 0 ? a : 0.0;
    case OpId::Maximum:
      return std::isnan(a) || std::isnan(b) ? nan : std::max(a, b);
    case OpId::Minimum:
      return std::isnan(a) || std::isnan(b) ? nan : std::min(a, b);
    default:
      MC_ASSERT(false, "ref_binary: no float rule for op ", static_cast<int>(id));
  }
}

int64_t ref_int_binary(const OpDef& op, DType t, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  const OpId id = op.id;
  if (id == OpId::FloorDiv || id == OpId::Mod || id == OpId::FloorMod) {
    MC_CHECK(b != 0, Value, "For '", op.name, "', division by zero: an integer divisor (dtype ", t,
             ") is 0.");
    if (b == -1) return id == OpId::FloorDiv ? static_cast<int64_t>(0 - ua) : 0;
  }
  switch (id) {
    case OpId::Add:
      return static_cast<int64_t>(ua + ub);
    case OpId::Sub:
      return static_cast<int64_t>(ua - ub);
    case OpId::Mul:
      return static_cast<int64_t>(ua * ub);
    case OpId::FloorDiv: {
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return q;
    }
    case OpId::Mod:
      return a % b;
    case OpId::FloorMod: {
      int64_t r = a % b;
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
    case OpId::Pow: {
      MC_CHECK(b >= 0, Value,
               "For 'Pow', integers to negative integer powers are not allowed "
               "(dtype ",
               t, "); cast the base to a float dtype first.");
      uint64_t r = 1;
      for (int64_t k = 0; k < b; ++k) r *= ua;
      return static_cast<int64_t>(r);
    }
    case OpId::ReluGrad:
      return b > 0 ? a : 0;
    case OpId::BitwiseAnd:  // on the sign-extended 64-bit values: the low bits are the dtype's
      return static_cast<int64_t>(ua & ub);
    case OpId::BitwiseOr:
      return static_cast<int64_t>(ua | ub);
    case OpId::BitwiseXor:
      return static_cast<int64_t>(ua ^ ub);
    case OpId::Maximum:
      return std::max(a, b);
    case OpId::Minimum:
      return std::min(a, b);
    default:
      MC_ASSERT(false, "ref_binary: no integer rule for op ", op.name);
  }
}

template <class W>
bool ref_compare(OpId id, W a, W b) {
  switch (id) {
    case OpId::Equal:
      return a == b;
    case OpId::NotEqual:
      return a != b;
    case OpId::Less:
      return a < b;
    case OpId::LessEqual:
      return a <= b;
    case OpId::Greater:
      return a > b;
    case OpId::GreaterEqual:
      return a >= b;
    default:
      MC_ASSERT(false, "ref_binary: not a comparison: ", static_cast<int>(id));
  }
}

bool is_compare(OpId id) {
  return id == OpId::Equal || id == OpId::NotEqual || id == OpId::Less || id == OpId::LessEqual ||
         id == OpId::Greater || id == OpId::GreaterEqual;
}

// Cast of one value, as defined in kernels/cpu/elementwise.h: truncation toward zero,
// saturation at the integer range, nan to 0, x != 0 for bool.
template <class D>
D ref_convert_double(double v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<D>) {
    if (std::isnan(v)) return 0;
    const double lo = static_cast<double>(std::numeric_limits<D>::min());
    const double hi = static_cast<double>(std::numeric_limits<D>::max());
    if (v <= lo) return std::numeric_limits<D>::min();
    if (v >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(std::trunc(v));
  } else {
    return from_d<D>(v);
  }
}

template <class D, class S>
D ref_convert(S v) {
  if constexpr (std::is_integral_v<S>) {  // bool included
    const int64_t i = static_cast<int64_t>(v);
    if constexpr (std::is_same_v<D, bool>)
      return i != 0;
    else if constexpr (std::is_integral_v<D>)
      return static_cast<D>(i);
    else if constexpr (std::is_same_v<D, float16> || std::is_same_v<D, bfloat16>)
      return D(static_cast<float>(i));
    else
      return static_cast<D>(i);
  } else if constexpr (std::is_same_v<S, double> &&
                       (std::is_same_v<D, float16> || std::is_same_v<D, bfloat16>)) {
    return D(static_cast<float>(v));  // 16-bit floats convert through float
  } else {
    return ref_convert_double<D>(to_d(v));
  }
}

}  // namespace

void ref_unary(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const Operand xo(x, y.shape());
  const OpId id = ctx.op.id;
  const bool gelu_tanh = id == OpId::GeLU && ctx.attrs.get_str("approximate") == "tanh";
  if (is_complex(x.dtype())) {
    ref::complex_unary(ctx);
    return;
  }
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      const T v = xo.at<T>(i, y.shape());
      if constexpr (std::is_same_v<T, bool>) {
        MC_ASSERT(id == OpId::LogicalNot, "ref_unary: bool input to ", ctx.op.name);
        out[i] = !v;
      } else if constexpr (std::is_integral_v<T>) {
        out[i] = wrap<T>(static_cast<uint64_t>(ref_int_unary(id, static_cast<int64_t>(v))));
      } else {
        out[i] = from_d<T>(ref_float_unary(id, to_d(v), gelu_tanh));
      }
    }
  });
}

void ref_binary(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const Shape& shape = y.shape();
  const Operand ao(ctx.in[0], shape), bo(ctx.in[1], shape);
  const OpId id = ctx.op.id;
  const DType t = ctx.in[0].dtype();
  if (is_complex(t)) {
    ref::complex_binary(ctx);
    return;
  }
  dispatch_all(t, ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const T a = ao.at<T>(i, shape), b = bo.at<T>(i, shape);
      if (is_compare(id)) {
        if constexpr (std::is_integral_v<T>) {
          y.data<bool>()[i] = ref_compare<int64_t>(id, a, b);
        } else {
          y.data<bool>()[i] = ref_compare<double>(id, to_d(a), to_d(b));
        }
      } else if constexpr (std::is_same_v<T, bool>) {
        bool r;
        switch (id) {
          case OpId::Add:
          case OpId::Maximum:
          case OpId::LogicalOr:
            r = a || b;
            break;
          case OpId::Mul:
          case OpId::Minimum:
          case OpId::LogicalAnd:
            r = a && b;
            break;
          case OpId::BitwiseAnd:
            r = a && b;
            break;
          case OpId::BitwiseOr:
            r = a || b;
            break;
          case OpId::BitwiseXor:
            r = a != b;
            break;
          default:
            MC_ASSERT(false, "ref_binary: bool inputs to ", ctx.op.name);
        }
        y.data<bool>()[i] = r;
      } else if constexpr (std::is_integral_v<T>) {
        const int64_t r =
            ref_int_binary(ctx.op, t, static_cast<int64_t>(a), static_cast<int64_t>(b));
        y.data<T>()[i] = wrap<T>(static_cast<uint64_t>(r));
      } else {
        y.data<T>()[i] = from_d<T>(ref_float_binary(id, to_d(a), to_d(b)));
      }
    }
  });
}

void ref_select(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const Shape& shape = y.shape();
  const Operand co(ctx.in[0], shape), xo(ctx.in[1], shape), yo(ctx.in[2], shape);
  dispatch_any(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i)
      out[i] = co.at<bool>(i, shape) ? xo.at<T>(i, shape) : yo.at<T>(i, shape);
  });
}

void ref_cast(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (is_complex(x.dtype()) || is_complex(y.dtype())) {
    ref::complex_cast(ctx);
    return;
  }
  const Operand xo(x, y.shape());
  dispatch_all(y.dtype(), ctx.op.name, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch_all(x.dtype(), ctx.op.name, [&](auto stag) {
      using S = typename decltype(stag)::type;
      D* out = y.data<D>();
      for (int64_t i = 0; i < y.numel(); ++i) out[i] = ref_convert<D, S>(xo.at<S>(i, y.shape()));
    });
  });
}

void ref_fill(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const double v = ctx.op.id == OpId::Fill       ? ctx.attrs.get_float("value")
                   : ctx.op.id == OpId::OnesLike ? 1.0
                                                 : 0.0;
  if (is_complex(y.dtype())) {
    ref::complex_fill(ctx);
    return;
  }
  dispatch_all(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i) out[i] = ref_convert_double<T>(v);
  });
}

}  // namespace mycel
