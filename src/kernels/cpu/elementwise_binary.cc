// CPU kernels of the binary elementwise ops: arithmetic, comparisons, LogicalAnd/Or and
// BitwiseAnd/Or/Xor.
//
// Integer semantics: +, -, *, Pow wrap around (two's complement); FloorDiv, Mod and FloorMod
// raise a ValueError for a zero divisor and never trap on INT_MIN / -1; Pow raises for a
// negative integer exponent. Float semantics: IEEE (x / 0 = +-inf or nan); Maximum and Minimum
// propagate nan; FloorDiv and FloorMod follow Python's float // and % (computed in double).
#include <cmath>

#include "base/pymath.h"
#include "kernels/cpu/complex.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/elementwise_forms.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

struct BinBase {
  static constexpr bool kCompare = false;   // bool result
  static constexpr bool kIntCheck = false;  // integer inputs need a data check (bad/fail)
  static constexpr bool kHeavy = false;
};

using AddOp = ew::AddForm<BinBase>;
using SubOp = ew::SubForm<BinBase>;
using MulOp = ew::MulForm<BinBase>;
using DivOp = ew::DivForm<BinBase>;
using ReluGradOp = ew::ReluGradForm<BinBase>;
using MaximumOp = ew::MaximumForm<BinBase>;
using MinimumOp = ew::MinimumForm<BinBase>;

// Python's float // and %: py_floordiv and py_mod of base/pymath.h.

[[noreturn, gnu::cold]] void fail_div_zero(const char* op, DType t) {
  MC_THROW(Value, "For '", op, "', division by zero: an integer divisor (dtype ", t, ") is 0.");
}

// Integer division helpers for a divisor that is neither 0 nor -1 (the caller handles both).
struct IntDivBase : BinBase {
  static constexpr bool kIntCheck = true;
  static constexpr bool kHeavy = true;
  template <class C>
  MC_EW_INLINE static bool bad(C b) {
    return b == C(0);
  }
  template <class C>
  MC_EW_INLINE static bool is_minus_one(C b) {
    if constexpr (std::is_signed_v<C>)
      return b == C(-1);
    else
      return false;
  }
  template <class C>
  MC_EW_INLINE static C safe_divisor(C b) {
    return (b == C(0) || is_minus_one(b)) ? C(1) : b;
  }
};

struct FloorDivOp : IntDivBase {
  static constexpr const char* kName = "FloorDiv";
  template <class C>
  MC_EW_INLINE static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      if (b == C(0)) return C(0);
      if (is_minus_one(b)) return ew::wrap_neg(a);
      const C q = static_cast<C>(a / b);
      if constexpr (std::is_signed_v<C>) {
        if (static_cast<C>(a % b) != 0 && ((a < 0) != (b < 0))) return static_cast<C>(q - 1);
      }
      return q;
    } else {
      return static_cast<C>(py_floordiv(a, b));
    }
  }
  static void fail(DType t) { fail_div_zero(kName, t); }
};

struct ModOp : IntDivBase {
  static constexpr const char* kName = "Mod";
  template <class C>
  MC_EW_INLINE static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(a % safe_divisor(b));
    else
      return std::fmod(a, b);  // exact, so float and double agree
  }
  static void fail(DType t) { fail_div_zero(kName, t); }
};

struct FloorModOp : IntDivBase {
  static constexpr const char* kName = "FloorMod";
  template <class C>
  MC_EW_INLINE static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      const C d = safe_divisor(b);
      C r = static_cast<C>(a % d);
      if constexpr (std::is_signed_v<C>) {
        if (r != 0 && ((r < 0) != (d < 0))) r = static_cast<C>(r + d);
      }
      return r;
    } else {
      return static_cast<C>(py_mod(a, b));
    }
  }
  static void fail(DType t) { fail_div_zero(kName, t); }
};

struct PowOp : BinBase {
  static constexpr bool kIntCheck = true;
  static constexpr bool kHeavy = true;
  template <class C>
  MC_EW_INLINE static bool bad(C b) {
    if constexpr (std::is_signed_v<C>)
      return b < 0;
    else
      return false;
  }
  template <class C>
  MC_EW_INLINE static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      if (bad(b)) return C(0);
      using W = ew::wide_unsigned_t<C>;
      W r = 1, base = static_cast<W>(a);
      for (W e = static_cast<W>(b); e != 0; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
      }
      return static_cast<C>(r);
    } else {
      return std::pow(a, b);
    }
  }
  [[noreturn, gnu::cold]] static void fail(DType t) {
    MC_THROW(Value, "For 'Pow', integers to negative integer powers are not allowed (dtype ", t,
             "); cast the base to a float dtype first.");
  }
};

// Bitwise and / or / xor: the integer dtypes, and bool as logical and / or / xor
// (kernels/elementwise_forms.h, shared with the CUDA loops).
using BitAndOp = ew::BitwiseForm<BinBase, ew::Bitwise::And>;
using BitOrOp = ew::BitwiseForm<BinBase, ew::Bitwise::Or>;
using BitXorOp = ew::BitwiseForm<BinBase, ew::Bitwise::Xor>;

