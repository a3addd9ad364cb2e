// CUDA kernels of the unary elementwise ops (Neg ... GeLU, LogicalNot): the functors of
// kernels/cpu/elementwise_unary.cc on the device.
//
// Float math is CUDA's libdevice (expf, erff... for float and the 16-bit floats computed in
// float; exp, erf... for float64), with the CPU's formulas where it composes them: the stable
// sigmoid from exp(-|x|), softplus as max(x, 0) + log1p(exp(-|x|)), SiLU and both GeLUs at
// -inf give their limit 0, Rsqrt is 1 / sqrt(x) (not the approximate rsqrt). Results agree
// with the CPU to the ulps of the two libraries, not bit for bit. Built without fast math:
// sqrt and division are IEEE.
#include <cmath>

#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"

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
#undef MC_EW_MATH

struct OpBase {};

// ---- sign-type ops: every numeric dtype ------------------------------------------------

struct NegOp : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_integral_v<C>)
      return wrap_neg(x);
    else
      return -x;
  }
};

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

struct SignOp : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x > 0 ? C(1) : C(0);
    else
      return x > 0 ? C(1) : (x < 0 ? C(-1) : x);  // keeps 0, -0 and nan
  }
};

struct SquareOp : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_integral_v<C>)
      return wrap_mul(x, x);
    else
      return x * x;
  }
};

struct ReluOp : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? C(0) : x;  // nan stays nan
  }
};

struct Relu6Op : OpBase {
  template <class C>
  __device__ static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x > C(6) ? C(6) : x;
    else
      return x < C(0) ? C(0) : (x > C(6) ? C(6) : x);  // nan stays nan
  }
};

// ---- float math (C is float or double) --------------------------------------------------

// 1 / (1 + exp(-x)) from e = exp(-|x|): neither side overflows (the CPU's sigmoid_d).
template <class C>
__device__ inline C sigmoid(C x) {
  const C e = m_exp(-m_fabs(x));
  const C r = C(1) / (C(1) + e);
  return x >= C(0) ? r : e * r;
}

template <class C>
__device__ inline bool is_neg_inf(C x) {
  return x == -static_cast<C>(INFINITY);
}

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
MC_EW_FLOAT_OP(SigmoidOp, sigmoid(x))
MC_EW_FLOAT_OP(ErfOp, m_erf(x))
MC_EW_FLOAT_OP(SiluOp, is_neg_inf(x) ? C(0) : x * sigmoid(x))
MC_EW_FLOAT_OP(SoftplusOp, (x > C(0) ? x : C(0)) + m_log1p(m_exp(-m_fabs(x))))
// 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
MC_EW_FLOAT_OP(GeluTanhOp,
               is_neg_inf(x) ? C(0)
                             : x * sigmoid(C(1.5957691216057308) * (x + C(0.044715) * x * x * x)))
// 0.5 x (1 + erf(x / sqrt2)) = 0.5 x erfc(-x / sqrt2).
MC_EW_FLOAT_OP(GeluErfOp,
               is_neg_inf(x) ? C(0) : C(0.5) * x * m_erfc(-x * C(0.7071067811865476)))
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
    case Unary::Not:
      if (code == kBool) run_unary<NotOp, bool>(y, x, s, n, stream);
      break;
  }
}

}  // namespace mycel::cuda::ew
