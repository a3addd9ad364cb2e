// CUDA kernels of CumSum/CumProd, Sort and TopK: the KernelContext unpacked into the [O, R, I]
// geometry of scan_sort.h (device code and semantics in scan_sort.cu). Dtype checks are the
// CPU kernel's (kernels/cpu/sort_scan.cc: every dtype).
#include "kernels/cuda/scan_sort.h"

#include <climits>

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/axis_layout.h"
#include "kernels/cuda/cuda_kernels.h"

namespace mycel::cuda {

namespace {

// CUB's segmented sort counts items in int.
void check_sort_size(int64_t n, const OpDef& op) {
  MC_CHECK(n <= INT_MAX, Value, "For '", op.name, "', the GPU kernel sorts at most ", INT_MAX,
           " elements in one call, but got ", n, ".");
}

}  // namespace

void cuda_cum(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  dispatch_all(x.dtype(), ctx.op.name, [](auto) {});
  if (y.numel() == 0) return;
  const AxisLayout l = axis_layout(x, ctx.attrs.get_int("axis"), ctx.op.name);
  launch_cum(ctx.op.id == OpId::CumProd, code(x.dtype()), x.raw_data(), y.raw_data(), l.outer,
             l.len, l.inner, ctx.attrs.get_bool("exclusive"), ctx.attrs.get_bool("reverse"),
             stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_sort(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  dispatch_all(x.dtype(), ctx.op.name, [](auto) {});
  if (x.numel() == 0) return;
  check_sort_size(x.numel(), ctx.op);
  const AxisLayout l = axis_layout(x, ctx.attrs.get_int("axis"), ctx.op.name);
  const int c = code(x.dtype());
  Buffer scratch(ctx.device.index, sort_scratch_bytes(c, l.outer, l.len, l.inner));
  MC_CUDA_CHECK(launch_sort(c, x.raw_data(), ctx.out[0].raw_data(),
                            static_cast<int32_t*>(ctx.out[1].raw_data()), l.outer, l.len, l.inner,
                            ctx.attrs.get_bool("descending"), scratch.data(), scratch.size(),
                            stream(ctx.device.index)));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_topk(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  dispatch_all(x.dtype(), ctx.op.name, [](auto) {});
  if (ctx.out[0].numel() == 0) return;
  check_sort_size(x.numel(), ctx.op);
  const int64_t n = x.ndim() == 0 ? 1 : x.dim(x.ndim() - 1);
  const int64_t rows = x.numel() / n;
  const int64_t k = ctx.attrs.get_int("k");
  const int c = code(x.dtype());
  Buffer scratch(ctx.device.index, topk_scratch_bytes(c, rows, n, k));
  MC_CUDA_CHECK(launch_topk(
      c, x.raw_data(), ctx.out[0].raw_data(), static_cast<int32_t*>(ctx.out[1].raw_data()), rows, n,
      k, ctx.attrs.get_bool("sorted"), scratch.data(), scratch.size(), stream(ctx.device.index)));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
