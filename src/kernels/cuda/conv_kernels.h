// Launchers of the convolution family's own device code (conv_kernels.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// dst[p, i, j] = src[p, i + off_h, j + off_w] (0 where that is outside src) for `planes`
// planes of [dh, dw] from planes of [sh, sw]; elements of `elem_bytes` (2, 4 or 8) bytes,
// copied as bits. Zero padding (negative offsets) and cropping (positive ones) for
// convolutions whose padding cuDNN cannot express (top != bottom or left != right).
void launch_pad_planes(void* dst, const void* src, int elem_bytes, int64_t planes, int64_t dh,
                       int64_t dw, int64_t sh, int64_t sw, int64_t off_h, int64_t off_w,
                       cudaStream_t stream);

}  // namespace mycel::cuda
