// MaxPool, AvgPool, their gradients and MaxPoolGradGrad over NCHW: our own loops, one (n, c)
// plane per task.
//
// Pooling is memory-bound and LeNet's windows are 2x2, where oneDNN's blocked layouts would
// cost two reorders per call for nothing; our loops also fix the tie rule MaxPoolGrad needs
// (the first maximum in row-major window order, a NaN counting as the maximum), which the
// reference and MaxPoolGradGrad share exactly.
//
// Output rows are done column-vectorised over the columns whose windows lie inside the input:
// tap by tap for general windows (one pass per tap over the row), all taps of a column at
// once for 2x2 and 3x3 windows compiled for their size (float32). Visiting the taps in
// row-major order with a strict '>' keeps the first maximum; planes without NaNs (checked
// first) compare with a plain max. The few columns whose window crosses the left or right
// edge are done one window at a time. LeNet's rows are 14 wide, so much of the work runs in
// the scalar tails of the vector loops: the selects are written as bit operations there,
// since GCC's branches on random data mispredict (2.5x slower on LeNet's MaxPool). bfloat16
// planes are converted to float and go through the float32 kernel.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/elementwise.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

// Always inlined: GCC does not inline a plain function into a target_clones clone.
#define MC_POOL_INLINE [[gnu::always_inline]] inline
#define MC_POOL_LAMBDA __attribute__((always_inline))

// The taps of output row i that fall inside the input: a in [a0, a1), input row h0 + a.
struct RowTaps {
  int64_t h0, a0, a1;
};
MC_POOL_INLINE RowTaps row_taps(const PoolGeom& g, int64_t i) {
  int64_t h0 = i * g.sh - g.pt;
  int64_t a0 = h0 < 0 ? -h0 : 0;
  int64_t a1 = h0 + g.kh > g.h ? g.h - h0 : g.kh;
  return {h0, a0, a1};
}

// Output columns [lo, hi) whose windows lie inside the input.
struct Interior {
  int64_t lo, hi;
};
Interior interior(const PoolGeom& g) {
  int64_t lo = (g.pl + g.sw - 1) / g.sw;
  int64_t hi = g.w + g.pl >= g.kw ? (g.w + g.pl - g.kw) / g.sw + 1 : 0;
  lo = std::min(lo, g.wo);
  hi = std::max(lo, std::min(hi, g.wo));
  return {lo, hi};
}

// v replaces best as a window's maximum: larger, or the first NaN (kNaN: the plane has NaNs;
// planes without any take the plain comparison, a single max instruction).
template <bool kNaN, class C>
MC_POOL_INLINE bool beats(C v, C best) {
  if constexpr (kNaN) {
    return (v > best) | ((v != v) & (best == best));
  } else {
    return v > best;
  }
}

// c ? a : b as bit operations: branch-free in scalar code too (the tail of a short row), where
// GCC would otherwise branch, and a branch on random data mispredicts half the time. Without
// NaNs (kNaN false), the running maximum is a plain max instruction.
template <class U, class V>
MC_POOL_INLINE V blend(bool c, V a, V b) {
  U m = U(0) - static_cast<U>(c);
  return std::bit_cast<V>(static_cast<U>((std::bit_cast<U>(a) & m) | (std::bit_cast<U>(b) & ~m)));
}
template <bool kNaN, class V>
MC_POOL_INLINE V pick(bool c, V a, V b) {
  if constexpr (!kNaN && std::is_floating_point_v<V>) {
    return a > b ? a : b;  // c is a > b here
  } else {
    return blend<std::conditional_t<sizeof(V) == 8, uint64_t, uint32_t>>(c, a, b);
  }
}

// Whether any of the n values is a NaN.
template <class T>
MC_POOL_INLINE bool any_nan(const T* x, int64_t n) {
  int any = 0;
#pragma omp simd reduction(| : any)
  for (int64_t i = 0; i < n; ++i) {
    compute_t<T> v = static_cast<compute_t<T>>(x[i]);
    any |= v != v;
  }
  return any != 0;
}

// Scratch for one output row: the running maximum (or sum) and the winning tap per column.
template <class C>
struct RowScratch {
  std::vector<C> val;
  std::vector<int32_t> tap;
  explicit RowScratch(int64_t wo) : val(static_cast<size_t>(wo)), tap(static_cast<size_t>(wo)) {}
};

// Calls f(j) for the output columns of a row whose windows cross the left or right edge.
template <class F>
MC_POOL_INLINE void for_border(const PoolGeom& g, const Interior& in, F&& f) {
  for (int64_t j = 0; j < in.lo; ++j) f(j);
  for (int64_t j = in.hi; j < g.wo; ++j) f(j);
}

