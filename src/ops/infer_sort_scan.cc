// Shape and dtype rules of the scans and sorts (the end of ops/defs/reduce.def).
//
// CumSum/CumProd: the input's shape; one axis in [-ndim, ndim) (a 0-d tensor takes 0 and -1);
// Bool input gives Int64 (as ReduceSum), other dtypes are kept (integers wrap).
// Sort: (values of the input's dtype and shape, Int32 indices of the same shape), along one
// axis. TopK: the last axis becomes k, 0 <= k <= its size (a 0-d input: k = 1, output 0-d).
#include <cstdint>

#include "ops/op_table.h"

namespace mycel {

void infer_cum(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  normalize_axis(ctx.attrs.get_int("axis"), static_cast<int64_t>(x.shape.size()), ctx.op.name);
  const DType dt = x.dtype == DType::Bool ? DType::Int64 : x.dtype;
  ctx.out.push_back({dt, x.shape});
}

void infer_sort(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const int64_t nd = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), nd, ctx.op.name);
  MC_CHECK(nd == 0 || x.shape[static_cast<size_t>(axis)] <= INT32_MAX, Value, "For '", ctx.op.name,
           "', axis ", axis, " of the input of shape ", x.shape, " is too long for Int32 indices.");
  ctx.out.push_back({x.dtype, x.shape});
  ctx.out.push_back({DType::Int32, x.shape});
}

void infer_topk(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const int64_t k = ctx.attrs.get_int("k");
  const int64_t n = x.shape.empty() ? 1 : x.shape.back();
  MC_CHECK(k >= 0 && (n < 0 || k <= n), Value, "For '", ctx.op.name,
           "', the 'k' must be in range [0, ", n,
           "] (the size of the last axis of the input of shape ", x.shape, "), but got ", k, ".");
  MC_CHECK(n <= INT32_MAX, Value, "For '", ctx.op.name, "', the last axis of the input of shape ",
           x.shape, " is too long for Int32 indices.");
  MC_CHECK(!x.shape.empty() || k == 1, Value, "For '", ctx.op.name,
           "', a 0-d input has one element, so 'k' must be 1, but got ", k, ".");
  Shape out = x.shape;
  if (!out.empty()) out.back() = k;
  ctx.out.push_back({x.dtype, out});
  ctx.out.push_back({DType::Int32, std::move(out)});
}

}  // namespace mycel
