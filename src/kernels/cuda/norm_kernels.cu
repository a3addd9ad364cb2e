// BatchNorm, LayerNorm and their gradients (see norm_kernels.h), with the CPU kernel's
// formulas (kernels/cpu/norm.cc): BatchNorm takes one block per channel, LayerNorm one block
// per row; statistics are two-pass block sums in double (fixed order: reproducible), the
// elementwise parts run in the compute type (float for 16-bit x). LayerNorm's parameter
// gradients take one thread per parameter, walking every element that uses it in order.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/norm_kernels.h"
#include "kernels/cuda/reduce_block.cuh"

namespace mycel::cuda {

namespace {

constexpr unsigned kBlock = 256;

unsigned block_grid(int64_t blocks) {
  return static_cast<unsigned>(blocks < 65535LL * 16 ? blocks : 65535LL * 16);
}

template <class V>
__device__ inline double to_d(V v) {
  return static_cast<double>(load(v));
}

template <class T, class P>
__global__ void batch_norm_kernel(BatchNormArgs a) {
  using C = acc_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const P* scale = static_cast<const P*>(a.scale);
  const P* bias = static_cast<const P*>(a.bias);
  P* rmean = static_cast<P*>(a.rmean);
  P* rvar = static_cast<P*>(a.rvar);
  const int64_t count = a.n * a.s;
  const double m = static_cast<double>(count);
  for (int64_t c = blockIdx.x; c < a.c; c += gridDim.x) {
    double mean, var;
    if (a.training) {
      double s = 0;
      for (int64_t k = threadIdx.x; k < count; k += blockDim.x)
        s += to_d(x[((k / a.s) * a.c + c) * a.s + k % a.s]);
      mean = block_reduce(s, SumOp()) / m;
      double q = 0;
      for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
        const double d = to_d(x[((k / a.s) * a.c + c) * a.s + k % a.s]) - mean;
        q += d * d;
      }
      var = block_reduce(q, SumOp()) / m;
    } else {
      mean = to_d(rmean[c]);
      var = to_d(rvar[c]);
    }
    const double inv = 1.0 / sqrt(var + a.eps);
    if (threadIdx.x == 0) {
      if (a.training) {
        const double mom = a.momentum;
        rmean[c] = cast_to<P>((1 - mom) * to_d(rmean[c]) + mom * mean);
        rvar[c] = cast_to<P>((1 - mom) * to_d(rvar[c]) + mom * var * m / (m - 1));
      }
      static_cast<P*>(a.bmean)[c] = cast_to<P>(mean);
      static_cast<P*>(a.bvar)[c] = cast_to<P>(var);
      static_cast<P*>(a.smean)[c] = cast_to<P>(mean);
      static_cast<P*>(a.sinv)[c] = cast_to<P>(inv);
    }
    const double sc = to_d(scale[c]);
    const C ka = static_cast<C>(inv * sc);
    const C kb = static_cast<C>(to_d(bias[c]) - mean * inv * sc);
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t idx = ((k / a.s) * a.c + c) * a.s + k % a.s;
      y[idx] = cast_to<T>(static_cast<C>(load(x[idx])) * ka + kb);
    }
  }
}

