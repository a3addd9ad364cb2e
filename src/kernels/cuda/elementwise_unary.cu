// CUDA kernels of the unary elementwise ops (Neg ... GeLU, inverse/hyperbolic trigonometry,
// Expm1, Erfc, Floor/Ceil/Round/Rint, LogicalNot): the functors of
// kernels/cpu/elementwise_unary.cc on the device (the sign-type ones are
// kernels/elementwise_forms.h, written once for both).
//
// Rounding is exact: Floor/Ceil are floor/ceil, Round and Rint both take halves to even
// (rint under the default rounding mode, the CPU's nearbyint); integers pass unchanged.
// Float math is CUDA's libdevice (expf, erff, acosf... for float and the 16-bit floats
// computed in float; exp, erf, acos... for float64; the CPU calls glibc's). Sigmoid, SiLU,
// Softplus and both GeLUs are the CPU's own formulas (base/activation_forms.h) on CUDA's math;
// Rsqrt is 1 / sqrt(x) (not the approximate rsqrt). Results agree with the CPU to the ulps of
// the two libraries, not bit for bit. Built without fast math: sqrt and division are IEEE.
#include <cmath>

#include "base/activation_forms.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"
#include "kernels/elementwise_forms.h"

namespace mycel::cuda::ew {

namespace {

// One overloaded name per libm function: the float and double versions.
#define MC_EW_MATH(name, ffn, dfn)                          \
  __device__ inline float name(float x) { return ffn(x); } \
  __device__ inline double name(double x) { return dfn(x); }
MC_EW_MATH(m_exp, expf, exp)
MC_EW_MATH(m_log, logf, log)
MC_EW_MATH(m_log1p, log1pf, log1p)
MC_EW_MATH(m_sqrt, sqrtf, sqrt)
MC_EW_MATH(m_sin, sinf, sin)
MC_EW_MATH(m_cos, cosf, cos)
MC_EW_MATH(m_tanh, tanhf, tanh)
MC_EW_MATH(m_erf, erff, erf)
MC_EW_MATH(m_erfc, erfcf, erfc)
MC_EW_MATH(m_fabs, fabsf, fabs)
MC_EW_MATH(m_acos, acosf, acos)
MC_EW_MATH(m_asin, asinf, asin)
MC_EW_MATH(m_atan, atanf, atan)
MC_EW_MATH(m_acosh, acoshf, acosh)
MC_EW_MATH(m_asinh, asinhf, asinh)
MC_EW_MATH(m_atanh, atanhf, atanh)
MC_EW_MATH(m_sinh, sinhf, sinh)
MC_EW_MATH(m_cosh, coshf, cosh)
MC_EW_MATH(m_tan, tanf, tan)
MC_EW_MATH(m_expm1, expm1f, expm1)
MC_EW_MATH(m_floor, floorf, floor)
MC_EW_MATH(m_ceil, ceilf, ceil)
MC_EW_MATH(m_rint, rintf, rint)
#undef MC_EW_MATH

struct OpBase {};

// ---- sign-type ops: every numeric dtype ------------------------------------------------

using NegOp = mycel::ew::NegForm<OpBase>;

struct AbsOp : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? wrap_neg(x) : x;
    else
      return m_fabs(x);
  }
};

using SignOp = mycel::ew::SignForm<OpBase>;
using SquareOp = mycel::ew::SquareForm<OpBase>;
using ReluOp = mycel::ew::ReluForm<OpBase>;
using Relu6Op = mycel::ew::Relu6Form<OpBase>;

// Rounding to an integral value: integers are returned as they are.
#define MC_EW_ROUND_OP(Name, fn)           \
  struct Name : OpBase {                   \
    template <class C>                     \
    __device__ static C f(C x) {           \
      if constexpr (std::is_integral_v<C>) \
        return x;                          \
      else                                 \
        return fn(x);                      \
    }                                      \
  };
MC_EW_ROUND_OP(FloorOp, m_floor)
MC_EW_ROUND_OP(CeilOp, m_ceil)
MC_EW_ROUND_OP(RintOp, m_rint)
#undef MC_EW_ROUND_OP

// ---- float math (C is float or double) --------------------------------------------------

// CUDA's math, for base/activation_forms.h's forms (shared with the CPU kernels).
struct CudaMath {
  template <class C>
  __device__ static C exp(C x) {
    return m_exp(x);
  }
  template <class C>
  __device__ static C log1p(C x) {
    return m_log1p(x);
  }
  template <class C>
  __device__ static C erfc(C x) {
    return m_erfc(x);
  }
  template <class C>
  __device__ static C fabs(C x) {
    return m_fabs(x);
  }
};

#define MC_EW_FLOAT_OP(Name, expr) \
  struct Name : OpBase {           \
    template <class C>             \
    __device__ static C f(C x) {   \
      return expr;                 \
    }                              \
  };
