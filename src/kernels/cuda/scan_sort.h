// Launchers of CumSum/CumProd, Sort and TopK on the device (scan_sort.cu), called by
// scan_sort.cc. Every input is contiguous and seen as [O, R, I] (outer, the axis, inner), as
// kernels/cpu/sort_scan.cc sees it; the semantics are that kernel's:
//
//   - CumSum/CumProd: each line (o, i) is walked in order (from its end when reversed), one
//     thread per line, floats (16-bit ones included) accumulating in double and integers and
//     bools in uint64 with wrap-around, exactly as the CPU does: the same additions in the
//     same order, so the outputs equal the CPU's bit for bit. Bool input gives Int64.
//   - Sort: stable, NaN the largest value (last ascending, first descending), +0 and -0
//     equal (they keep their order); int32 indices along the axis.
//   - TopK: the k largest of each row (the last axis, R = row length, I = 1), NaN largest,
//     equal values by lower index first; sorted: in that order; else in index order.
//
// Sort and TopK map each value to an unsigned key of its width whose ascending order is the
// op's order (ties exactly where the CPU's comparison ties), then run CUB's segmented radix
// sort, which is stable, over (key, index) pairs: descending uses the complemented key, so
// equal values still keep ascending index order. Scratch memory (the keys, the indices, the
// segment offsets and CUB's temporary storage) is one caller-allocated buffer of the size the
// *_scratch_bytes functions give. CUB counts items in int: the callers check that the
// element count fits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace mycel::cuda {

// y = cumsum/cumprod of x (dtype code `code`) along R; y is Int64 for a Bool x, else x's dtype.
void launch_cum(bool prod, int code, const void* x, void* y, int64_t O, int64_t R, int64_t I,
                bool exclusive, bool reverse, cudaStream_t s);

// Bytes of scratch launch_sort needs.
size_t sort_scratch_bytes(int code, int64_t O, int64_t R, int64_t I);
// vals, idx: x sorted along R (vals of x's dtype, idx int32), laid out as x. Returns CUB's
// error, or cudaErrorInvalidValue for a scratch buffer smaller than sort_scratch_bytes.
cudaError_t launch_sort(int code, const void* x, void* vals, int32_t* idx, int64_t O, int64_t R,
                        int64_t I, bool descending, void* scratch, size_t scratch_bytes,
                        cudaStream_t s);

// Bytes of scratch launch_topk needs.
size_t topk_scratch_bytes(int code, int64_t rows, int64_t n, int64_t k);
// vals [rows, k] (x's dtype), idx [rows, k] (int32): the top k of each row of x [rows, n].
// Errors as launch_sort's.
cudaError_t launch_topk(int code, const void* x, void* vals, int32_t* idx, int64_t rows, int64_t n,
                        int64_t k, bool sorted, void* scratch, size_t scratch_bytes,
                        cudaStream_t s);

}  // namespace mycel::cuda
