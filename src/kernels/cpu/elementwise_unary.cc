// CPU kernels of the unary elementwise ops (Neg ... GeLU, trigonometry, rounding, LogicalNot).
#include <immintrin.h>

#include <cmath>

#include "base/activation_forms.h"
#include "kernels/cpu/complex.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/vmath.h"
#include "kernels/elementwise_forms.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

struct OpBase {
  static constexpr bool kHeavy = false;  // transcendental: smaller thread grain
  static constexpr bool kFixup = false;  // float32 results vmath cannot give are redone
  static constexpr bool kBlock = false;  // a hand-written contiguous float32 loop
};

// ---- sign-type ops: every number dtype ------------------------------------------------

using NegOp = ew::NegForm<OpBase>;

struct AbsOp : OpBase {
  template <class C>
  MC_EW_INLINE static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? ew::wrap_neg(x) : x;
    else if constexpr (std::is_same_v<C, float>)
      return vmath::fabs(x);
    else
      return std::fabs(x);
  }
};

using SignOp = ew::SignForm<OpBase>;
using SquareOp = ew::SquareForm<OpBase>;
using ReluOp = ew::ReluForm<OpBase>;
using Relu6Op = ew::Relu6Form<OpBase>;

// Rounding to an integral value: integers are returned as they are. Round and Rint take
// halves to even (nearbyint under the default rounding mode).
#define MC_EW_ROUND_OP(Name, fexpr)        \
  struct Name : OpBase {                   \
    template <class C>                     \
    MC_EW_INLINE static C f(C x) {         \
      if constexpr (std::is_integral_v<C>) \
        return x;                          \
      else                                 \
        return fexpr;                      \
    }                                      \
  };
MC_EW_ROUND_OP(FloorOp, std::floor(x))
MC_EW_ROUND_OP(CeilOp, std::ceil(x))
MC_EW_ROUND_OP(RoundOp, std::nearbyint(x))
#undef MC_EW_ROUND_OP

// ---- float math: float32 through vmath, float64 through libm ---------------------------

struct HeavyBase : OpBase {
  static constexpr bool kHeavy = true;
};

// libm in double, the math of base/activation_forms.h's float64 forms here.
struct LibmD {
  MC_EW_INLINE static double exp(double x) { return std::exp(x); }
  MC_EW_INLINE static double log1p(double x) { return std::log1p(x); }
  MC_EW_INLINE static double erfc(double x) { return std::erfc(x); }
  MC_EW_INLINE static double fabs(double x) { return std::fabs(x); }
};

#define MC_EW_FLOAT_OP(Name, Base, vexpr, dexpr) \
  struct Name : Base {                           \
    template <class C>                           \
    MC_EW_INLINE static C f(C x) {               \
      if constexpr (std::is_same_v<C, float>)    \
        return vexpr;                            \
      else                                       \
        return dexpr;                            \
    }                                            \
  };

