// Shape and dtype rules of the state-update family (ops/defs/optim.def). Each op returns the
// tensors it updates with their own types; the other tensors must match them (gradients,
// moments: same shape and dtype) or be 0-d floating scalars (learning rate, momentum, betas).
#include <initializer_list>
#include <string_view>

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

// Checks input i against roles[i]: 'V' the updated variable (floating; input 0), 'L' a tensor
// like it (its shape and dtype: gradients, moments), 'S' a floating scalar. Returns the first
// `updated` inputs, the tensors the op updates.
void infer_update(InferContext& ctx, std::string_view roles,
                  std::initializer_list<const char*> names, size_t updated) {
  MC_ASSERT(roles.size() == names.size(), ctx.op.name, ": a role per input");
  const char* const* name = names.begin();
  for (size_t i = 0; i < roles.size(); ++i) {
    if (roles[i] == 'V') {
      check_var(ctx, i, name[i]);
    } else if (roles[i] == 'L') {
      check_like(ctx, i, name[i], 0, name[0]);
    } else {
      check_scalar(ctx, i, name[i]);
    }
  }
  for (size_t k = 0; k < updated; ++k) ctx.out.push_back(ctx.in[k]);
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
  infer_update(ctx, "VLSLS", {"variable", "accumulation", "learning_rate", "gradient", "momentum"},
               1);
}

void infer_sgd(InferContext& ctx) {
  infer_update(ctx, "VLSLSS",
               {"parameters", "gradient", "learning_rate", "accum", "momentum", "stat"}, 1);
}

void infer_adam(InferContext& ctx) {
  infer_update(ctx, "VLLSSSSSSL",
               {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
                "gradient"},
               3);
}

void infer_adam_weight_decay(InferContext& ctx) {
  infer_update(ctx, "VLLSSSSSL",
               {"var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient"}, 3);
}

void infer_apply_adagrad(InferContext& ctx) {
  infer_update(ctx, "VLSL", {"var", "accum", "lr", "grad"}, 2);
}

void infer_apply_rms_prop(InferContext& ctx) {
  infer_update(
      ctx, "VLLSLSSS",
      {"var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum", "epsilon"}, 1);
}

void infer_apply_centered_rms_prop(InferContext& ctx) {
  infer_update(ctx, "VLLLLSSSS",
               {"var", "mean_gradient", "mean_square", "moment", "grad", "learning_rate", "decay",
                "momentum", "epsilon"},
               1);
}

void infer_apply_ada_max(InferContext& ctx) {
  infer_update(ctx, "VLLSSSSSL",
               {"var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"}, 3);
}

void infer_apply_adadelta(InferContext& ctx) {
  infer_update(ctx, "VLLSSSL", {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"}, 3);
}

void infer_apply_ftrl(InferContext& ctx) {
  infer_update(ctx, "VLLLSSSS", {"var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"},
               1);
}

}  // namespace mycel
