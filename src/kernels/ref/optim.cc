// Reference kernels of the state-update family: scalar loops in double over flat copies,
// written straight from the formulas in ops/defs/optim.def.
#include <cmath>

#include "kernels/ref/ref_util.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

double scalar(const KernelContext& ctx, size_t i) { return ctx.in[i].element_as_double(0); }

// Writes v into the contiguous tensor t of any dtype (integers rounded toward zero as C++).
void store_any(const Tensor& t, const std::vector<double>& v) {
  dispatch_all(t.dtype(), "reference kernel", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

}  // namespace

void ref_assign(const KernelContext& ctx) {
  store_any(ctx.out[0], ref::to_double(ctx.in[1].expand(ctx.out[0].shape())));
}

void ref_assign_add(const KernelContext& ctx) {
  std::vector<double> v = ref::to_double(ctx.out[0]),
                      d = ref::to_double(ctx.in[1].expand(ctx.out[0].shape()));
  for (size_t i = 0; i < v.size(); ++i) v[i] += d[i];
  store_any(ctx.out[0], v);
}

void ref_apply_momentum(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), acc = ref::to_double(ctx.in[1]),
                      g = ref::to_double(ctx.in[3]);
  const double lr = scalar(ctx, 2), mom = scalar(ctx, 4);
  const double scale = ctx.attrs.get_float("gradient_scale");
  for (size_t i = 0; i < var.size(); ++i) {
    double gi = g[i] * scale;
    acc[i] = mom * acc[i] + gi;
    var[i] -= lr * (ctx.attrs.get_bool("use_nesterov") ? gi + mom * acc[i] : acc[i]);
  }
  ref::store(ctx.in[1], acc);
  ref::store(ctx.out[0], var);
}

void ref_sgd(const KernelContext& ctx) {
  std::vector<double> p = ref::to_double(ctx.in[0]), g = ref::to_double(ctx.in[1]),
                      acc = ref::to_double(ctx.in[3]);
  const double lr = scalar(ctx, 2), mom = scalar(ctx, 4);
  const double damp = ctx.attrs.get_float("dampening"), wd = ctx.attrs.get_float("weight_decay");
  const bool first = scalar(ctx, 5) > 0;
  for (size_t i = 0; i < p.size(); ++i) {
    double gi = g[i] + wd * p[i];
    acc[i] = first ? gi : mom * acc[i] + (1 - damp) * gi;
    p[i] -= lr * (ctx.attrs.get_bool("nesterov") ? gi + mom * acc[i] : acc[i]);
  }
  ref::store(ctx.in[3], acc);
  ref::store(ctx.in[5], {0.0});
  ref::store(ctx.out[0], p);
}

void ref_adam(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), m = ref::to_double(ctx.in[1]),
                      v = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[9]);
  const double b1p = scalar(ctx, 3), b2p = scalar(ctx, 4), lr = scalar(ctx, 5);
  const double b1 = scalar(ctx, 6), b2 = scalar(ctx, 7), eps = scalar(ctx, 8);
  const double lr_t = lr * std::sqrt(1 - b2p) / (1 - b1p);
  for (size_t i = 0; i < var.size(); ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    double num = ctx.attrs.get_bool("use_nesterov") ? b1 * m[i] + (1 - b1) * g[i] : m[i];
    var[i] -= lr_t * num / (std::sqrt(v[i]) + eps);
  }
  ref::store_all(ctx.out, var, m, v);
}

void ref_adam_weight_decay(const KernelContext& ctx) {
  std::vector<double> var = ref::to_double(ctx.in[0]), m = ref::to_double(ctx.in[1]),
                      v = ref::to_double(ctx.in[2]), g = ref::to_double(ctx.in[8]);
  const double lr = scalar(ctx, 3), b1 = scalar(ctx, 4), b2 = scalar(ctx, 5);
  const double eps = scalar(ctx, 6), decay = scalar(ctx, 7);
  for (size_t i = 0; i < var.size(); ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    var[i] -= lr * (m[i] / (std::sqrt(v[i]) + eps) + decay * var[i]);
  }
  ref::store_all(ctx.out, var, m, v);
}

}  // namespace mycel
