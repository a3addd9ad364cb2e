// Reference kernels for complex64/complex128 (kernels/ref/complex.cc), the oracle of
// kernels/cpu/complex.cc: every value in double, a complex number as its two parts, the
// formulas written out by hand (exp(a+ib) = e^a (cos b + i sin b), ...) rather than through
// std::complex, one output element at a time. The real-dtype reference kernels call these when
// an input or output is complex.
#pragma once

#include "ops/op_table.h"

namespace mycel::ref {

void complex_unary(const KernelContext& ctx);   // the unary ops of complex.h, and Conj...
void complex_binary(const KernelContext& ctx);  // Add, Sub, Mul, Div, Pow, Equal, NotEqual
void complex_cast(const KernelContext& ctx);    // Cast to or from a complex dtype
void complex_fill(const KernelContext& ctx);    // ZerosLike, OnesLike, Fill
void complex_reduce(const KernelContext& ctx);  // ReduceSum, ReduceMean, ReduceProd
void complex_matmul(const KernelContext& ctx);  // MatMul, BatchMatMul (triple loop)

}  // namespace mycel::ref
