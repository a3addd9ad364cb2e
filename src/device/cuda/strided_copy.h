// The launcher behind CudaBackend::strided_copy: dst = src elementwise over `s` (operand 0
// dst, operand 1 src), converting from src_code to dst_code as the Cast op does.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda {

void launch_strided_copy(void* dst, int dst_code, const void* src, int src_code,
                         const Strided<2>& s, int64_t n, cudaStream_t stream);

// dst = (src != 0) for a complex src (either part nonzero: the Cast op's complex -> bool),
// `dbl` for complex128; offsets in elements (operand 0 dst, operand 1 src).
void launch_complex_to_bool(bool* dst, const void* src, bool dbl, const Strided<2>& s, int64_t n,
                            cudaStream_t stream);

}  // namespace mycel::cuda
