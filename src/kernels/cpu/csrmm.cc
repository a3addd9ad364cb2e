// cpu_csrmm: CSRMM's CPU kernel (ops/defs/linalg.def), out = op(A) @ dense for the CSR matrix
// A (indptr, indices, values; dense_shape [M, K]).
//
// The index arrays are checked first (indptr rising from 0 to nnz, every column in [0, K)): a
// ValueError naming the op otherwise. Without transpose_a, the rows of the output are
// independent: parallel_for over rows (the grain sized by the work, nnz * N / M per row), each
// output row the sum of values[j] * dense[indices[j], :] over the row's entries, an axpy over
// the N dense columns (AVX-512 / AVX2 / baseline clones, picked at load time). With
// transpose_a, A^T is built first in CSR form (a counting sort of the entries by column,
// O(nnz + K), serial), and the same row loop runs on it: no two threads write one output row.
//
// cpu_coomm: COOMM's CPU kernel, out = op(A) @ dense for the COO matrix A (rows, cols, values in
// any order). Both index arrays are checked first (a ValueError naming the op). On one thread
// (or a product too small to split) each entry adds values[j] * dense[src_j, :] straight into
// out[dst_j, :] (dst/src: row/col, swapped with transpose_a): one pass over the entries, no
// copy. Otherwise the entries are grouped by output row with a counting sort (O(nnz + rows),
// serial) into CSR form and CSRMM's row-parallel loop runs on it.
#include <algorithm>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

// fn(the int32 or int64 data of index tensor t)
template <class F>
void with_index(const Tensor& t, F fn) {
  if (t.dtype() == DType::Int32)
    fn(t.data<int32_t>());
  else
    fn(t.data<int64_t>());
}

template <class P, class I>
void check_csr(const KernelContext& ctx, const P* ptr, const I* idx, int64_t m, int64_t k,
               int64_t nnz) {
  const std::string_view op = ctx.op.name;
  MC_CHECK(ptr[0] == 0 && static_cast<int64_t>(ptr[m]) == nnz, Value, "For '", op,
           "', indptr must start at 0 and end at the number of values ", nnz, ", but got ",
           static_cast<int64_t>(ptr[0]), " and ", static_cast<int64_t>(ptr[m]), ".");
  for (int64_t i = 0; i < m; ++i)
    MC_CHECK(ptr[i] <= ptr[i + 1], Value, "For '", op, "', indptr must not decrease, but indptr[",
             i, "] = ", static_cast<int64_t>(ptr[i]), " > indptr[", i + 1,
             "] = ", static_cast<int64_t>(ptr[i + 1]), ".");
  for (int64_t j = 0; j < nnz; ++j)
    MC_CHECK(idx[j] >= 0 && static_cast<int64_t>(idx[j]) < k, Value, "For '", op,
             "', every column index must lie in [0, ", k, "), but indices[", j,
             "] = ", static_cast<int64_t>(idx[j]), ".");
}

// o[0, n) += v * b[0, n): the inner loop, compiled for AVX-512, AVX2 and the baseline (the
// CPU picks one at load time), as conv.cc's gemm loops.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void axpy(
    float* __restrict o, float v, const float* __restrict b, int64_t n) {
  for (int64_t c = 0; c < n; ++c) o[c] += v * b[c];
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void axpy(
    double* __restrict o, double v, const double* __restrict b, int64_t n) {
  for (int64_t c = 0; c < n; ++c) o[c] += v * b[c];
}

// out[r, :] = sum over j in [ptr[r], ptr[r+1]) of val[j] * d[col[j], :], rows in parallel.
template <class T, class P, class I>
void rows_times_dense(const P* ptr, const I* col, const T* val, const T* d, T* out, int64_t rows,
                      int64_t n) {
  const int64_t nnz = static_cast<int64_t>(ptr[rows]);
  const int64_t per_row = std::max<int64_t>(1, (nnz + rows) * n / std::max<int64_t>(rows, 1));
  const int64_t grain = std::max<int64_t>(1, 32768 / per_row);
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* __restrict o = out + r * n;
      std::fill(o, o + n, T(0));
      for (int64_t j = static_cast<int64_t>(ptr[r]); j < static_cast<int64_t>(ptr[r + 1]); ++j)
        axpy(o, val[j], d + static_cast<int64_t>(col[j]) * n, n);
    }
  });
}

}  // namespace

