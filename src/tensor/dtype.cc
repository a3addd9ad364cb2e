#include "tensor/dtype.h"

#include <algorithm>

namespace mycel {

size_t dtype_size(DType t) {
  switch (t) {
#define MC_X(e, ty, n, np) \
  case DType::e:           \
    return sizeof(ty);
    MYCEL_DTYPES(MC_X)
#undef MC_X
  }
  MC_ASSERT(false, "bad dtype ", static_cast<int>(t));
}

std::string_view dtype_name(DType t) {
  switch (t) {
#define MC_X(e, ty, n, np) \
  case DType::e:           \
    return n;
    MYCEL_DTYPES(MC_X)
#undef MC_X
  }
  return "?";
}

std::string_view dtype_numpy_name(DType t) {
  switch (t) {
#define MC_X(e, ty, n, np) \
  case DType::e:           \
    return np;
    MYCEL_DTYPES(MC_X)
#undef MC_X
  }
  return "?";
}

bool dtype_from_name(std::string_view name, DType* out) {
#define MC_X(e, ty, n, np)       \
  if (name == n || name == np) { \
    *out = DType::e;             \
    return true;                 \
  }
  MYCEL_DTYPES(MC_X)
#undef MC_X
  if (name == "bool_") {
    *out = DType::Bool;
    return true;
  }
  return false;
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

namespace {
int kind_rank(DType t) { return is_bool(t) ? 0 : is_integral(t) ? 1 : 2; }
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  int ka = kind_rank(a), kb = kind_rank(b);
  if (ka != kb) return ka > kb ? a : b;
  if (ka == 2) {
    if (dtype_size(a) == dtype_size(b)) return DType::Float32;  // float16 with bfloat16
    return dtype_size(a) > dtype_size(b) ? a : b;
  }
  // Two integer types. uint8 is the only unsigned one.
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
      return is_floating(t) ? t : DType::Float32;
  }
  return t;
}

void throw_unsupported_dtype(std::string_view op, DType t, std::string_view family) {
  MC_THROW(Type, "For '", op, "', the dtype ", t, " is not supported (expected a ", family,
           " dtype).");
}

}  // namespace mycel