// The window size as template arguments (kKH, kKW > 0: known at compile time, for the common
// 2x2 and 3x3; 0: read from g), likewise the column stride kSW.
#define MC_POOL_DIMS                   \
  const int64_t sw = kSW ? kSW : g.sw; \
  const int64_t kh = kKH ? kKH : g.kh; \
  const int64_t kw = kKW ? kKW : g.kw; \
  static_cast<void>(kh)

// The taps of output column j that fall inside the input: b in [b0, b1), input column w0 + b.
struct ColTaps {
  int64_t w0, b0, b1;
};
MC_POOL_INLINE ColTaps col_taps(const PoolGeom& g, int64_t j, int64_t sw, int64_t kw) {
  int64_t w0 = j * sw - g.pl;
  return {w0, w0 < 0 ? -w0 : 0, w0 + kw > g.w ? g.w - w0 : kw};
}

// Calls f(input index, tap a * kw + b) for the taps of one window that lie inside the input,
// in row-major order (a border window, done one at a time).
template <class F>
MC_POOL_INLINE void for_window(const PoolGeom& g, const RowTaps& r, const ColTaps& c, int64_t kw,
                               F&& f) {
  for (int64_t a = r.a0; a < r.a1; ++a) {
    for (int64_t b = c.b0; b < c.b1; ++b) {
      f((r.h0 + a) * g.w + c.w0 + b, static_cast<int32_t>(a * kw + b));
    }
  }
}

// Calls f(base, tap a * kw + b) for the taps of row r inside the input, in row-major order
// (from the second on when `skip_first`): tap t of interior column j reads input index
// base + j * sw, so f's loop over the columns is a plain strided one.
template <class F>
MC_POOL_INLINE void for_row_taps(const PoolGeom& g, const RowTaps& r, int64_t kw, bool skip_first,
                                 F&& f) {
  for (int64_t a = r.a0; a < r.a1; ++a) {
    for (int64_t b = skip_first && a == r.a0 ? 1 : 0; b < kw; ++b) {
      f((r.h0 + a) * g.w - g.pl + b, static_cast<int32_t>(a * kw + b));
    }
  }
}

// For output row i of one plane: val[j] = the window's maximum and tap[j] = a * kw + b of its
// first occurrence, for every column j.
template <bool kNaN, int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void max_row(const PoolGeom& g, const Interior& in, const T* x, int64_t i, C* val,
                            int32_t* tap) {
  MC_POOL_DIMS;
  RowTaps r = row_taps(g, i);
  for_border(g, in, [&](int64_t j) MC_POOL_LAMBDA {
    ColTaps c = col_taps(g, j, sw, kw);
    C best = static_cast<C>(x[(r.h0 + r.a0) * g.w + c.w0 + c.b0]);
    int32_t bt = static_cast<int32_t>(r.a0 * kw + c.b0);
    for_window(g, r, c, kw, [&](int64_t k, int32_t t) MC_POOL_LAMBDA {
      C v = static_cast<C>(x[k]);
      if (beats<kNaN>(v, best)) best = v, bt = t;
    });
    val[j] = best, tap[j] = bt;
  });
  // Input index of tap (a, b) of column j: base(a, b) + j * sw (never negative for interior j).
  const int64_t first = (r.h0 + r.a0) * g.w - g.pl;
  if (kKH > 0 && r.a0 == 0 && r.a1 == kh) {
    // A fixed window fully inside vertically: all taps of a column at once.
    for (int64_t j = in.lo; j < in.hi; ++j) {
      const int64_t base = first + j * sw;
      C best = static_cast<C>(x[base]);
      int32_t bt = 0;
      for (int64_t t = 1; t < kh * kw; ++t) {  // one flat loop: fully unrolled
        C v = static_cast<C>(x[base + (t / kw) * g.w + t % kw]);
        bool take = beats<kNaN>(v, best);
        best = pick<kNaN>(take, v, best);
        bt = pick<kNaN>(take, static_cast<int32_t>(t), bt);
      }
      val[j] = best, tap[j] = bt;
    }
    return;
  }
  for (int64_t j = in.lo; j < in.hi; ++j) {
    val[j] = static_cast<C>(x[first + j * sw]);
    tap[j] = static_cast<int32_t>(r.a0 * kw);
  }
  for_row_taps(g, r, kw, true, [&](int64_t base, int32_t t) MC_POOL_LAMBDA {
    for (int64_t j = in.lo; j < in.hi; ++j) {
      C v = static_cast<C>(x[base + j * sw]);
      bool take = beats<kNaN>(v, val[j]);
      val[j] = pick<kNaN>(take, v, val[j]);
      tap[j] = pick<kNaN>(take, t, tap[j]);
    }
  });
}

