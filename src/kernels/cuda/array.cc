// CUDA kernels of the array family's data-movement ops that are strided copies: the view ops
// when they run as kernels (graphs, layouts that cannot be viewed), StridedSlice(+Grad),
// Concat, Stack, Split, Tile and Pad.
//
// Each is the CPU kernel's plan (kernels/cpu/array_*.cc) -- the same views of input and output
// -- with the copy done by Tensor::copy_from, which on a device queues the backend's strided
// copy (device/cuda/strided_copy.cu, or one cudaMemcpyAsync for contiguous pairs) on the
// device's stream. No device code of its own; zero fills are a cudaMemsetAsync.
#include "device/cuda/cuda_device.h"
#include "kernels/cuda/cuda_kernels.h"
#include "ops/infer_array.h"
#include "ops/op_semantics.h"

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

// Reshape, Transpose, ExpandDims, Squeeze, Flatten, BroadcastTo: as cpu_copy_view.
void cuda_copy_view(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  Tensor src = view_op(ctx.op, x, {out.dtype(), out.shape()}, ctx.attrs);
  if (src.defined())
    out.copy_from(src);
  else
    out.reshape(x.shape()).copy_from(x);  // x's row-major order, as the output
}

void cuda_strided_slice(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  out.copy_from(view_op(ctx.op, ctx.in[0], {out.dtype(), out.shape()}, ctx.attrs));
}

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

void cuda_tile(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  if (out.numel() == 0) return;
  // out seen as [m0, s0, m1, s1, ...]; x read with stride 0 over the m_i (as cpu_tile).
  const auto& m = ctx.attrs.get_ints("multiples");
  const size_t off = m.size() - static_cast<size_t>(x.ndim());
  Shape shape, dst_st, src_st;
  for (size_t i = 0; i < m.size(); ++i) {
    const int64_t s = i >= off ? x.dim(static_cast<int64_t>(i - off)) : 1;
    const int64_t os = out.strides()[i];
    shape.push_back(m[i]);
    shape.push_back(s);
    dst_st.push_back(s * os);
    dst_st.push_back(os);
    src_st.push_back(0);
    src_st.push_back(i >= off ? x.strides()[i - off] : 0);
  }
  Tensor::make_view(out.storage(), out.dtype(), shape, dst_st, out.offset())
      .copy_from(Tensor::make_view(x.storage(), x.dtype(), shape, src_st, x.offset()));
}

void cuda_pad(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  const auto& p = ctx.attrs.get_ints("paddings");
  if (out.numel() != x.numel()) out.fill(Scalar::from_float(ctx.attrs.get_float("value")));
  int64_t offset = out.offset();
  for (size_t d = 0; d < x.shape().size(); ++d) offset += p[2 * d] * out.strides()[d];
  if (x.numel() == 0) return;
  Tensor::make_view(out.storage(), out.dtype(), x.shape(), out.strides(), offset).copy_from(x);
}

}  // namespace mycel::cuda
