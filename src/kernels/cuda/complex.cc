// CUDA kernels on complex64/complex128 (see complex.h): the complex-number ops Real, Imag,
// Conj, Angle, ComplexAbs and Complex (cuda_complex_op), and the complex forms of the
// elementwise ops, on the device (complex_kernels.cu). On a real input the complex-number ops
// are what kernels/cpu/complex.cc does: Real and Conj copy, Imag fills zeros, Angle and
// ComplexAbs compute in float64 and convert to the output dtype.
#include "kernels/cuda/complex.h"

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_lib.h"

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

void refuse(const KernelContext& ctx) {
  MC_CHECK(false, Type, "For '", ctx.op.name, "', complex inputs are not supported, but got ",
           ctx.in[0].dtype(), ".");
}

// Angle and ComplexAbs of a real tensor (kernels/cpu/complex.cc's real_angle_abs).
void real_angle_abs(const KernelContext& ctx) {
  const Tensor x = ctx.in[0].cast(DType::Float64).contiguous();
  Tensor r = Tensor::empty(x.shape(), DType::Float64, ctx.device);
  cx::launch_real_angle_abs(ctx.op.id == OpId::Angle, r.data<double>(), x.data<double>(), x.numel(),
                            stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
  ctx.out[0].copy_from(r);
}

}  // namespace

void cuda_complex_unary(const KernelContext& ctx) {
  switch (ctx.op.id) {
#define MC_CX(Id, Op)              \
  case OpId::Id:                   \
    run_unary(cx::Unary::Op, ctx); \
    return;
    MC_CX(Neg, Neg)
    MC_CX(Abs, Abs)
    MC_CX(Sign, Sign)
    MC_CX(Square, Square)
    MC_CX(Exp, Exp)
    MC_CX(Log, Log)
    MC_CX(Sqrt, Sqrt)
    MC_CX(Reciprocal, Reciprocal)
    MC_CX(Sin, Sin)
    MC_CX(Cos, Cos)
    MC_CX(Tan, Tan)
    MC_CX(Sinh, Sinh)
    MC_CX(Cosh, Cosh)
    MC_CX(Tanh, Tanh)
#undef MC_CX
    default:
      refuse(ctx);
  }
}

void cuda_complex_binary(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& o = ctx.out[0];
  cx::Binary op = cx::Binary::Add;
  switch (ctx.op.id) {
    case OpId::Add:
      op = cx::Binary::Add;
      break;
    case OpId::Sub:
      op = cx::Binary::Sub;
      break;
    case OpId::Mul:
      op = cx::Binary::Mul;
      break;
    case OpId::Div:
      op = cx::Binary::Div;
      break;
    case OpId::Pow:
      op = cx::Binary::Pow;
      break;
    case OpId::Equal:
      op = cx::Binary::Equal;
      break;
    case OpId::NotEqual:
      op = cx::Binary::NotEqual;
      break;
    default:
      refuse(ctx);
  }
  MC_ASSERT(a.dtype() == b.dtype(), ctx.op.name, " inputs must arrive promoted");
  const int64_t n = o.numel();
  if (n == 0) return;
  const Shape sa = broadcast_strides_to(a, o.shape()), sb = broadcast_strides_to(b, o.shape());
  const Strided<2> s = strided_of<2>(o.shape(), {&sa, &sb});
  cx::launch_binary(op, is_double(a.dtype()), o.raw_data(), a.raw_data(), b.raw_data(), s, n,
                    stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
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
      case OpId::Real:
        run_unary(cx::Unary::Real, ctx);
        return;
      case OpId::Imag:
        run_unary(cx::Unary::Imag, ctx);
        return;
      case OpId::Conj:
        run_unary(cx::Unary::Conj, ctx);
        return;
      case OpId::Angle:
        run_unary(cx::Unary::Angle, ctx);
        return;
      case OpId::ComplexAbs:
        run_unary(cx::Unary::Abs, ctx);
        return;
      default:
        MC_ASSERT(false, "cuda_complex_op on ", ctx.op.name);
    }
  }
  switch (ctx.op.id) {  // a real input
    case OpId::Real:
    case OpId::Conj:
      y.copy_from(x);
      return;
    case OpId::Imag:
      y.fill(Scalar::from_int(0));
      return;
    case OpId::Angle:
    case OpId::ComplexAbs:
      real_angle_abs(ctx);
      return;
    default:
      MC_ASSERT(false, "cuda_complex_op on ", ctx.op.name);
  }
}

bool cuda_takes_complex(const OpDef& op) {
  switch (op.id) {
    case OpId::FFTN:
      return cufft() != nullptr;
    // The complex-number ops and the elementwise ops with complex loops (above).
    case OpId::Real:
    case OpId::Imag:
    case OpId::Conj:
    case OpId::Angle:
    case OpId::ComplexAbs:
    case OpId::Complex:
    case OpId::Neg:
    case OpId::Abs:
    case OpId::Sign:
    case OpId::Square:
    case OpId::Exp:
    case OpId::Log:
    case OpId::Sqrt:
    case OpId::Reciprocal:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tan:
    case OpId::Sinh:
    case OpId::Cosh:
    case OpId::Tanh:
    case OpId::Add:
    case OpId::Sub:
    case OpId::Mul:
    case OpId::Div:
    case OpId::Pow:
    case OpId::Equal:
    case OpId::NotEqual:
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
