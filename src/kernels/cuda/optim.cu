// CUDA kernels of the state-update family (ops/defs/optim.def): one fused pass over each
// tensor, the formulas of kernels/cpu/optim.cc line for line, computing in acc_t<T> (float
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

}  // namespace mycel::cuda::optim
