// MC_HOST_DEVICE: marks a function that both the C++ compiler and nvcc compile, for the
// formulas the CPU kernels and the CUDA kernels share (base/pymath.h, base/philox_normal.h,
// kernels/cuda/sort_key.h): __host__ __device__ under nvcc, nothing otherwise. Such
// functions use only what both sides have: the C math functions of <math.h>, memcpy, and
// arithmetic.
#pragma once

#if defined(__CUDACC__)
#define MC_HOST_DEVICE __host__ __device__
#else
#define MC_HOST_DEVICE
#endif

// MC_HOST_DEVICE, always inlined: for formulas inside the CPU kernels' hot loops, which must
// compile to the loop they had when written in place.
#if defined(__CUDACC__)
#define MC_HOST_DEVICE_INLINE __host__ __device__ __forceinline__
#else
#define MC_HOST_DEVICE_INLINE [[gnu::always_inline]] inline
#endif
