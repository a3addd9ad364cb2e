// Shape and dtype rules of the linalg family (ops/defs/linalg.def).
//
// MatMul: x1 [M, K] x x2 [K, N] -> [M, N] (2-d only); transpose_a / transpose_b read x1 as
// [K, M] / x2 as [N, K]. BatchMatMul: [..., M, K] x [..., K, N] -> [bcast(...), M, N]; the
// batch dims broadcast (numpy rules), so a rank-2 operand applies to every batch. Inputs are
// already promoted to one dtype; bool is a TypeError (MindSpore has no bool matmul).
//
// BiasAdd(x, b): b is 1-d with one entry per channel; the channel axis is 1 for NCHW/NCDHW
// (x of rank >= 2) and the last axis for NHWC.
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

}  // namespace mycel
