// The element formulas the CPU elementwise loops (kernels/cpu/elementwise_unary.cc,
// elementwise_binary.cc) and the CUDA ones (kernels/cuda/elementwise_unary.cu,
// elementwise_binary.cu, elementwise_compare.cu) share, written once: wrapping integer
// arithmetic, the sign-type unary ops, the arithmetic and bitwise binary ops and the
// comparisons. Host
// and device code (base/host_device.h): always inlined on the host, as the CPU's hot loops
// need.
//
// Each functor is a template over Base, the backend's functor base (its loop traits: kHeavy,
// kIntCheck, ...), so a backend names it as, e.g., `using AddOp = AddForm<BinBase>;`. The
// formulas see the compute type C of the loop (the 16-bit floats as float):
//   - integers wrap (two's complement) instead of overflowing into UB; bool Add is `or` and
//     bool Mul `and`;
//   - Maximum and Minimum propagate NaN from either side (`|` rather than `||`: no branch,
//     so the CPU's loops vectorise);
//   - Sign is +0 for +-0 and NaN (MindSpore's); Relu and Relu6 keep NaN.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/host_device.h"

namespace mycel::ew {

// ---- wrapping integer arithmetic ----------------------------------------------------------

template <class T>
using wide_unsigned_t = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <class T>
MC_HOST_DEVICE_INLINE T wrap_add(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
}
template <class T>
MC_HOST_DEVICE_INLINE T wrap_sub(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
}
template <class T>
MC_HOST_DEVICE_INLINE T wrap_mul(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
}
template <class T>
MC_HOST_DEVICE_INLINE T wrap_neg(T a) {
  return wrap_sub(T(0), a);
}

// ---- sign-type unary ops: every number dtype ----------------------------------------------

template <class Base>
struct NegForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C x) {
    if constexpr (std::is_integral_v<C>)
      return wrap_neg(x);
    else
      return -x;
  }
};

template <class Base>
struct SignForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x > 0 ? C(1) : C(0);
    else
      return x > 0 ? C(1) : (x < 0 ? C(-1) : C(0));
  }
};

template <class Base>
struct SquareForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C x) {
    if constexpr (std::is_integral_v<C>)
      return wrap_mul(x, x);
    else
      return x * x;
  }
};

template <class Base>
struct ReluForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? C(0) : x;
  }
};

template <class Base>
struct Relu6Form : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C x) {
    if constexpr (std::is_unsigned_v<C>)
      return x > C(6) ? C(6) : x;
    else
      return x < C(0) ? C(0) : (x > C(6) ? C(6) : x);
  }
};

// ---- arithmetic binary ops ----------------------------------------------------------------

template <class Base>
struct AddForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    if constexpr (std::is_same_v<C, bool>)
      return a || b;
    else if constexpr (std::is_integral_v<C>)
      return wrap_add(a, b);
    else
      return a + b;
  }
};

template <class Base>
struct SubForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>)
      return wrap_sub(a, b);
    else
      return a - b;
  }
};

template <class Base>
struct MulForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    if constexpr (std::is_same_v<C, bool>)
      return a && b;
    else if constexpr (std::is_integral_v<C>)
      return wrap_mul(a, b);
    else
      return a * b;
  }
};

template <class Base>
struct DivForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    return a / b;
  }
};

// ReluGrad(dy, y): dy where the forward output y is positive.
template <class Base>
struct ReluGradForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C dy, C y) {
    return y > C(0) ? dy : C(0);
  }
};

template <class Base>
struct MaximumForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return ((a > b) | (a != a)) ? a : b;
    else
      return a > b ? a : b;
  }
};

template <class Base>
struct MinimumForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return ((a < b) | (a != a)) ? a : b;
    else
      return a < b ? a : b;
  }
};

// ---- BitwiseAnd/Or/Xor: the integer dtypes, and bool as logical and / or / xor --------------

enum class Bitwise { And, Or, Xor };

// a & b, a | b or a ^ b; on bool the logical and / or / xor (numpy's and Python's True & False).
template <Bitwise K, class C>
MC_HOST_DEVICE_INLINE C bitwise(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return static_cast<bool>(bitwise<K>(static_cast<int>(a), static_cast<int>(b)));
  } else if constexpr (K == Bitwise::And) {
    return static_cast<C>(a & b);
  } else if constexpr (K == Bitwise::Or) {
    return static_cast<C>(a | b);
  } else {
    return static_cast<C>(a ^ b);
  }
}

template <class Base, Bitwise K>
struct BitwiseForm : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    return bitwise<K>(a, b);
  }
};

// ---- comparisons (bool out; NaN unequal to everything) and LogicalAnd/Or ------------------

enum class Cmp { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, And, Or };

template <class Base, Cmp K>
struct CompareForm : Base {
  static constexpr bool kCompare = true;  // the loop writes bool
  template <class C>
  MC_HOST_DEVICE_INLINE static bool f(C a, C b) {
    if constexpr (K == Cmp::Equal)
      return a == b;
    else if constexpr (K == Cmp::NotEqual)
      return a != b;
    else if constexpr (K == Cmp::Less)
      return a < b;
    else if constexpr (K == Cmp::LessEqual)
      return a <= b;
    else if constexpr (K == Cmp::Greater)
      return a > b;
    else if constexpr (K == Cmp::GreaterEqual)
      return a >= b;
    else if constexpr (K == Cmp::And)
      return a && b;
    else
      return a || b;
  }
};

}  // namespace mycel::ew
