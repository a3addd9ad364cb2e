// Pooling kernels (see pool_kernels.h): one thread per output element for the forward ops,
// one per input element (gathering over the windows that cover it, so no atomics and a fixed
// summation order) for the gradients.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/pool_kernels.h"

namespace mycel::cuda {

namespace {

template <class T>
using pacc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

__device__ inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
__device__ inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// PoolGeom::divisor.
__device__ inline int64_t divisor(const PoolParams& p, int64_t i, int64_t j) {
  int64_t h0 = i * p.sh - p.pt, w0 = j * p.sw - p.pl;
  int64_t h1, w1;
  if (p.count_pad) {
    h1 = min64(h0 + p.kh, p.h + p.pb);
    w1 = min64(w0 + p.kw, p.w + p.pr);
  } else {
    h1 = min64(h0 + p.kh, p.h);
    w1 = min64(w0 + p.kw, p.w);
    h0 = max64(h0, 0);
    w0 = max64(w0, 0);
  }
  return (h1 - h0) * (w1 - w0);
}

// In-plane index of the first maximum of window (i, j) of plane xp; -1 if empty.
template <class T>
__device__ inline int64_t window_argmax(const T* xp, const PoolParams& p, int64_t i, int64_t j) {
  using C = pacc_t<T>;
  const int64_t h0 = i * p.sh - p.pt, w0 = j * p.sw - p.pl;
  int64_t best = -1;
  C bv = 0;
  for (int64_t h = max64(h0, 0); h < min64(h0 + p.kh, p.h); ++h) {
    for (int64_t w = max64(w0, 0); w < min64(w0 + p.kw, p.w); ++w) {
      const C v = static_cast<C>(load(xp[h * p.w + w]));
      if (best < 0 || v > bv || (v != v && bv == bv)) {
        best = h * p.w + w;
        bv = v;
      }
    }
  }
  return best;
}

template <class T>
__global__ void max_pool_kernel(const T* x, T* y, PoolParams p, int64_t n) {
  MC_CUDA_KERNEL_LOOP(o, n) {
    const int64_t j = o % p.wo, i = (o / p.wo) % p.ho, pl = o / (p.wo * p.ho);
    const T* xp = x + pl * p.h * p.w;
    const int64_t a = window_argmax(xp, p, i, j);
    y[o] = a >= 0 ? xp[a] : cast_to<T>(0.0f);
  }
}

template <class T>
__global__ void avg_pool_kernel(const T* x, T* y, PoolParams p, int64_t n) {
  using C = pacc_t<T>;
  MC_CUDA_KERNEL_LOOP(o, n) {
    const int64_t j = o % p.wo, i = (o / p.wo) % p.ho, pl = o / (p.wo * p.ho);
    const T* xp = x + pl * p.h * p.w;
    const int64_t h0 = i * p.sh - p.pt, w0 = j * p.sw - p.pl;
    C s = 0;
    for (int64_t h = max64(h0, 0); h < min64(h0 + p.kh, p.h); ++h) {
      for (int64_t w = max64(w0, 0); w < min64(w0 + p.kw, p.w); ++w)
        s += static_cast<C>(load(xp[h * p.w + w]));
    }
    y[o] = cast_to<T>(s / static_cast<C>(divisor(p, i, j)));
  }
}

template <class T>
__global__ void pool_argmax_kernel(const T* x, int64_t* argmax, PoolParams p, int64_t n) {
  MC_CUDA_KERNEL_LOOP(o, n) {
    const int64_t j = o % p.wo, i = (o / p.wo) % p.ho, pl = o / (p.wo * p.ho);
    argmax[o] = window_argmax(x + pl * p.h * p.w, p, i, j);
  }
}

// Output windows covering input row h: i in [lo, hi).
__device__ inline void covering(int64_t h, int64_t pad, int64_t k, int64_t s, int64_t out,
                                int64_t* lo, int64_t* hi) {
  const int64_t t = h + pad;  // window i covers t when i*s <= t < i*s + k
  *lo = t - k + 1 <= 0 ? 0 : (t - k + 1 + s - 1) / s;
  *hi = min64(t / s + 1, out);
}

// What the gradients see of input element e: its position (h, w) in its plane, the plane's
// first output element (base), and the output windows covering it (rows [i0, i1), columns
// [j0, j1)).
struct Covered {
  int64_t h, w, base, i0, i1, j0, j1;
};

__device__ inline Covered covered_by(int64_t e, const PoolParams& p) {
  Covered c;
  c.w = e % p.w;
  c.h = (e / p.w) % p.h;
  c.base = e / (p.w * p.h) * p.ho * p.wo;
  covering(c.h, p.pt, p.kh, p.sh, p.ho, &c.i0, &c.i1);
  covering(c.w, p.pl, p.kw, p.sw, p.wo, &c.j0, &c.j1);
  return c;
}

template <class T>
__global__ void max_pool_grad_kernel(const int64_t* argmax, const T* dy, T* dx, PoolParams p,
                                     int64_t n) {
  using C = pacc_t<T>;
  MC_CUDA_KERNEL_LOOP(e, n) {
    const Covered c = covered_by(e, p);
    const int64_t me = c.h * p.w + c.w;
    C s = 0;
    for (int64_t i = c.i0; i < c.i1; ++i) {
      for (int64_t j = c.j0; j < c.j1; ++j) {
        const int64_t o = c.base + i * p.wo + j;
        if (argmax[o] == me) s += static_cast<C>(load(dy[o]));
      }
    }
    dx[e] = cast_to<T>(s);
  }
}

template <class T>
__global__ void max_pool_grad_grad_kernel(const int64_t* argmax, const T* ddx, T* ddy, PoolParams p,
                                          int64_t n) {
  MC_CUDA_KERNEL_LOOP(o, n) {
    const int64_t pl = o / (p.wo * p.ho);
    const int64_t a = argmax[o];
    ddy[o] = a >= 0 ? ddx[pl * p.h * p.w + a] : cast_to<T>(0.0f);
  }
}

template <class T>
__global__ void avg_pool_grad_kernel(const T* dy, T* dx, PoolParams p, int64_t n) {
  using C = pacc_t<T>;
  MC_CUDA_KERNEL_LOOP(e, n) {
    const Covered c = covered_by(e, p);
    C s = 0;
    for (int64_t i = c.i0; i < c.i1; ++i) {
      for (int64_t j = c.j0; j < c.j1; ++j) {
        s += static_cast<C>(load(dy[c.base + i * p.wo + j])) / static_cast<C>(divisor(p, i, j));
      }
    }
    dx[e] = cast_to<T>(s);
  }
}


}  // namespace

void launch_max_pool(int code, const void* x, void* y, const PoolParams& p, cudaStream_t s) {
  const int64_t n = p.planes * p.ho * p.wo;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    max_pool_kernel<T>
        <<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), p, n);
  });
}

