// CUDA kernels of the state-update family (ops/defs/optim.def): one fused pass over each
// tensor, the formulas of kernels/cpu/optim*.cc line for line, computing in acc_t<T> (float
// for the 16-bit floats). Scalar inputs are read on the device (optim.h).
#include <cmath>
#include <type_traits>

#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/elementwise_loops.h"
#include "kernels/cuda/optim.h"

namespace mycel::cuda::optim {

namespace {

using ew::store;

// The value of a one-element floating tensor, as the CPU's element_as_double(0).
__device__ inline double read(ScalarArg s) {
  switch (s.code) {
    case kFloat16: return static_cast<double>(__half2float(*static_cast<const half_t*>(s.p)));
    case kBFloat16: return static_cast<double>(__bfloat162float(*static_cast<const bf16_t*>(s.p)));
    case kFloat32: return static_cast<double>(*static_cast<const float*>(s.p));
    case kFloat64: return *static_cast<const double*>(s.p);
    default: return 0.0;  // check_scalar admits floating dtypes only
  }
}

__device__ inline float m_sqrt(float x) { return sqrtf(x); }
__device__ inline double m_sqrt(double x) { return sqrt(x); }
__device__ inline float m_abs(float x) { return fabsf(x); }
__device__ inline double m_abs(double x) { return fabs(x); }
__device__ inline float m_max(float a, float b) { return fmaxf(a, b); }
__device__ inline double m_max(double a, double b) { return fmax(a, b); }
__device__ inline float m_pow(float a, float b) { return powf(a, b); }
__device__ inline double m_pow(double a, double b) { return pow(a, b); }

template <class T>
__global__ void assign_add_kernel(T* var, const T* val, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    if constexpr (std::is_integral_v<T>)
      var[i] = ew::wrap_add(var[i], val[i]);
    else
      var[i] = store<T>(load(var[i]) + load(val[i]));
  }
}

template <class T>
__global__ void momentum_kernel(T* var, T* acc, const T* g, ScalarArg lr_s, ScalarArg mom_s,
                                double scale, bool nesterov, int64_t n) {
  using C = acc_t<T>;
  const C lr = static_cast<C>(read(lr_s)), mom = static_cast<C>(read(mom_s));
  const C gs = static_cast<C>(scale);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]) * gs;
    C a = mom * load(acc[i]) + gi;
    acc[i] = store<T>(a);
    C step = nesterov ? gi + mom * a : a;
    var[i] = store<T>(load(var[i]) - lr * step);
  }
}

template <class T>
__global__ void sgd_kernel(T* p, const T* g, T* acc, ScalarArg lr_s, ScalarArg mom_s,
                           ScalarArg stat_s, double damp, double wd, bool nesterov, int64_t n) {
  using C = acc_t<T>;
  const bool first = read(stat_s) > 0;
  const C lr = static_cast<C>(read(lr_s)), mom = static_cast<C>(read(mom_s));
  const C keep = static_cast<C>(1.0 - damp), decay = static_cast<C>(wd);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C pi = load(p[i]);
    C gi = load(g[i]) + decay * pi;
    C a = first ? gi : mom * load(acc[i]) + keep * gi;
    acc[i] = store<T>(a);
    C step = nesterov ? gi + mom * a : a;
    p[i] = store<T>(pi - lr * step);
  }
}

// Adam and AdamWeightDecay: the moment updates of the CPU's adam_update, then the step.
template <class T>
__global__ void adam_kernel(T* var, T* m, T* v, const T* g, AdamScalars sc, int64_t n) {
  using C = acc_t<T>;
  const double lr = read(sc.lr);
  const double beta1 = read(sc.beta1), beta2 = read(sc.beta2), eps = read(sc.epsilon);
  // Adam's bias-corrected rate; AdamWeightDecay uses lr as is.
  const double lr_t =
      sc.weight_decay
          ? lr
          : lr * sqrt(1.0 - read(sc.beta2_power)) / (1.0 - read(sc.beta1_power));
  const C lt = static_cast<C>(lr_t), e = static_cast<C>(eps);
  const C b1 = static_cast<C>(beta1), b2 = static_cast<C>(beta2);
  const C d = sc.weight_decay ? static_cast<C>(read(sc.decay)) : C(0);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C mi = b1 * load(m[i]) + (C(1) - b1) * gi;
    C vi = b2 * load(v[i]) + (C(1) - b2) * gi * gi;
    m[i] = store<T>(mi);
    v[i] = store<T>(vi);
    C w = load(var[i]);
    C step;
    if (sc.weight_decay) {
      step = lt * (mi / (m_sqrt(vi) + e) + d * w);
    } else {
      C num = sc.nesterov ? b1 * mi + (C(1) - b1) * gi : mi;
      step = lt * num / (m_sqrt(vi) + e);
    }
    var[i] = store<T>(w - step);
  }
}

