#include "tensor/size.h"

#include <cstdint>

#include "base/error.h"

namespace mycel {

namespace {
[[noreturn]] void throw_negative(const Shape& s, std::string_view what) {
  MC_THROW(Value, "For '", what, "', a shape must not have negative dimensions, but got ", s, ".");
}
}  // namespace

int64_t checked_numel(const Shape& s, std::string_view what) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : s) {
    if (d < 0) [[unlikely]]
      throw_negative(s, what);
    overflow |= __builtin_mul_overflow(n, d, &n);
  }
  // A 0 anywhere makes the count 0 however large the rest is (numpy accepts such shapes).
  if (overflow) [[unlikely]] {
    for (int64_t d : s) {
      if (d == 0) return 0;
    }
    MC_THROW(Value, "For '", what, "', the shape ", s,
             " has more elements than fit in 64 bits (the element count must be at most ",
             INT64_MAX, ").");
  }
  return n;
}

int64_t checked_nbytes(const Shape& s, size_t itemsize, std::string_view what) {
  int64_t n = checked_numel(s, what), bytes = 0;
  MC_CHECK(!__builtin_mul_overflow(n, static_cast<int64_t>(itemsize), &bytes), Value, "For '", what,
           "', a tensor of shape ", s, " (", n, " elements of ", itemsize,
           " bytes) is too large: its byte size does not fit in 64 bits (at most ", INT64_MAX,
           ").");
  return bytes;
}

int64_t checked_mul(int64_t a, int64_t b, std::string_view what) {
  int64_t r = 0;
  MC_CHECK(!__builtin_mul_overflow(a, b, &r), Value, "For '", what, "', the size ", a, " * ", b,
           " does not fit in 64 bits.");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, std::string_view what) {
  int64_t r = 0;
  MC_CHECK(!__builtin_add_overflow(a, b, &r), Value, "For '", what, "', the size ", a, " + ", b,
           " does not fit in 64 bits.");
  return r;
}

}  // namespace mycel