// For output row i: val[j] = the sum over the window's taps inside the input.
template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void sum_row(const PoolGeom& g, const Interior& in, const T* x, int64_t i, C* val) {
  MC_POOL_DIMS;
  RowTaps r = row_taps(g, i);
  for_border(g, in, [&](int64_t j) MC_POOL_LAMBDA {
    C s = 0;
    for_window(g, r, col_taps(g, j, sw, kw), kw,
               [&](int64_t k, int32_t) MC_POOL_LAMBDA { s += static_cast<C>(x[k]); });
    val[j] = s;
  });
  if (kKH > 0 && r.a0 == 0 && r.a1 == kh) {
    const int64_t first = r.h0 * g.w - g.pl;
    for (int64_t j = in.lo; j < in.hi; ++j) {
      const int64_t base = first + j * sw;
      C s = 0;
      for (int64_t t = 0; t < kh * kw; ++t) s += static_cast<C>(x[base + (t / kw) * g.w + t % kw]);
      val[j] = s;
    }
    return;
  }
  for (int64_t j = in.lo; j < in.hi; ++j) val[j] = 0;
  for_row_taps(g, r, kw, false, [&](int64_t base, int32_t) MC_POOL_LAMBDA {
    for (int64_t j = in.lo; j < in.hi; ++j) val[j] += static_cast<C>(x[base + j * sw]);
  });
}

// For every output row i of one plane: the row's maxima and their taps into val and tap
// (max_row, with the NaN rule when the plane has a NaN), then row(i).
template <int kSW, int kKH, int kKW, class T, class C, class F>
MC_POOL_INLINE void for_max_rows(const PoolGeom& g, const T* x, C* val, int32_t* tap, F&& row) {
  Interior in = interior(g);
  const bool nan = any_nan(x, g.h * g.w);
  for (int64_t i = 0; i < g.ho; ++i) {
    if (nan) {
      max_row<true, kSW, kKH, kKW>(g, in, x, i, val, tap);
    } else {
      max_row<false, kSW, kKH, kKW>(g, in, x, i, val, tap);
    }
    row(i);
  }
}

// The input index of the first maximum of window (i, j), from its tap.
template <int kSW, int kKH, int kKW>
MC_POOL_INLINE int64_t argmax_index(const PoolGeom& g, int64_t i, int64_t j, int32_t tap) {
  MC_POOL_DIMS;
  return (i * g.sh - g.pt + tap / kw) * g.w + j * sw - g.pl + tap % kw;
}

// One plane of each op. `dx` accumulates in the compute type C.
template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void max_plane(const PoolGeom& g, const T* x, T* y, C* val, int32_t* tap) {
  for_max_rows<kSW, kKH, kKW>(g, x, val, tap, [&](int64_t i) MC_POOL_LAMBDA {
    for (int64_t j = 0; j < g.wo; ++j) y[i * g.wo + j] = static_cast<T>(val[j]);
  });
}

template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void max_grad_plane(const PoolGeom& g, const T* x, const T* dy, C* dx, C* val,
                                   int32_t* tap) {
  std::fill(dx, dx + g.h * g.w, C(0));
  for_max_rows<kSW, kKH, kKW>(g, x, val, tap, [&](int64_t i) MC_POOL_LAMBDA {
    for (int64_t j = 0; j < g.wo; ++j) {
      dx[argmax_index<kSW, kKH, kKW>(g, i, j, tap[j])] += static_cast<C>(dy[i * g.wo + j]);
    }
  });
}

// ddy[i, j] = ddx at the first maximum of window (i, j) in x: the argmax of max_grad_plane.
template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void max_grad_grad_plane(const PoolGeom& g, const T* x, const T* ddx, T* ddy, C* val,
                                        int32_t* tap) {
  for_max_rows<kSW, kKH, kKW>(g, x, val, tap, [&](int64_t i) MC_POOL_LAMBDA {
    for (int64_t j = 0; j < g.wo; ++j) {
      ddy[i * g.wo + j] = ddx[argmax_index<kSW, kKH, kKW>(g, i, j, tap[j])];
    }
  });
}

