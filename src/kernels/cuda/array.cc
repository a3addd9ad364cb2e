// CUDA kernels of the array family's data-movement ops that are strided copies: the view ops
// when they run as kernels (graphs, layouts that cannot be viewed), StridedSlice(+Grad),
// Concat, Stack, Split, Tile and Pad.
//
// The view ops, StridedSlice, Tile and Pad are their CPU kernels: views and strided_copy,
// which on a device queues the backend's strided copy (device/cuda/strided_copy.cu, or one
// cudaMemcpyAsync for contiguous pairs). StridedSliceGrad (zeroed with cudaMemsetAsync) and
// Concat/Stack/Split (slices of the whole; the CPU moves raw blocks) have their own plans
// here. No device code of its own.
#include "device/cuda/cuda_device.h"
#include "kernels/cuda/cuda_kernels.h"
#include "ops/infer_array.h"

namespace mycel::cuda {

namespace {

void zero(const KernelContext& ctx, const Tensor& t) {
  if (t.nbytes() == 0) return;
  MC_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), stream(ctx.device.index)));
}

// Copies each part into (join) or out of (split) its slice of `whole` along `axis`; a part
// has the slice's shape, or (stack) the slice's shape without the axis.
void join_split(const Tensor& whole, std::span<const Tensor> parts, int64_t axis, bool stack,
                bool join) {
  int64_t start = 0;
  for (const Tensor& p : parts) {
    const int64_t len = stack ? 1 : p.dim(axis);
    if (len > 0 && whole.numel() > 0) {
      Tensor slot = whole.slice(axis, start, start + len, 1);
      if (join)
        slot.copy_from(stack ? p.reshape(slot.shape()) : p);
      else
        p.copy_from(slot);
    }
    start += len;
  }
}

}  // namespace

// The CPU kernels of these ops are views and strided_copy, which runs on any device.
void cuda_copy_view(const KernelContext& ctx) { cpu_copy_view(ctx); }
void cuda_strided_slice(const KernelContext& ctx) { cpu_strided_slice(ctx); }
void cuda_tile(const KernelContext& ctx) { cpu_tile(ctx); }
void cuda_pad(const KernelContext& ctx) { cpu_pad(ctx); }

void cuda_strided_slice_grad(const KernelContext& ctx) {
  const Tensor& dy = ctx.in[0];
  const Tensor& out = ctx.out[0];
  zero(ctx, out);
  SliceSpec spec = strided_slice_spec(out.shape(), ctx.attrs, ctx.op.name);
  SliceView v = slice_view(spec, out.strides(), out.offset());
  Tensor::make_view(out.storage(), out.dtype(), spec.out_shape, v.strides, v.offset).copy_from(dy);
}

void cuda_concat(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  join_split(out, ctx.in, axis, false, true);
}

void cuda_stack(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  join_split(out, ctx.in, axis, true, true);
}

void cuda_split(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), x.ndim(), ctx.op.name);
  join_split(x, ctx.out, axis, false, false);
}

}  // namespace mycel::cuda