// ---- the adaptive updates: the formulas of kernels/cpu/optim_adaptive.cc line for line ----

template <class T>
__global__ void adagrad_kernel(T* var, T* acc, const T* g, ScalarArg lr_s, bool update_slots,
                               int64_t n) {
  using C = acc_t<T>;
  const C lr = static_cast<C>(read(lr_s));
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C a = load(acc[i]);
    if (update_slots) {
      a += gi * gi;
      acc[i] = store<T>(a);
    }
    var[i] = store<T>(load(var[i]) - lr * gi / m_sqrt(a));
  }
}

// ApplyRMSProp, or ApplyCenteredRMSProp when mg is not null.
template <class T>
__global__ void rms_prop_kernel(T* var, T* mg, T* ms, T* mom, const T* g, RmsPropScalars sc,
                                int64_t n) {
  using C = acc_t<T>;
  const double decay = read(sc.decay);
  const C lr = static_cast<C>(read(sc.lr)), d = static_cast<C>(decay);
  const C m = static_cast<C>(read(sc.momentum)), e = static_cast<C>(read(sc.epsilon));
  const C keep = static_cast<C>(1.0 - decay);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C s = d * load(ms[i]) + keep * gi * gi;
    ms[i] = store<T>(s);
    C denom = s;
    if (mg != nullptr) {
      C mgi = d * load(mg[i]) + keep * gi;
      mg[i] = store<T>(mgi);
      denom -= mgi * mgi;
    }
    C mo = m * load(mom[i]) + lr * gi / m_sqrt(denom + e);
    mom[i] = store<T>(mo);
    var[i] = store<T>(load(var[i]) - mo);
  }
}

template <class T>
__global__ void ada_max_kernel(T* var, T* m, T* v, const T* g, AdaMaxScalars sc, int64_t n) {
  using C = acc_t<T>;
  const C lt = static_cast<C>(read(sc.lr) / (1.0 - read(sc.beta1_power)));
  const C b1 = static_cast<C>(read(sc.beta1)), b2 = static_cast<C>(read(sc.beta2));
  const C e = static_cast<C>(read(sc.epsilon));
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C mi = b1 * load(m[i]) + (C(1) - b1) * gi;
    C vi = m_max(b2 * load(v[i]), m_abs(gi));
    m[i] = store<T>(mi);
    v[i] = store<T>(vi);
    var[i] = store<T>(load(var[i]) - lt * mi / (vi + e));
  }
}

template <class T>
__global__ void adadelta_kernel(T* var, T* acc, T* acc_up, const T* g, ScalarArg lr_s,
                                ScalarArg rho_s, ScalarArg eps_s, int64_t n) {
  using C = acc_t<T>;
  const double rho = read(rho_s);
  const C lr = static_cast<C>(read(lr_s)), r = static_cast<C>(rho);
  const C e = static_cast<C>(read(eps_s)), keep = static_cast<C>(1.0 - rho);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C a = r * load(acc[i]) + keep * gi * gi;
    C u0 = load(acc_up[i]);
    C upd = m_sqrt(u0 + e) / m_sqrt(a + e) * gi;
    acc[i] = store<T>(a);
    acc_up[i] = store<T>(r * u0 + keep * upd * upd);
    var[i] = store<T>(load(var[i]) - lr * upd);
  }
}

