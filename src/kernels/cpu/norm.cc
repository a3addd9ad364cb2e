// BatchNorm, LayerNorm and their gradients.
//
// BatchNorm works on x as [N, C, S] (S = H*W, or 1), one task per range of channels; each
// statistic is a two-pass sum (mean, then squared deviations), per-row sums in the compute type
// accumulated in double across rows. LayerNorm works row by row (float32 rows in vectorised
// clones); its parameter gradients are per-chunk partial sums over a fixed split of the rows,
// added in chunk order, so results do not depend on timing. float16/bfloat16 compute in
// float, with parameters in their own dtype or float32.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

// Always inlined: GCC does not inline a plain function into a target_clones clone.
#define MC_NORM_INLINE [[gnu::always_inline]] inline

template <class P, class C>
std::vector<C> load(const Tensor& t) {
  const P* p = t.data<P>();
  std::vector<C> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(p[i]);
  return v;
}

// Runs fn(T, P) for x's dtype T and the parameters' dtype P (T, or float32 for 16-bit T).
template <class F>
void dispatch_norm(const char* op, DType x, DType p, F&& fn) {
  dispatch_float(x, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, compute_t<T>>) {
      fn(TypeTag<T>{}, TypeTag<T>{});
    } else if (p == DType::Float32) {
      fn(TypeTag<T>{}, TypeTag<float>{});
    } else {
      fn(TypeTag<T>{}, TypeTag<T>{});
    }
  });
}

// Sums over one contiguous segment: of (x - shift), of (x - shift)^2, of dy * (x - shift).
template <class T, class C>
MC_NORM_INLINE C segment_sum(const T* x, int64_t n, C shift) {
  C s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<C>(x[i]) - shift;
  return s;
}
template <class T, class C>
MC_NORM_INLINE C segment_sq(const T* x, int64_t n, C shift) {
  C s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    C d = static_cast<C>(x[i]) - shift;
    s += d * d;
  }
  return s;
}
template <class T, class C>
MC_NORM_INLINE C segment_dot(const T* dy, const T* x, int64_t n, C shift) {
  C s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<C>(dy[i]) * (static_cast<C>(x[i]) - shift);
  return s;
}

int64_t channel_grain(const BatchNormGeom& g) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.n * g.s));
}

// ---- BatchNorm ----

// BatchNorm's tensors and attributes, and the per-channel steps both layouts share.
template <class T, class P>
struct BatchNormArgs {
  using C = compute_t<T>;
  const T* x;
  T* y;
  const P *scale, *bias;
  P *rmean, *rvar, *bmean, *bvar, *smean, *sinv;
  bool training;
  double eps, mom;

  explicit BatchNormArgs(const KernelContext& ctx)
      : x(ctx.in[0].data<T>()),
        y(ctx.out[0].data<T>()),
        scale(ctx.in[1].data<P>()),
        bias(ctx.in[2].data<P>()),
        rmean(ctx.in[3].data<P>()),
        rvar(ctx.in[4].data<P>()),
        bmean(ctx.out[1].data<P>()),
        bvar(ctx.out[2].data<P>()),
        smean(ctx.out[3].data<P>()),
        sinv(ctx.out[4].data<P>()),
        training(ctx.attrs.get_bool("is_training")),
        eps(ctx.attrs.get_float("epsilon")),
        mom(ctx.attrs.get_float("momentum")) {}

  // Training: channel c's running statistics move toward the batch's mean and variance over
  // m values (the running variance takes the unbiased one).
  void update_running(int64_t c, double mean, double var, double m) const {
    rmean[c] = static_cast<P>((1 - mom) * static_cast<double>(rmean[c]) + mom * mean);
    rvar[c] = static_cast<P>((1 - mom) * static_cast<double>(rvar[c]) + mom * var * m / (m - 1));
  }

  // Writes channel c's batch and saved statistics and returns (a, b) of y = x * a + b.
  std::pair<C, C> finish(int64_t c, double mean, double var) const {
    double inv = 1.0 / std::sqrt(var + eps);
    bmean[c] = static_cast<P>(mean), bvar[c] = static_cast<P>(var);
    smean[c] = static_cast<P>(mean), sinv[c] = static_cast<P>(inv);
    double sc = static_cast<double>(scale[c]);
    return {static_cast<C>(inv * sc),
            static_cast<C>(static_cast<double>(bias[c]) - mean * inv * sc)};
  }
};

