// Reference kernels of the adaptive updates (ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp,
// ApplyAdaMax, ApplyAdadelta, ApplyFtrl): scalar loops in double over flat copies, written
// straight from the formulas in ops/defs/optim.def, each state written back where the op
// keeps it.
#include <algorithm>
#include <cmath>

#include "kernels/ref/ref_util.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

double scalar(const KernelContext& ctx, size_t i) { return ctx.in[i].element_as_double(0); }

}  // namespace

void ref_apply_adagrad(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), acc = ref::to_double(ctx.in[1]),
                      g = ref::to_double(ctx.in[3]);
  const double lr = scalar(ctx, 2);
  const bool update_slots = ctx.attrs.get_bool("update_slots");
  for (size_t i = 0; i < var.size(); ++i) {
    if (update_slots) acc[i] += g[i] * g[i];
    var[i] -= lr * g[i] / std::sqrt(acc[i]);
  }
  ref::store_all(ctx.out, var, acc);
}

void ref_apply_rms_prop(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), ms = ref::to_double(ctx.in[1]),
                      mom = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[4]);
  const double lr = scalar(ctx, 3), decay = scalar(ctx, 5), momentum = scalar(ctx, 6),
               eps = scalar(ctx, 7);
  for (size_t i = 0; i < var.size(); ++i) {
    ms[i] = decay * ms[i] + (1 - decay) * g[i] * g[i];
    mom[i] = momentum * mom[i] + lr * g[i] / std::sqrt(ms[i] + eps);
    var[i] -= mom[i];
  }
  ref::store(ctx.in[1], ms);
  ref::store(ctx.in[2], mom);
  ref::store(ctx.out[0], var);
}

void ref_apply_centered_rms_prop(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), mg = ref::to_double(ctx.in[1]),
                      ms = ref::to_double(ctx.in[2]), mom = ref::to_double(ctx.in[3]),
                      g = ref::to_double(ctx.in[4]);
  const double lr = scalar(ctx, 5), decay = scalar(ctx, 6), momentum = scalar(ctx, 7),
               eps = scalar(ctx, 8);
  for (size_t i = 0; i < var.size(); ++i) {
    mg[i] = decay * mg[i] + (1 - decay) * g[i];
    ms[i] = decay * ms[i] + (1 - decay) * g[i] * g[i];
    mom[i] = momentum * mom[i] + lr * g[i] / std::sqrt(ms[i] - mg[i] * mg[i] + eps);
    var[i] -= mom[i];
  }
  ref::store(ctx.in[1], mg);
  ref::store(ctx.in[2], ms);
  ref::store(ctx.in[3], mom);
  ref::store(ctx.out[0], var);
}

void ref_apply_ada_max(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), m = ref::to_double(ctx.in[1]),
                      v = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[8]);
  const double b1p = scalar(ctx, 3), lr = scalar(ctx, 4), b1 = scalar(ctx, 5), b2 = scalar(ctx, 6),
               eps = scalar(ctx, 7);
  for (size_t i = 0; i < var.size(); ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = std::max(b2 * v[i], std::fabs(g[i]));
    var[i] -= lr / (1 - b1p) * m[i] / (v[i] + eps);
  }
  ref::store_all(ctx.out, var, m, v);
}

void ref_apply_adadelta(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), acc = ref::to_double(ctx.in[1]),
                      acc_up = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[6]);
  const double lr = scalar(ctx, 3), rho = scalar(ctx, 4), eps = scalar(ctx, 5);
  for (size_t i = 0; i < var.size(); ++i) {
    acc[i] = rho * acc[i] + (1 - rho) * g[i] * g[i];
    double update = std::sqrt(acc_up[i] + eps) / std::sqrt(acc[i] + eps) * g[i];
    acc_up[i] = rho * acc_up[i] + (1 - rho) * update * update;
    var[i] -= lr * update;
  }
  ref::store_all(ctx.out, var, acc, acc_up);
}

void ref_apply_ftrl(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), acc = ref::to_double(ctx.in[1]),
                      lin = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[3]);
  const double lr = scalar(ctx, 4), l1 = scalar(ctx, 5), l2 = scalar(ctx, 6), p = scalar(ctx, 7);
  for (size_t i = 0; i < var.size(); ++i) {
    double acc_new = acc[i] + g[i] * g[i];
    lin[i] += g[i] - (std::pow(acc_new, -p) - std::pow(acc[i], -p)) / lr * var[i];
    double quadratic = std::pow(acc_new, -p) / lr + 2 * l2;
    if (std::fabs(lin[i]) > l1) {
      double sign = lin[i] > 0 ? 1.0 : -1.0;
      var[i] = (sign * l1 - lin[i]) / quadratic;
    } else {
      var[i] = 0.0;
    }
    acc[i] = acc_new;
  }
  ref::store(ctx.in[1], acc);
  ref::store(ctx.in[2], lin);
  ref::store(ctx.out[0], var);
}

}  // namespace mycel
