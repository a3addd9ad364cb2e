// CUDA kernels of Select (elements moved by size: one kernel per element width serves every
// dtype, as on the CPU) and of the fills (OnesLike, Fill; ZerosLike is a memset). Cast is
// the device's strided copy (device/cuda/strided_copy.cu), which applies cast_to.
#include <cstdint>

#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"

namespace mycel::cuda::ew {

namespace {

template <class U>
__global__ void select_kernel(U* o, const bool* c, const U* x, const U* y, Strided<3> s,
                              int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[3];
    offsets_of(s, i, off);
    o[i] = c[off[0]] ? x[off[1]] : y[off[2]];
  }
}

template <class U>
void run_select(void* o, const bool* c, const void* x, const void* y, const Strided<3>& s,
                int64_t n, cudaStream_t stream) {
  select_kernel<U><<<grid_for(n), 256, 0, stream>>>(
      static_cast<U*>(o), c, static_cast<const U*>(x), static_cast<const U*>(y), s, n);
}

template <class T>
__global__ void fill_kernel(T* o, double value, int64_t n) {
  const T v = cast_to<T>(value);
  MC_CUDA_KERNEL_LOOP(i, n) { o[i] = v; }
}

}  // namespace

void launch_select(int elem_size, void* o, const bool* c, const void* x, const void* y,
                   const Strided<3>& s, int64_t n, cudaStream_t stream) {
  switch (elem_size) {
    case 1: run_select<uint8_t>(o, c, x, y, s, n, stream); break;
    case 2: run_select<uint16_t>(o, c, x, y, s, n, stream); break;
    case 4: run_select<uint32_t>(o, c, x, y, s, n, stream); break;
    case 8: run_select<uint64_t>(o, c, x, y, s, n, stream); break;
    default: break;
  }
}

void launch_fill(int code, void* o, double value, int64_t n, cudaStream_t stream) {
  for_all(code, [&](auto v) {
    using T = decltype(v);
    fill_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(o), value, n);
  });
}

}  // namespace mycel::cuda::ew
