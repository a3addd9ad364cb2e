// CUDA kernels of the selection ops (NonZero, MaskedSelect, MaskedScatter, Unique): the
// KernelContext unpacked for array_select.h's two-phase launchers, and the one read of a
// count from the device between the phases (device code and semantics in array_select.cu).
// Dtype checks and errors are the CPU kernels' (kernels/cpu/array_select.cc).
#include "kernels/cuda/array_select.h"

#include <climits>
#include <utility>

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/broadcast_pair.h"
#include "kernels/cuda/cuda_kernels.h"

namespace mycel::cuda {

namespace {

// The launchers count in int32 positions (Unique's sorts) and CUB sizes.
void check_select_size(int64_t n, const OpDef& op) {
  MC_CHECK(n <= INT_MAX, Value, "For '", op.name, "', the GPU kernel handles at most ", INT_MAX,
           " elements, but got ", n, ".");
}

// Phase 1 of NonZero/MaskedSelect/MaskedScatter over x (or a bool mask): the count, read
// from the device (the host waits for the stream here); the scratch stays for phase 2.
int64_t select_count(const Tensor& x, const Buffer& scratch, int index) {
  Tensor count = Tensor::empty({1}, DType::Int64, x.device());
  MC_CUDA_CHECK(launch_select_count(code(x.dtype()), x.raw_data(), x.numel(),
                                    static_cast<int64_t*>(count.raw_data()), scratch.data(),
                                    scratch.size(), stream(index)));
  MC_CUDA_LAUNCH_CHECK();
  return count.item().to_int();
}

}  // namespace

void cuda_non_zero(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  dispatch_all(x.dtype(), ctx.op.name, [](auto) {});
  const int64_t n = x.numel();
  const int rank = static_cast<int>(x.ndim());
  check_select_size(n, ctx.op);
  const int index = ctx.device.index;
  Buffer scratch(index, select_scratch_bytes(n));
  const int64_t k = select_count(x, scratch, index);
  const Tensor& out = alloc_output(ctx, 0, {k, x.ndim()}, DType::Int64);
  if (k == 0 || rank == 0) return;
  Tensor dims = Tensor::empty({rank}, DType::Int64);  // x's shape, copied to the device
  for (int d = 0; d < rank; ++d) dims.data<int64_t>()[d] = x.dim(d);
  dims = dims.to(ctx.device);
  launch_non_zero_write(n, static_cast<const int64_t*>(dims.raw_data()), rank,
                        static_cast<int64_t*>(out.raw_data()), scratch.data(), stream(index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_masked_select(const KernelContext& ctx) {
  const std::pair<Tensor, Tensor> xm = broadcast_pair(ctx.in[0], ctx.in[1], ctx.op.name);
  const Tensor &x = xm.first, &mask = xm.second;
  const int64_t n = x.numel();
  check_select_size(n, ctx.op);
  const int index = ctx.device.index;
  Buffer scratch(index, select_scratch_bytes(n));
  const int64_t k = select_count(mask, scratch, index);
  const Tensor& out = alloc_output(ctx, 0, {k}, x.dtype());
  if (k == 0) return;
  launch_masked_select_write(static_cast<int>(x.itemsize()), x.raw_data(), n, out.raw_data(),
                             scratch.data(), stream(index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_masked_scatter(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &src = ctx.in[2];
  const Tensor& out = ctx.out[0];
  const Tensor mask = expanded_to(ctx.in[1], x.shape(), ctx.op.name);
  const int64_t n = x.numel();
  check_select_size(n, ctx.op);
  const int index = ctx.device.index;
  Buffer scratch(index, select_scratch_bytes(n));
  const int64_t k = select_count(mask, scratch, index);
  MC_CHECK(k <= src.numel(), Value, "For '", ctx.op.name, "', the mask selects ", k,
           " elements but the 'source' (shape ", src.shape(), ") has only ", src.numel(), ".");
  launch_masked_scatter_write(static_cast<int>(x.itemsize()), x.raw_data(), src.raw_data(), n,
                              out.raw_data(), scratch.data(), stream(index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_unique(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  dispatch_all(x.dtype(), ctx.op.name, [](auto) {});
  const DType idx_t = ctx.out[1].dtype();
  const int64_t n = x.numel();
  check_select_size(n, ctx.op);
  if (n == 0) {
    alloc_output(ctx, 0, {0}, x.dtype());
    alloc_output(ctx, 2, {0}, idx_t);
    return;
  }
  const int index = ctx.device.index;
  const int c = code(x.dtype());
  Buffer scratch(index, unique_scratch_bytes(c, n));
  Tensor count = Tensor::empty({1}, DType::Int64, x.device());
  MC_CUDA_CHECK(launch_unique_count(c, x.raw_data(), n, static_cast<int64_t*>(count.raw_data()),
                                    scratch.data(), scratch.size(), stream(index)));
  const int64_t groups = count.item().to_int();
  const Tensor& y = alloc_output(ctx, 0, {groups}, x.dtype());
  const Tensor& counts = alloc_output(ctx, 2, {groups}, idx_t);
  MC_CUDA_CHECK(launch_unique_write(
      c, x.raw_data(), n, groups, ctx.attrs.get_bool("sorted"), idx_t == DType::Int64, y.raw_data(),
      ctx.out[1].raw_data(), counts.raw_data(), scratch.data(), scratch.size(), stream(index)));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