MC_EW_FLOAT_OP(ExpOp, HeavyBase, vmath::exp(x), std::exp(x))
MC_EW_FLOAT_OP(LogOp, HeavyBase, vmath::log(x), std::log(x))
MC_EW_FLOAT_OP(Log1pOp, HeavyBase, vmath::log1p(x), std::log1p(x))
MC_EW_FLOAT_OP(ReciprocalOp, OpBase, 1.0f / x, 1.0 / x)
MC_EW_FLOAT_OP(TanhOp, HeavyBase, vmath::tanh(x), std::tanh(x))
MC_EW_FLOAT_OP(SigmoidOp, HeavyBase, vmath::sigmoid(x), act::sigmoid<LibmD>(x))
MC_EW_FLOAT_OP(ErfOp, HeavyBase, vmath::erf(x), std::erf(x))
MC_EW_FLOAT_OP(SiluOp, HeavyBase, vmath::silu(x), act::silu<LibmD>(x))
MC_EW_FLOAT_OP(SoftplusOp, HeavyBase, vmath::softplus(x), act::softplus<LibmD>(x))
MC_EW_FLOAT_OP(GeluTanhOp, HeavyBase, vmath::gelu_tanh(x), act::gelu_tanh<LibmD>(x))
MC_EW_FLOAT_OP(GeluErfOp, HeavyBase, vmath::gelu_erf(x), act::gelu_erf<LibmD>(x))
MC_EW_FLOAT_OP(SinMath, HeavyBase, vmath::sin(x), std::sin(x))
MC_EW_FLOAT_OP(CosMath, HeavyBase, vmath::cos(x), std::cos(x))
// Inverse/hyperbolic trigonometry, expm1, erfc: libm in both precisions (no vmath form).
MC_EW_FLOAT_OP(AcosOp, HeavyBase, std::acos(x), std::acos(x))
MC_EW_FLOAT_OP(AsinOp, HeavyBase, std::asin(x), std::asin(x))
MC_EW_FLOAT_OP(AtanOp, HeavyBase, std::atan(x), std::atan(x))
MC_EW_FLOAT_OP(AcoshOp, HeavyBase, std::acosh(x), std::acosh(x))
MC_EW_FLOAT_OP(AsinhOp, HeavyBase, std::asinh(x), std::asinh(x))
MC_EW_FLOAT_OP(AtanhOp, HeavyBase, std::atanh(x), std::atanh(x))
MC_EW_FLOAT_OP(SinhOp, HeavyBase, std::sinh(x), std::sinh(x))
MC_EW_FLOAT_OP(CoshOp, HeavyBase, std::cosh(x), std::cosh(x))
MC_EW_FLOAT_OP(TanOp, HeavyBase, std::tan(x), std::tan(x))
MC_EW_FLOAT_OP(Expm1Op, HeavyBase, std::expm1(x), std::expm1(x))
MC_EW_FLOAT_OP(ErfcOp, HeavyBase, std::erfc(x), std::erfc(x))
#undef MC_EW_FLOAT_OP

// sin/cos: vmath reduces |x| <= 8192 exactly; larger and non-finite arguments are redone
// in double.
template <class Math>
struct TrigOp : Math {
  static constexpr bool kFixup = true;
  static float fix(float x) { return static_cast<float>(Math::f(static_cast<double>(x))); }
};
using SinOp = TrigOp<SinMath>;
using CosOp = TrigOp<CosMath>;

// sqrt does not auto-vectorise while libm may set errno, so float32 uses SSE directly.
struct SqrtOp : OpBase {
  static constexpr bool kBlock = true;
  template <class C>
  MC_EW_INLINE static C f(C x) {
    if constexpr (std::is_same_v<C, float>)
      return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
    else
      return std::sqrt(x);
  }
  MC_EW_INLINE static void block(const float* x, float* y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
    for (; i < n; ++i) y[i] = f(x[i]);
  }
};

struct RsqrtOp : OpBase {
  static constexpr bool kBlock = true;
  template <class C>
  MC_EW_INLINE static C f(C x) {
    if constexpr (std::is_same_v<C, float>)
      return 1.0f / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
    else
      return 1.0 / std::sqrt(x);
  }
  MC_EW_INLINE static void block(const float* x, float* y, int64_t n) {
    const __m128 one = _mm_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      _mm_storeu_ps(y + i, _mm_div_ps(one, _mm_sqrt_ps(_mm_loadu_ps(x + i))));
    for (; i < n; ++i) y[i] = f(x[i]);
  }
};

struct NotOp : OpBase {
  template <class C>
  MC_EW_INLINE static C f(C x) {
    return !x;
  }
};

// ---- loops ------------------------------------------------------------------------------

template <class Op, class T>
MC_EW_INLINE void unary_run(int64_t n, const T* xp, int64_t ex, T* yp, int64_t ey) {
  using C = compute_t<T>;
  if (ex == 1 && ey == 1) {
    if constexpr (Op::kBlock && std::is_same_v<T, float>) {
      Op::block(xp, yp, n);
    } else {
      for (int64_t i = 0; i < n; ++i) yp[i] = static_cast<T>(Op::f(static_cast<C>(xp[i])));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) yp[i * ey] = static_cast<T>(Op::f(static_cast<C>(xp[i * ex])));
  }
}