// The comparisons and LogicalAnd/Or (kernels/elementwise_forms.h).
using EqualOp = ew::CompareForm<BinBase, ew::Cmp::Equal>;
using NotEqualOp = ew::CompareForm<BinBase, ew::Cmp::NotEqual>;
using LessOp = ew::CompareForm<BinBase, ew::Cmp::Less>;
using LessEqualOp = ew::CompareForm<BinBase, ew::Cmp::LessEqual>;
using GreaterOp = ew::CompareForm<BinBase, ew::Cmp::Greater>;
using GreaterEqualOp = ew::CompareForm<BinBase, ew::Cmp::GreaterEqual>;
using AndOp = ew::CompareForm<BinBase, ew::Cmp::And>;
using OrOp = ew::CompareForm<BinBase, ew::Cmp::Or>;

// ---- loops ------------------------------------------------------------------------------

template <class Op, class T>
using result_t = std::conditional_t<Op::kCompare, bool, T>;

template <class Op, class T>
MC_EW_INLINE void binary_loop(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb,
                              char* o, int64_t so) {
  using C = compute_t<T>;
  using R = result_t<Op, T>;
  const T* ap = reinterpret_cast<const T*>(a);
  const T* bp = reinterpret_cast<const T*>(b);
  R* op = reinterpret_cast<R*>(o);
  const int64_t ea = sa / static_cast<int64_t>(sizeof(T));
  const int64_t eb = sb / static_cast<int64_t>(sizeof(T));
  const int64_t eo = so / static_cast<int64_t>(sizeof(R));
  if constexpr (Op::kIntCheck && std::is_integral_v<T>) {
    bool bad = false;
    for (int64_t i = 0; i < n; ++i) {
      const C y = bp[i * eb];
      bad |= Op::bad(y);
      op[i * eo] = static_cast<R>(Op::f(static_cast<C>(ap[i * ea]), y));
    }
    if (bad) Op::fail(dtype_of<T>());
  } else {
    if (eo == 1) {
      if (ea == 1 && eb == 1) {
        for (int64_t i = 0; i < n; ++i)
          op[i] = static_cast<R>(Op::f(static_cast<C>(ap[i]), static_cast<C>(bp[i])));
        return;
      }
      if (ea == 0 && eb == 1) {
        const C x = static_cast<C>(ap[0]);
        for (int64_t i = 0; i < n; ++i) op[i] = static_cast<R>(Op::f(x, static_cast<C>(bp[i])));
        return;
      }
      if (ea == 1 && eb == 0) {
        const C y = static_cast<C>(bp[0]);
        for (int64_t i = 0; i < n; ++i) op[i] = static_cast<R>(Op::f(static_cast<C>(ap[i]), y));
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      op[i * eo] = static_cast<R>(Op::f(static_cast<C>(ap[i * ea]), static_cast<C>(bp[i * eb])));
    }
  }
}

template <class Op, class T>
void binary_fn(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb, char* o,
               int64_t so) {
  binary_loop<Op, T>(n, a, sa, b, sb, o, so);
}

// float32 loops of the vectorisable ops: one multiversioned function each.
template <class Op>
struct F32 {
  static constexpr bool kHas = false;
};
#define MC_EW_F32(Op)                                                                         \
  MC_EW_CLONES void Op##_f32(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb, \
                             char* o, int64_t so) {                                           \
    binary_loop<Op, float>(n, a, sa, b, sb, o, so);                                           \
  }                                                                                           \
  template <>                                                                                 \
  struct F32<Op> {                                                                            \
    static constexpr bool kHas = true;                                                        \
    static constexpr ew::BinaryLoop fn = &Op##_f32;                                           \
  };
MC_EW_F32(AddOp)
MC_EW_F32(SubOp)
MC_EW_F32(MulOp)
MC_EW_F32(DivOp)
MC_EW_F32(MaximumOp)
MC_EW_F32(ReluGradOp)
MC_EW_F32(MinimumOp)
MC_EW_F32(EqualOp)
MC_EW_F32(NotEqualOp)
MC_EW_F32(LessOp)
MC_EW_F32(LessEqualOp)
MC_EW_F32(GreaterOp)
MC_EW_F32(GreaterEqualOp)
#undef MC_EW_F32

// bfloat16 loops of the arithmetic ops: one pass in registers (widen each element, the float
// operation, round to nearest even), vectorised in the clones. The values are those of the
// float32 loop between conversions, at a third of its passes through the cache (the blocked
// ew::bf16_binary converts each operand into a buffer, runs the float32 loop and rounds).
template <class Op>
struct Bf16 {
  static constexpr bool kHas = false;
};
#define MC_EW_BF16(Op)                                                                         \
  MC_EW_CLONES void Op##_bf16(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb, \
                              char* o, int64_t so) {                                           \
    binary_loop<Op, bfloat16>(n, a, sa, b, sb, o, so);                                         \
  }                                                                                            \
  template <>                                                                                  \
  struct Bf16<Op> {                                                                            \
    static constexpr bool kHas = true;                                                         \
    static constexpr ew::BinaryLoop fn = &Op##_bf16;                                           \
  };
