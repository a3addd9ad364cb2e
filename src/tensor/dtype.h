// Element types. MYCEL_DTYPES is the one list; the enum, sizes, names and the dispatch helpers
// below all come from it. The codes are stable (files and wire formats that store a dtype by
// its number keep meaning the same type): a new dtype is appended, so the kinds are not
// contiguous ranges of the enum (use the is_* predicates, never compare codes).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "base/error.h"
#include "tensor/half.h"

namespace mycel {

using complex64 = std::complex<float>;    // numpy's complex64: two float32, real first
using complex128 = std::complex<double>;  // numpy's complex128

// X(Enum, C++ type, MindSpore name, numpy name). MYCEL_REAL_DTYPES are the ones every kernel
// family is written for; the complex dtypes follow them, and MYCEL_DTYPES is both.
#define MYCEL_REAL_DTYPES(X)                    \
  X(Bool, bool, "Bool", "bool")                 \
  X(Int8, int8_t, "Int8", "int8")               \
  X(UInt8, uint8_t, "UInt8", "uint8")           \
  X(Int16, int16_t, "Int16", "int16")           \
  X(Int32, int32_t, "Int32", "int32")           \
  X(Int64, int64_t, "Int64", "int64")           \
  X(Float16, float16, "Float16", "float16")     \
  X(BFloat16, bfloat16, "BFloat16", "bfloat16") \
  X(Float32, float, "Float32", "float32")       \
  X(Float64, double, "Float64", "float64")      \
  X(UInt16, uint16_t, "UInt16", "uint16")       \
  X(UInt32, uint32_t, "UInt32", "uint32")       \
  X(UInt64, uint64_t, "UInt64", "uint64")
#define MYCEL_COMPLEX_DTYPES(X)                     \
  X(Complex64, complex64, "Complex64", "complex64") \
  X(Complex128, complex128, "Complex128", "complex128")
#define MYCEL_DTYPES(X) MYCEL_REAL_DTYPES(X) MYCEL_COMPLEX_DTYPES(X)

enum class DType : uint8_t {
#define MC_X(e, t, n, np) e,
  MYCEL_DTYPES(MC_X)
#undef MC_X
};
inline constexpr int kNumDTypes = 15;

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);                     // "Float32"
std::string_view dtype_numpy_name(DType t);               // "float32"; bfloat16 has no numpy dtype
bool dtype_from_name(std::string_view name, DType* out);  // accepts both spellings