void cpu_csrmm(const KernelContext& ctx) {
  const Tensor& ptr_t = ctx.in[0];
  const Tensor& idx_t = ctx.in[1];
  const Tensor& val_t = ctx.in[2];
  const Tensor& dense = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], nnz = val_t.numel(), n = dense.dim(1);
  MC_CHECK(ptr_t.numel() == m + 1 && idx_t.numel() == nnz && dense.dim(0) == (ta ? m : k), Value,
           "For '", ctx.op.name, "', got indptr of shape ", ptr_t.shape(), ", indices ",
           idx_t.shape(), ", values ", val_t.shape(), " and dense ", dense.shape(),
           " for the sparse shape [", m, ", ", k, "].");
  with_index(ptr_t, [&](const auto* ptr) {
    with_index(idx_t, [&](const auto* idx) {
      check_csr(ctx, ptr, idx, m, k, nnz);
      dispatch_float(out.dtype(), ctx.op.name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          const T* val = val_t.data<T>();
          if (!ta) {
            rows_times_dense(ptr, idx, val, dense.data<T>(), out.data<T>(), m, n);
            return;
          }
          // A^T in CSR form: a counting sort of the entries by column (stable: row order).
          std::vector<int64_t> tptr(static_cast<size_t>(k + 1), 0), trow(static_cast<size_t>(nnz));
          std::vector<T> tval(static_cast<size_t>(nnz));
          for (int64_t j = 0; j < nnz; ++j) ++tptr[static_cast<size_t>(idx[j]) + 1];
          for (int64_t c = 0; c < k; ++c)
            tptr[static_cast<size_t>(c + 1)] += tptr[static_cast<size_t>(c)];
          std::vector<int64_t> fill(tptr.begin(), tptr.end() - 1);
          for (int64_t r = 0; r < m; ++r) {
            for (int64_t j = static_cast<int64_t>(ptr[r]); j < static_cast<int64_t>(ptr[r + 1]);
                 ++j) {
              const int64_t at = fill[static_cast<size_t>(idx[j])]++;
              trow[static_cast<size_t>(at)] = r;
              tval[static_cast<size_t>(at)] = val[j];
            }
          }
          rows_times_dense(tptr.data(), trow.data(), tval.data(), dense.data<T>(), out.data<T>(), k,
                           n);
        } else {
          MC_CHECK(false, Type, "For '", ctx.op.name, "', values must be float32 or float64.");
        }
      });
    });
  });
}

namespace {

template <class I>
void check_coo(const KernelContext& ctx, const char* name, const I* idx, int64_t nnz,
               int64_t bound) {
  for (int64_t j = 0; j < nnz; ++j)
    MC_CHECK(idx[j] >= 0 && static_cast<int64_t>(idx[j]) < bound, Value, "For '", ctx.op.name,
             "', every ", name, " index must lie in [0, ", bound, "), but ", name, "[", j,
             "] = ", static_cast<int64_t>(idx[j]), ".");
}

// out [out_rows, n] = sum over entries j of val[j] * d[src[j], :] added at row dst[j].
template <class T, class D, class S>
void coo_times_dense(const D* dst, const S* src, const T* val, const T* d, T* out, int64_t out_rows,
                     int64_t nnz, int64_t n) {
  if (num_threads() == 1 || in_parallel_region() || nnz * n < kSerialWork) {
    std::fill(out, out + out_rows * n, T(0));
    for (int64_t j = 0; j < nnz; ++j)
      axpy(out + static_cast<int64_t>(dst[j]) * n, val[j], d + static_cast<int64_t>(src[j]) * n, n);
    return;
  }
  // Grouped by output row (stable: entry order within a row), then the row-parallel loop.
  std::vector<int64_t> ptr(static_cast<size_t>(out_rows + 1), 0), col(static_cast<size_t>(nnz));
  std::vector<T> v(static_cast<size_t>(nnz));
  for (int64_t j = 0; j < nnz; ++j) ++ptr[static_cast<size_t>(dst[j]) + 1];
  for (int64_t r = 0; r < out_rows; ++r)
    ptr[static_cast<size_t>(r + 1)] += ptr[static_cast<size_t>(r)];
  std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
  for (int64_t j = 0; j < nnz; ++j) {
    const int64_t at = fill[static_cast<size_t>(dst[j])]++;
    col[static_cast<size_t>(at)] = static_cast<int64_t>(src[j]);
    v[static_cast<size_t>(at)] = val[j];
  }
  rows_times_dense(ptr.data(), col.data(), v.data(), d, out, out_rows, n);
}

}  // namespace

void cpu_coomm(const KernelContext& ctx) {
  const Tensor& row_t = ctx.in[0];
  const Tensor& col_t = ctx.in[1];
  const Tensor& val_t = ctx.in[2];
  const Tensor& dense = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], nnz = val_t.numel(), n = dense.dim(1);
  MC_CHECK(row_t.numel() == nnz && col_t.numel() == nnz && dense.dim(0) == (ta ? m : k), Value,
           "For '", ctx.op.name, "', got rows of shape ", row_t.shape(), ", cols ", col_t.shape(),
           ", values ", val_t.shape(), " and dense ", dense.shape(), " for the sparse shape [", m,
           ", ", k, "].");
  with_index(row_t, [&](const auto* row) {
    with_index(col_t, [&](const auto* col) {
      check_coo(ctx, "row", row, nnz, m);
      check_coo(ctx, "column", col, nnz, k);
      dispatch_float(out.dtype(), ctx.op.name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          const T* val = val_t.data<T>();
          if (ta)
            coo_times_dense(col, row, val, dense.data<T>(), out.data<T>(), k, nnz, n);
          else
            coo_times_dense(row, col, val, dense.data<T>(), out.data<T>(), m, nnz, n);
        } else {
          MC_CHECK(false, Type, "For '", ctx.op.name, "', values must be float32 or float64.");
        }
      });
    });
  });
}

}  // namespace mycel
