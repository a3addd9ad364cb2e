// CUDA kernels of the state-update family (ops/defs/optim.def): the host side. ctx.out[i] is
// ctx.in[i] (F_UPDATE); the kernels write through the pointers of the inputs they update.
// Dtype checks as in kernels/cpu/optim.cc. Scalar inputs stay on the device (optim.h): no
// device-to-host copy, so a training step queues without waiting.
#include "kernels/cuda/optim.h"
#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/cuda_kernels.h"

namespace mycel::cuda {

namespace {

optim::ScalarArg scalar(const KernelContext& ctx, size_t i) {
  const Tensor& t = ctx.in[i];
  MC_ASSERT(t.numel() == 1 && is_floating(t.dtype()), ctx.op.name, ": input ", i,
            " must be a floating scalar");
  return {t.raw_data(), code(t.dtype())};
}

void check_float(const KernelContext& ctx) {
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [](auto) {});
}

}  // namespace

void cuda_assign(const KernelContext& ctx) {
  // copy_from casts, broadcasts and snapshots an overlapping source, on the device.
  if (!ctx.in[1].same(ctx.out[0])) ctx.out[0].copy_from(ctx.in[1]);
}

void cuda_assign_add(const KernelContext& ctx) {
  const Tensor& var = ctx.out[0];
  Tensor val = ctx.in[1].cast(var.dtype()).expand(var.shape()).contiguous();
  dispatch_number(var.dtype(), ctx.op.name, [](auto) {});
  const int64_t n = var.numel();
  if (n == 0) return;
  optim::launch_assign_add(code(var.dtype()), var.raw_data(), val.raw_data(), n,
                           stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_apply_momentum(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::launch_apply_momentum(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.in[1].raw_data(),
                               ctx.in[3].raw_data(), scalar(ctx, 2), scalar(ctx, 4),
                               ctx.attrs.get_float("gradient_scale"),
                               ctx.attrs.get_bool("use_nesterov"), n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_sgd(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  cudaStream_t st = stream(ctx.device.index);
  if (n > 0) {
    optim::launch_sgd(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.in[1].raw_data(),
                      ctx.in[3].raw_data(), scalar(ctx, 2), scalar(ctx, 4), scalar(ctx, 5),
                      ctx.attrs.get_float("dampening"), ctx.attrs.get_float("weight_decay"),
                      ctx.attrs.get_bool("nesterov"), n, st);
    MC_CUDA_LAUNCH_CHECK();
  }
  // stat = 0 after the update has read it (stream order); zero is all-zero bits.
  const Tensor& stat = ctx.in[5];
  MC_CUDA_CHECK(cudaMemsetAsync(stat.raw_data(), 0, stat.nbytes(), st));
}

void cuda_adam(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::AdamScalars sc;
  sc.nesterov = ctx.attrs.get_bool("use_nesterov");
  sc.beta1_power = scalar(ctx, 3);
  sc.beta2_power = scalar(ctx, 4);
  sc.lr = scalar(ctx, 5);
  sc.beta1 = scalar(ctx, 6);
  sc.beta2 = scalar(ctx, 7);
  sc.epsilon = scalar(ctx, 8);
  optim::launch_adam(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.out[1].raw_data(),
                     ctx.out[2].raw_data(), ctx.in[9].raw_data(), sc, n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_adam_weight_decay(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::AdamScalars sc;
  sc.weight_decay = true;
  sc.lr = scalar(ctx, 3);
  sc.beta1 = scalar(ctx, 4);
  sc.beta2 = scalar(ctx, 5);
  sc.epsilon = scalar(ctx, 6);
  sc.decay = scalar(ctx, 7);
  optim::launch_adam(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.out[1].raw_data(),
                     ctx.out[2].raw_data(), ctx.in[8].raw_data(), sc, n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_apply_adagrad(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::launch_apply_adagrad(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.out[1].raw_data(),
                              ctx.in[3].raw_data(), scalar(ctx, 2),
                              ctx.attrs.get_bool("update_slots"), n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

namespace {

// ApplyRMSProp (centered = false: inputs var, ms, mom, lr, grad, decay, momentum, epsilon) and
// ApplyCenteredRMSProp (var, mg, ms, mom, grad, lr, decay, momentum, epsilon).
void rms_prop(const KernelContext& ctx, bool centered) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  const size_t k = centered ? 1 : 0;  // mean_gradient shifts ms, mom, decay... by one
  optim::RmsPropScalars sc;
  sc.lr = scalar(ctx, centered ? 5 : 3);  // after grad when centered, before it otherwise
  sc.decay = scalar(ctx, 5 + k);
  sc.momentum = scalar(ctx, 6 + k);
  sc.epsilon = scalar(ctx, 7 + k);
  void* mg = centered ? ctx.in[1].raw_data() : nullptr;
  optim::launch_apply_rms_prop(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), mg,
                               ctx.in[1 + k].raw_data(), ctx.in[2 + k].raw_data(),
                               ctx.in[4].raw_data(), sc, n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace

void cuda_apply_rms_prop(const KernelContext& ctx) { rms_prop(ctx, false); }

void cuda_apply_centered_rms_prop(const KernelContext& ctx) { rms_prop(ctx, true); }

void cuda_apply_ada_max(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::AdaMaxScalars sc;
  sc.beta1_power = scalar(ctx, 3);
  sc.lr = scalar(ctx, 4);
  sc.beta1 = scalar(ctx, 5);
  sc.beta2 = scalar(ctx, 6);
  sc.epsilon = scalar(ctx, 7);
  optim::launch_apply_ada_max(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.out[1].raw_data(),
                              ctx.out[2].raw_data(), ctx.in[8].raw_data(), sc, n,
                              stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_apply_adadelta(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::launch_apply_adadelta(code(ctx.in[0].dtype()), ctx.out[0].raw_data(),
                               ctx.out[1].raw_data(), ctx.out[2].raw_data(), ctx.in[6].raw_data(),
                               scalar(ctx, 3), scalar(ctx, 4), scalar(ctx, 5), n,
                               stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_apply_ftrl(const KernelContext& ctx) {
  check_float(ctx);
  const int64_t n = ctx.in[0].numel();
  if (n == 0) return;
  optim::FtrlScalars sc;
  sc.lr = scalar(ctx, 4);
  sc.l1 = scalar(ctx, 5);
  sc.l2 = scalar(ctx, 6);
  sc.lr_power = scalar(ctx, 7);
  optim::launch_apply_ftrl(code(ctx.in[0].dtype()), ctx.out[0].raw_data(), ctx.in[1].raw_data(),
                           ctx.in[2].raw_data(), ctx.in[3].raw_data(), sc, n,
                           stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