template <class Op, class T>
MC_EW_INLINE void unary_loop(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  constexpr int64_t ts = sizeof(T);
  const T* xp = reinterpret_cast<const T*>(x);
  T* yp = reinterpret_cast<T*>(y);
  const int64_t ex = sx / ts, ey = sy / ts;
  if constexpr (Op::kFixup && std::is_same_v<compute_t<T>, float>) {
    // In blocks, so the fix-up pass re-reads x from cache.
    constexpr int64_t kBlock = 2048;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      unary_run<Op, T>(m, xp + b * ex, ex, yp + b * ey, ey);
      uint32_t any = 0;  // an OR reduction, which vectorises; the fix-up loop does not
      for (int64_t i = b; i < b + m; ++i)
        any |= vmath::trig_needs_fixup(static_cast<float>(xp[i * ex])) ? 1u : 0u;
      if (!any) continue;
      for (int64_t i = b; i < b + m; ++i) {
        const float v = static_cast<float>(xp[i * ex]);
        if (vmath::trig_needs_fixup(v)) yp[i * ey] = static_cast<T>(Op::fix(v));
      }
    }
  } else {
    unary_run<Op, T>(n, xp, ex, yp, ey);
  }
}

template <class Op, class T>
void unary_fn(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  unary_loop<Op, T>(n, x, sx, y, sy);
}

// float32 loops: one multiversioned function per op.
template <class Op>
struct F32;
#define MC_EW_F32(Op)                                                                     \
  MC_EW_CLONES void Op##_f32(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) { \
    unary_loop<Op, float>(n, x, sx, y, sy);                                               \
  }                                                                                       \
  template <>                                                                             \
  struct F32<Op> {                                                                        \
    static constexpr ew::UnaryLoop fn = &Op##_f32;                                        \
  };
MC_EW_F32(NegOp)
MC_EW_F32(AbsOp)
MC_EW_F32(SignOp)
MC_EW_F32(SquareOp)
MC_EW_F32(ReluOp)
MC_EW_F32(Relu6Op)
MC_EW_F32(ExpOp)
MC_EW_F32(LogOp)
MC_EW_F32(Log1pOp)
MC_EW_F32(SqrtOp)
MC_EW_F32(RsqrtOp)
MC_EW_F32(ReciprocalOp)
MC_EW_F32(SinOp)
MC_EW_F32(CosOp)
MC_EW_F32(TanhOp)
MC_EW_F32(SigmoidOp)
MC_EW_F32(ErfOp)
MC_EW_F32(SiluOp)
MC_EW_F32(SoftplusOp)
MC_EW_F32(GeluTanhOp)
MC_EW_F32(GeluErfOp)
MC_EW_F32(FloorOp)
MC_EW_F32(CeilOp)
MC_EW_F32(RoundOp)
MC_EW_F32(AcosOp)
MC_EW_F32(AsinOp)
MC_EW_F32(AtanOp)
MC_EW_F32(AcoshOp)
MC_EW_F32(AsinhOp)
MC_EW_F32(AtanhOp)
MC_EW_F32(SinhOp)
MC_EW_F32(CoshOp)
MC_EW_F32(TanOp)
MC_EW_F32(Expm1Op)
MC_EW_F32(ErfcOp)
#undef MC_EW_F32

// bfloat16 loops of the memory-bound ops: one pass in registers (widen, the float op, round
// to nearest even) in the clones, the float32 loop's values at a third of the blocked
// ew::bf16_unary's passes through the cache (Square: 20% less time). The transcendental ops
// (Exp, Erf, GeLU) measured no faster this way and stay blocked. Not for ops with a float32
// block kernel or a fix-up pass (their float32 values come from those).
template <class Op>
struct Bf16 {
  static constexpr bool kHas = false;
};
#define MC_EW_BF16(Op)                                                                     \
  MC_EW_CLONES void Op##_bf16(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) { \
    unary_loop<Op, bfloat16>(n, x, sx, y, sy);                                             \
  }                                                                                        \
  template <>                                                                              \
  struct Bf16<Op> {                                                                        \
    static_assert(!Op::kBlock && !Op::kFixup);                                             \
    static constexpr bool kHas = true;                                                     \
    static constexpr ew::UnaryLoop fn = &Op##_bf16;                                        \
  };
MC_EW_BF16(NegOp)
MC_EW_BF16(AbsOp)
MC_EW_BF16(SquareOp)
MC_EW_BF16(ReluOp)
#undef MC_EW_BF16

