// Launchers of the complex64/complex128 CUDA kernels (complex_kernels.cu), called by the
// wrappers in complex.cc. Plain data only: pointers, a precision flag (dbl: complex128 and
// its part float64, else complex64 and float32), element counts and Strided<K> descriptors
// over the output's shape (outputs contiguous, as in elementwise.h).
//
// The formulas are std::complex's, as the CPU kernels' (kernels/cpu/complex.cc), written with
// cuda::std::complex on the device: |z| is hypot, arg atan2, sign(z) = z / |z| (0 for 0),
// z ** w is 1 for w = 0, 0 for z = 0, else exp(w log z) (libstdc++'s pow). The device's
// transcendental functions differ from glibc's in the last bits, so complex results agree
// with the CPU's to rounding, not bit for bit (the kernel cases' tolerances).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda::cx {

// Unary ops on a complex input. Abs, Real, Imag and Angle write the part dtype; the others
// the input's complex dtype.
enum class Unary : int {
  Neg,
  Abs,
  Sign,
  Square,
  Exp,
  Log,
  Sqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Sinh,
  Cosh,
  Tanh,
  Conj,
  Real,
  Imag,
  Angle
};

// Binary ops on two complex inputs of one dtype; Equal and NotEqual write bool.
enum class Binary : int { Add, Sub, Mul, Div, Pow, Equal, NotEqual };

// y[i] = op(x at i); s: operand 0 = x.
void launch_unary(Unary op, bool dbl, void* y, const void* x, const Strided<1>& s, int64_t n,
                  cudaStream_t stream);

// o[i] = op(a at i, b at i); s: operand 0 = a, 1 = b.
void launch_binary(Binary op, bool dbl, void* o, const void* a, const void* b, const Strided<2>& s,
                   int64_t n, cudaStream_t stream);

// o[i] = (re at i) + i (im at i): Complex(real, imag), parts float64 if dbl else float32.
void launch_make_complex(bool dbl, void* o, const void* re, const void* im, const Strided<2>& s,
                         int64_t n, cudaStream_t stream);

// Angle (angle) or ComplexAbs of a real input, in double, contiguous: 0 or pi by the sign
// bit (NaN stays NaN), or |x|.
void launch_real_angle_abs(bool angle, double* y, const double* x, int64_t n, cudaStream_t stream);

}  // namespace mycel::cuda::cx
