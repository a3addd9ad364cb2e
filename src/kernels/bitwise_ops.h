// BitwiseAnd/Or/Xor's element formula, one copy for the CPU loops
// (kernels/cpu/elementwise_binary.cc) and the CUDA ones (kernels/cuda/elementwise_binary.cu):
// a & b, a | b, a ^ b on the integer dtypes, and on bool the logical and / or / xor (as
// numpy and Python's True & False). Host and device code (base/host_device.h).
#pragma once

#include <type_traits>

#include "base/host_device.h"

namespace mycel {

enum class Bitwise { And, Or, Xor };

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

// The loop functor of op K on both backends: Base is the backend's functor base (its loop
// traits, e.g. kCompare = false).
template <class Base, Bitwise K>
struct BitwiseOp : Base {
  template <class C>
  MC_HOST_DEVICE_INLINE static C f(C a, C b) {
    return bitwise<K>(a, b);
  }
};

}  // namespace mycel