template <class Op, class T>
ew::UnaryLoop pick() {
  if constexpr (std::is_same_v<T, float>)
    return F32<Op>::fn;
  else if constexpr (std::is_same_v<T, bfloat16> && Bf16<Op>::kHas)
    return Bf16<Op>::fn;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return &ew::bf16_unary<F32<Op>::fn>;
  else
    return &unary_fn<Op, T>;
}

template <class Op>
ew::UnaryLoop pick_number(DType t, std::string_view op) {
  return dispatch_number(t, op, [](auto tag) { return pick<Op, typename decltype(tag)::type>(); });
}

template <class Op>
ew::UnaryLoop pick_float(DType t, std::string_view op) {
  return dispatch_float(t, op, [](auto tag) { return pick<Op, typename decltype(tag)::type>(); });
}

}  // namespace

void cpu_unary(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const DType t = x.dtype();
  const std::string_view name = ctx.op.name;
  if (is_complex(t)) {  // the ops the infer rule lets through (complex.h)
    ew::UnaryLoop cfn = complex_unary_loop(ctx.op.id, t);
    MC_CHECK(cfn, Type, "For '", name, "', complex inputs are not supported, but got dtype ", t,
             ".");
    ew::run_unary(x, ctx.out[0], cfn, ew::kGrainHeavy);
    return;
  }
  ew::UnaryLoop fn = nullptr;
  bool heavy = false;
  switch (ctx.op.id) {
#define MC_NUM(Id, Op)             \
  case OpId::Id:                   \
    fn = pick_number<Op>(t, name); \
    break;
#define MC_FLT(Id, Op)            \
  case OpId::Id:                  \
    fn = pick_float<Op>(t, name); \
    heavy = Op::kHeavy;           \
    break;
    MC_NUM(Neg, NegOp)
    MC_NUM(Abs, AbsOp)
    MC_NUM(Sign, SignOp)
    MC_NUM(Square, SquareOp)
    MC_NUM(ReLU, ReluOp)
    MC_NUM(ReLU6, Relu6Op)
    MC_NUM(Floor, FloorOp)
    MC_NUM(Ceil, CeilOp)
    MC_NUM(Round, RoundOp)
    MC_NUM(Rint, RoundOp)
    MC_FLT(Exp, ExpOp)
    MC_FLT(Log, LogOp)
    MC_FLT(Log1p, Log1pOp)
    MC_FLT(Sqrt, SqrtOp)
    MC_FLT(Rsqrt, RsqrtOp)
    MC_FLT(Reciprocal, ReciprocalOp)
    MC_FLT(Sin, SinOp)
    MC_FLT(Cos, CosOp)
    MC_FLT(Tanh, TanhOp)
    MC_FLT(Sigmoid, SigmoidOp)
    MC_FLT(Erf, ErfOp)
    MC_FLT(SiLU, SiluOp)
    MC_FLT(Softplus, SoftplusOp)
    MC_FLT(ACos, AcosOp)
    MC_FLT(Asin, AsinOp)
    MC_FLT(Atan, AtanOp)
    MC_FLT(Acosh, AcoshOp)
    MC_FLT(Asinh, AsinhOp)
    MC_FLT(Atanh, AtanhOp)
    MC_FLT(Sinh, SinhOp)
    MC_FLT(Cosh, CoshOp)
    MC_FLT(Tan, TanOp)
    MC_FLT(Expm1, Expm1Op)
    MC_FLT(Erfc, ErfcOp)
#undef MC_NUM
#undef MC_FLT
    case OpId::GeLU:
      if (ctx.attrs.get_str("approximate") == "tanh")
        fn = pick_float<GeluTanhOp>(t, name);
      else
        fn = pick_float<GeluErfOp>(t, name);
      heavy = true;
      break;
    case OpId::LogicalNot:
      MC_ASSERT(t == DType::Bool, "LogicalNot on ", t);
      fn = &unary_fn<NotOp, bool>;
      break;
    default:
      MC_ASSERT(false, "cpu_unary has no kernel for ", name);
  }
  ew::run_unary(x, ctx.out[0], fn, heavy ? ew::kGrainHeavy : ew::kGrainCheap);
}

}  // namespace mycel
