// CUDA kernels of Softmax, LogSoftmax, SparseSoftmaxCrossEntropyWithLogits and
// SoftmaxCrossEntropyWithLogits: the axis split from ops/infer_nn.h, the work in
// softmax_kernels.cu.
//
// One difference from the CPU kernel: SparseSoftmaxCrossEntropyWithLogits does not raise
// IndexError for a label outside [0, classes) (checking would make the host wait for the
// device); that row's gradient, or the loss, is NaN instead.
#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/softmax_kernels.h"
#include "ops/infer_nn.h"

namespace mycel::cuda {

namespace {
void softmax_op(const KernelContext& ctx, bool log) {
  const AxisSplit sp = softmax_split(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  launch_softmax(code(ctx.in[0].dtype()), ctx.in[0].raw_data(), ctx.out[0].raw_data(), sp.outer,
                 sp.len, sp.inner, log, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}
}  // namespace

void cuda_softmax(const KernelContext& ctx) { softmax_op(ctx, false); }
void cuda_log_softmax(const KernelContext& ctx) { softmax_op(ctx, true); }

void cuda_sparse_softmax_ce(const KernelContext& ctx) {
  const Tensor &logits = ctx.in[0], &labels = ctx.in[1];
  const int64_t n = logits.dim(0), c = logits.dim(1);
  const bool grad = ctx.attrs.get_bool("is_grad");
  if (grad && ctx.out[0].numel() == 0) return;
  Buffer row_loss(ctx.device.index, grad ? 0 : static_cast<size_t>(n) * sizeof(double));
  launch_sparse_softmax_ce(code(logits.dtype()), logits.raw_data(), code(labels.dtype()),
                           labels.raw_data(), ctx.out[0].raw_data(),
                           static_cast<double*>(row_loss.data()), n, c, grad,
                           stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_softmax_ce(const KernelContext& ctx) {
  const Tensor& logits = ctx.in[0];
  launch_softmax_ce(code(logits.dtype()), logits.raw_data(), ctx.in[1].raw_data(),
                    ctx.out[0].raw_data(), ctx.out[1].raw_data(), logits.dim(0), logits.dim(1),
                    stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
