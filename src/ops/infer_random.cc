// Shape and dtype rules of the random family (ops/defs/random.def): the output has the shape
// given at call time (non-negative dims) and a floating dtype; op-level seeds are
// non-negative, as in MindSpore. RandomPoisson's output is `shape` followed by its rate's
// shape, in a float or int32/int64 dtype.
#include "ops/op_table.h"

namespace mycel {

namespace {
// The `shape` attribute (non-negative dims) after checking the op-level seeds.
Shape checked_shape_and_seeds(const InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  const std::vector<int64_t>& dims = ctx.attrs.get_ints("shape");
  Shape shape;
  for (int64_t d : dims) {
    MC_CHECK(d >= 0, Value, "For '", op,
             "', the 'shape' must have non-negative dimensions, but got ",
             Shape(dims.begin(), dims.end()), ".");
    shape.push_back(d);
  }
  const int64_t seed = ctx.attrs.get_int("seed"), seed2 = ctx.attrs.get_int("seed2");
  MC_CHECK(seed >= 0 && seed2 >= 0, Value, "For '", op,
           "', the 'seed' and 'seed2' must be non-negative, but got seed ", seed, " and seed2 ",
           seed2, ".");
  return shape;
}
}  // namespace

void infer_random(InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  Shape shape = checked_shape_and_seeds(ctx);
  const DType dt = ctx.attrs.get_dtype("dtype");
  MC_CHECK(is_floating(dt), Type, "For '", op,
           "', the 'dtype' must be Float16, BFloat16, Float32 or Float64, but got ", dt, ".");
  ctx.out.push_back({dt, std::move(shape)});
}

void infer_random_poisson(InferContext& ctx) {
  const std::string_view op = ctx.op.name;
  Shape shape = checked_shape_and_seeds(ctx);
  const TensorMeta& rate = ctx.in[0];
  MC_CHECK(rate.dtype != DType::Bool, Type, "For '", op,
           "', the 'rate' must be a number tensor, but got dtype ", rate.dtype, ".");
  for (int64_t d : rate.shape) shape.push_back(d);
  const DType dt = ctx.attrs.get_dtype("dtype");
  MC_CHECK(is_floating(dt) || dt == DType::Int32 || dt == DType::Int64, Type, "For '", op,
           "', the 'dtype' must be Float16, BFloat16, Float32, Float64, Int32 or Int64, but got ",
           dt, ".");
  ctx.out.push_back({dt, std::move(shape)});
}

}  // namespace mycel