MC_EW_FLOAT_OP(ExpOp, m_exp(x))
MC_EW_FLOAT_OP(LogOp, m_log(x))
MC_EW_FLOAT_OP(Log1pOp, m_log1p(x))
MC_EW_FLOAT_OP(SqrtOp, m_sqrt(x))
MC_EW_FLOAT_OP(RsqrtOp, C(1) / m_sqrt(x))
MC_EW_FLOAT_OP(ReciprocalOp, C(1) / x)
MC_EW_FLOAT_OP(SinOp, m_sin(x))
MC_EW_FLOAT_OP(CosOp, m_cos(x))
MC_EW_FLOAT_OP(TanhOp, m_tanh(x))
MC_EW_FLOAT_OP(SigmoidOp, act::sigmoid<CudaMath>(x))
MC_EW_FLOAT_OP(ErfOp, m_erf(x))
MC_EW_FLOAT_OP(SiluOp, act::silu<CudaMath>(x))
MC_EW_FLOAT_OP(SoftplusOp, act::softplus<CudaMath>(x))
MC_EW_FLOAT_OP(GeluTanhOp, act::gelu_tanh<CudaMath>(x))
MC_EW_FLOAT_OP(GeluErfOp, act::gelu_erf<CudaMath>(x))
MC_EW_FLOAT_OP(AcosOp, m_acos(x))
MC_EW_FLOAT_OP(AsinOp, m_asin(x))
MC_EW_FLOAT_OP(AtanOp, m_atan(x))
MC_EW_FLOAT_OP(AcoshOp, m_acosh(x))
MC_EW_FLOAT_OP(AsinhOp, m_asinh(x))
MC_EW_FLOAT_OP(AtanhOp, m_atanh(x))
MC_EW_FLOAT_OP(SinhOp, m_sinh(x))
MC_EW_FLOAT_OP(CoshOp, m_cosh(x))
MC_EW_FLOAT_OP(TanOp, m_tan(x))
MC_EW_FLOAT_OP(Expm1Op, m_expm1(x))
MC_EW_FLOAT_OP(ErfcOp, m_erfc(x))
#undef MC_EW_FLOAT_OP

struct NotOp : OpBase {
  __device__ static bool f(bool x) { return !x; }
};

template <class Op>
void number(int code, void* y, const void* x, const Strided<1>& s, int64_t n, cudaStream_t st) {
  for_number(code, [&](auto v) { run_unary<Op, decltype(v)>(y, x, s, n, st); });
}

template <class Op>
void floating(int code, void* y, const void* x, const Strided<1>& s, int64_t n,
              cudaStream_t st) {
  for_float(code, [&](auto v) { run_unary<Op, decltype(v)>(y, x, s, n, st); });
}

}  // namespace

void launch_unary(Unary op, int code, void* y, const void* x, const Strided<1>& s, int64_t n,
                  cudaStream_t stream) {
  switch (op) {
    case Unary::Neg: number<NegOp>(code, y, x, s, n, stream); break;
    case Unary::Abs: number<AbsOp>(code, y, x, s, n, stream); break;
    case Unary::Sign: number<SignOp>(code, y, x, s, n, stream); break;
    case Unary::Square: number<SquareOp>(code, y, x, s, n, stream); break;
    case Unary::Relu: number<ReluOp>(code, y, x, s, n, stream); break;
    case Unary::Relu6: number<Relu6Op>(code, y, x, s, n, stream); break;
    case Unary::Floor: number<FloorOp>(code, y, x, s, n, stream); break;
    case Unary::Ceil: number<CeilOp>(code, y, x, s, n, stream); break;
    case Unary::Rint: number<RintOp>(code, y, x, s, n, stream); break;
    case Unary::Exp: floating<ExpOp>(code, y, x, s, n, stream); break;
    case Unary::Log: floating<LogOp>(code, y, x, s, n, stream); break;
    case Unary::Log1p: floating<Log1pOp>(code, y, x, s, n, stream); break;
    case Unary::Sqrt: floating<SqrtOp>(code, y, x, s, n, stream); break;
    case Unary::Rsqrt: floating<RsqrtOp>(code, y, x, s, n, stream); break;
    case Unary::Reciprocal: floating<ReciprocalOp>(code, y, x, s, n, stream); break;
    case Unary::Sin: floating<SinOp>(code, y, x, s, n, stream); break;
    case Unary::Cos: floating<CosOp>(code, y, x, s, n, stream); break;
    case Unary::Tanh: floating<TanhOp>(code, y, x, s, n, stream); break;
    case Unary::Sigmoid: floating<SigmoidOp>(code, y, x, s, n, stream); break;
    case Unary::Erf: floating<ErfOp>(code, y, x, s, n, stream); break;
    case Unary::Silu: floating<SiluOp>(code, y, x, s, n, stream); break;
    case Unary::Softplus: floating<SoftplusOp>(code, y, x, s, n, stream); break;
    case Unary::GeluTanh: floating<GeluTanhOp>(code, y, x, s, n, stream); break;
    case Unary::GeluErf: floating<GeluErfOp>(code, y, x, s, n, stream); break;
    case Unary::Acos: floating<AcosOp>(code, y, x, s, n, stream); break;
    case Unary::Asin: floating<AsinOp>(code, y, x, s, n, stream); break;
    case Unary::Atan: floating<AtanOp>(code, y, x, s, n, stream); break;
    case Unary::Acosh: floating<AcoshOp>(code, y, x, s, n, stream); break;
    case Unary::Asinh: floating<AsinhOp>(code, y, x, s, n, stream); break;
    case Unary::Atanh: floating<AtanhOp>(code, y, x, s, n, stream); break;
    case Unary::Sinh: floating<SinhOp>(code, y, x, s, n, stream); break;
    case Unary::Cosh: floating<CoshOp>(code, y, x, s, n, stream); break;
    case Unary::Tan: floating<TanOp>(code, y, x, s, n, stream); break;
    case Unary::Expm1: floating<Expm1Op>(code, y, x, s, n, stream); break;
    case Unary::Erfc: floating<ErfcOp>(code, y, x, s, n, stream); break;
    case Unary::Not:
      if (code == kBool) run_unary<NotOp, bool>(y, x, s, n, stream);
      break;
  }
}

}  // namespace mycel::cuda::ew
