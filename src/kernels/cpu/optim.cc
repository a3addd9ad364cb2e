// Kernels of the state-update family (ops/defs/optim.def): one fused pass over each tensor,
// in parallel chunks, computing in compute_t<T> (float for half types). ctx.out[i] is
// ctx.in[i] (F_UPDATE): the kernels write through the outputs.
#include <cmath>

#include "kernels/cpu/optim_util.h"

namespace mycel {

using optim_cpu::for_chunks;
using optim_cpu::scalar;

void cpu_assign(const KernelContext& ctx) {
  if (!ctx.in[1].same(ctx.out[0])) ctx.out[0].copy_from(ctx.in[1]);
}

void cpu_assign_add(const KernelContext& ctx) {
  Tensor val = ctx.in[1].cast(ctx.out[0].dtype()).expand(ctx.out[0].shape()).contiguous();
  dispatch_number(ctx.out[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* v = ctx.out[0].data<T>();
    const T* d = val.data<T>();
    for_chunks(val.numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) v[i] = static_cast<T>(static_cast<C>(v[i]) + C(d[i]));
    });
  });
}

void cpu_apply_momentum(const KernelContext& ctx) {
  const bool nesterov = ctx.attrs.get_bool("use_nesterov");
  const double scale = ctx.attrs.get_float("gradient_scale");
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* acc = ctx.in[1].data<T>();
    const T* g = ctx.in[3].data<T>();
    const C lr = static_cast<C>(scalar(ctx, 2)), mom = static_cast<C>(scalar(ctx, 4));
    const C gs = static_cast<C>(scale);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        C gi = static_cast<C>(g[i]) * gs;
        C a = mom * static_cast<C>(acc[i]) + gi;
        acc[i] = static_cast<T>(a);
        C step = nesterov ? gi + mom * a : a;
        var[i] = static_cast<T>(static_cast<C>(var[i]) - lr * step);
      }
    });
  });
}

void cpu_sgd(const KernelContext& ctx) {
  const double damp = ctx.attrs.get_float("dampening");
  const double wd = ctx.attrs.get_float("weight_decay");
  const bool nesterov = ctx.attrs.get_bool("nesterov");
  const bool first = scalar(ctx, 5) > 0;
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* p = ctx.out[0].data<T>();
    const T* g = ctx.in[1].data<T>();
    T* acc = ctx.in[3].data<T>();
    const C lr = static_cast<C>(scalar(ctx, 2)), mom = static_cast<C>(scalar(ctx, 4));
    const C keep = static_cast<C>(1.0 - damp), decay = static_cast<C>(wd);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        C pi = static_cast<C>(p[i]);
        C gi = static_cast<C>(g[i]) + decay * pi;
        C a = first ? gi : mom * static_cast<C>(acc[i]) + keep * gi;
        acc[i] = static_cast<T>(a);
        C step = nesterov ? gi + mom * a : a;
        p[i] = static_cast<T>(pi - lr * step);
      }
    });
  });
  ctx.in[5].fill(Scalar::from_float(0.0));
}

namespace {

// The moment updates shared by Adam and AdamWeightDecay; `step(i, m, v, g)` gives the
// amount subtracted from var[i].
template <class T, class Step>
void adam_update(const KernelContext& ctx, size_t grad, double beta1, double beta2,
                 const Step& step) {
  using C = compute_t<T>;
  T* var = ctx.out[0].data<T>();
  T* m = ctx.out[1].data<T>();
  T* v = ctx.out[2].data<T>();
  const T* g = ctx.in[grad].data<T>();
  const C b1 = static_cast<C>(beta1), b2 = static_cast<C>(beta2);
  for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      C gi = static_cast<C>(g[i]);
      C mi = b1 * static_cast<C>(m[i]) + (C(1) - b1) * gi;
      C vi = b2 * static_cast<C>(v[i]) + (C(1) - b2) * gi * gi;
      m[i] = static_cast<T>(mi);
      v[i] = static_cast<T>(vi);
      C w = static_cast<C>(var[i]);
      var[i] = static_cast<T>(w - step(w, mi, vi, gi));
    }
  });
}

}  // namespace

void cpu_adam(const KernelContext& ctx) {
  const bool nesterov = ctx.attrs.get_bool("use_nesterov");
  const double b1p = scalar(ctx, 3), b2p = scalar(ctx, 4), lr = scalar(ctx, 5);
  const double beta1 = scalar(ctx, 6), beta2 = scalar(ctx, 7), eps = scalar(ctx, 8);
  const double lr_t = lr * std::sqrt(1.0 - b2p) / (1.0 - b1p);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const C lt = static_cast<C>(lr_t), e = static_cast<C>(eps), b1 = static_cast<C>(beta1);
    adam_update<T>(ctx, 9, beta1, beta2, [&](C, C m, C v, C g) {
      C num = nesterov ? b1 * m + (C(1) - b1) * g : m;
      return lt * num / (std::sqrt(v) + e);
    });
  });
}

void cpu_adam_weight_decay(const KernelContext& ctx) {
  const double lr = scalar(ctx, 3), beta1 = scalar(ctx, 4), beta2 = scalar(ctx, 5);
  const double eps = scalar(ctx, 6), decay = scalar(ctx, 7);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const C l = static_cast<C>(lr), e = static_cast<C>(eps), d = static_cast<C>(decay);
    adam_update<T>(ctx, 8, beta1, beta2,
                   [&](C w, C m, C v, C) { return l * (m / (std::sqrt(v) + e) + d * w); });
  });
}

}  // namespace mycel
