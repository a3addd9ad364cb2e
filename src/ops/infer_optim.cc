// Shape and dtype rules of the state-update family (ops/defs/optim.def). Each op returns the
// tensors it updates with their own types; the other tensors must match them (gradients,
// moments: same shape and dtype) or be 0-d floating scalars (learning rate, momentum, betas).
#include "ops/op_table.h"

namespace mycel {

namespace {

void check_var(InferContext& ctx, size_t i, const char* name) {
  const TensorMeta& m = ctx.in[i];
  MC_CHECK(is_floating(m.dtype), Type, "For '", ctx.op.name, "', the '", name,
           "' must be a floating-point tensor, but got ", m.dtype, ".");
}

// Input i is a tensor like `like` (its shape and dtype).
void check_like(InferContext& ctx, size_t i, const char* name, size_t like, const char* like_name) {
  const TensorMeta &m = ctx.in[i], &l = ctx.in[like];
  MC_CHECK(m.shape == l.shape && m.dtype == l.dtype, Value, "For '", ctx.op.name, "', the '", name,
           "' must have the shape and dtype of '", like_name, "' (", l.dtype, l.shape,
           "), but got ", m.dtype, m.shape, ".");
}

// Input i is a floating scalar: a 0-d tensor or a tensor of one element.
void check_scalar(InferContext& ctx, size_t i, const char* name) {
  const TensorMeta& m = ctx.in[i];
  int64_t n = 1;
  for (int64_t d : m.shape) n *= d;
  MC_CHECK(is_floating(m.dtype) && n == 1, Type, "For '", ctx.op.name, "', the '", name,
           "' must be a floating-point scalar (a 0-d tensor), but got ", m.dtype, m.shape, ".");
}

}  // namespace

void infer_assign(InferContext& ctx) {
  const TensorMeta &var = ctx.in[0], &val = ctx.in[1];
  bool fits = val.shape.size() <= var.shape.size();
  for (size_t i = 0; fits && i < val.shape.size(); ++i) {
    int64_t d = val.shape[val.shape.size() - 1 - i];
    fits = d == 1 || d == var.shape[var.shape.size() - 1 - i];
  }
  MC_CHECK(fits, Value, "For '", ctx.op.name, "', the 'value' must have the shape of 'variable' ",
           var.shape, " (or broadcast to it), but got ", val.shape, ".");
  MC_CHECK(var.dtype != DType::Bool || val.dtype == DType::Bool, Type, "For '", ctx.op.name,
           "', a bool 'variable' takes a bool 'value', but got ", val.dtype, ".");
  ctx.out.push_back(var);
}

void infer_assign_add(InferContext& ctx) {
  MC_CHECK(ctx.in[0].dtype != DType::Bool, Type, "For '", ctx.op.name,
           "', the 'variable' must be numeric, but got Bool.");
  infer_assign(ctx);
}

void infer_apply_momentum(InferContext& ctx) {
  check_var(ctx, 0, "variable");
  check_like(ctx, 1, "accumulation", 0, "variable");
  check_scalar(ctx, 2, "learning_rate");
  check_like(ctx, 3, "gradient", 0, "variable");
  check_scalar(ctx, 4, "momentum");
  ctx.out.push_back(ctx.in[0]);
}

void infer_sgd(InferContext& ctx) {
  check_var(ctx, 0, "parameters");
  check_like(ctx, 1, "gradient", 0, "parameters");
  check_scalar(ctx, 2, "learning_rate");
  check_like(ctx, 3, "accum", 0, "parameters");
  check_scalar(ctx, 4, "momentum");
  check_scalar(ctx, 5, "stat");
  ctx.out.push_back(ctx.in[0]);
}

void infer_adam(InferContext& ctx) {
  check_var(ctx, 0, "var");
  check_like(ctx, 1, "m", 0, "var");
  check_like(ctx, 2, "v", 0, "var");
  static const char* const kScalars[] = {"beta1_power", "beta2_power", "lr",
                                         "beta1",       "beta2",       "epsilon"};
  for (size_t i = 0; i < 6; ++i) check_scalar(ctx, 3 + i, kScalars[i]);
  check_like(ctx, 9, "gradient", 0, "var");
  for (size_t i = 0; i < 3; ++i) ctx.out.push_back(ctx.in[i]);
}

void infer_adam_weight_decay(InferContext& ctx) {
  check_var(ctx, 0, "var");
  check_like(ctx, 1, "m", 0, "var");
  check_like(ctx, 2, "v", 0, "var");
  static const char* const kScalars[] = {"lr", "beta1", "beta2", "epsilon", "decay"};
  for (size_t i = 0; i < 5; ++i) check_scalar(ctx, 3 + i, kScalars[i]);
  check_like(ctx, 8, "gradient", 0, "var");
  for (size_t i = 0; i < 3; ++i) ctx.out.push_back(ctx.in[i]);
}

}  // namespace mycel