template <class T, class P>
__global__ void batch_norm_grad_kernel(BatchNormGradArgs a) {
  using C = acc_t<T>;
  const T* dy = static_cast<const T*>(a.dy);
  const T* x = static_cast<const T*>(a.x);
  T* dx = static_cast<T*>(a.dx);
  const int64_t count = a.n * a.s;
  const double m = static_cast<double>(count);
  for (int64_t c = blockIdx.x; c < a.c; c += gridDim.x) {
    const C mean = static_cast<C>(load(static_cast<const P*>(a.smean)[c]));
    double sdy = 0, sdyx = 0;
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t idx = ((k / a.s) * a.c + c) * a.s + k % a.s;
      const C dv = static_cast<C>(load(dy[idx]));
      sdy += static_cast<double>(dv);
      sdyx += static_cast<double>(dv * (static_cast<C>(load(x[idx])) - mean));
    }
    sdy = block_reduce(sdy, SumOp());
    sdyx = block_reduce(sdyx, SumOp());
    const double inv = to_d(static_cast<const P*>(a.sinv)[c]);
    const double sc = to_d(static_cast<const P*>(a.scale)[c]);
    if (threadIdx.x == 0) {
      static_cast<P*>(a.dbias)[c] = cast_to<P>(sdy);
      static_cast<P*>(a.dscale)[c] = cast_to<P>(sdyx * inv);
    }
    const C k = static_cast<C>(sc * inv);
    const C k0 = a.training ? static_cast<C>(-sc * inv * sdy / m) : C(0);
    const C k1 = a.training ? static_cast<C>(-sc * inv * inv * inv * sdyx / m) : C(0);
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      const int64_t idx = ((e / a.s) * a.c + c) * a.s + e % a.s;
      dx[idx] = cast_to<T>(k * static_cast<C>(load(dy[idx])) + k0 +
                           k1 * (static_cast<C>(load(x[idx])) - mean));
    }
  }
}

template <class T, class P>
__global__ void layer_norm_kernel(LayerNormArgs a) {
  using C = acc_t<T>;
  const T* x = static_cast<const T*>(a.x);
  const P* gamma = static_cast<const P*>(a.gamma);
  const P* beta = static_cast<const P*>(a.beta);
  T* y = static_cast<T*>(a.y);
  const double cols = static_cast<double>(a.cols);
  for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const T* xr = x + r * a.cols;
    double s = 0;
    for (int64_t j = threadIdx.x; j < a.cols; j += blockDim.x) s += to_d(xr[j]);
    const double mean = block_reduce(s, SumOp()) / cols;
    double q = 0;
    for (int64_t j = threadIdx.x; j < a.cols; j += blockDim.x) {
      const double d = to_d(xr[j]) - mean;
      q += d * d;
    }
    const double var = block_reduce(q, SumOp()) / cols;
    const C mu = static_cast<C>(mean);
    const C rs = static_cast<C>(1.0 / sqrt(var + a.eps));
    if (threadIdx.x == 0) {
      static_cast<C*>(a.mean)[r] = mu;
      static_cast<C*>(a.rstd)[r] = rs;
    }
    for (int64_t j = threadIdx.x; j < a.cols; j += blockDim.x) {
      const int64_t f = r * a.cols + j;
      const int64_t p = f % a.params;
      y[f] = cast_to<T>((static_cast<C>(load(x[f])) - mu) * rs * static_cast<C>(load(gamma[p])) +
                        static_cast<C>(load(beta[p])));
    }
  }
}

template <class T, class P>
__global__ void layer_norm_grad_dx_kernel(LayerNormGradArgs a) {
  using C = acc_t<T>;
  const T* dy = static_cast<const T*>(a.dy);
  const T* x = static_cast<const T*>(a.x);
  const P* gamma = static_cast<const P*>(a.gamma);
  T* dx = static_cast<T*>(a.dx);
  const double cols = static_cast<double>(a.cols);
  for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const C mu = static_cast<const C*>(a.mean)[r];
    const C rs = static_cast<const C*>(a.rstd)[r];
    double sg = 0, sgx = 0;
    for (int64_t j = threadIdx.x; j < a.cols; j += blockDim.x) {
      const int64_t f = r * a.cols + j;
      const C h = (static_cast<C>(load(x[f])) - mu) * rs;
      const C gv = static_cast<C>(load(dy[f])) * static_cast<C>(load(gamma[f % a.params]));
      sg += static_cast<double>(gv);
      sgx += static_cast<double>(gv * h);
    }
    const C mg = static_cast<C>(block_reduce(sg, SumOp()) / cols);
    const C mgx = static_cast<C>(block_reduce(sgx, SumOp()) / cols);
    for (int64_t j = threadIdx.x; j < a.cols; j += blockDim.x) {
      const int64_t f = r * a.cols + j;
      const C h = (static_cast<C>(load(x[f])) - mu) * rs;
      const C ga = static_cast<C>(load(gamma[f % a.params]));
      dx[f] = cast_to<T>(rs * (static_cast<C>(load(dy[f])) * ga - mg - h * mgx));
    }
  }
}

