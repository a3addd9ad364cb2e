// Launchers of the selection ops on the device (array_select.cu), called by array_select.cc:
// NonZero, MaskedSelect, MaskedScatter and Unique, with the semantics and output order of the
// CPU kernels (kernels/cpu/array_select.cc).
//
// The output sizes of NonZero, MaskedSelect and Unique depend on the values, so each runs in
// two phases around one device-to-host read of a count (as PyTorch does): phase 1 computes,
// on the device, the count and what phase 2 needs in a scratch buffer; the host reads the
// count (array_select.cc, through a one-element tensor: the stream is waited for there),
// allocates the outputs and launches phase 2. MaskedScatter's output has x's shape, but the
// CPU raises a ValueError before writing when the mask selects more elements than source
// has, so it reads its count too (runtime/vm_capture.cc therefore keeps it out of CUDA-graph
// capture, like the DYN_OUT ops).
//
//   - NonZero, MaskedSelect, MaskedScatter: flags (x != 0 as the CPU tests it: in float for
//     the 16-bit floats, so -0 is zero and NaN is not; or the bool mask) as int64, CUB's
//     exclusive prefix sum of them gives each selected element its output slot pos[i], and
//     the count is pos[n-1] + flag[n-1]. Phase 2 writes element i to slot pos[i]: row-major
//     order, as on the CPU. Elements are moved as bits (isize bytes).
//   - Unique: each value's sort key (sort_util.cuh: the CPU's order, +0 and -0 equal, NaN
//     last) sorted with its position by CUB's radix sort, which is stable, so equal values
//     stay in position order, as the CPU's (value, position) sort; a group starts at each
//     rank whose key differs from the previous one's, and at every NaN (each NaN its own
//     value). An inclusive sum of the group starts numbers the groups; the count is the
//     number of groups. Phase 2: each group's first position (its first rank's, the
//     smallest) and size; unsorted, the groups ordered by first position (a second radix
//     sort) give each its output slot; then y, counts and the inverse indices.
//
// Scratch memory is one caller-allocated buffer of the size *_scratch_bytes gives. Sizes are
// at most INT_MAX elements (positions are int32 in Unique's sorts): the callers check.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace mycel::cuda {

// Phase 1 of NonZero/MaskedSelect/MaskedScatter: flags of x (dtype code `code`; a bool mask
// is code 0) and their exclusive sum in scratch; *count (device memory) = the count.
size_t select_scratch_bytes(int64_t n);
cudaError_t launch_select_count(int code, const void* x, int64_t n, int64_t* count, void* scratch,
                                size_t scratch_bytes, cudaStream_t s);

// NonZero's phase 2: out [k, ndim] int64, the multi-index (over dims[0..ndim), x's shape in
// device memory: any rank) of each nonzero element.
void launch_non_zero_write(int64_t n, const int64_t* dims, int ndim, int64_t* out,
                           const void* scratch, cudaStream_t s);
// MaskedSelect's phase 2: out[pos[i]] = x[i] where mask[i] (x and mask of n elements).
void launch_masked_select_write(int isize, const void* x, int64_t n, void* out, const void* scratch,
                                cudaStream_t s);
// MaskedScatter's phase 2: out[i] = mask[i] ? src[pos[i]] : x[i].
void launch_masked_scatter_write(int isize, const void* x, const void* src, int64_t n, void* out,
                                 const void* scratch, cudaStream_t s);

// Unique's phase 1 and 2 (x of n >= 1 elements, dtype code `code`). *groups (device memory)
// = the number of distinct values K. Phase 2 writes y [K] (x's dtype), idx [n] and
// counts [K] (int64 when idx64, else int32).
size_t unique_scratch_bytes(int code, int64_t n);
cudaError_t launch_unique_count(int code, const void* x, int64_t n, int64_t* groups, void* scratch,
                                size_t scratch_bytes, cudaStream_t s);
cudaError_t launch_unique_write(int code, const void* x, int64_t n, int64_t groups, bool sorted,
                                bool idx64, void* y, void* idx, void* counts, void* scratch,
                                size_t scratch_bytes, cudaStream_t s);

}  // namespace mycel::cuda
