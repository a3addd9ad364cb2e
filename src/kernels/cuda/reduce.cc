// CUDA kernels of the reduce family: the KernelContext unpacked into the plain descriptors of
// reduce.h (device code and semantics in reduce.cu).
#include "kernels/cuda/reduce.h"

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/axis_layout.h"
#include "kernels/cuda/cuda_kernels.h"

namespace mycel::cuda {

namespace {

int kind_of(OpId id) {
  switch (id) {
    case OpId::ReduceProd:
      return kReduceProd;
    case OpId::ReduceMax:
      return kReduceMax;
    case OpId::ReduceMin:
      return kReduceMin;
    default:
      return kReduceSum;  // ReduceSum, ReduceMean
  }
}

}  // namespace

void cuda_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const int64_t nd = x.ndim();
  const std::vector<int64_t>& axis = ctx.attrs.get_ints("axis");
  SmallVector<bool, 8> red(static_cast<size_t>(nd), axis.empty());
  for (int64_t a : axis) {
    const int64_t n = normalize_axis(a, nd, ctx.op.name);
    if (nd > 0) red[static_cast<size_t>(n)] = true;
  }
  // The kept dims (in order: the output's row-major order) and the reduced dims, each with
  // the input's strides.
  Shape ks, kst, rs, rst;
  int64_t R = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const size_t i = static_cast<size_t>(d);
    if (red[i]) {
      rs.push_back(x.shape()[i]);
      rst.push_back(x.strides()[i]);
      R *= x.shape()[i];
    } else {
      ks.push_back(x.shape()[i]);
      kst.push_back(x.strides()[i]);
    }
  }
  // A complex Sum or Mean is the same reduction of the parts: the input seen as its part
  // dtype with every stride doubled and a last kept dim of 2 (the parts, stride 1), whose
  // output order is the complex output's parts in row-major order.
  DType dt = x.dtype();
  int64_t O = y.numel();
  if (is_complex(dt)) {
    MC_ASSERT(ctx.op.id == OpId::ReduceSum || ctx.op.id == OpId::ReduceMean, ctx.op.name,
              " on complex reaches the CUDA kernel");
    dt = complex_part_dtype(dt);
    for (int64_t& st : kst) st *= 2;
    for (int64_t& st : rst) st *= 2;
    ks.push_back(2);
    kst.push_back(1);
    O *= 2;
  }
  const Strided<1> kept = strided_of<1>(ks, {&kst});
  // With R == 0 nothing is read; strided_of would still describe the empty extent.
  const Strided<1> rd = R > 0 ? strided_of<1>(rs, {&rst}) : Strided<1>{};
  const int kind = kind_of(ctx.op.id);
  const int idx = ctx.device.index;
  Buffer scratch(idx, reduce_scratch_bytes(kind, code(dt), O, R));
  launch_reduce(kind, ctx.op.id == OpId::ReduceMean, code(dt), x.raw_data(), y.raw_data(), kept, rd,
                O, R, scratch.data(), stream(idx));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_arg_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const AxisLayout l = axis_layout(x, ctx.attrs.get_int("axis"), ctx.op.name);
  launch_arg_reduce(ctx.op.id == OpId::Argmax, code(x.dtype()), x.raw_data(), y.raw_data(),
                    y.dtype() == DType::Int64, l.outer, l.len, l.inner, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