void launch_avg_pool(int code, const void* x, void* y, const PoolParams& p, cudaStream_t s) {
  const int64_t n = p.planes * p.ho * p.wo;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_kernel<T>
        <<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), p, n);
  });
}

void launch_pool_argmax(int code, const void* x, int64_t* argmax, const PoolParams& p,
                        cudaStream_t s) {
  const int64_t n = p.planes * p.ho * p.wo;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    pool_argmax_kernel<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), argmax, p, n);
  });
}

void launch_max_pool_grad(int code, const int64_t* argmax, const void* dy, void* dx,
                          const PoolParams& p, cudaStream_t s) {
  const int64_t n = p.planes * p.h * p.w;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    max_pool_grad_kernel<T>
        <<<grid_for(n), 256, 0, s>>>(argmax, static_cast<const T*>(dy), static_cast<T*>(dx), p, n);
  });
}

void launch_max_pool_grad_grad(int code, const int64_t* argmax, const void* ddx, void* ddy,
                               const PoolParams& p, cudaStream_t s) {
  const int64_t n = p.planes * p.ho * p.wo;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    max_pool_grad_grad_kernel<T><<<grid_for(n), 256, 0, s>>>(argmax, static_cast<const T*>(ddx),
                                                             static_cast<T*>(ddy), p, n);
  });
}

void launch_avg_pool_grad(int code, const void* dy, void* dx, const PoolParams& p, cudaStream_t s) {
  const int64_t n = p.planes * p.h * p.w;
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_grad_kernel<T>
        <<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(dy), static_cast<T*>(dx), p, n);
  });
}

}  // namespace mycel::cuda