// div[j] = the divisor of window (i, j); interior windows share one.
template <class C>
MC_POOL_INLINE void divisors(const PoolGeom& g, const Interior& in, int64_t i, C* div) {
  C inner = in.lo < in.hi ? static_cast<C>(g.divisor(i, in.lo)) : C(1);
  for (int64_t j = 0; j < g.wo; ++j) {
    div[j] = j >= in.lo && j < in.hi ? inner : static_cast<C>(g.divisor(i, j));
  }
}

template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void avg_plane(const PoolGeom& g, const T* x, T* y, C* val, C* div) {
  Interior in = interior(g);
  for (int64_t i = 0; i < g.ho; ++i) {
    sum_row<kSW, kKH, kKW>(g, in, x, i, val);
    divisors(g, in, i, div);
    for (int64_t j = 0; j < g.wo; ++j) y[i * g.wo + j] = static_cast<T>(val[j] / div[j]);
  }
}

template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void avg_grad_plane(const PoolGeom& g, const T* dy, C* dx, C* val) {
  MC_POOL_DIMS;
  Interior in = interior(g);
  std::fill(dx, dx + g.h * g.w, C(0));
  for (int64_t i = 0; i < g.ho; ++i) {
    RowTaps r = row_taps(g, i);
    divisors(g, in, i, val);
    for (int64_t j = 0; j < g.wo; ++j) val[j] = static_cast<C>(dy[i * g.wo + j]) / val[j];
    for_border(g, in, [&](int64_t j) MC_POOL_LAMBDA {
      for_window(g, r, col_taps(g, j, sw, kw), kw,
                 [&](int64_t k, int32_t) MC_POOL_LAMBDA { dx[k] += val[j]; });
    });
    for_row_taps(g, r, kw, false, [&](int64_t base, int32_t) MC_POOL_LAMBDA {
      for (int64_t j = in.lo; j < in.hi; ++j) dx[base + j * sw] += val[j];
    });
  }
}

enum class Kind { Max, Avg, MaxGrad, AvgGrad, MaxGradGrad };

// One plane of op `k`: x (or dy for AvgGrad) in, y (or dx) out; for MaxGradGrad, `dy` is the
// ddx plane (x's size) and `out` the ddy plane. `acc` is the gradient's accumulator, or for
// Avg a row of scratch for the divisors.
template <int kSW, int kKH, int kKW, class T, class C>
MC_POOL_INLINE void plane_sw(Kind k, const PoolGeom& g, const T* x, const T* dy, T* out, C* acc,
                             C* val, int32_t* tap) {
  if (k == Kind::Max) {
    max_plane<kSW, kKH, kKW>(g, x, out, val, tap);
  } else if (k == Kind::Avg) {
    avg_plane<kSW, kKH, kKW>(g, x, out, val, acc);
  } else if (k == Kind::MaxGrad) {
    max_grad_plane<kSW, kKH, kKW>(g, x, dy, acc, val, tap);
  } else if (k == Kind::MaxGradGrad) {
    max_grad_grad_plane<kSW, kKH, kKW>(g, x, dy, out, val, tap);
  } else {
    avg_grad_plane<kSW, kKH, kKW>(g, dy, acc, val);
  }
}

