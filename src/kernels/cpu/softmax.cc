// Softmax, LogSoftmax and the softmax cross entropies.
//
// Every variant is the stable form: subtract the maximum, exponentiate, sum. A softmax over
// the last axis works row by row; over another axis it works on [len, inner] blocks with the
// loops vectorised across `inner`. float32 uses vmath's vectorisable exp; float16/bfloat16
// convert to float32 buffers around the float32 code; float64 uses std::exp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/vmath.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

// Always inlined: GCC does not inline a plain function into a target_clones clone.
#define MC_SOFTMAX_INLINE [[gnu::always_inline]] inline

MC_SOFTMAX_INLINE float exp_c(float x) { return vmath::exp(x); }
inline double exp_c(double x) { return std::exp(x); }

template <class C>
MC_SOFTMAX_INLINE C row_max(const C* x, int64_t n) {
  C m = -std::numeric_limits<C>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  // The reduction skips NaN; a NaN anywhere still makes every output NaN through the sum.
  return m;
}

// y = softmax(x) (log=false) or log_softmax(x) over one contiguous row; y may alias x.
template <class C>
MC_SOFTMAX_INLINE void softmax_row(const C* x, C* y, int64_t n, bool log) {
  if (n == 0) return;
  C m = row_max(x, n);
  if (!(m > -std::numeric_limits<C>::infinity())) m = 0;  // all -inf (or NaN): no shift
  C s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += exp_c(x[i] - m);
    C shift = m + std::log(s);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) {
      C e = exp_c(x[i] - m);
      y[i] = e;
      s += e;
    }
    C inv = C(1) / s;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

// The same over axis 0 of a [len, inner] block, vectorised across inner; m and s are scratch
// of `inner` elements.
template <class C>
MC_SOFTMAX_INLINE void softmax_cols(const C* x, C* y, int64_t len, int64_t inner, bool log, C* m,
                                    C* s) {
  std::fill(m, m + inner, -std::numeric_limits<C>::infinity());
  std::fill(s, s + inner, C(0));
  for (int64_t k = 0; k < len; ++k) {
    const C* xk = x + k * inner;
    for (int64_t j = 0; j < inner; ++j) m[j] = xk[j] > m[j] ? xk[j] : m[j];
  }
  for (int64_t j = 0; j < inner; ++j) {
    if (!(m[j] > -std::numeric_limits<C>::infinity())) m[j] = 0;
  }
  for (int64_t k = 0; k < len; ++k) {
    const C* xk = x + k * inner;
    C* yk = y + k * inner;
    for (int64_t j = 0; j < inner; ++j) {
      C e = exp_c(xk[j] - m[j]);
      if (!log) yk[j] = e;
      s[j] += e;
    }
  }
  if (log) {
    for (int64_t j = 0; j < inner; ++j) m[j] += std::log(s[j]);
    for (int64_t k = 0; k < len; ++k) {
      for (int64_t j = 0; j < inner; ++j) y[k * inner + j] = x[k * inner + j] - m[j];
    }
  } else {
    for (int64_t j = 0; j < inner; ++j) s[j] = C(1) / s[j];
    for (int64_t k = 0; k < len; ++k) {
      for (int64_t j = 0; j < inner; ++j) y[k * inner + j] *= s[j];
    }
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void softmax_row_f32(
    const float* x, float* y, int64_t n, bool log) {
  softmax_row(x, y, n, log);
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void softmax_cols_f32(
    const float* x, float* y, int64_t len, int64_t inner, bool log, float* m, float* s) {
  softmax_cols(x, y, len, inner, log, m, s);
}

inline void softmax_row_c(const float* x, float* y, int64_t n, bool log) {
  softmax_row_f32(x, y, n, log);
}
inline void softmax_row_c(const double* x, double* y, int64_t n, bool log) {
  softmax_row(x, y, n, log);
}
inline void softmax_cols_c(const float* x, float* y, int64_t len, int64_t inner, bool log, float* m,
                           float* s) {
  softmax_cols_f32(x, y, len, inner, log, m, s);
}
inline void softmax_cols_c(const double* x, double* y, int64_t len, int64_t inner, bool log,
                           double* m, double* s) {
  softmax_cols(x, y, len, inner, log, m, s);
}

// Runs softmax over `blocks` blocks of len*inner elements of x into y. Types with a compute
// type of their own (float16, bfloat16) go through float buffers.
template <class T>
void softmax_blocks(const T* x, T* y, const AxisSplit& sp, bool log) {
  using C = compute_t<T>;
  int64_t block = sp.len * sp.inner;
  if (block == 0) return;
  int64_t grain = std::max<int64_t>(1, 16384 / block);
  parallel_for(0, sp.outer, grain, [&](int64_t b, int64_t e) {
    std::vector<C> buf, m, s;
    if constexpr (!std::is_same_v<C, T>) buf.resize(static_cast<size_t>(block));
    if (sp.inner > 1) m.resize(static_cast<size_t>(sp.inner)), s.resize(m.size());
    for (int64_t o = b; o < e; ++o) {
      const T* xo = x + o * block;
      T* yo = y + o * block;
      const C* xc;
      C* yc;
      if constexpr (std::is_same_v<C, T>) {
        xc = xo, yc = yo;
      } else if constexpr (std::is_same_v<T, bfloat16>) {
        ew::bf16_to_f32(xo, 1, buf.data(), block);  // vectorised (element by element: 2x slower)
        xc = yc = buf.data();
      } else {
        for (int64_t i = 0; i < block; ++i) buf[static_cast<size_t>(i)] = static_cast<C>(xo[i]);
        xc = yc = buf.data();
      }
      if (sp.inner == 1) {
        softmax_row_c(xc, yc, sp.len, log);
      } else {
        softmax_cols_c(xc, yc, sp.len, sp.inner, log, m.data(), s.data());
      }
      if constexpr (std::is_same_v<T, bfloat16>) {
        ew::f32_to_bf16(buf.data(), yo, 1, block);
      } else if constexpr (!std::is_same_v<C, T>) {
        for (int64_t i = 0; i < block; ++i) yo[i] = static_cast<T>(buf[static_cast<size_t>(i)]);
      }
    }
  });
}

void softmax_op(const KernelContext& ctx, bool log) {
  AxisSplit sp = softmax_split(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_blocks(ctx.in[0].data<T>(), ctx.out[0].data<T>(), sp, log);
  });
}

// Per row of logits[N, C]: out_row receives softmax (kept in the compute type) and the
// returned value is log(sum(exp(x))) = the row's log-normaliser.
template <class T, class F>
void for_softmax_rows(const Tensor& logits, const F& f) {
  using C = compute_t<T>;
  int64_t n = logits.dim(0), c = logits.dim(1);
  const T* x = logits.data<T>();
  int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(c, 1));
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    std::vector<C> xr(static_cast<size_t>(c)), p(static_cast<size_t>(c));
    for (int64_t i = b; i < e; ++i) {
      for (int64_t j = 0; j < c; ++j) xr[static_cast<size_t>(j)] = static_cast<C>(x[i * c + j]);
      softmax_row_c(xr.data(), p.data(), c, true);  // log-softmax
      f(i, xr.data(), p.data());
    }
  });
}

}  // namespace

