// The complex64/complex128 paths of the CUDA elementwise kernels (complex.cc), and the ops the
// CUDA dtype rule lets run on complex tensors on the device (cuda_table.cc).
//
// Host code: the wrappers of elementwise.cc call these when their input is complex.
#pragma once

#include "ops/op_table.h"

namespace mycel::cuda {

// cuda_unary / cuda_binary on a complex input (the rows of ops/complex_ops.h marked CUDA; a
// TypeError naming the op for any other, as the CPU's).
void cuda_complex_unary(const KernelContext& ctx);
void cuda_complex_binary(const KernelContext& ctx);

// Whether `op`'s CUDA kernel takes complex64/complex128 tensors (FFTN only where cuFFT
// loads: asking loads it).
bool cuda_takes_complex(const OpDef& op);

}  // namespace mycel::cuda