// float32 gets vectorised clones, with the common window shapes (2x2 and 3x3, column stride
// 1 or 2) compiled for their size; other types and shapes use the general code.
template <int kKH, int kKW>
MC_POOL_INLINE void plane_f32_fixed(Kind k, const PoolGeom& g, const float* x, const float* dy,
                                    float* out, float* acc, float* val, int32_t* tap) {
  if (g.sw == 1) {
    plane_sw<1, kKH, kKW>(k, g, x, dy, out, acc, val, tap);
  } else if (g.sw == 2) {
    plane_sw<2, kKH, kKW>(k, g, x, dy, out, acc, val, tap);
  } else {
    plane_sw<0, kKH, kKW>(k, g, x, dy, out, acc, val, tap);
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void plane_f32(
    Kind k, const PoolGeom& g, const float* x, const float* dy, float* out, float* acc, float* val,
    int32_t* tap) {
  if (g.kh == 2 && g.kw == 2) {
    plane_f32_fixed<2, 2>(k, g, x, dy, out, acc, val, tap);
  } else if (g.kh == 3 && g.kw == 3) {
    plane_f32_fixed<3, 3>(k, g, x, dy, out, acc, val, tap);
  } else {
    plane_f32_fixed<0, 0>(k, g, x, dy, out, acc, val, tap);
  }
}

int64_t plane_grain(const PoolGeom& g) {
  int64_t work = std::max<int64_t>(1, g.ho * g.wo * g.kh * g.kw + g.h * g.w);
  return std::max<int64_t>(1, 32768 / work);
}

// bfloat16: each plane is converted to float (vectorised), pooled by the float32 plane kernel
// and rounded back; max pooling and its gradient's routing are exact either way, the sums of
// AvgPool and the gradients accumulate in float.
void pool_bf16(Kind k, const PoolGeom& g, const bfloat16* x, const bfloat16* dy, bfloat16* out) {
  const bool grad = k == Kind::MaxGrad || k == Kind::AvgGrad;
  const int64_t in_plane = g.h * g.w, out_plane = g.ho * g.wo;
  const int64_t dy_plane = k == Kind::MaxGradGrad ? in_plane : out_plane;
  const int64_t o_plane = grad ? in_plane : out_plane;
  parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t b, int64_t e) {
    RowScratch<float> row(g.wo);
    std::vector<float> fx(x ? static_cast<size_t>(in_plane) : 0);
    std::vector<float> fdy(dy ? static_cast<size_t>(dy_plane) : 0);
    std::vector<float> fo(static_cast<size_t>(o_plane));
    // The gradients accumulate in their output plane; Avg needs a row for its divisors.
    std::vector<float> divisors(grad ? 0 : static_cast<size_t>(g.wo));
    float* acc = grad ? fo.data() : divisors.data();
    for (int64_t p = b; p < e; ++p) {
      if (x) ew::bf16_to_f32(x + p * in_plane, 1, fx.data(), in_plane);
      if (dy) ew::bf16_to_f32(dy + p * dy_plane, 1, fdy.data(), dy_plane);
      plane_f32(k, g, x ? fx.data() : nullptr, dy ? fdy.data() : nullptr, fo.data(), acc,
                row.val.data(), row.tap.data());
      ew::f32_to_bf16(fo.data(), out + p * o_plane, 1, o_plane);
    }
  });
}

template <class T>
void pool(Kind k, const PoolGeom& g, const T* x, const T* dy, T* out) {
  using C = compute_t<T>;
  const bool grad = k == Kind::MaxGrad || k == Kind::AvgGrad;
  const int64_t in_plane = g.h * g.w, out_plane = g.ho * g.wo;
  parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t b, int64_t e) {
    RowScratch<C> row(g.wo);
    // Gradients accumulate in C: in place when T is C, else in a plane buffer.
    std::vector<C> buf(grad ? (std::is_same_v<C, T> ? 0 : static_cast<size_t>(in_plane))
                            : static_cast<size_t>(g.wo));
    for (int64_t p = b; p < e; ++p) {
      const T* xp = x ? x + p * in_plane : nullptr;
      // dy is a pooled plane, or for MaxGradGrad ddx, an input plane.
      const T* dyp = dy ? dy + p * (k == Kind::MaxGradGrad ? in_plane : out_plane) : nullptr;
      T* op = out + p * (grad ? in_plane : out_plane);
      C* acc = buf.data();
      if constexpr (std::is_same_v<C, T>) {
        if (grad) acc = op;
      }
      if constexpr (std::is_same_v<T, float>) {
        plane_f32(k, g, xp, dyp, op, acc, row.val.data(), row.tap.data());
      } else {
        plane_sw<0, 0, 0>(k, g, xp, dyp, op, acc, row.val.data(), row.tap.data());
      }
      if constexpr (!std::is_same_v<C, T>) {
        if (grad) {
          for (int64_t i = 0; i < in_plane; ++i) op[i] = static_cast<T>(acc[i]);
        }
      }
    }
  });
}

void run(const KernelContext& ctx, Kind k) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool three = k == Kind::MaxGrad || k == Kind::AvgGrad || k == Kind::MaxGradGrad;
    const T* dy = three ? ctx.in[2].data<T>() : nullptr;
    if constexpr (std::is_same_v<T, bfloat16>) {
      pool_bf16(k, g, ctx.in[0].data<T>(), dy, ctx.out[0].data<T>());
    } else {
      pool(k, g, ctx.in[0].data<T>(), dy, ctx.out[0].data<T>());
    }
  });
}

}  // namespace

void cpu_max_pool(const KernelContext& ctx) { run(ctx, Kind::Max); }
void cpu_avg_pool(const KernelContext& ctx) { run(ctx, Kind::Avg); }
void cpu_max_pool_grad(const KernelContext& ctx) { run(ctx, Kind::MaxGrad); }
void cpu_avg_pool_grad(const KernelContext& ctx) { run(ctx, Kind::AvgGrad); }
void cpu_max_pool_grad_grad(const KernelContext& ctx) { run(ctx, Kind::MaxGradGrad); }

}  // namespace mycel
