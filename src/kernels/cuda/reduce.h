// Launchers of the reduce family's CUDA kernels (reduce.cu), called by reduce.cc.
//
// A reduction is described by two Strided<1> over the contiguous input: `kept` walks the
// output elements (the non-reduced dims, in row-major order, which is the output's order)
// and `red` walks the reduced elements of one output (the reduced dims). O = prod(kept),
// R = prod(red).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda {

enum ReduceKind : int { kReduceSum = 0, kReduceProd, kReduceMax, kReduceMin };

// y[o] = reduction over r of x[kept(o) + red(r)]; x of dtype code `code`, y of the output
// dtype (Int64 for Sum/Prod of Bool, else x's). mean: Sum divided by R (count as double).
// scratch: 0 bytes when reduce_scratch_bytes says so, else that many bytes of device memory.
void launch_reduce(int kind, bool mean, int code, const void* x, void* y, const Strided<1>& kept,
                   const Strided<1>& red, int64_t O, int64_t R, void* scratch,
                   cudaStream_t stream);
// Bytes of scratch launch_reduce needs (partial results when few rows are long).
size_t reduce_scratch_bytes(int kind, int code, int64_t O, int64_t R);

// Argmax/Argmin over x viewed as [O, R, I] (contiguous): y[o * I + i] = the first index r of
// the max/min (the first NaN when there is one). idx64: y is int64, else int32.
void launch_arg_reduce(bool is_max, int code, const void* x, void* y, bool idx64, int64_t O,
                       int64_t R, int64_t I, cudaStream_t stream);

}  // namespace mycel::cuda