template <class T, class P>
void batch_norm(const KernelContext& ctx, const BatchNormGeom& g) {
  using C = compute_t<T>;
  const BatchNormArgs<T, P> args(ctx);
  const T* x = args.x;
  double m = static_cast<double>(g.n * g.s);
  const int64_t cs = g.c * g.s;
  parallel_for(0, g.c, channel_grain(g), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double mean = static_cast<double>(args.rmean[c]), var = static_cast<double>(args.rvar[c]);
      if (args.training) {
        // A rough shift first (the first element) keeps the sums small, then the exact mean.
        C shift = g.n > 0 ? static_cast<C>(x[c * g.s]) : C(0);
        double s = 0;
        for (int64_t n = 0; n < g.n; ++n) s += segment_sum(x + n * cs + c * g.s, g.s, shift);
        mean = static_cast<double>(shift) + s / m;
        double q = 0;
        for (int64_t n = 0; n < g.n; ++n) {
          q += segment_sq(x + n * cs + c * g.s, g.s, static_cast<C>(mean));
        }
        var = q / m;
        args.update_running(c, mean, var, m);
      }
      auto [a, b] = args.finish(c, mean, var);
      for (int64_t n = 0; n < g.n; ++n) {
        const T* xs = x + n * cs + c * g.s;
        T* ys = args.y + n * cs + c * g.s;
        for (int64_t i = 0; i < g.s; ++i) ys[i] = static_cast<T>(static_cast<C>(xs[i]) * a + b);
      }
    }
  });
}

