// The complex64/complex128 kernels of the CPU backend (kernels/cpu/complex.cc):
//   - the complex loops of the elementwise ops that take complex (the rows of
//     ops/complex_ops.h), which cpu_unary and cpu_binary pick when their input is complex (the
//     op table's infer rules refuse complex for the other ops, so no kernel sees it);
//   - Sum/Mean/Prod reductions over complex tensors (cpu_reduce calls complex_reduce);
//   - the blocked complex matrix product behind MatMul/BatchMatMul (cpu_matmul calls
//     complex_gemm per batch; its naive oracle is kernels/ref);
//   - cpu_complex_op: Real, Imag, Conj, Angle, ComplexAbs and Complex (ops/defs/elementwise.def;
//     on a real input, kernels/complex_real_input.h).
// Formulas are std::complex's (C99 Annex G for inf/nan in exp, log, sqrt and the trigonometry).
#pragma once

#include "kernels/cpu/elementwise.h"
#include "ops/op_table.h"

namespace mycel {

// The strided loop of a complex elementwise op on dtype t (Complex64 or Complex128), or
// nullptr when the op has none (a row of ops/complex_ops.h has one). Abs writes the part dtype
// (|x|), Equal/NotEqual bool.
ew::UnaryLoop complex_unary_loop(OpId id, DType t);
ew::BinaryLoop complex_binary_loop(OpId id, DType t);

// ReduceSum, ReduceMean and ReduceProd of a complex tensor (the op's axis and keep_dims
// attributes; the output is allocated by the caller, as for cpu_reduce).
void complex_reduce(const KernelContext& ctx);

// C[M x N] = op(A) @ op(B), row-major, op(A) = A [M x K] or, ta, A^T of A [K x M] (likewise
// B): the blocked kernel cpu_matmul runs per batch (no conjugation: MatMul's transpose flags
// transpose only, as MindSpore's).
void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const complex64* A,
                  const complex64* B, complex64* C);
void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const complex128* A,
                  const complex128* B, complex128* C);

}  // namespace mycel
