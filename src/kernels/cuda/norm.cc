// CUDA kernels of BatchNorm, BatchNormGrad, LayerNorm and LayerNormGrad: geometry from
// ops/infer_nn.h, the work in norm_kernels.cu. BatchNorm (F_INPLACE) updates its running
// mean/variance inputs in place on the device, as the CPU kernel does on the host.
#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/norm_kernels.h"
#include "ops/infer_nn.h"

namespace mycel::cuda {

void cuda_batch_norm(const KernelContext& ctx) {
  const BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[0].shape());
  BatchNormArgs a{};
  a.x = ctx.in[0].raw_data();
  a.scale = ctx.in[1].raw_data();
  a.bias = ctx.in[2].raw_data();
  a.rmean = ctx.in[3].raw_data();
  a.rvar = ctx.in[4].raw_data();
  a.y = ctx.out[0].raw_data();
  a.bmean = ctx.out[1].raw_data();
  a.bvar = ctx.out[2].raw_data();
  a.smean = ctx.out[3].raw_data();
  a.sinv = ctx.out[4].raw_data();
  a.n = g.n, a.c = g.c, a.s = g.s;
  a.training = ctx.attrs.get_bool("is_training");
  a.eps = ctx.attrs.get_float("epsilon");
  a.momentum = ctx.attrs.get_float("momentum");
  launch_batch_norm(code(ctx.in[0].dtype()), code(ctx.in[1].dtype()), a, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_batch_norm_grad(const KernelContext& ctx) {
  const BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[1].shape());
  BatchNormGradArgs a{};
  a.dy = ctx.in[0].raw_data();
  a.x = ctx.in[1].raw_data();
  a.scale = ctx.in[2].raw_data();
  a.smean = ctx.in[3].raw_data();
  a.sinv = ctx.in[4].raw_data();
  a.dx = ctx.out[0].raw_data();
  a.dscale = ctx.out[1].raw_data();
  a.dbias = ctx.out[2].raw_data();
  a.n = g.n, a.c = g.c, a.s = g.s;
  a.training = ctx.attrs.get_bool("is_training");
  launch_batch_norm_grad(code(ctx.in[1].dtype()), code(ctx.in[2].dtype()), a,
                         stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_layer_norm(const KernelContext& ctx) {
  const LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  LayerNormArgs a{};
  a.x = ctx.in[0].raw_data();
  a.gamma = ctx.in[1].raw_data();
  a.beta = ctx.in[2].raw_data();
  a.y = ctx.out[0].raw_data();
  a.mean = ctx.out[1].raw_data();
  a.rstd = ctx.out[2].raw_data();
  a.rows = g.rows, a.cols = g.cols, a.params = g.params;
  a.eps = ctx.attrs.get_float("epsilon");
  launch_layer_norm(code(ctx.in[0].dtype()), code(ctx.in[1].dtype()), a, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_layer_norm_grad(const KernelContext& ctx) {
  const LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[1].shape(), ctx.attrs);
  LayerNormGradArgs a{};
  a.dy = ctx.in[0].raw_data();
  a.x = ctx.in[1].raw_data();
  a.gamma = ctx.in[2].raw_data();
  a.mean = ctx.in[3].raw_data();
  a.rstd = ctx.in[4].raw_data();
  a.dx = ctx.out[0].raw_data();
  a.dgamma = ctx.out[1].raw_data();
  a.dbeta = ctx.out[2].raw_data();
  a.rows = g.rows, a.cols = g.cols, a.params = g.params;
  launch_layer_norm_grad(code(ctx.in[1].dtype()), code(ctx.in[2].dtype()), a,
                         stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