// x[N, C] (S == 1): the channels run along rows, so sums go column-wise over a range of
// channels, vectorised across them.
template <class T, class P>
void batch_norm_2d(const KernelContext& ctx, const BatchNormGeom& g) {
  using C = compute_t<T>;
  const BatchNormArgs<T, P> args(ctx);
  const T* x = args.x;
  double m = static_cast<double>(g.n);
  parallel_for(0, g.c, std::max<int64_t>(16, channel_grain(g)), [&](int64_t c0, int64_t c1) {
    int64_t w = c1 - c0;
    std::vector<double> mean(static_cast<size_t>(w)), var(static_cast<size_t>(w));
    std::vector<C> a(static_cast<size_t>(w)), b(static_cast<size_t>(w));
    if (args.training) {
      std::fill(mean.begin(), mean.end(), 0.0);
      std::fill(var.begin(), var.end(), 0.0);
      for (int64_t n = 0; n < g.n; ++n) {
        const T* row = x + n * g.c + c0;
        for (int64_t j = 0; j < w; ++j) mean[j] += static_cast<double>(static_cast<C>(row[j]));
      }
      for (int64_t j = 0; j < w; ++j) mean[j] /= m;
      for (int64_t n = 0; n < g.n; ++n) {
        const T* row = x + n * g.c + c0;
        for (int64_t j = 0; j < w; ++j) {
          double d = static_cast<double>(static_cast<C>(row[j])) - mean[j];
          var[j] += d * d;
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        var[j] /= m;
        args.update_running(c0 + j, mean[j], var[j], m);
      }
    } else {
      for (int64_t j = 0; j < w; ++j) {
        mean[j] = static_cast<double>(args.rmean[c0 + j]);
        var[j] = static_cast<double>(args.rvar[c0 + j]);
      }
    }
    for (int64_t j = 0; j < w; ++j) std::tie(a[j], b[j]) = args.finish(c0 + j, mean[j], var[j]);
    for (int64_t n = 0; n < g.n; ++n) {
      const T* row = x + n * g.c + c0;
      T* out = args.y + n * g.c + c0;
      for (int64_t j = 0; j < w; ++j) out[j] = static_cast<T>(static_cast<C>(row[j]) * a[j] + b[j]);
    }
  });
}

// BatchNormGrad: per channel, sum(dy) and sum(dy * (x - mean)), then dx.
template <class T, class P>
void batch_norm_grad(const KernelContext& ctx, const BatchNormGeom& g) {
  using C = compute_t<T>;
  const T *dy = ctx.in[0].data<T>(), *x = ctx.in[1].data<T>();
  const P *scale = ctx.in[2].data<P>(), *smean = ctx.in[3].data<P>(), *sinv = ctx.in[4].data<P>();
  T* dx = ctx.out[0].data<T>();
  P *dscale = ctx.out[1].data<P>(), *dbias = ctx.out[2].data<P>();
  bool training = ctx.attrs.get_bool("is_training");
  double m = static_cast<double>(g.n * g.s);
  const int64_t cs = g.c * g.s;
  int64_t grain = g.s == 1 ? std::max<int64_t>(16, channel_grain(g)) : channel_grain(g);
  parallel_for(0, g.c, grain, [&](int64_t c0, int64_t c1) {
    int64_t w = c1 - c0;
    std::vector<double> sdy(static_cast<size_t>(w), 0.0), sdyx(static_cast<size_t>(w), 0.0);
    std::vector<C> mean(static_cast<size_t>(w));
    for (int64_t j = 0; j < w; ++j) mean[j] = static_cast<C>(smean[c0 + j]);
    if (g.s == 1) {
      for (int64_t n = 0; n < g.n; ++n) {
        const T *d = dy + n * g.c + c0, *xr = x + n * g.c + c0;
        for (int64_t j = 0; j < w; ++j) {
          C dv = static_cast<C>(d[j]);
          sdy[j] += static_cast<double>(dv);
          sdyx[j] += static_cast<double>(dv * (static_cast<C>(xr[j]) - mean[j]));
        }
      }
    } else {
      for (int64_t j = 0; j < w; ++j) {
        int64_t c = c0 + j;
        for (int64_t n = 0; n < g.n; ++n) {
          const T *d = dy + n * cs + c * g.s, *xs = x + n * cs + c * g.s;
          sdy[j] += static_cast<double>(segment_sum(d, g.s, C(0)));
          sdyx[j] += static_cast<double>(segment_dot(d, xs, g.s, mean[j]));
        }
      }
    }
    // dx = k*dy + k0 + k1*(x - mean), per channel.
    std::vector<C> k(static_cast<size_t>(w)), k0(static_cast<size_t>(w)),
        k1(static_cast<size_t>(w));
    for (int64_t j = 0; j < w; ++j) {
      int64_t c = c0 + j;
      double inv = static_cast<double>(sinv[c]), sc = static_cast<double>(scale[c]);
      dbias[c] = static_cast<P>(sdy[j]);
      dscale[c] = static_cast<P>(sdyx[j] * inv);
      k[j] = static_cast<C>(sc * inv);
      k0[j] = training ? static_cast<C>(-sc * inv * sdy[j] / m) : C(0);
      k1[j] = training ? static_cast<C>(-sc * inv * inv * inv * sdyx[j] / m) : C(0);
    }
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t j = 0; j < w; ++j) {
        int64_t off = n * cs + (c0 + j) * g.s;
        const T *d = dy + off, *xs = x + off;
        T* o = dx + off;
        C kj = k[j], k0j = k0[j], k1j = k1[j], mj = mean[j];
        for (int64_t i = 0; i < g.s; ++i) {
          o[i] =
              static_cast<T>(kj * static_cast<C>(d[i]) + k0j + k1j * (static_cast<C>(xs[i]) - mj));
        }
      }
    }
  });
}

// ---- LayerNorm ----
//
// Rows are independent; within a row, x[r*cols + j] uses parameter (r*cols + j) % params, which
// runs contiguously over segments of the row (the whole row when the parameters cover exactly
// the normalised axes).

// Normalises rows [r0, r1); gamma and beta are already in the compute type.
template <class T, class C>
MC_NORM_INLINE void ln_rows(const LayerNormGeom& g, C eps, const T* x, const C* gamma,
                            const C* beta, T* y, C* mean, C* rstd, int64_t r0, int64_t r1) {
  const int64_t cols = g.cols;
  const C inv_cols = C(1) / static_cast<C>(cols);
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    C shift = cols > 0 ? static_cast<C>(xr[0]) : C(0);
    C m = shift + segment_sum(xr, cols, shift) * inv_cols;
    C rs = C(1) / std::sqrt(segment_sq(xr, cols, m) * inv_cols + eps);
    mean[r] = m, rstd[r] = rs;
    for (int64_t j = 0; j < cols;) {
      int64_t p0 = (r * cols + j) % g.params;
      int64_t len = cols - j < g.params - p0 ? cols - j : g.params - p0;
      const C *ga = gamma + p0, *be = beta + p0;
      const T* xs = xr + j;
      T* ys = yr + j;
      for (int64_t t = 0; t < len; ++t) {
        ys[t] = static_cast<T>((static_cast<C>(xs[t]) - m) * rs * ga[t] + be[t]);
      }
      j += len;
    }
  }
}

