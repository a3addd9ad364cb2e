// Zero padding / cropping of image planes (see conv_kernels.h).
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/conv_kernels.h"

namespace mycel::cuda {

namespace {
template <class U>
__global__ void pad_planes_kernel(U* dst, const U* src, int64_t n, int64_t dh, int64_t dw,
                                  int64_t sh, int64_t sw, int64_t off_h, int64_t off_w) {
  MC_CUDA_KERNEL_LOOP(idx, n) {
    const int64_t j = idx % dw;
    const int64_t i = (idx / dw) % dh;
    const int64_t p = idx / (dw * dh);
    const int64_t si = i + off_h, sj = j + off_w;
    dst[idx] = (si >= 0 && si < sh && sj >= 0 && sj < sw) ? src[(p * sh + si) * sw + sj] : U(0);
  }
}

template <class U>
void launch(void* dst, const void* src, int64_t n, int64_t dh, int64_t dw, int64_t sh, int64_t sw,
            int64_t off_h, int64_t off_w, cudaStream_t stream) {
  pad_planes_kernel<U><<<grid_for(n), 256, 0, stream>>>(
      static_cast<U*>(dst), static_cast<const U*>(src), n, dh, dw, sh, sw, off_h, off_w);
}
}  // namespace

void launch_pad_planes(void* dst, const void* src, int elem_bytes, int64_t planes, int64_t dh,
                       int64_t dw, int64_t sh, int64_t sw, int64_t off_h, int64_t off_w,
                       cudaStream_t stream) {
  const int64_t n = planes * dh * dw;
  if (n == 0) return;
  switch (elem_bytes) {
    case 2:
      launch<uint16_t>(dst, src, n, dh, dw, sh, sw, off_h, off_w, stream);
      break;
    case 4:
      launch<uint32_t>(dst, src, n, dh, dw, sh, sw, off_h, off_w, stream);
      break;
    default:
      launch<uint64_t>(dst, src, n, dh, dw, sh, sw, off_h, off_w, stream);
      break;
  }
}

}  // namespace mycel::cuda
