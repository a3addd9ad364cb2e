// Launchers of the linalg family's own device code (linalg_kernels.cu); the cuBLASLt calls
// are in linalg.cc. Plain pointers and sizes: nvcc never sees a mycel tensor.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// Y[t] = op(A[t]) * op(B[t]) for t < batches, one thread per output element: the integer
// dtypes (products summed modulo 2^64, then wrapped to the output width, as the CPU kernel)
// and the fallback for float types cuBLASLt declines (accumulating in acc_t / double).
// A[t] starts at A + t * stride_a (stride 0: shared by every batch); op(A) is [M, K], stored
// [K, M] when ta; op(B) is [K, N], stored [N, K] when tb; Y is [batches, M, N] contiguous.
void launch_matmul_naive(int code, const void* A, const void* B, void* Y, int64_t batches,
                         int64_t M, int64_t N, int64_t K, bool ta, bool tb, int64_t stride_a,
                         int64_t stride_b, cudaStream_t stream);

// y[i] = x[i] + b[(i / inner) % channels] over n elements (BiasAdd).
void launch_bias_add(int code, const void* x, const void* b, void* y, int64_t n, int64_t channels,
                     int64_t inner, cudaStream_t stream);

// CSRMM (float32/float64 codes): out [rows, n] = sum over j in [ptr[r], ptr[r + 1]) of
// val[j] * d[col[j], :], one block per output row r, its threads over the n columns (a
// grid-stride loop over rows past the grid). With transpose, out [k, n] must be zeroed by the
// caller and row r of A adds val[j] * d[r, :] to out[col[j], :] (atomicAdd: the order of the
// sums varies). The CSR arrays are checked on the device: an indptr not rising from 0 to nnz
// or a column outside [0, k) is recorded in err (array_index.h: raised later as an
// IndexError naming op) and its entries skipped. ptr64/col64: int64 arrays, else int32.
void launch_csrmm(int code, const void* ptr, bool ptr64, const void* col, bool col64,
                  const void* val, const void* d, void* out, int64_t rows, int64_t k, int64_t n,
                  int64_t nnz, bool transpose, int64_t* err, int op, cudaStream_t stream);

// COOMM (float32/float64 codes): out [out_rows, n], zeroed by the caller, gets val[j] *
// d[src[j], :] added to row dst[j] for every entry j (one thread per entry and column,
// atomicAdd: the order of the sums varies). An index outside [0, dst_bound) / [0, src_bound)
// is recorded in err (array_index.h: raised later as an IndexError naming op) and its entry
// skipped. dst64/src64: int64 arrays, else int32.
void launch_coomm(int code, const void* dst, bool dst64, const void* src, bool src64,
                  const void* val, const void* d, void* out, int64_t dst_bound, int64_t src_bound,
                  int64_t n, int64_t nnz, int64_t* err, int op, cudaStream_t stream);

}  // namespace mycel::cuda
