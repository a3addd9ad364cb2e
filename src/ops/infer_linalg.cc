// Shape and dtype rules of the linalg family (ops/defs/linalg.def).
//
// MatMul: x1 [M, K] x x2 [K, N] -> [M, N] (2-d only); transpose_a / transpose_b read x1 as
// [K, M] / x2 as [N, K]. BatchMatMul: [..., M, K] x [..., K, N] -> [bcast(...), M, N]; the
// batch dims broadcast (numpy rules), so a rank-2 operand applies to every batch. Inputs are
// already promoted to one dtype; bool is a TypeError (MindSpore has no bool matmul).
//
// BiasAdd(x, b): b is 1-d with one entry per channel; the channel axis is 1 for NCHW/NCDHW
// (x of rank >= 2) and the last axis for NHWC.
//
// Eig(x (*, N, N)): w (*, N) and v (*, N, N) (compute_v) or [0], complex of x's precision.
// CSRMM(indptr [M + 1], indices [nnz], values [nnz], dense [K, N]) with dense_shape [M, K]
// -> [M, N]; transpose_a: dense [M, N] -> [K, N]. Index values are checked by the kernels.
#include "ops/op_table.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

const char* py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace

void infer_matmul(InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  const TensorMeta& a = ctx.in[0];
  const TensorMeta& b = ctx.in[1];
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const bool tb = ctx.attrs.get_bool("transpose_b");
  MC_CHECK(!is_bool(a.dtype), Type, "For '", op,
           "', the inputs must be numeric tensors, but got dtype ", a.dtype, ".");
  const bool batch = ctx.op.id == OpId::BatchMatMul;
  const size_t ra = a.shape.size(), rb = b.shape.size();
  if (batch) {
    MC_CHECK(ra >= 2 && rb >= 2, Value, "For '", op,
             "', the inputs must have rank at least 2, but got x1 shape ", a.shape,
             " and x2 shape ", b.shape, ".");
  } else {
    MC_CHECK(ra == 2 && rb == 2, Value, "For '", op,
             "', the inputs must be 2-d (use BatchMatMul for batches), but got x1 shape ", a.shape,
             " and x2 shape ", b.shape, ".");
  }
  const int64_t m = a.shape[ra - (ta ? 1 : 2)], ka = a.shape[ra - (ta ? 2 : 1)];
  const int64_t kb = b.shape[rb - (tb ? 1 : 2)], n = b.shape[rb - (tb ? 2 : 1)];
  MC_CHECK(dims_agree(ka, kb), Value, "For '", op,
           "', the input dimensions must be equal, but got x1 col ", ka, " and x2 row ", kb,
           " (x1 shape ", a.shape, ", x2 shape ", b.shape, ", transpose_a ", py_bool(ta),
           ", transpose_b ", py_bool(tb), ").");
  Shape out;
  if (batch) {
    const size_t nb = std::max(ra, rb) - 2;
    for (size_t i = 0; i < nb; ++i) {
      const int64_t da = i + ra >= nb + 2 ? a.shape[i + ra - 2 - nb] : 1;
      const int64_t db = i + rb >= nb + 2 ? b.shape[i + rb - 2 - nb] : 1;
      MC_CHECK(dims_broadcast(da, db), Value, "For '", op, "', the batch dimensions of x1 shape ",
               a.shape, " and x2 shape ", b.shape, " cannot broadcast (", da, " vs ", db, ").");
      out.push_back(broadcast_dim(da, db));
    }
  }
  out.push_back(m);
  out.push_back(n);
  ctx.out.push_back({a.dtype, std::move(out)});
}

void infer_bias_add(InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  const TensorMeta& x = ctx.in[0];
  const TensorMeta& b = ctx.in[1];
  const std::string& fmt = ctx.attrs.get_str("data_format");
  MC_CHECK(fmt == "NCHW" || fmt == "NHWC" || fmt == "NCDHW", Value, "For '", op,
           "', the 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', but got '", fmt, "'.");
  MC_CHECK(!is_bool(x.dtype), Type, "For '", op,
           "', the inputs must be numeric tensors, but got dtype ", x.dtype, ".");
  const int64_t nd = static_cast<int64_t>(x.shape.size());
  MC_CHECK(nd >= 2, Value, "For '", op, "', the input x must have rank at least 2, but got shape ",
           x.shape, ".");
  MC_CHECK(fmt != "NCDHW" || nd == 5, Value, "For '", op,
           "', the 'data_format' NCDHW needs a 5-d input x, but got shape ", x.shape, ".");
  const int64_t c = x.shape[static_cast<size_t>(fmt == "NHWC" ? nd - 1 : 1)];
  MC_CHECK(b.shape.size() == 1 && dims_agree(b.shape[0], c), Value, "For '", op,
           "', the bias must be 1-d with one entry per channel (", c, " for x shape ", x.shape,
           " in ", fmt, "), but got bias shape ", b.shape, ".");
  ctx.out.push_back({x.dtype, x.shape});
}