MC_EW_BF16(AddOp)
MC_EW_BF16(SubOp)
MC_EW_BF16(MulOp)
#undef MC_EW_BF16

template <class Op, class T>
ew::BinaryLoop pick() {
  if constexpr (std::is_same_v<T, float> && F32<Op>::kHas)
    return F32<Op>::fn;
  else if constexpr (std::is_same_v<T, bfloat16> && Bf16<Op>::kHas)
    return Bf16<Op>::fn;
  else if constexpr (std::is_same_v<T, bfloat16> && F32<Op>::kHas && !Op::kCompare)
    return &ew::bf16_binary<F32<Op>::fn>;
  else
    return &binary_fn<Op, T>;
}

template <class Op>
ew::BinaryLoop pick_all(DType t, std::string_view op) {
  return dispatch_all(t, op, [](auto tag) { return pick<Op, typename decltype(tag)::type>(); });
}

template <class Op>
ew::BinaryLoop pick_number(DType t, std::string_view op) {
  return dispatch_number(t, op, [](auto tag) { return pick<Op, typename decltype(tag)::type>(); });
}

template <class Op>
ew::BinaryLoop pick_bitwise(DType t, std::string_view op) {
  MC_CHECK(!is_floating(t), Type, "For '", op,
           "', the inputs must be bool or integer tensors, but got dtype ", t, ".");
  return dispatch_all(t, op, [](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      return &binary_fn<Op, T>;
    else
      return static_cast<ew::BinaryLoop>(nullptr);
  });
}

}  // namespace

void cpu_binary(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  MC_ASSERT(a.dtype() == b.dtype(), ctx.op.name, " inputs must arrive promoted");
  const DType t = a.dtype();
  const std::string_view name = ctx.op.name;
  if (is_complex(t)) {  // the ops the infer rules let through (complex.h)
    ew::BinaryLoop cfn = complex_binary_loop(ctx.op.id, t);
    MC_CHECK(cfn, Type, "For '", name, "', complex inputs are not supported, but got dtype ", t,
             ".");
    ew::run_binary(a, b, ctx.out[0], cfn, ew::kGrainHeavy);
    return;
  }
  ew::BinaryLoop fn = nullptr;
  bool heavy = false;
  switch (ctx.op.id) {
#define MC_CASE(Id, Op, pick_fn) \
  case OpId::Id:                 \
    fn = pick_fn<Op>(t, name);   \
    heavy = Op::kHeavy;          \
    break;
    MC_CASE(Add, AddOp, pick_all)
    MC_CASE(Sub, SubOp, pick_number)
    MC_CASE(Mul, MulOp, pick_all)
    MC_CASE(FloorDiv, FloorDivOp, pick_number)
    MC_CASE(Mod, ModOp, pick_number)
    MC_CASE(FloorMod, FloorModOp, pick_number)
    MC_CASE(Pow, PowOp, pick_number)
    MC_CASE(Maximum, MaximumOp, pick_all)
    MC_CASE(ReluGrad, ReluGradOp, pick_number)
    MC_CASE(Minimum, MinimumOp, pick_all)
    MC_CASE(Equal, EqualOp, pick_all)
    MC_CASE(NotEqual, NotEqualOp, pick_all)
    MC_CASE(Less, LessOp, pick_all)
    MC_CASE(LessEqual, LessEqualOp, pick_all)
    MC_CASE(Greater, GreaterOp, pick_all)
    MC_CASE(GreaterEqual, GreaterEqualOp, pick_all)
    MC_CASE(BitwiseAnd, BitAndOp, pick_bitwise)
    MC_CASE(BitwiseOr, BitOrOp, pick_bitwise)
    MC_CASE(BitwiseXor, BitXorOp, pick_bitwise)
#undef MC_CASE
    case OpId::Div:
      fn = dispatch_float(t, name,
                          [](auto tag) { return pick<DivOp, typename decltype(tag)::type>(); });
      break;
    case OpId::LogicalAnd:
    case OpId::LogicalOr:
      MC_ASSERT(t == DType::Bool, name, " on ", t);
      fn = ctx.op.id == OpId::LogicalAnd ? &binary_fn<AndOp, bool> : &binary_fn<OrOp, bool>;
      break;
    default:
      MC_ASSERT(false, "cpu_binary has no kernel for ", name);
  }
  ew::run_binary(a, b, ctx.out[0], fn, heavy ? ew::kGrainHeavy : ew::kGrainCheap);
}

}  // namespace mycel
