// Helpers shared by the array family's CPU kernels (array_*.cc).
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace mycel {

// Calls fn(TypeTag<I>{}) with the C++ type of an int32/int64 index tensor (rules check it).
template <class F>
decltype(auto) dispatch_index(DType t, F&& fn) {
  if (t == DType::Int32) return fn(TypeTag<int32_t>{});
  return fn(TypeTag<int64_t>{});
}

// A 16-byte element (complex128) moved as a unit.
struct alignas(8) Bits128 {
  uint64_t lo = 0, hi = 0;
};

// Calls fn(TypeTag<U>{}) with a type of the dtype's size (unsigned integers up to 8 bytes,
// Bits128 for 16): the kernels that only move elements work on bits.
template <class F>
decltype(auto) dispatch_bits(DType t, F&& fn) {
  switch (dtype_size(t)) {
    case 1:
      return fn(TypeTag<uint8_t>{});
    case 2:
      return fn(TypeTag<uint16_t>{});
    case 4:
      return fn(TypeTag<uint32_t>{});
    case 8:
      return fn(TypeTag<uint64_t>{});
    default:
      return fn(TypeTag<Bits128>{});
  }
}

}  // namespace mycel
