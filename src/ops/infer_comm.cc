// Shape and dtype rules of the collective family (ops/defs/comm.def). Every dtype is
// accepted (bool reductions are "or" for sum/max and "and" for prod/min, comm/communicator.h).
// The group's size is the rank_size attribute (or AlltoAll's split_count): the kernel checks it
// against the group it runs on.
#include "comm/communicator.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

void check_reduce_op(InferContext& ctx) {
  const std::string& op = ctx.attrs.get_str("op");
  MC_CHECK(reduce_op_from_name(op).has_value(), Value, "For '", ctx.op.name,
           "', the 'op' must be one of 'sum', 'max', 'min', 'prod' (ops.ReduceOp), but got '", op,
           "'.");
}

int64_t rank_size(InferContext& ctx, const char* name) {
  const int64_t n = ctx.attrs.get_int(name);
  MC_CHECK(n >= 1, Value, "For '", ctx.op.name, "', the '", name, "' must be at least 1, but got ",
           n, ".");
  return n;
}

void check_rank(InferContext& ctx, const char* name) {
  const int64_t r = ctx.attrs.get_int(name);
  MC_CHECK(r >= 0, Value, "For '", ctx.op.name, "', the '", name,
           "' must be a non-negative rank, but got ", r, ".");
}

// Input 0's dimension `axis` (negative counts from the end), normalised; a ValueError naming
// the attribute when out of range.
size_t axis_of(InferContext& ctx, const char* name) {
  const int64_t nd = static_cast<int64_t>(ctx.in[0].shape.size());
  int64_t a = ctx.attrs.get_int(name);
  MC_CHECK(a >= -nd && a < nd, Value, "For '", ctx.op.name, "', the '", name,
           "' must be in range [", -nd, ", ", nd, ") for an input of shape ", ctx.in[0].shape,
           ", but got ", a, ".");
  return static_cast<size_t>(a < 0 ? a + nd : a);
}

void check_not_scalar(InferContext& ctx) {
  MC_CHECK(!ctx.in[0].shape.empty(), Value, "For '", ctx.op.name,
           "', the input must have at least one dimension (the one ranks are laid along), but "
           "got a 0-d tensor.");
}

// s with its first dimension multiplied by mul and divided by div.
Shape scale_dim0(const Shape& s, int64_t mul, int64_t div) {
  Shape r;
  for (size_t d = 0; d < s.size(); ++d) r.push_back(d == 0 ? s[d] * mul / div : s[d]);
  return r;
}

void check_tag(InferContext& ctx) {
  const int64_t t = ctx.attrs.get_int("sr_tag");
  MC_CHECK(t >= 0 && t < kMaxUserTag, Value, "For '", ctx.op.name,
           "', the 'sr_tag' must be in [0, ", kMaxUserTag - 1, "], but got ", t, ".");
}

}  // namespace

void infer_all_reduce(InferContext& ctx) {
  check_reduce_op(ctx);
  ctx.out.push_back(ctx.in[0]);
}

void infer_all_gather(InferContext& ctx) {
  const int64_t n = rank_size(ctx, "rank_size");
  check_not_scalar(ctx);
  ctx.out.push_back({ctx.in[0].dtype, scale_dim0(ctx.in[0].shape, n, 1)});
}

void infer_reduce_scatter(InferContext& ctx) {
  check_reduce_op(ctx);
  const int64_t n = rank_size(ctx, "rank_size");
  check_not_scalar(ctx);
  const Shape& s = ctx.in[0].shape;
  MC_CHECK(s[0] % n == 0, Value, "For '", ctx.op.name, "', the input's first dimension (", s[0],
           " in shape ", s, ") must be divisible by the rank_size ", n, ".");
  ctx.out.push_back({ctx.in[0].dtype, scale_dim0(s, 1, n)});
}

void infer_all_to_all(InferContext& ctx) {
  const int64_t n = rank_size(ctx, "split_count");
  const size_t split = axis_of(ctx, "split_dim"), concat = axis_of(ctx, "concat_dim");
  TensorMeta m = ctx.in[0];
  MC_CHECK(m.shape[split] % n == 0, Value, "For '", ctx.op.name, "', the input's split_dim ", split,
           " (", m.shape[split], " in shape ", m.shape, ") must be divisible by the split_count ",
           n, ".");
  m.shape[split] /= n;
  m.shape[concat] *= n;
  ctx.out.push_back(std::move(m));
}

void infer_comm_broadcast(InferContext& ctx) {
  check_rank(ctx, "root_rank");
  for (const TensorMeta& m : ctx.in) ctx.out.push_back(m);
}

void infer_barrier(InferContext& ctx) { ctx.out.push_back({DType::Float32, Shape{0}}); }

void infer_send(InferContext& ctx) {
  check_rank(ctx, "dest_rank");
  check_tag(ctx);
  ctx.out.push_back({ctx.in[0].dtype, Shape{0}});
}

void infer_receive(InferContext& ctx) {
  check_rank(ctx, "src_rank");
  check_tag(ctx);
  Shape shape;
  for (int64_t d : ctx.attrs.get_ints("shape")) {
    MC_CHECK(d >= 0, Value, "For '", ctx.op.name,
             "', the 'shape' must have non-negative dimensions, but got ",
             Shape(ctx.attrs.get_ints("shape").begin(), ctx.attrs.get_ints("shape").end()), ".");
    shape.push_back(d);
  }
  ctx.out.push_back({ctx.attrs.get_dtype("dtype"), std::move(shape)});
}

}  // namespace mycel
