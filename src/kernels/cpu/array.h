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

// Calls fn(TypeTag<U>{}) with an unsigned integer type of the dtype's size: the kernels that
// only move elements work on bits.
template <class F>
decltype(auto) dispatch_bits(DType t, F&& fn) {
  switch (dtype_size(t)) {
    case 1:
      return fn(TypeTag<uint8_t>{});
    case 2:
      return fn(TypeTag<uint16_t>{});
    case 4:
      return fn(TypeTag<uint32_t>{});
    default:
      return fn(TypeTag<uint64_t>{});
  }
}

}  // namespace mycel