// dx for rows [r0, r1), adding their dgamma / dbeta terms into dg / db. Two passes over a
// row: the parameter sums with the row's sums of g = dy * gamma and g * xhat, then dx.
template <class T, class C>
MC_NORM_INLINE void ln_grad_rows(const LayerNormGeom& g, const T* dy, const T* x, const C* gamma,
                                 const C* mean, const C* rstd, T* dx, C* dg, C* db, int64_t r0,
                                 int64_t r1) {
  const int64_t cols = g.cols;
  const C inv_cols = C(1) / static_cast<C>(cols);
  for (int64_t r = r0; r < r1; ++r) {
    const T *dyr = dy + r * cols, *xr = x + r * cols;
    T* dxr = dx + r * cols;
    const C m = mean[r], rs = rstd[r];
    C sg = 0, sgx = 0;
    for (int64_t j = 0; j < cols;) {
      int64_t p0 = (r * cols + j) % g.params;
      int64_t len = cols - j < g.params - p0 ? cols - j : g.params - p0;
      const C* ga = gamma + p0;
      C *dgs = dg + p0, *dbs = db + p0;
      const T *dys = dyr + j, *xs = xr + j;
#pragma omp simd reduction(+ : sg, sgx)
      for (int64_t t = 0; t < len; ++t) {
        C d = static_cast<C>(dys[t]);
        C h = (static_cast<C>(xs[t]) - m) * rs;
        C gv = d * ga[t];
        dgs[t] += d * h;
        dbs[t] += d;
        sg += gv;
        sgx += gv * h;
      }
      j += len;
    }
    const C mg = sg * inv_cols, mgx = sgx * inv_cols;
    for (int64_t j = 0; j < cols;) {
      int64_t p0 = (r * cols + j) % g.params;
      int64_t len = cols - j < g.params - p0 ? cols - j : g.params - p0;
      const C* ga = gamma + p0;
      const T *dys = dyr + j, *xs = xr + j;
      T* dxs = dxr + j;
      for (int64_t t = 0; t < len; ++t) {
        C h = (static_cast<C>(xs[t]) - m) * rs;
        dxs[t] = static_cast<T>(rs * (static_cast<C>(dys[t]) * ga[t] - mg - h * mgx));
      }
      j += len;
    }
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void ln_rows_f32(
    const LayerNormGeom& g, float eps, const float* x, const float* gamma, const float* beta,
    float* y, float* mean, float* rstd, int64_t r0, int64_t r1) {
  ln_rows(g, eps, x, gamma, beta, y, mean, rstd, r0, r1);
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void ln_grad_rows_f32(
    const LayerNormGeom& g, const float* dy, const float* x, const float* gamma, const float* mean,
    const float* rstd, float* dx, float* dg, float* db, int64_t r0, int64_t r1) {
  ln_grad_rows(g, dy, x, gamma, mean, rstd, dx, dg, db, r0, r1);
}

// bfloat16 rows with float32 parameters (mixed precision's LayerNorm: bfloat16 activations,
// float32 master weights, float arithmetic): the same row code in vectorised clones, rounding
// each result once (bfloat16's branch-free conversion); the scalar default build ran slower
// than casting to float32 around the float32 kernel.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void ln_rows_bf16(
    const LayerNormGeom& g, float eps, const bfloat16* x, const float* gamma, const float* beta,
    bfloat16* y, float* mean, float* rstd, int64_t r0, int64_t r1) {
  ln_rows(g, eps, x, gamma, beta, y, mean, rstd, r0, r1);
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void
ln_grad_rows_bf16(const LayerNormGeom& g, const bfloat16* dy, const bfloat16* x, const float* gamma,
                  const float* mean, const float* rstd, bfloat16* dx, float* dg, float* db,
                  int64_t r0, int64_t r1) {
  ln_grad_rows(g, dy, x, gamma, mean, rstd, dx, dg, db, r0, r1);
}

template <class T, class P>
void layer_norm(const KernelContext& ctx, const LayerNormGeom& g) {
  using C = compute_t<T>;
  const T* x = ctx.in[0].data<T>();
  std::vector<C> gamma = load<P, C>(ctx.in[1]), beta = load<P, C>(ctx.in[2]);
  T* y = ctx.out[0].data<T>();
  C *mean = ctx.out[1].data<C>(), *rstd = ctx.out[2].data<C>();
  C eps = static_cast<C>(ctx.attrs.get_float("epsilon"));
  int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, g.cols));
  parallel_for(0, g.rows, grain, [&](int64_t b, int64_t e) {
    if constexpr (std::is_same_v<T, float>) {
      ln_rows_f32(g, eps, x, gamma.data(), beta.data(), y, mean, rstd, b, e);
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      ln_rows_bf16(g, eps, x, gamma.data(), beta.data(), y, mean, rstd, b, e);
    } else {
      ln_rows(g, eps, x, gamma.data(), beta.data(), y, mean, rstd, b, e);
    }
  });
}

// The parameter gradients are per-chunk partial sums over a fixed split of the rows, added in
// chunk order: the result depends on the thread count only through that split.
template <class T, class P>
void layer_norm_grad(const KernelContext& ctx, const LayerNormGeom& g) {
  using C = compute_t<T>;
  const T *dy = ctx.in[0].data<T>(), *x = ctx.in[1].data<T>();
  std::vector<C> gamma = load<P, C>(ctx.in[2]);
  const C *mean = ctx.in[3].data<C>(), *rstd = ctx.in[4].data<C>();
  T* dx = ctx.out[0].data<T>();
  int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(num_threads(), g.rows));
  if (g.rows * g.cols < 32768) chunks = 1;
  const size_t np = static_cast<size_t>(g.params);
  std::vector<C> partial(2 * np * static_cast<size_t>(chunks), C(0));  // dgamma, dbeta per chunk
  parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      C* dg = partial.data() + 2 * np * static_cast<size_t>(ch);
      int64_t r0 = g.rows * ch / chunks, r1 = g.rows * (ch + 1) / chunks;
      if constexpr (std::is_same_v<T, float>) {
        ln_grad_rows_f32(g, dy, x, gamma.data(), mean, rstd, dx, dg, dg + np, r0, r1);
      } else if constexpr (std::is_same_v<T, bfloat16>) {
        ln_grad_rows_bf16(g, dy, x, gamma.data(), mean, rstd, dx, dg, dg + np, r0, r1);
      } else {
        ln_grad_rows(g, dy, x, gamma.data(), mean, rstd, dx, dg, dg + np, r0, r1);
      }
    }
  });
  P *dgp = ctx.out[1].data<P>(), *dbp = ctx.out[2].data<P>();
  for (size_t p = 0; p < np; ++p) {
    double sg = 0, sb = 0;
    for (size_t ch = 0; ch < static_cast<size_t>(chunks); ++ch) {
      sg += static_cast<double>(partial[2 * np * ch + p]);
      sb += static_cast<double>(partial[2 * np * ch + np + p]);
    }
    dgp[p] = static_cast<P>(sg), dbp[p] = static_cast<P>(sb);
  }
}

}  // namespace

