// Rules of the array family's selection ops (Unique, MaskedSelect, MaskedScatter, NonZero).
// Those marked DYN_OUT (ops/op_table.h) have output dimensions that depend on the input
// values: the rule gives them as kDynamicDim, in eager mode as in graph compilation, and the
// kernel decides them when it runs.
#include "ops/infer_array.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

void check_mask(const InferContext& ctx, const TensorMeta& mask) {
  MC_CHECK(mask.dtype == DType::Bool, Type, "For '", ctx.op.name,
           "', the 'mask' must be a bool tensor, but got ", mask.dtype, ".");
}

}  // namespace

void infer_unique(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const DType idx = x.dtype == DType::Int64 ? DType::Int64 : DType::Int32;
  ctx.out.push_back({x.dtype, Shape{kDynamicDim}});
  ctx.out.push_back({idx, x.shape});
  ctx.out.push_back({idx, Shape{kDynamicDim}});
}

void infer_masked_select(InferContext& ctx) {
  check_mask(ctx, ctx.in[1]);
  broadcast_shapes(ctx.in[0].shape, ctx.in[1].shape, ctx.op.name);  // a ValueError if not
  ctx.out.push_back({ctx.in[0].dtype, Shape{kDynamicDim}});
}

void infer_masked_scatter(InferContext& ctx) {
  const TensorMeta &x = ctx.in[0], &mask = ctx.in[1], &src = ctx.in[2];
  check_mask(ctx, mask);
  MC_CHECK(src.dtype == x.dtype, Type, "For '", ctx.op.name,
           "', the 'source' must have the dtype of 'x' (", x.dtype, "), but got ", src.dtype, ".");
  const Shape b = broadcast_shapes(x.shape, mask.shape, ctx.op.name);
  MC_CHECK(shapes_agree(b, x.shape), Value, "For '", ctx.op.name, "', the 'mask' (shape ",
           mask.shape, ") must broadcast to the shape of 'x' ", x.shape, ".");
  ctx.out.push_back(x);
}

void infer_non_zero(InferContext& ctx) {
  const int64_t rank = static_cast<int64_t>(ctx.in[0].shape.size());
  ctx.out.push_back({DType::Int64, Shape{kDynamicDim, rank}});
}

}  // namespace mycel
