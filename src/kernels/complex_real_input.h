// The complex-number ops (Real, Imag, Conj, Angle, ComplexAbs) on a real input: one rule for
// the CPU (kernels/cpu/complex.cc) and CUDA (kernels/cuda/complex.cc) kernels. Real and Conj
// copy the input, Imag fills zeros, Angle (0 or pi by the sign bit, NaN stays NaN) and
// ComplexAbs (|x|) compute in float64 on the input's device and convert to the output dtype.
// Host code; only the float64 loop is the backend's.
#pragma once

#include "ops/op_table.h"

namespace mycel {

// Runs ctx.op on its real input ctx.in[0] into ctx.out[0]. angle_abs(angle, y, x, n) writes
// y[i] = angle ? arg(x[i]) : |x[i]| for n contiguous float64 values in the device memory of
// ctx.in[0] (the backend's loop or launch).
template <class AngleAbs>
void complex_op_on_real(const KernelContext& ctx, AngleAbs&& angle_abs) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  switch (ctx.op.id) {
    case OpId::Real:
    case OpId::Conj:
      y.copy_from(x);
      return;
    case OpId::Imag:
      y.fill(Scalar::from_int(0));
      return;
    case OpId::Angle:
    case OpId::ComplexAbs: {
      const Tensor xd = x.cast(DType::Float64).contiguous();
      Tensor r = Tensor::empty(xd.shape(), DType::Float64, xd.device());
      angle_abs(ctx.op.id == OpId::Angle, r.data<double>(), xd.data<double>(), xd.numel());
      y.copy_from(r);
      return;
    }
    default:
      MC_ASSERT(false, "complex_op_on_real on ", ctx.op.name);
  }
}

}  // namespace mycel
