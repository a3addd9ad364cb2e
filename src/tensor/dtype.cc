#include "tensor/dtype.h"

#include <algorithm>
#include <iterator>

namespace mycel {

namespace {

// What MYCEL_DTYPES says of each dtype, in the enum's order.
struct DTypeInfo {
  size_t size;
  std::string_view name, numpy_name;
};
constexpr DTypeInfo kDTypeInfo[] = {
#define MC_X(e, ty, n, np) {sizeof(ty), n, np},
    MYCEL_DTYPES(MC_X)
#undef MC_X
};
static_assert(std::size(kDTypeInfo) == kNumDTypes);

bool valid(DType t) { return static_cast<size_t>(t) < std::size(kDTypeInfo); }

}  // namespace

size_t dtype_size(DType t) {
  MC_ASSERT(valid(t), "bad dtype ", static_cast<int>(t));
  return kDTypeInfo[static_cast<size_t>(t)].size;
}

std::string_view dtype_name(DType t) {
  return valid(t) ? kDTypeInfo[static_cast<size_t>(t)].name : "?";
}

std::string_view dtype_numpy_name(DType t) {
  return valid(t) ? kDTypeInfo[static_cast<size_t>(t)].numpy_name : "?";
}

bool dtype_from_name(std::string_view name, DType* out) {
  for (size_t i = 0; i < std::size(kDTypeInfo); ++i) {
    if (name == kDTypeInfo[i].name || name == kDTypeInfo[i].numpy_name) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  if (name == "bool_") {
    *out = DType::Bool;
    return true;
  }
  return false;
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

namespace {
int kind_rank(DType t) { return is_bool(t) ? 0 : is_integral(t) ? 1 : is_complex(t) ? 3 : 2; }

// uint16/uint32/uint64: MindSpore's table promotes them only with bool (and themselves).
bool is_wide_unsigned(DType t) { return t >= DType::UInt16 && t <= DType::UInt64; }
}  // namespace

bool promotable(DType a, DType b) {
  return a == b || !(is_wide_unsigned(a) || is_wide_unsigned(b)) || is_bool(a) || is_bool(b);
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_wide_unsigned(a) || is_wide_unsigned(b)) {
    if (is_bool(a)) return b;
    if (is_bool(b)) return a;
    MC_THROW(Type, "Type implicit conversion between ", a, " and ", b,
             " is not supported: uint16, uint32 and uint64 promote only with bool; cast one "
             "input first.");
  }
  int ka = kind_rank(a), kb = kind_rank(b);
  if (ka == 3 || kb == 3) {  // complex: complex128 when either side holds float64 parts
    const bool wide = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 ||
                      b == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  if (ka != kb) return ka > kb ? a : b;
  if (ka == 2) {
    if (dtype_size(a) == dtype_size(b)) return DType::Float32;  // float16 with bfloat16
    return dtype_size(a) > dtype_size(b) ? a : b;
  }
  // Two integer types. uint8 is the only unsigned one left here.
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType s = a == DType::UInt8 ? b : a;
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return dtype_size(a) > dtype_size(b) ? a : b;
}

DType promote_with_scalar(DType t, ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool:
      return t;
    case ScalarKind::Int:
      return is_bool(t) ? DType::Int64 : t;
    case ScalarKind::Float:
      return is_floating(t) || is_complex(t) ? t : DType::Float32;
  }
  return t;
}

void throw_unsupported_dtype(std::string_view op, DType t, std::string_view family) {
  MC_THROW(Type, "For '", op, "', the dtype ", t, " is not supported (expected a ", family,
           " dtype).");
}

}  // namespace mycel