void infer_eig(InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  const TensorMeta& x = ctx.in[0];
  const DType t = x.dtype;
  MC_CHECK(
      t == DType::Float32 || t == DType::Float64 || t == DType::Complex64 || t == DType::Complex128,
      Type, "For '", op, "', the input must be float32, float64, complex64 or complex128, but got ",
      t, ".");
  const size_t r = x.shape.size();
  MC_CHECK(r >= 2 && dims_agree(x.shape[r - 1], x.shape[r - 2]), Value, "For '", op,
           "', the input must be square matrices (*, N, N), but got shape ", x.shape, ".");
  const DType c = is_complex(t) ? t : complex_dtype_of(t);
  const int64_t n = x.shape[r - 1] >= 0 ? x.shape[r - 1] : x.shape[r - 2];
  Shape w(x.shape.begin(), x.shape.end() - 1);
  w.back() = n;
  Shape v = ctx.attrs.get_bool("compute_v") ? x.shape : Shape{0};
  if (v.size() == r) v[r - 1] = v[r - 2] = n;
  ctx.out.push_back({c, std::move(w)});
  ctx.out.push_back({c, std::move(v)});
}

// The checks CSRMM and COOMM share: dense_shape [M, K], the two index inputs (named `a`, `b`)
// int32/int64, values and dense of one float dtype, dense [K, N] (transpose_a: [M, N]); then
// the output [M, N] (transpose_a: [K, N]). The index values are checked by the kernels.
static void infer_sparse_product(InferContext& ctx, const char* a, const char* b) {
  const std::string_view op = ctx.op.name;
  const TensorMeta& ia = ctx.in[0];
  const TensorMeta& ib = ctx.in[1];
  const TensorMeta& val = ctx.in[2];
  const TensorMeta& d = ctx.in[3];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  MC_CHECK(ds.size() == 2 && ds[0] >= 0 && ds[1] >= 0, Value, "For '", op,
           "', dense_shape must be two non-negative sizes [M, K], but got ",
           Shape(ds.begin(), ds.end()), ".");
  for (const TensorMeta* m : {&ia, &ib})
    MC_CHECK(m->dtype == DType::Int32 || m->dtype == DType::Int64, Type, "For '", op, "', ", a,
             " and ", b, " must be int32 or int64, but got ", ia.dtype, " and ", ib.dtype, ".");
  MC_CHECK(val.dtype == d.dtype && (val.dtype == DType::Float32 || val.dtype == DType::Float64),
           Type, "For '", op, "', values and dense must both be float32 or both float64, but got ",
           val.dtype, " and ", d.dtype, ".");
  const int64_t rows = ta ? ds[0] : ds[1];
  MC_CHECK(d.shape.size() == 2 && dims_agree(d.shape[0], rows), Value, "For '", op,
           "', dense must be 2-d with ", rows, " rows (sparse shape ", Shape(ds.begin(), ds.end()),
           ", transpose_a ", py_bool(ta), "), but got shape ", d.shape, ".");
  ctx.out.push_back({d.dtype, Shape{ta ? ds[1] : ds[0], d.shape[1]}});
}

void infer_csrmm(InferContext& ctx) {
  infer_sparse_product(ctx, "indptr", "indices");
  const TensorMeta& ptr = ctx.in[0];
  const TensorMeta& idx = ctx.in[1];
  const TensorMeta& val = ctx.in[2];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  MC_CHECK(ptr.shape.size() == 1 && dims_agree(ptr.shape[0], ds[0] + 1), Value, "For '",
           ctx.op.name, "', indptr must be 1-d with M + 1 = ", ds[0] + 1, " entries (dense_shape ",
           Shape(ds.begin(), ds.end()), "), but got shape ", ptr.shape, ".");
  MC_CHECK(idx.shape.size() == 1 && val.shape.size() == 1 && dims_agree(idx.shape[0], val.shape[0]),
           Value, "For '", ctx.op.name,
           "', indices and values must be 1-d of one length, but got shapes ", idx.shape, " and ",
           val.shape, ".");
}

// COOMM(rows [nnz], cols [nnz], values [nnz], dense [K, N]) with dense_shape [M, K] -> [M, N];
// transpose_a: dense [M, N] -> [K, N]. The index values are checked by the kernels.
void infer_coomm(InferContext& ctx) {
  infer_sparse_product(ctx, "rows", "cols");
  const TensorMeta& rows = ctx.in[0];
  const TensorMeta& cols = ctx.in[1];
  const TensorMeta& val = ctx.in[2];
  MC_CHECK(rows.shape.size() == 1 && cols.shape.size() == 1 && val.shape.size() == 1 &&
               dims_agree(rows.shape[0], val.shape[0]) && dims_agree(cols.shape[0], val.shape[0]),
           Value, "For '", ctx.op.name,
           "', rows, cols and values must be 1-d of one length, but got shapes ", rows.shape, ", ",
           cols.shape, " and ", val.shape, ".");
}

}  // namespace mycel
