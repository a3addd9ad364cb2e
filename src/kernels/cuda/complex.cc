// CUDA kernels on complex64/complex128 (see complex.h): the complex-number ops Real, Imag,
// Conj, Angle, ComplexAbs and Complex (cuda_complex_op), and the complex forms of the
// elementwise ops, on the device (complex_kernels.cu), for the rows of ops/complex_ops.h
// marked CUDA. On a real input the complex-number ops follow kernels/complex_real_input.h,
// as the CPU's do.
#include "kernels/cuda/complex.h"

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/complex_real_input.h"
#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_lib.h"
#include "ops/complex_ops.h"

namespace mycel::cuda {

namespace {

bool is_double(DType t) { return t == DType::Complex128 || t == DType::Float64; }

void run_unary(cx::Unary op, const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const Shape st = broadcast_strides_to(x, y.shape());
  const Strided<1> s = strided_of<1>(y.shape(), {&st});
  cx::launch_unary(op, is_double(x.dtype()), y.raw_data(), x.raw_data(), s, n,
                   stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void run_binary(cx::Binary op, const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& o = ctx.out[0];
  MC_ASSERT(a.dtype() == b.dtype(), ctx.op.name, " inputs must arrive promoted");
  const int64_t n = o.numel();
  if (n == 0) return;
  const Shape sa = broadcast_strides_to(a, o.shape()), sb = broadcast_strides_to(b, o.shape());
  const Strided<2> s = strided_of<2>(o.shape(), {&sa, &sb});
  cx::launch_binary(op, is_double(a.dtype()), o.raw_data(), a.raw_data(), b.raw_data(), s, n,
                    stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void refuse(const KernelContext& ctx) {
  MC_CHECK(false, Type, "For '", ctx.op.name, "', complex inputs are not supported, but got ",
           ctx.in[0].dtype(), ".");
}

}  // namespace

// MC_ON_CUDA(Dev, text): the text for a row of ops/complex_ops.h marked CUDA, nothing for a
// row marked HOST (no device loop: the dtype rule declines the op, so it runs on host copies).
#define MC_ON_CUDA_CUDA(...) __VA_ARGS__
#define MC_ON_CUDA_HOST(...)
#define MC_ON_CUDA(Dev, ...) MC_ON_CUDA_##Dev(__VA_ARGS__)

void cuda_complex_unary(const KernelContext& ctx) {
  switch (ctx.op.id) {
#define MC_CX_CASE(Op, Loop, Out, Dev) \
  MC_ON_CUDA(Dev, case OpId::Op : run_unary(cx::Unary::Loop, ctx); return;)
    MC_COMPLEX_UNARY_OPS(MC_CX_CASE)
#undef MC_CX_CASE
    default:
      refuse(ctx);
  }
}

void cuda_complex_binary(const KernelContext& ctx) {
  switch (ctx.op.id) {
#define MC_CX_CASE(Op, Loop, Out, Dev) \
  MC_ON_CUDA(Dev, case OpId::Op : run_binary(cx::Binary::Loop, ctx); return;)
    MC_COMPLEX_BINARY_OPS(MC_CX_CASE)
#undef MC_CX_CASE
    default:
      refuse(ctx);
  }
}

void cuda_complex_op(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (ctx.op.id == OpId::Complex) {
    const Tensor& im = ctx.in[1];
    MC_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, Type,
             "For 'Complex', the parts must be float32 or float64, but got ", x.dtype(), ".");
    MC_ASSERT(im.dtype() == x.dtype(), "Complex's parts must arrive promoted");
    const int64_t n = y.numel();
    if (n == 0) return;
    const Shape sr = broadcast_strides_to(x, y.shape()), si = broadcast_strides_to(im, y.shape());
    const Strided<2> s = strided_of<2>(y.shape(), {&sr, &si});
    cx::launch_make_complex(x.dtype() == DType::Float64, y.raw_data(), x.raw_data(), im.raw_data(),
                            s, n, stream(ctx.device.index));
    MC_CUDA_LAUNCH_CHECK();
    return;
  }
  if (is_complex(x.dtype())) {
    switch (ctx.op.id) {
#define MC_CX_CASE(Op, Loop, Out, Dev) \
  MC_ON_CUDA(Dev, case OpId::Op : run_unary(cx::Unary::Loop, ctx); return;)
      MC_COMPLEX_PART_OPS(MC_CX_CASE)
#undef MC_CX_CASE
      default:
        MC_ASSERT(false, "cuda_complex_op on ", ctx.op.name);
    }
  }
  complex_op_on_real(ctx, [&ctx](bool angle, double* yp, const double* xp, int64_t n) {
    cx::launch_real_angle_abs(angle, yp, xp, n, stream(ctx.device.index));
    MC_CUDA_LAUNCH_CHECK();
  });
}

bool cuda_takes_complex(const OpDef& op) {
  switch (op.id) {
    case OpId::FFTN:
      return cufft() != nullptr;
      // The complex-number ops and the elementwise ops with CUDA loops (above).
#define MC_CX_CASE(Op, Loop, Out, Dev) MC_ON_CUDA(Dev, case OpId::Op:)
      MC_COMPLEX_UNARY_OPS(MC_CX_CASE)
      MC_COMPLEX_BINARY_OPS(MC_CX_CASE)
      MC_COMPLEX_PART_OPS(MC_CX_CASE)
#undef MC_CX_CASE
    case OpId::Complex:
    // Copies: the device's strided copy moves complex elements (as their parts), and casts
    // between complex and real dtypes on the device (device/cuda/cuda_device.cc).
    // Sum and Mean as the reduction of the parts (reduce.cc); the products through cuBLASLt
    // (linalg.cc).
    case OpId::ReduceSum:
    case OpId::ReduceMean:
    case OpId::MatMul:
    case OpId::BatchMatMul:
    case OpId::Cast:
    case OpId::ZerosLike:
    case OpId::Reshape:
    case OpId::Transpose:
    case OpId::ExpandDims:
    case OpId::Squeeze:
    case OpId::Flatten:
    case OpId::BroadcastTo:
    case OpId::StridedSlice:
    case OpId::StridedSliceGrad:
    case OpId::Concat:
    case OpId::Stack:
    case OpId::Split:
    case OpId::Tile:
      return true;
    default:
      return false;
  }
}

}  // namespace mycel::cuda
