#include "tensor/shape.h"

#include <cstdint>
#include <sstream>

#include "base/error.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    // Only a shape with a 0 (an empty tensor, whose strides address nothing) can overflow
    // here, e.g. [0, 2^40, 2^40]: the product saturates instead (no undefined behaviour).
    if (__builtin_mul_overflow(acc, s[i] > 0 ? s[i] : 1, &acc)) acc = INT64_MAX;
  }
  return st;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << shape_str(s); }

int64_t normalize_axis(int64_t axis, int64_t ndim, std::string_view op, std::string_view arg) {
  int64_t lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim : 1;  // a 0-d tensor takes 0 / -1
  MC_CHECK(axis >= lo && axis < hi, Value, "For '", op, "', the '", arg, "' must be in range [", lo,
           ", ", hi, "), but got ", axis, ".");
  return axis < 0 ? axis + (ndim > 0 ? ndim : 1) : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op) {
  if (a == b) return a;
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    MC_CHECK(dims_broadcast(da, db), Value, "For '", op,
             "', the shapes of the inputs cannot broadcast: x.shape = ", a, ", y.shape = ", b,
             " (dimension ", i, ": ", da, " vs ", db, ").");
    out[i] = broadcast_dim(da, db);
  }
  return out;
}

bool is_dynamic(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return true;
  return false;
}

bool shapes_agree(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!dims_agree(a[i], b[i])) return false;
  return true;
}

bool shape_matches(const Shape& pattern, const Shape& s) {
  if (pattern.size() != s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (pattern[i] >= 0 && pattern[i] != s[i]) return false;
  return true;
}

void check_static_dims(const Shape& s, size_t from, size_t to, std::string_view op,
                       std::string_view what) {
  for (size_t i = from; i < to && i < s.size(); ++i)
    MC_CHECK(s[i] >= 0, Value, "For '", op, "', the ", what,
             " must be known at compile time, but dimension ", i, " of the input shape ", s,
             " is dynamic (-1); only the dimensions the output does not depend on may be "
             "dynamic.");
}

Shape broadcast_strides(const Shape& from, const Shape& strides, const Shape& to) {
  Shape out(to.size(), 0);
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) out[off + i] = from[i] == 1 ? 0 : strides[i];
  return out;
}

}  // namespace mycel
