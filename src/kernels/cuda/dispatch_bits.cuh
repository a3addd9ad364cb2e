// dispatch_bits: the host launchers of the kernels that move elements as raw bits (the
// indexing kernels of array_index.cu, the selections of array_select.cu) pick the unsigned
// integer type of an element's size with it. Host code of .cu files.
#pragma once

#include <cstdint>

#include "base/error.h"

namespace mycel::cuda {

// Calls f(U{}) with U the unsigned integer type of `isize` bytes (1, 2, 4 or 8); any other
// size is a bug of the caller (the CUDA dtype rule keeps 16-byte complex elements off these
// kernels).
template <class F>
void dispatch_bits(int isize, F&& f) {
  switch (isize) {
    case 1:
      f(uint8_t{});
      break;
    case 2:
      f(uint16_t{});
      break;
    case 4:
      f(uint32_t{});
      break;
    case 8:
      f(static_cast<unsigned long long>(0));
      break;
    default:
      MC_ASSERT(false, "dispatch_bits: no device kernel moves ", isize, "-byte elements");
  }
}

}  // namespace mycel::cuda