template <class T, class P>
__global__ void layer_norm_grad_params_kernel(LayerNormGradArgs a) {
  using C = acc_t<T>;
  const T* dy = static_cast<const T*>(a.dy);
  const T* x = static_cast<const T*>(a.x);
  const C* mean = static_cast<const C*>(a.mean);
  const C* rstd = static_cast<const C*>(a.rstd);
  const int64_t total = a.rows * a.cols;
  MC_CUDA_KERNEL_LOOP(p, a.params) {
    double sg = 0, sb = 0;
    for (int64_t f = p; f < total; f += a.params) {
      const int64_t r = f / a.cols;
      const C d = static_cast<C>(load(dy[f]));
      const C h = (static_cast<C>(load(x[f])) - mean[r]) * rstd[r];
      sg += static_cast<double>(d * h);
      sb += static_cast<double>(d);
    }
    static_cast<P*>(a.dgamma)[p] = cast_to<P>(sg);
    static_cast<P*>(a.dbeta)[p] = cast_to<P>(sb);
  }
}

// Calls f(T{}, P{}) for x's float dtype and the parameters' (x's own, or float for 16-bit x).
template <class F>
void dispatch_norm(int x_code, int p_code, F&& f) {
  switch (x_code) {
    case kFloat16:
      if (p_code == kFloat32)
        f(half_t{}, float{});
      else
        f(half_t{}, half_t{});
      break;
    case kBFloat16:
      if (p_code == kFloat32)
        f(bf16_t{}, float{});
      else
        f(bf16_t{}, bf16_t{});
      break;
    case kFloat32:
      f(float{}, float{});
      break;
    case kFloat64:
      f(double{}, double{});
      break;
    default:
      break;
  }
}

}  // namespace

void launch_batch_norm(int x_code, int p_code, const BatchNormArgs& a, cudaStream_t stream) {
  if (a.c == 0) return;
  dispatch_norm(x_code, p_code, [&](auto t, auto p) {
    batch_norm_kernel<decltype(t), decltype(p)><<<block_grid(a.c), kBlock, 0, stream>>>(a);
  });
}

void launch_batch_norm_grad(int x_code, int p_code, const BatchNormGradArgs& a,
                            cudaStream_t stream) {
  if (a.c == 0) return;
  dispatch_norm(x_code, p_code, [&](auto t, auto p) {
    batch_norm_grad_kernel<decltype(t), decltype(p)><<<block_grid(a.c), kBlock, 0, stream>>>(a);
  });
}

void launch_layer_norm(int x_code, int p_code, const LayerNormArgs& a, cudaStream_t stream) {
  if (a.rows == 0) return;
  dispatch_norm(x_code, p_code, [&](auto t, auto p) {
    layer_norm_kernel<decltype(t), decltype(p)><<<block_grid(a.rows), kBlock, 0, stream>>>(a);
  });
}

void launch_layer_norm_grad(int x_code, int p_code, const LayerNormGradArgs& a,
                            cudaStream_t stream) {
  dispatch_norm(x_code, p_code, [&](auto t, auto p) {
    using T = decltype(t);
    using P = decltype(p);
    if (a.rows > 0 && a.cols > 0)
      layer_norm_grad_dx_kernel<T, P><<<block_grid(a.rows), kBlock, 0, stream>>>(a);
    if (a.params > 0)
      layer_norm_grad_params_kernel<T, P><<<grid_for(a.params), kBlock, 0, stream>>>(a);
  });
}

}  // namespace mycel::cuda
