// Reference CSRMM (ops/defs/linalg.def): each stored entry (r, c, v) of A, its row found by
// walking indptr, adds v * dense[c, :] to out[r, :] (or v * dense[r, :] to out[c, :] with
// transpose_a), serially, accumulating in double; the index arrays checked as the kernel
// checks them (a ValueError). Reference COOMM: the same per entry, its row given.
#include <vector>

#include "base/error.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

int64_t index_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::Int32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

}  // namespace

void ref_csrmm(const KernelContext& ctx) {
  const Tensor& ptr = ctx.in[0];
  const Tensor& idx = ctx.in[1];
  const Tensor& dense = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], nnz = ctx.in[2].numel(), n = dense.dim(1);
  const std::string_view op = ctx.op.name;
  MC_CHECK(ptr.numel() == m + 1 && idx.numel() == nnz && dense.dim(0) == (ta ? m : k), Value,
           "For '", op, "', the parts' shapes do not fit the sparse shape [", m, ", ", k, "].");
  MC_CHECK(index_at(ptr, 0) == 0 && index_at(ptr, m) == nnz, Value, "For '", op,
           "', indptr must start at 0 and end at the number of values ", nnz, ".");
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  int64_t row = 0;
  for (int64_t j = 0; j < nnz; ++j) {
    while (row < m && index_at(ptr, row + 1) <= j) {
      MC_CHECK(index_at(ptr, row) <= index_at(ptr, row + 1), Value, "For '", op,
               "', indptr must not decrease.");
      ++row;
    }
    const int64_t col = index_at(idx, j);
    MC_CHECK(col >= 0 && col < k, Value, "For '", op, "', every column index must lie in [0, ", k,
             "), but got ", col, ".");
    const int64_t dst = ta ? col : row, src = ta ? row : col;
    for (int64_t c = 0; c < n; ++c) {
      const double v = ctx.in[2].dtype() == DType::Float64 ? ctx.in[2].data<double>()[j]
                                                           : ctx.in[2].data<float>()[j];
      const double d = dense.dtype() == DType::Float64 ? dense.data<double>()[src * n + c]
                                                       : dense.data<float>()[src * n + c];
      acc[static_cast<size_t>(dst * n + c)] += v * d;
    }
  }
  for (; row < m; ++row)
    MC_CHECK(index_at(ptr, row) <= index_at(ptr, row + 1), Value, "For '", op,
             "', indptr must not decrease.");
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (out.dtype() == DType::Float64)
      out.data<double>()[i] = acc[static_cast<size_t>(i)];
    else
      out.data<float>()[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
  }
}

void ref_coomm(const KernelContext& ctx) {
  const Tensor& rows = ctx.in[0];
  const Tensor& cols = ctx.in[1];
  const Tensor& val = ctx.in[2];
  const Tensor& dense = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], nnz = val.numel(), n = dense.dim(1);
  const std::string_view op = ctx.op.name;
  MC_CHECK(rows.numel() == nnz && cols.numel() == nnz && dense.dim(0) == (ta ? m : k), Value,
           "For '", op, "', the parts' shapes do not fit the sparse shape [", m, ", ", k, "].");
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  for (int64_t j = 0; j < nnz; ++j) {
    const int64_t r = index_at(rows, j), c = index_at(cols, j);
    MC_CHECK(r >= 0 && r < m, Value, "For '", op, "', every row index must lie in [0, ", m,
             "), but got ", r, ".");
    MC_CHECK(c >= 0 && c < k, Value, "For '", op, "', every column index must lie in [0, ", k,
             "), but got ", c, ".");
    const double v =
        val.dtype() == DType::Float64 ? val.data<double>()[j] : double(val.data<float>()[j]);
    const int64_t dst = ta ? c : r, src = ta ? r : c;
    for (int64_t q = 0; q < n; ++q) {
      const double x = dense.dtype() == DType::Float64 ? dense.data<double>()[src * n + q]
                                                       : double(dense.data<float>()[src * n + q]);
      acc[static_cast<size_t>(dst * n + q)] += v * x;
    }
  }
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (out.dtype() == DType::Float64)
      out.data<double>()[i] = acc[static_cast<size_t>(i)];
    else
      out.data<float>()[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
  }
}

}  // namespace mycel