inline bool is_floating(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
inline bool is_unsigned(DType t) {  // the unsigned integers (not bool)
  return t == DType::UInt8 || (t >= DType::UInt16 && t <= DType::UInt64);
}
inline bool is_integral(DType t) {  // no bool
  return (t >= DType::Int8 && t <= DType::Int64) || (t >= DType::UInt16 && t <= DType::UInt64);
}
inline bool is_bool(DType t) { return t == DType::Bool; }
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// complex64 <-> float32, complex128 <-> float64 (the part type and its complex type).
inline DType complex_part_dtype(DType t) {
  return t == DType::Complex128 ? DType::Float64 : t == DType::Complex64 ? DType::Float32 : t;
}
inline DType complex_dtype_of(DType real) {
  return real == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

// Type promotion for binary ops (as PyTorch and MindSpore 2.x): bool < integers < floats;
// within a kind the wider wins; int8 with uint8 gives int16; float16 with bfloat16 gives
// float32. uint16/uint32/uint64 promote only with bool and themselves: with any other dtype
// (floats included) MindSpore's table has no entry, and promote_types throws a TypeError
// naming both (PyTorch also refuses them with the other integers). Complex is above floats:
// complex with anything but the wide unsigned gives complex, complex128 when either side is
// complex128 or float64 (complex64 with float64 gives complex128), as PyTorch and MindSpore.
DType promote_types(DType a, DType b);
bool promotable(DType a, DType b);  // promote_types(a, b) does not throw

// A Python scalar's kind when it meets a tensor: it never widens the tensor within a kind
// (float32 tensor + 1.5 stays float32), but lifts bool/int tensors to its kind.
enum class ScalarKind { Bool, Int, Float };
DType promote_with_scalar(DType t, ScalarKind k);

std::ostream& operator<<(std::ostream& os, DType t);

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

template <class T>
constexpr DType dtype_of();
#define MC_X(e, t, n, np)         \
  template <>                     \
  constexpr DType dtype_of<t>() { \
    return DType::e;              \
  }
MYCEL_DTYPES(MC_X)
#undef MC_X

// dispatch_*(dtype, op, fn): calls fn(TypeTag<T>{}) for the C++ type of dtype, or throws a
// TypeError naming `op` and the dtype when the dtype is not in that family:
//   dispatch_all(t, "Add", [&](auto tag) { using T = typename decltype(tag)::type; ... });
// dispatch_all is every real dtype: a kernel written with it refuses complex inputs with that
// TypeError. Kernels that handle complex too use dispatch_any (every dtype) or
// dispatch_complex (complex64, complex128).
[[noreturn]] void throw_unsupported_dtype(std::string_view op, DType t, std::string_view family);

template <class F>
decltype(auto) dispatch_all(DType t, std::string_view op, F&& fn) {
  switch (t) {
#define MC_X(e, ty, n, np) \
  case DType::e:           \
    return fn(TypeTag<ty>{});
    MYCEL_REAL_DTYPES(MC_X)
#undef MC_X
    default:
      break;
  }
  throw_unsupported_dtype(op, t, "real (bool, integer or floating-point)");
}

template <class F>
decltype(auto) dispatch_complex(DType t, std::string_view op, F&& fn) {
  switch (t) {
    case DType::Complex64:
      return fn(TypeTag<complex64>{});
    case DType::Complex128:
      return fn(TypeTag<complex128>{});
    default:
      throw_unsupported_dtype(op, t, "complex");
  }
}

template <class F>
decltype(auto) dispatch_any(DType t, std::string_view op, F&& fn) {
  if (is_complex(t)) return dispatch_complex(t, op, std::forward<F>(fn));
  return dispatch_all(t, op, std::forward<F>(fn));
}

template <class F>
decltype(auto) dispatch_float(DType t, std::string_view op, F&& fn) {
  switch (t) {
    case DType::Float16:
      return fn(TypeTag<float16>{});
    case DType::BFloat16:
      return fn(TypeTag<bfloat16>{});
    case DType::Float32:
      return fn(TypeTag<float>{});
    case DType::Float64:
      return fn(TypeTag<double>{});
    default:
      throw_unsupported_dtype(op, t, "floating-point");
  }
}

// Numbers: every dtype but bool.
template <class F>
decltype(auto) dispatch_number(DType t, std::string_view op, F&& fn) {
  if (t == DType::Bool) throw_unsupported_dtype(op, t, "numeric");
  return dispatch_all(t, op, std::forward<F>(fn));
}

// The type arithmetic on T is carried out in: float for the 16-bit floats, T otherwise.
template <class T>
using compute_t =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

// The one definition of converting a value between dtypes (the Cast op, Tensor::cast and
// copies between dtypes, Tensor scalars and fill values, constant folding):
//   float -> integer  truncates toward zero; NaN gives 0; values outside the integer range,
//                     +-inf included, saturate to its limits (300.0 -> int8 gives 127).
//   integer -> narrower integer  wraps (two's complement), as numpy and PyTorch.
//   anything -> bool  x != 0 (NaN gives true).
//   -> float16/bfloat16  through float (round to nearest even).
//   complex -> real  the real part, converted as above (numpy's and MindSpore's Cast);
//                    complex -> bool is x != 0 (either part nonzero).
//   real -> complex  the value as the real part, imaginary part 0.
// Loops of it vectorise (compares and selects around the convert).
// kernels/ref implements the same rules independently, as the tests' oracle.
template <class D, class S>
inline D saturate_cast_real(S v);

template <class D, class S>
inline D saturate_cast(S v) {
  if constexpr (is_complex_v<S> || is_complex_v<D>) {
    if constexpr (is_complex_v<D> && is_complex_v<S>) {
      using P = typename D::value_type;
      return D(static_cast<P>(v.real()), static_cast<P>(v.imag()));
    } else if constexpr (is_complex_v<D>) {
      using P = typename D::value_type;
      return D(static_cast<P>(static_cast<compute_t<S>>(v)), P(0));
    } else if constexpr (std::is_same_v<D, bool>) {
      return v != S(0);
    } else {
      return saturate_cast<D>(v.real());
    }
  } else {
    return saturate_cast_real<D, S>(v);
  }
}

template <class D, class S>
inline D saturate_cast_real(S v) {
  using SC = compute_t<S>;
  const SC x = static_cast<SC>(v);
  if constexpr (std::is_same_v<D, bool>) {
    return x != SC(0);
  } else if constexpr (std::is_floating_point_v<SC> && std::is_integral_v<D>) {
    // lo is exact in SC (a power of two or 0); hi rounds up to a power of two when D has
    // more bits than SC's mantissa, so "x >= hi" is exactly "x is above D's range". This
    // form compiles to a vector convert and selects.
    constexpr SC lo = static_cast<SC>(std::numeric_limits<D>::min());
    constexpr SC hi = static_cast<SC>(std::numeric_limits<D>::max());
    if (!(x == x)) return D(0);
    return x <= lo ? std::numeric_limits<D>::min()
                   : (x >= hi ? std::numeric_limits<D>::max() : static_cast<D>(x));
  } else if constexpr (std::is_same_v<D, float16> || std::is_same_v<D, bfloat16>) {
    return D(static_cast<float>(x));
  } else {
    return static_cast<D>(x);
  }
}

}  // namespace mycel
