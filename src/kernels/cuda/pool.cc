// CUDA kernels of MaxPool, AvgPool, MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad: the
// geometry from ops/infer_nn.h (pool_geometry), the work in pool_kernels.cu.
#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/pool_kernels.h"
#include "ops/infer_nn.h"

namespace mycel::cuda {

namespace {

PoolParams params_of(const KernelContext& ctx) {
  const PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  return {g.n * g.c, g.h,  g.w,  g.kh, g.kw, g.sh, g.sw,
          g.pt,      g.pb, g.pl, g.pr, g.ho, g.wo, g.count_pad};
}

// Fills `argmax` with the first maximum of every window of x (in[0]), for the max-pool
// gradients.
void window_argmax(const KernelContext& ctx, const PoolParams& p, const Buffer& argmax,
                   cudaStream_t s) {
  launch_pool_argmax(code(ctx.in[0].dtype()), ctx.in[0].raw_data(),
                     static_cast<int64_t*>(argmax.data()), p, s);
  MC_CUDA_LAUNCH_CHECK();
}

size_t argmax_bytes(const PoolParams& p) {
  return static_cast<size_t>(p.planes * p.ho * p.wo) * sizeof(int64_t);
}

}  // namespace

void cuda_max_pool(const KernelContext& ctx) {
  const PoolParams p = params_of(ctx);
  launch_max_pool(code(ctx.in[0].dtype()), ctx.in[0].raw_data(), ctx.out[0].raw_data(), p,
                  stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_avg_pool(const KernelContext& ctx) {
  const PoolParams p = params_of(ctx);
  launch_avg_pool(code(ctx.in[0].dtype()), ctx.in[0].raw_data(), ctx.out[0].raw_data(), p,
                  stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

// (x, out, dout) -> dx.
void cuda_max_pool_grad(const KernelContext& ctx) {
  const PoolParams p = params_of(ctx);
  if (ctx.out[0].numel() == 0) return;
  cudaStream_t s = stream(ctx.device.index);
  if (p.planes * p.ho * p.wo == 0) {
    MC_CUDA_CHECK(cudaMemsetAsync(ctx.out[0].raw_data(), 0, ctx.out[0].nbytes(), s));
    return;
  }
  Buffer argmax(ctx.device.index, argmax_bytes(p));
  window_argmax(ctx, p, argmax, s);
  launch_max_pool_grad(code(ctx.in[0].dtype()), static_cast<const int64_t*>(argmax.data()),
                       ctx.in[2].raw_data(), ctx.out[0].raw_data(), p, s);
  MC_CUDA_LAUNCH_CHECK();
}

// (x, out, ddx) -> ddy.
void cuda_max_pool_grad_grad(const KernelContext& ctx) {
  const PoolParams p = params_of(ctx);
  if (ctx.out[0].numel() == 0) return;
  cudaStream_t s = stream(ctx.device.index);
  Buffer argmax(ctx.device.index, argmax_bytes(p));
  window_argmax(ctx, p, argmax, s);
  launch_max_pool_grad_grad(code(ctx.in[0].dtype()), static_cast<const int64_t*>(argmax.data()),
                            ctx.in[2].raw_data(), ctx.out[0].raw_data(), p, s);
  MC_CUDA_LAUNCH_CHECK();
}

// (x, out, dout) -> dx.
void cuda_avg_pool_grad(const KernelContext& ctx) {
  const PoolParams p = params_of(ctx);
  launch_avg_pool_grad(code(ctx.in[0].dtype()), ctx.in[2].raw_data(), ctx.out[0].raw_data(), p,
                       stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
