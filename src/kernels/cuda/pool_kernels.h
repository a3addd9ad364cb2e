// Launchers of the pooling kernels (pool_kernels.cu): MaxPool, AvgPool, their gradients and
// MaxPoolGradGrad over NCHW planes, with the geometry of ops/infer_nn.h's PoolGeom as plain
// data. Our own kernels rather than cuDNN's: cuDNN pads symmetrically and has no ceil_mode,
// and its max-pool gradient does not promise the CPU's tie rule (the first maximum of a
// window in row-major order, a NaN counting as the maximum).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

struct PoolParams {
  int64_t planes, h, w;  // planes = N * C
  int64_t kh, kw, sh, sw;
  int64_t pt, pb, pl, pr;
  int64_t ho, wo;
  bool count_pad;  // PoolGeom::count_pad: padding up to the declared pads counts in averages
};

// y = MaxPool(x) or AvgPool(x).
void launch_max_pool(int code, const void* x, void* y, const PoolParams& p, cudaStream_t s);
void launch_avg_pool(int code, const void* x, void* y, const PoolParams& p, cudaStream_t s);
// argmax[o] = the in-plane index (h * w + col) of window o's first maximum in x (-1 for a
// window with no input element).
void launch_pool_argmax(int code, const void* x, int64_t* argmax, const PoolParams& p,
                        cudaStream_t s);
// dx = MaxPoolGrad: each input element sums dy over the windows whose argmax it is, in
// row-major window order.
void launch_max_pool_grad(int code, const int64_t* argmax, const void* dy, void* dx,
                          const PoolParams& p, cudaStream_t s);
// ddy[o] = ddx[argmax[o]] (MaxPoolGradGrad).
void launch_max_pool_grad_grad(int code, const int64_t* argmax, const void* ddx, void* ddy,
                               const PoolParams& p, cudaStream_t s);
// dx = AvgPoolGrad: each input element sums dy / divisor over the windows that cover it.
void launch_avg_pool_grad(int code, const void* dy, void* dx, const PoolParams& p, cudaStream_t s);

}  // namespace mycel::cuda
