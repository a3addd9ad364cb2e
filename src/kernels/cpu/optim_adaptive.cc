// Kernels of the adaptive updates of the state-update family (ops/defs/optim.def: ApplyAdagrad,
// ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdaMax, ApplyAdadelta, ApplyFtrl): one fused pass
// over the tensors, in parallel chunks, computing in compute_t<T> (float for the 16-bit
// floats) with the scalars read once. ctx.out[i] is ctx.in[i] (F_UPDATE); the state an op
// writes without returning it (RMSProp's moments, FTRL's accum and linear) is written through
// its input.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/optim_util.h"

namespace mycel {

using optim_cpu::for_chunks;
using optim_cpu::scalar;

void cpu_apply_adagrad(const KernelContext& ctx) {
  const bool update_slots = ctx.attrs.get_bool("update_slots");
  const double lr = scalar(ctx, 2);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* acc = ctx.out[1].data<T>();
    const T* g = ctx.in[3].data<T>();
    const C l = static_cast<C>(lr);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        C gi = static_cast<C>(g[i]);
        C a = static_cast<C>(acc[i]);
        if (update_slots) {
          a += gi * gi;
          acc[i] = static_cast<T>(a);
        }
        var[i] = static_cast<T>(static_cast<C>(var[i]) - l * gi / std::sqrt(a));
      }
    });
  });
}

namespace {

// ApplyRMSProp (mg == nullptr) and ApplyCenteredRMSProp: the inputs at positions
// var, [mg], ms, mom, grad and the scalars lr, decay, momentum, epsilon.
struct RmsPropArgs {
  size_t mg, ms, mom, grad;  // mg is used only when centered
  size_t lr, decay, momentum, epsilon;
  bool centered;
};

void rms_prop(const KernelContext& ctx, const RmsPropArgs& a) {
  const double lr = scalar(ctx, a.lr), decay = scalar(ctx, a.decay);
  const double momentum = scalar(ctx, a.momentum), eps = scalar(ctx, a.epsilon);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* mg = a.centered ? ctx.in[a.mg].data<T>() : nullptr;
    T* ms = ctx.in[a.ms].data<T>();
    T* mom = ctx.in[a.mom].data<T>();
    const T* g = ctx.in[a.grad].data<T>();
    const C l = static_cast<C>(lr), d = static_cast<C>(decay), m = static_cast<C>(momentum);
    const C e = static_cast<C>(eps), keep = static_cast<C>(1.0 - decay);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        C gi = static_cast<C>(g[i]);
        C s = d * static_cast<C>(ms[i]) + keep * gi * gi;
        ms[i] = static_cast<T>(s);
        C denom = s;  // the (centred) second moment, then + epsilon
        if (mg != nullptr) {
          C mgi = d * static_cast<C>(mg[i]) + keep * gi;
          mg[i] = static_cast<T>(mgi);
          denom -= mgi * mgi;
        }
        C mo = m * static_cast<C>(mom[i]) + l * gi / std::sqrt(denom + e);
        mom[i] = static_cast<T>(mo);
        var[i] = static_cast<T>(static_cast<C>(var[i]) - mo);
      }
    });
  });
}

}  // namespace

void cpu_apply_rms_prop(const KernelContext& ctx) {
  rms_prop(ctx, RmsPropArgs{0, 1, 2, 4, 3, 5, 6, 7, false});
}

void cpu_apply_centered_rms_prop(const KernelContext& ctx) {
  rms_prop(ctx, RmsPropArgs{1, 2, 3, 4, 5, 6, 7, 8, true});
}

void cpu_apply_ada_max(const KernelContext& ctx) {
  const double b1p = scalar(ctx, 3), lr = scalar(ctx, 4), beta1 = scalar(ctx, 5);
  const double beta2 = scalar(ctx, 6), eps = scalar(ctx, 7);
  const double lr_t = lr / (1.0 - b1p);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* m = ctx.out[1].data<T>();
    T* v = ctx.out[2].data<T>();
    const T* g = ctx.in[8].data<T>();
    const C lt = static_cast<C>(lr_t), b1 = static_cast<C>(beta1), b2 = static_cast<C>(beta2);
    const C e = static_cast<C>(eps);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        C gi = static_cast<C>(g[i]);
        C mi = b1 * static_cast<C>(m[i]) + (C(1) - b1) * gi;
        C vi = std::max(b2 * static_cast<C>(v[i]), std::abs(gi));
        m[i] = static_cast<T>(mi);
        v[i] = static_cast<T>(vi);
        var[i] = static_cast<T>(static_cast<C>(var[i]) - lt * mi / (vi + e));
      }
    });
  });
}

void cpu_apply_adadelta(const KernelContext& ctx) {
  const double lr = scalar(ctx, 3), rho = scalar(ctx, 4), eps = scalar(ctx, 5);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* acc = ctx.out[1].data<T>();
    T* acc_up = ctx.out[2].data<T>();
    const T* g = ctx.in[6].data<T>();
    const C l = static_cast<C>(lr), r = static_cast<C>(rho), e = static_cast<C>(eps);
    const C keep = static_cast<C>(1.0 - rho);
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        C gi = static_cast<C>(g[i]);
        C a = r * static_cast<C>(acc[i]) + keep * gi * gi;
        C u0 = static_cast<C>(acc_up[i]);
        C upd = std::sqrt(u0 + e) / std::sqrt(a + e) * gi;
        acc[i] = static_cast<T>(a);
        acc_up[i] = static_cast<T>(r * u0 + keep * upd * upd);
        var[i] = static_cast<T>(static_cast<C>(var[i]) - l * upd);
      }
    });
  });
}

void cpu_apply_ftrl(const KernelContext& ctx) {
  const double lr = scalar(ctx, 4), l1 = scalar(ctx, 5), l2 = scalar(ctx, 6);
  const double lr_power = scalar(ctx, 7);
  const bool half_power = lr_power == -0.5;  // the common case: a square root, not pow
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* var = ctx.out[0].data<T>();
    T* acc = ctx.in[1].data<T>();
    T* lin = ctx.in[2].data<T>();
    const T* g = ctx.in[3].data<T>();
    const C l = static_cast<C>(lr), c1 = static_cast<C>(l1), c2 = static_cast<C>(l2);
    const C p = static_cast<C>(-lr_power);
    auto power = [&](C x) { return half_power ? std::sqrt(x) : std::pow(x, p); };
    for_chunks(ctx.in[0].numel(), [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        C gi = static_cast<C>(g[i]);
        C a = static_cast<C>(acc[i]);
        C an = a + gi * gi;
        C pn = power(an);
        C li = static_cast<C>(lin[i]) + gi - (pn - power(a)) / l * static_cast<C>(var[i]);
        C w = C(0);
        if (std::abs(li) > c1) {
          C sign = li > C(0) ? C(1) : C(-1);
          w = (sign * c1 - li) / (pn / l + C(2) * c2);
        }
        acc[i] = static_cast<T>(an);
        lin[i] = static_cast<T>(li);
        var[i] = static_cast<T>(w);
      }
    });
  });
}

}  // namespace mycel