void cpu_batch_norm(const KernelContext& ctx) {
  BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[0].shape());
  dispatch_norm(ctx.op.name, ctx.in[0].dtype(), ctx.in[1].dtype(), [&](auto t, auto p) {
    using T = typename decltype(t)::type;
    using P = typename decltype(p)::type;
    if (g.s == 1) {
      batch_norm_2d<T, P>(ctx, g);
    } else {
      batch_norm<T, P>(ctx, g);
    }
  });
}

void cpu_batch_norm_grad(const KernelContext& ctx) {
  BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[1].shape());
  dispatch_norm(ctx.op.name, ctx.in[1].dtype(), ctx.in[2].dtype(), [&](auto t, auto p) {
    batch_norm_grad<typename decltype(t)::type, typename decltype(p)::type>(ctx, g);
  });
}

void cpu_layer_norm(const KernelContext& ctx) {
  LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  dispatch_norm(ctx.op.name, ctx.in[0].dtype(), ctx.in[1].dtype(), [&](auto t, auto p) {
    layer_norm<typename decltype(t)::type, typename decltype(p)::type>(ctx, g);
  });
}

void cpu_layer_norm_grad(const KernelContext& ctx) {
  LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[1].shape(), ctx.attrs);
  dispatch_norm(ctx.op.name, ctx.in[1].dtype(), ctx.in[2].dtype(), [&](auto t, auto p) {
    layer_norm_grad<typename decltype(t)::type, typename decltype(p)::type>(ctx, g);
  });
}

}  // namespace mycel
