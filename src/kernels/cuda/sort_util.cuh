// Device helpers shared by the sorting kernels (scan_sort.cu: Sort, TopK; array_select.cu:
// Unique), .cu files only:
//
//   - sort_key_t<T> and sort_key(v): a value as the unsigned key of its width whose ascending
//     order is the CPU's order (sort_key.h: NaN the largest, +0 and -0 equal);
//   - Carve: 256-byte aligned arrays cut from one caller-allocated scratch buffer; with a null
//     base it only counts the bytes (how the *_scratch_bytes functions size that buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/sort_key.h"

namespace mycel::cuda {

template <size_t N>
struct UnsignedOf;
template <>
struct UnsignedOf<1> {
  using type = uint8_t;
};
template <>
struct UnsignedOf<2> {
  using type = uint16_t;
};
template <>
struct UnsignedOf<4> {
  using type = uint32_t;
};
template <>
struct UnsignedOf<8> {
  using type = unsigned long long;
};
template <class T>
using sort_key_t = typename UnsignedOf<sizeof(T)>::type;

// The key of a value (sort_key.h); the 16-bit floats tested for NaN and zero in float.
template <class T>
__device__ inline sort_key_t<T> sort_key(T v) {
  using U = sort_key_t<T>;
  if constexpr (std::is_same_v<T, bool>)
    return v ? U(1) : U(0);
  else if constexpr (std::is_integral_v<T>)
    return int_sort_key<U>(static_cast<U>(v), std::is_signed_v<T>);
  else
    return float_sort_key<U>(bits_of<U>(v), load(v) != load(v), load(v) == acc_t<T>(0));
}

class Carve {
 public:
  explicit Carve(void* base) : base_(static_cast<char*>(base)) {}
  template <class X>
  X* take(size_t count) {
    const size_t off = (used_ + 255) & ~size_t(255);
    used_ = off + count * sizeof(X);
    return base_ ? reinterpret_cast<X*>(base_ + off) : nullptr;
  }
  size_t used() const { return used_; }

 private:
  char* base_;
  size_t used_ = 0;
};

}  // namespace mycel::cuda
