// The CUDA kernel library: declarations of every function named in kernels/cuda/defs/*.def,
// the table the dispatcher reads, and install_cuda().
//
// A CUDA kernel has the CPU kernel's signature (void(const KernelContext&)); every tensor it
// sees is on ctx.device, laid out as the op's flags say (contiguous unless F_STRIDED), with
// outputs allocated. It queues work on cuda::stream(ctx.device.index) and returns without
// waiting. The .cc wrapper unpacks the context; device code sits in a .cu file beside it
// and takes plain pointers and sizes, so nvcc never parses the op table.
#pragma once

#include <span>

#include "kernels/fused_matmul.h"
#include "kernels/kernel_table.h"

namespace mycel::cuda {

#define CUDA_OP(op, fn) void fn(const KernelContext&);
#include "kernels/cuda/all.def"
#undef CUDA_OP

// Indexed by OpId; nullptr for ops with no CUDA kernel.
std::span<const KernelFn> kernel_table();

// The fused MatMul epilogue of kernels/fused_matmul.h (cuBLASLt; linalg.cc).
bool cuda_fused_matmul(const Tensor& a, const Tensor& b, const Tensor& bias, bool ta, bool tb,
                       MatmulEpilogue epilogue, const Tensor& y);

// Installs the CUDA backend (tensor/device.h), the kernel table (kernels/kernel_table.h) and
// the fused MatMul epilogue (kernels/fused_matmul.h).
// Returns the number of devices found; 0 (and nothing installed) with no driver or GPU.
// Never throws; safe to call twice.
int install_cuda();

}  // namespace mycel::cuda