void cpu_softmax(const KernelContext& ctx) { softmax_op(ctx, false); }
void cpu_log_softmax(const KernelContext& ctx) { softmax_op(ctx, true); }

void cpu_sparse_softmax_ce(const KernelContext& ctx) {
  const Tensor &logits = ctx.in[0], &labels = ctx.in[1];
  int64_t n = logits.dim(0), c = logits.dim(1);
  std::vector<int64_t> lab(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t l =
        labels.dtype() == DType::Int32 ? labels.data<int32_t>()[i] : labels.data<int64_t>()[i];
    MC_CHECK(l >= 0 && l < c, Index, "For '", ctx.op.name, "', the label ", l,
             " is out of range [0, ", c, ") (logits shape ", logits.shape(), ").");
    lab[static_cast<size_t>(i)] = l;
  }
  bool grad = ctx.attrs.get_bool("is_grad");
  dispatch_float(logits.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    if (grad) {
      T* out = ctx.out[0].data<T>();
      C inv_n = C(1) / static_cast<C>(n);
      for_softmax_rows<T>(logits, [&](int64_t i, const C*, const C* logp) {
        T* o = out + i * c;
        for (int64_t j = 0; j < c; ++j) o[j] = static_cast<T>(std::exp(logp[j]) * inv_n);
        int64_t l = lab[static_cast<size_t>(i)];
        o[l] = static_cast<T>((std::exp(logp[l]) - C(1)) * inv_n);
      });
    } else {
      std::vector<double> loss(static_cast<size_t>(n));
      for_softmax_rows<T>(logits, [&](int64_t i, const C*, const C* logp) {
        loss[static_cast<size_t>(i)] = -static_cast<double>(logp[lab[static_cast<size_t>(i)]]);
      });
      double s = 0;
      for (double v : loss) s += v;
      *ctx.out[0].data<T>() = static_cast<T>(s / static_cast<double>(n));
    }
  });
}

void cpu_softmax_ce(const KernelContext& ctx) {
  const Tensor &logits = ctx.in[0], &labels = ctx.in[1];
  int64_t c = logits.dim(1);
  dispatch_float(logits.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* lab = labels.data<T>();
    T* loss = ctx.out[0].data<T>();
    T* dlogits = ctx.out[1].data<T>();
    for_softmax_rows<T>(logits, [&](int64_t i, const C*, const C* logp) {
      C s = 0;
      for (int64_t j = 0; j < c; ++j) {
        C y = static_cast<C>(lab[i * c + j]);
        s -= y * logp[j];
        dlogits[i * c + j] = static_cast<T>(std::exp(logp[j]) - y);
      }
      loss[i] = static_cast<T>(s);
    });
  });
}

}  // namespace mycel
