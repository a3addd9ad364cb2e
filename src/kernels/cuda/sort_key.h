// The order of Sort and TopK (kernels/cpu/sort_scan.cc's lt_nan_last: NaN the largest value,
// +0 and -0 equal) as unsigned integer keys, for a radix sort: key(a) < key(b) exactly when a
// sorts before b, and key(a) == key(b) exactly when neither does (so a stable sort of the keys
// is the CPU's stable sort). Plain host/device code: scan_sort.cu uses it on the device and
// tests/cpp/kernels/test_sort_key.cc checks it on the CPU against the comparison.
//
//   - bool: 0 / 1; unsigned integers: themselves; signed integers: two's complement bits with
//     the sign bit flipped (so -128 .. 127 maps to 0 .. 255 in order);
//   - floats, by their bits b of width W: positives with the sign bit set, negatives
//     complemented (so more negative is smaller); both zeros give +0's key (the sign bit
//     alone) and every NaN the largest key (all ones, above +inf's).
#pragma once

#include <stdint.h>
#include <string.h>

#include "base/host_device.h"

namespace mycel::cuda {

template <class U>
MC_HOST_DEVICE inline U key_top_bit() {
  return static_cast<U>(U(1) << (8 * sizeof(U) - 1));
}

// The key of an integer's bits u (its width), signed or not.
template <class U>
MC_HOST_DEVICE inline U int_sort_key(U u, bool is_signed) {
  return is_signed ? static_cast<U>(u ^ key_top_bit<U>()) : u;
}

// The key of a float's bits u (its width), given whether it is NaN or zero.
template <class U>
MC_HOST_DEVICE inline U float_sort_key(U u, bool is_nan, bool is_zero) {
  const U top = key_top_bit<U>();
  if (is_nan) return static_cast<U>(~U(0));
  if (is_zero) return top;
  return (u & top) ? static_cast<U>(~u) : static_cast<U>(u | top);
}

// The bits of a value of the same width as U.
template <class U, class T>
MC_HOST_DEVICE inline U bits_of(T v) {
  static_assert(sizeof(U) == sizeof(T), "bits_of: widths differ");
  U u;
  memcpy(&u, &v, sizeof(U));
  return u;
}

}  // namespace mycel::cuda
