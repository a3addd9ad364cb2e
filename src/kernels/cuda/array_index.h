// Launchers of the array family's indexing kernels (array_index.cu), called by array_index.cc.
//
// Elements that are only moved are handled as bits (`isize` bytes each). Index tensors are
// int32 or int64 (idx64), except OneHot's (any integer dtype code).
//
// Index errors: the CPU kernels raise IndexError before writing anything; the GPU cannot
// without waiting for the device. So the kernels check every index on the device, never read
// or write out of bounds (Gather/GatherD write 0 for an out-of-range index, the scatters skip
// it), and record the first bad value in `err`, a per-device word in mapped pinned host
// memory: err[0] = 1 + the op's id, err[1] = the index. array_index.cc raises the IndexError
// when it next checks the word: at the start of the next indexing kernel on that device, or
// when the host next waits for that device (the backend's copy_d2h, so item()/asnumpy()/
// cpu(), and synchronize(): install_cuda installs check_index_errors as device/cuda's
// after-sync hook), whichever comes first; each error is raised once, then cleared.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda {

// Raises the IndexError an earlier indexing kernel on device `index` recorded, if any, and
// clears it (host code, array_index.cc). Reads pinned memory: does not wait for the device
// (sees what finished kernels wrote). Allocates nothing when no indexing kernel ran yet.
void check_index_errors(int index);
// The device's error word for a kernel that checks indices (created on first use), after
// raising any error an earlier kernel recorded (host code, array_index.cc; CSRMM uses it too).
int64_t* checked_error_word(int index);

// GatherD(+Grad): the index tensor's shape, the data tensor's (contiguous) strides, the axis.
struct DimIndexDesc {
  int ndim = 0, dim = 0;
  int64_t n = 0;  // data.shape[dim]
  int64_t shape[kMaxDims];
  int64_t xstride[kMaxDims];
};

// ScatterNd/TensorScatterUpdate: the first k dims of the target, with contiguous strides.
struct NdDesc {
  int k = 0;
  int64_t shape[kMaxDims];
  int64_t stride[kMaxDims];
};

// out [batch, outer, k, inner] = params [batch, outer, n, inner] at indices [batch, k].
void launch_gather(int isize, const void* params, const void* idx, bool idx64, void* out,
                   int64_t batch, int64_t outer, int64_t n, int64_t k, int64_t inner,
                   int64_t* err, int op, cudaStream_t s);

// out[e] = x[offset of e's multi-index with index[e] along d.dim]; count = index numel.
void launch_gather_d(int isize, const void* x, const void* idx, bool idx64, void* out,
                     const DimIndexDesc& d, int64_t count, int64_t* err, int op, cudaStream_t s);

// Sums are accumulated in acc, of the accumulator type of `code` (accum_size bytes each),
// zeroed by the caller; when that type is not the dtype itself, finish_accum rounds acc into
// out. Float32/Float64/Int32/Int64 accumulate in place, Float16/BFloat16 in float,
// Bool/Int8/UInt8/Int16 in int32 (wrapping to the dtype at the end gives the CPU's wrapped
// sum; Bool ORs).
size_t accum_size(int code);
void finish_accum(int code, const void* acc, void* out, int64_t n, cudaStream_t s);

// acc[offset of e with index[e] along d.dim] += dout[e].
void launch_gather_d_grad(int code, const void* idx, bool idx64, const void* dout, void* acc,
                          const DimIndexDesc& d, int64_t count, int64_t* err, int op,
                          cudaStream_t s);

// acc[ids[m] * cols + c] += x[m * cols + c] for ids in [0, segs) (others skipped, no error).
void launch_segment_sum(int code, const void* x, const void* ids, bool idx64, void* acc,
                        int64_t rows, int64_t cols, int64_t segs, cudaStream_t s);

// offs[m] = the element offset of index tuple m of indices [rows, d.k], or -1 (and err) when
// a component is outside [0, shape[k]).
void launch_nd_offsets(const void* idx, bool idx64, int64_t* offs, const NdDesc& d, int64_t rows,
                       int64_t* err, int op, cudaStream_t s);
// acc[offs[m] + c] += updates[m * cols + c] (OR for Bool).
void launch_scatter_add(int code, const int64_t* offs, const void* updates, void* acc,
                        int64_t rows, int64_t cols, cudaStream_t s);
// out[offs[m] + c] = updates[m * cols + c], the last row m winning among equal offsets
// (owner: slots zeroed by the caller, one per cols-sized slice of out: numel / cols).
void launch_scatter_update(int isize, const int64_t* offs, const void* updates, void* out,
                           unsigned long long* owner, int64_t rows, int64_t cols,
                           cudaStream_t s);

// out [outer, depth, inner] = on where indices [outer, inner] equal the depth index, else off
// (on/off: the bits of the output dtype's values).
void launch_one_hot(int isize, int idx_code, const void* idx, void* out, int64_t outer,
                    int64_t depth, int64_t inner, uint64_t on, uint64_t off, cudaStream_t s);

// out[i] = start + i * delta (in double, no FMA), rounded through the compute type.
void launch_range(int code, void* out, int64_t n, double start, double delta, cudaStream_t s);

}  // namespace mycel::cuda
