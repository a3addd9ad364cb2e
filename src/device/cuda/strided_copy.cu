// dst = src with any strides and the Cast op's conversion (see cuda_device.cc).
#include "device/cuda/cuda_common.cuh"
#include "device/cuda/strided_copy.h"

namespace mycel::cuda {

namespace {
// DType's codes of uint16/uint32/uint64 (tensor/dtype.h appends them after kFloat64). Only
// copies and casts see them on the device: runtime/eager.cc runs their ops on the host.
enum WideUnsignedCode : int { kUInt16 = kFloat64 + 1, kUInt32, kUInt64 };

// dispatch_code, and the wide unsigned codes.
template <class F>
void dispatch_copy_code(int code, F&& f) {
  switch (code) {
    case kUInt16:
      f(uint16_t{});
      break;
    case kUInt32:
      f(uint32_t{});
      break;
    case kUInt64:
      f(uint64_t{});
      break;
    default:
      dispatch_code(code, f);
  }
}

template <class D, class S>
__global__ void strided_copy_kernel(D* dst, const S* src, Strided<2> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[2];
    s.offsets(i, off);
    dst[off[0]] = cast_to<D>(src[off[1]]);
  }
}
template <class R>
__global__ void complex_to_bool_kernel(bool* dst, const R* src, Strided<2> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[2];
    s.offsets(i, off);
    dst[off[0]] = src[2 * off[1]] != R(0) || src[2 * off[1] + 1] != R(0);
  }
}
}  // namespace

void launch_complex_to_bool(bool* dst, const void* src, bool dbl, const Strided<2>& s, int64_t n,
                            cudaStream_t stream) {
  if (n == 0) return;
  if (dbl)
    complex_to_bool_kernel<<<grid_for(n), 256, 0, stream>>>(dst, static_cast<const double*>(src), s,
                                                            n);
  else
    complex_to_bool_kernel<<<grid_for(n), 256, 0, stream>>>(dst, static_cast<const float*>(src), s,
                                                            n);
}

void launch_strided_copy(void* dst, int dst_code, const void* src, int src_code,
                         const Strided<2>& s, int64_t n, cudaStream_t stream) {
  dispatch_copy_code(dst_code, [&](auto d) {
    using D = decltype(d);
    dispatch_copy_code(src_code, [&](auto sv) {
      using S = decltype(sv);
      strided_copy_kernel<D, S>
          <<<grid_for(n), 256, 0, stream>>>(static_cast<D*>(dst), static_cast<const S*>(src), s, n);
    });
  });
}

}  // namespace mycel::cuda