template <class T>
__global__ void ftrl_kernel(T* var, T* acc, T* lin, const T* g, FtrlScalars sc, int64_t n) {
  using C = acc_t<T>;
  const double lr_power = read(sc.lr_power);
  const bool half_power = lr_power == -0.5;  // a square root, not pow (as the CPU kernel)
  const C lr = static_cast<C>(read(sc.lr)), l1 = static_cast<C>(read(sc.l1));
  const C l2 = static_cast<C>(read(sc.l2)), p = static_cast<C>(-lr_power);
  MC_CUDA_KERNEL_LOOP(i, n) {
    C gi = load(g[i]);
    C a = load(acc[i]);
    C an = a + gi * gi;
    C pn = half_power ? m_sqrt(an) : m_pow(an, p);
    C pa = half_power ? m_sqrt(a) : m_pow(a, p);
    C li = load(lin[i]) + gi - (pn - pa) / lr * load(var[i]);
    C w = C(0);
    if (m_abs(li) > l1) {
      C sign = li > C(0) ? C(1) : C(-1);
      w = (sign * l1 - li) / (pn / lr + C(2) * l2);
    }
    acc[i] = store<T>(an);
    lin[i] = store<T>(li);
    var[i] = store<T>(w);
  }
}

}  // namespace

void launch_assign_add(int code, void* var, const void* val, int64_t n, cudaStream_t stream) {
  ew::for_number(code, [&](auto tag) {
    using T = decltype(tag);
    assign_add_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(var),
                                                          static_cast<const T*>(val), n);
  });
}

void launch_apply_momentum(int code, void* var, void* acc, const void* grad, ScalarArg lr,
                           ScalarArg momentum, double gradient_scale, bool nesterov, int64_t n,
                           cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    momentum_kernel<T><<<grid_for(n), 256, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(acc), static_cast<const T*>(grad), lr, momentum,
        gradient_scale, nesterov, n);
  });
}

void launch_sgd(int code, void* param, const void* grad, void* accum, ScalarArg lr,
                ScalarArg momentum, ScalarArg stat, double dampening, double weight_decay,
                bool nesterov, int64_t n, cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    sgd_kernel<T><<<grid_for(n), 256, 0, stream>>>(
        static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(accum), lr,
        momentum, stat, dampening, weight_decay, nesterov, n);
  });
}

void launch_adam(int code, void* var, void* m, void* v, const void* grad,
                 const AdamScalars& sc, int64_t n, cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    adam_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(var), static_cast<T*>(m),
                                                    static_cast<T*>(v),
                                                    static_cast<const T*>(grad), sc, n);
  });
}

void launch_apply_adagrad(int code, void* var, void* accum, const void* grad, ScalarArg lr,
                          bool update_slots, int64_t n, cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    adagrad_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(var), static_cast<T*>(accum),
                                                       static_cast<const T*>(grad), lr,
                                                       update_slots, n);
  });
}

void launch_apply_rms_prop(int code, void* var, void* mean_grad, void* mean_square, void* moment,
                           const void* grad, const RmsPropScalars& sc, int64_t n,
                           cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    rms_prop_kernel<T><<<grid_for(n), 256, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(mean_grad), static_cast<T*>(mean_square),
        static_cast<T*>(moment), static_cast<const T*>(grad), sc, n);
  });
}

void launch_apply_ada_max(int code, void* var, void* m, void* v, const void* grad,
                          const AdaMaxScalars& sc, int64_t n, cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    ada_max_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(var), static_cast<T*>(m),
                                                       static_cast<T*>(v),
                                                       static_cast<const T*>(grad), sc, n);
  });
}

void launch_apply_adadelta(int code, void* var, void* accum, void* accum_update, const void* grad,
                           ScalarArg lr, ScalarArg rho, ScalarArg epsilon, int64_t n,
                           cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    adadelta_kernel<T><<<grid_for(n), 256, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(accum), static_cast<T*>(accum_update),
        static_cast<const T*>(grad), lr, rho, epsilon, n);
  });
}

void launch_apply_ftrl(int code, void* var, void* accum, void* linear, const void* grad,
                       const FtrlScalars& sc, int64_t n, cudaStream_t stream) {
  ew::for_float(code, [&](auto tag) {
    using T = decltype(tag);
    ftrl_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(var), static_cast<T*>(accum),
                                                    static_cast<T*>(linear),
                                                    static_cast<const T*>(grad), sc, n);
  });
}

}  // namespace mycel::cuda::optim
