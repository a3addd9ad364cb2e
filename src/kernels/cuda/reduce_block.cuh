// Block-wide reductions for the row-wise kernels of the nn family (softmax, norms): every
// thread of the block passes its partial value and every thread gets the block's result.
// blockDim.x must be a multiple of 32 and at most 1024. The combination order depends only
// on blockDim, so results are reproducible run to run.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

namespace mycel::cuda {

struct SumOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return a + b;
  }
  template <class C>
  __device__ static C identity() {
    return C(0);
  }
};
// The maximum, NaN ignored (as the CPU's row max: a NaN still propagates through the sums).
struct MaxOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return b > a ? b : (a == a ? a : b);
  }
  template <class C>
  __device__ static C identity() {
    return static_cast<C>(-INFINITY);
  }
};

template <class C, class Op>
__device__ inline C block_reduce(C v, Op op) {
  __shared__ C warp_part[32];
  __shared__ C result;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    C w = lane < nwarps ? warp_part[lane] : Op::template identity<C>();
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) w = op(w, __shfl_down_sync(0xffffffffu, w, o));
    if (lane == 0) result = w;
  }
  __syncthreads();
  C r = result;
  __syncthreads();  // the shared slots may be reused by the next call
  return r;
}

}  // namespace mycel::cuda
