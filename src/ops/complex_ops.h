// The one list of the ops that take complex64/complex128 through elementwise loops, and on
// which devices those loops exist. Read by:
//   ops/infer_elementwise.cc    the infer rule: the unary and binary ops listed here take
//                               complex inputs; the other elementwise ops refuse them with a
//                               TypeError naming the op and the dtype
//   kernels/cpu/complex.cc      the CPU loop of each op (functor <Loop>F, every op)
//   kernels/cuda/complex.cc     the CUDA loop of each op marked CUDA (cx::Unary/Binary::<Loop>)
//                               and cuda_takes_complex (the CUDA dtype rule): an op marked HOST
//                               runs on host copies of complex tensors on a GPU
//
// Each row is X(Op, Loop, Out, Dev):
//   Op    the OpId
//   Loop  the loop it runs (the same name, but ComplexAbs runs Abs's loop)
//   Out   the output dtype: Same (the input's complex dtype), Part (its part dtype: float32
//         for complex64, float64 for complex128) or Bool
//   Dev   CUDA where complex_kernels.cu has the loop, HOST where only the CPU has it
//
// A new complex loop is one row here, a functor in kernels/cpu/complex.cc and, for CUDA, a
// cx::Unary/Binary value with its device functor (kernels/cuda/complex_kernels.cu).
#pragma once

#include "ops/op_table.h"

// Unary elementwise ops (elementwise.def) with complex loops.
#define MC_COMPLEX_UNARY_OPS(X)         \
  X(Neg, Neg, Same, CUDA)               \
  X(Abs, Abs, Part, CUDA)               \
  X(Sign, Sign, Same, CUDA)             \
  X(Square, Square, Same, CUDA)         \
  X(Exp, Exp, Same, CUDA)               \
  X(Log, Log, Same, CUDA)               \
  X(Sqrt, Sqrt, Same, CUDA)             \
  X(Reciprocal, Reciprocal, Same, CUDA) \
  X(Sin, Sin, Same, CUDA)               \
  X(Cos, Cos, Same, CUDA)               \
  X(Tan, Tan, Same, CUDA)               \
  X(Atan, Atan, Same, HOST)             \
  X(Sinh, Sinh, Same, CUDA)             \
  X(Cosh, Cosh, Same, CUDA)             \
  X(Tanh, Tanh, Same, CUDA)

// Binary elementwise ops with complex loops (both inputs of one complex dtype); Equal and
// NotEqual are the only comparisons (complex numbers have no order).
#define MC_COMPLEX_BINARY_OPS(X) \
  X(Add, Add, Same, CUDA)        \
  X(Sub, Sub, Same, CUDA)        \
  X(Mul, Mul, Same, CUDA)        \
  X(Div, Div, Same, CUDA)        \
  X(Pow, Pow, Same, CUDA)        \
  X(Equal, Equal, Bool, CUDA)    \
  X(NotEqual, NotEqual, Bool, CUDA)

// The complex-number ops on a complex input (Real, Imag, Conj, Angle, ComplexAbs: unary
// loops). On a real input they are the same on every device (kernels/complex_real_input.h);
// Complex(real, imag) takes real parts and is not a row.
#define MC_COMPLEX_PART_OPS(X) \
  X(Conj, Conj, Same, CUDA)    \
  X(Real, Real, Part, CUDA)    \
  X(Imag, Imag, Part, CUDA)    \
  X(Angle, Angle, Part, CUDA)  \
  X(ComplexAbs, Abs, Part, CUDA)

namespace mycel {

// Whether the unary or binary elementwise op `id` takes complex inputs (on some device; the
// others' infer rules refuse them).
constexpr bool complex_elementwise_op(OpId id) {
  switch (id) {
#define MC_COMPLEX_CASE(Op, Loop, Out, Dev) case OpId::Op:
    MC_COMPLEX_UNARY_OPS(MC_COMPLEX_CASE)
    MC_COMPLEX_BINARY_OPS(MC_COMPLEX_CASE)
#undef MC_COMPLEX_CASE
    return true;
    default:
      return false;
  }
}

}  // namespace mycel
