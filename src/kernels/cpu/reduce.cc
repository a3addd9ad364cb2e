// Optimised reductions: ReduceSum/Mean/Max/Min/Prod and Argmax/Argmin.
//
// Every reduction is brought to the form [O, R, I] (outer, reduced, inner) over the contiguous
// input: size-1 dims are dropped and neighbouring dims of the same kind merged. When the
// reduced dims form several blocks (axis (0, 2, 3) of NCHW), each block is one stage, innermost
// first, and the accumulators of one stage are the input of the next (see plan_stages).
//
// A stage reduces [O, R, I]:
//   I = 1 (the last axis: softmax, row means): each row in kRowLanes accumulators that stay in
//     registers, folded pairwise at the end;
//   1 < I < 32: the contiguous R*I run of one outer index is viewed as rows of w = I * 2^k <= 64
//     elements, lane j accumulating column j % I; the lanes are folded at the end;
//   I >= 32 (outer axes: bias gradients, batch means): tiles of up to 256 columns of the [R, I]
//     matrix, an accumulator row updated from each input row (vectorised across the tile).
// Threads take outer indices, tiles and blocks of R: R is split into at most 16 blocks of a
// size fixed by the shape alone, whose partial results are combined in order, so big single-row
// reductions use every thread and results never depend on the thread count.
//
// Accumulation: sums and products of floats in double (a float32 sum of millions of elements
// stays within ~1e-7 of the exact value), of integers and bools in uint64 with wrap-around
// (equal to the exact result modulo the output width); max/min in the compute type, NaN
// propagating (a NaN anywhere gives NaN, as numpy).
//
// Argmax/Argmin over [O, R, 1] find the extreme with the row kernel, then the first index
// holding it (the first NaN when it is NaN); over [O, R, I] they keep a best value and index
// per column of a tile.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/complex.h"
#include "kernels/cpu/vec_load.h"
#include "ops/op_table.h"

#define MC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

namespace mycel {

namespace {

using cpu::load_as;

enum class RK { Sum, Prod, Max, Min };

constexpr int64_t kTile = 256;      // columns per panel when I >= 32
constexpr int64_t kLanes = 64;      // panel width bound when 1 < I < 32
constexpr int64_t kRowLanes = 32;   // accumulators of a row reduction (I = 1)
constexpr int64_t kBlock = 16384;   // elements that justify an R block of their own
constexpr int64_t kMaxBlocks = 16;  // R blocks per panel at most
constexpr int64_t kGrain = 32768;   // elements per parallel chunk

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <RK K, class T>
using acc_t =
    std::conditional_t<K == RK::Sum || K == RK::Prod,
                       std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, uint64_t>,
                       compute_t<T>>;

// Sum and Prod of bool give Int64; everything else keeps the input dtype.
template <RK K, class T>
using out_t =
    std::conditional_t<(K == RK::Sum || K == RK::Prod) && std::is_same_v<T, bool>, int64_t, T>;

template <RK K, class A>
inline A combine(A a, A v) {
  if constexpr (K == RK::Sum)
    return a + v;
  else if constexpr (K == RK::Prod)
    return a * v;
  else if constexpr (K == RK::Max)
    return (v > a || v != v) ? v : a;
  else
    return (v < a || v != v) ? v : a;
}

template <RK K, class A>
constexpr A identity() {
  if constexpr (K == RK::Sum)
    return A(0);
  else if constexpr (K == RK::Prod)
    return A(1);
  else if constexpr (std::is_floating_point_v<A>)
    return K == RK::Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else
    return K == RK::Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

template <RK K, class T>
inline out_t<K, T> finalize(acc_t<K, T> a, double count, bool mean) {
  using O = out_t<K, T>;
  if constexpr (std::is_same_v<acc_t<K, T>, double>) {
    double v = mean ? a / count : a;
    return O(static_cast<compute_t<T>>(v));
  } else if constexpr (std::is_same_v<acc_t<K, T>, uint64_t>) {
    return static_cast<O>(static_cast<int64_t>(a));
  } else {
    return O(a);
  }
}

// acc[i] = combine(acc[i], x[r * stride + i]) for every row r and column i < w.
template <RK K, class T>
[[gnu::always_inline]] inline void accum_panel(const T* x, int64_t rows, int64_t stride, int64_t w,
                                               acc_t<K, T>* __restrict acc) {
  using A = acc_t<K, T>;
  for (int64_t r = 0; r < rows; ++r) {
    const T* p = x + r * stride;
    for (int64_t i = 0; i < w; ++i) acc[i] = combine<K, A>(acc[i], load_as<A>(p[i]));
  }
}

// max/min without NaN handling: one vmaxps/vminps (a NaN v is skipped, see accum_row).
template <RK K, class A>
inline A plain(A a, A v) {
  if constexpr (K == RK::Max)
    return v > a ? v : a;
  else if constexpr (K == RK::Min)
    return v < a ? v : a;
  else
    return combine<K, A>(a, v);
}

// The reduction of one contiguous run: kRowLanes accumulators that stay in registers, folded
// pairwise at the end; runs shorter than that (and the tail) go one element at a time.
// Max/min keep a NaN flag per lane beside the plain max/min, which is shorter than a
// NaN-propagating select on the loop-carried chain.
template <RK K, class T>
[[gnu::always_inline]] inline acc_t<K, T> accum_row(const T* x, int64_t n) {
  using A = acc_t<K, T>;
  constexpr int64_t L = kRowLanes;
  A r = identity<K, A>();
  uint32_t nan = 0;
  int64_t i = 0;
  if (n >= L) {
    A acc[L];
    uint32_t un[L];
    for (int64_t j = 0; j < L; ++j) {
      acc[j] = load_as<A>(x[j]);
      un[j] = acc[j] != acc[j];
    }
    for (i = L; i + L <= n; i += L) {
      for (int64_t j = 0; j < L; ++j) {
        const A v = load_as<A>(x[i + j]);
        acc[j] = plain<K, A>(acc[j], v);
        un[j] |= v != v;
      }
    }
#pragma GCC unroll 8
    for (int64_t half = L / 2; half > 0; half /= 2) {
      for (int64_t j = 0; j < half; ++j) {
        acc[j] = plain<K, A>(acc[j], acc[j + half]);
        un[j] |= un[j + half];
      }
    }
    r = acc[0];
    nan = un[0];
  }
  for (; i < n; ++i) {
    const A v = load_as<A>(x[i]);
    r = plain<K, A>(r, v);
    nan |= v != v;
  }
  if constexpr ((K == RK::Max || K == RK::Min) && std::is_floating_point_v<A>) {
    if (nan) return std::numeric_limits<A>::quiet_NaN();
  }
  return r;
}

template <RK K, class T>
struct Kern {
  static void panel(const T* x, int64_t rows, int64_t stride, int64_t w, acc_t<K, T>* acc) {
    accum_panel<K, T>(x, rows, stride, w, acc);
  }
  static acc_t<K, T> row(const T* x, int64_t n) { return accum_row<K, T>(x, n); }
};

// Multiversioned kernels for the dtypes training spends its time on.
#define MC_HOT(K, T, NAME)                                                                       \
  MC_CLONES void NAME##_panel(const T* x, int64_t rows, int64_t stride, int64_t w,               \
                              acc_t<RK::K, T>* acc) {                                            \
    accum_panel<RK::K, T>(x, rows, stride, w, acc);                                              \
  }                                                                                              \
  MC_CLONES acc_t<RK::K, T> NAME##_row(const T* x, int64_t n) {                                  \
    return accum_row<RK::K, T>(x, n);                                                            \
  }                                                                                              \
  template <>                                                                                    \
  struct Kern<RK::K, T> {                                                                        \
    static void panel(const T* x, int64_t rows, int64_t stride, int64_t w, acc_t<RK::K, T>* a) { \
      NAME##_panel(x, rows, stride, w, a);                                                       \
    }                                                                                            \
    static acc_t<RK::K, T> row(const T* x, int64_t n) { return NAME##_row(x, n); }               \
  };
MC_HOT(Sum, float, sum_f32)
MC_HOT(Max, float, max_f32)
MC_HOT(Min, float, min_f32)
MC_HOT(Sum, double, sum_f64)
MC_HOT(Max, double, max_f64)
MC_HOT(Min, double, min_f64)
MC_HOT(Sum, float16, sum_f16)
MC_HOT(Max, float16, max_f16)
MC_HOT(Min, float16, min_f16)
MC_HOT(Sum, bfloat16, sum_bf16)
MC_HOT(Max, bfloat16, max_bf16)
MC_HOT(Min, bfloat16, min_bf16)
MC_HOT(Sum, int32_t, sum_i32)
MC_HOT(Sum, int64_t, sum_i64)
MC_HOT(Sum, uint64_t, sum_u64)
MC_HOT(Sum, bool, sum_bool)
#undef MC_HOT

// Reduces x, viewed as [O, R, I], over R: store(flat index into [O, I], accumulator).
template <RK K, class In, class Store>
void reduce_ori(const In* x, int64_t O, int64_t R, int64_t I, const Store& store) {
  using A = acc_t<K, In>;
  if (I == 1) {
    // Rows: R in at most kMaxBlocks blocks of a size fixed by the shape, combined in order.
    const int64_t nb = std::clamp<int64_t>(ceil_div(R, kBlock), 1, kMaxBlocks);
    const int64_t rb = std::max<int64_t>(1, ceil_div(R, nb));
    const int64_t nrb = std::max<int64_t>(1, ceil_div(R, rb));
    auto block = [&](int64_t o, int64_t b) {
      const int64_t r0 = b * rb;
      return Kern<K, In>::row(x + o * R + r0, std::max<int64_t>(0, std::min(rb, R - r0)));
    };
    if (nrb == 1) {
      parallel_for(0, O, std::max<int64_t>(1, kGrain / std::max<int64_t>(R, 1)),
                   [&](int64_t lo, int64_t hi) {
                     for (int64_t o = lo; o < hi; ++o) store(o, block(o, 0));
                   });
      return;
    }
    std::unique_ptr<A[]> part(new A[static_cast<size_t>(O * nrb)]);
    parallel_for(0, O * nrb, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t it = lo; it < hi; ++it) part[it] = block(it / nrb, it % nrb);
    });
    for (int64_t o = 0; o < O; ++o) {
      A a = part[o * nrb];
      for (int64_t b = 1; b < nrb; ++b) a = combine<K, A>(a, part[o * nrb + b]);
      store(o, a);
    }
    return;
  }
  const bool folded = I < 32;
  int64_t lanes = 1;  // folded: a panel row holds `lanes` consecutive rows of [R, I]
  while (folded && lanes * 2 * I <= kLanes && lanes * 2 <= R) lanes *= 2;
  const int64_t w = folded ? I * lanes : 0;
  const int64_t rows = folded ? R / lanes : R;  // full panel rows per outer index
  const int64_t ntiles = folded ? 1 : ceil_div(I, kTile);
  const int64_t row_work = folded ? w : std::min(I, kTile);
  int64_t nrb = std::clamp<int64_t>(ceil_div(rows * row_work, kBlock), 1, kMaxBlocks);
  const int64_t rb = std::max<int64_t>(1, ceil_div(rows, nrb));
  nrb = std::max<int64_t>(1, ceil_div(rows, rb));
  std::unique_ptr<A[]> part(nrb > 1 ? new A[static_cast<size_t>(O * nrb * I)] : nullptr);

  auto item = [&](int64_t o, int64_t t, int64_t b) {
    A acc[kTile];
    const int64_t c0 = folded ? 0 : t * kTile;
    const int64_t wt = folded ? w : std::min(kTile, I - c0);
    const int64_t stride = folded ? w : I;
    std::fill(acc, acc + wt, identity<K, A>());
    const In* base = x + o * R * I + c0;
    const int64_t r0 = b * rb, r1 = std::min(rows, r0 + rb);
    Kern<K, In>::panel(base + r0 * stride, r1 - r0, stride, wt, acc);
    int64_t nout = wt;
    if (folded) {
      if (b == nrb - 1) {
        for (int64_t e = rows * w; e < R * I; ++e)
          acc[e - rows * w] = combine<K, A>(acc[e - rows * w], load_as<A>(base[e]));
      }
      for (int64_t half = lanes / 2; half > 0; half /= 2) {
        for (int64_t j = 0; j < half * I; ++j) acc[j] = combine<K, A>(acc[j], acc[j + half * I]);
      }
      nout = I;
    }
    if (nrb == 1) {
      for (int64_t i = 0; i < nout; ++i) store(o * I + c0 + i, acc[i]);
    } else {
      A* dst = part.get() + (o * nrb + b) * I + c0;
      for (int64_t i = 0; i < nout; ++i) dst[i] = acc[i];
    }
  };
  const int64_t items = O * ntiles * nrb;
  const int64_t item_work = std::max<int64_t>(1, rb * row_work);
  parallel_for(0, items, std::max<int64_t>(1, kGrain / item_work), [&](int64_t lo, int64_t hi) {
    int64_t b = lo % nrb, t = (lo / nrb) % ntiles, o = lo / (nrb * ntiles);
    for (int64_t it = lo; it < hi; ++it) {
      item(o, t, b);
      if (++b == nrb) {
        b = 0;
        if (++t == ntiles) {
          t = 0;
          ++o;
        }
      }
    }
  });
  if (nrb == 1) return;
  parallel_for(0, O * I, std::max<int64_t>(1, kGrain / nrb), [&](int64_t lo, int64_t hi) {
    for (int64_t oi = lo; oi < hi; ++oi) {
      const A* p = part.get() + (oi / I) * nrb * I + oi % I;
      A a = p[0];
      for (int64_t k = 1; k < nrb; ++k) a = combine<K, A>(a, p[k * I]);
      store(oi, a);
    }
  });
}

// A reduction as a sequence of [O, R, I] stages: size-1 dims dropped, neighbouring dims of the
// same kind merged, then each block of reduced dims, innermost first, is one stage whose
// output (accumulators, not yet rounded to the output dtype) feeds the next. Reducing
// (0, 2, 3) of NCHW is two stages, [N*C, H*W, 1] then [1, N, C], with no transposing copy.
struct Stage {
  int64_t O, R, I;
};

SmallVector<Stage, 4> plan_stages(const Shape& shape, const SmallVector<bool, 8>& red) {
  SmallVector<int64_t, 8> gsize;
  SmallVector<bool, 8> gred;
  for (size_t d = 0; d < red.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!gsize.empty() && gred.back() == red[d]) {
      gsize.back() *= shape[d];
    } else {
      gsize.push_back(shape[d]);
      gred.push_back(red[d]);
    }
  }
  SmallVector<Stage, 4> st;
  for (size_t g = gsize.size(); g-- > 0;) {
    if (!gred[g]) continue;
    Stage s{1, gsize[g], 1};
    for (size_t k = 0; k < g; ++k) s.O *= gsize[k];
    for (size_t k = g + 1; k < gsize.size(); ++k) s.I *= gred[k] ? 1 : gsize[k];
    st.push_back(s);
  }
  if (st.empty()) st.push_back({1, 1, numel(shape)});
  return st;
}

template <RK K, class T>
void run_reduce(const T* x, out_t<K, T>* y, const SmallVector<Stage, 4>& st, bool mean) {
  using A = acc_t<K, T>;
  static_assert(std::is_same_v<acc_t<K, A>, A>, "later stages accumulate in the same type");
  double count = 1;
  for (const Stage& s : st) count *= static_cast<double>(s.R);
  auto fin = [&](int64_t i, A a) { y[i] = finalize<K, T>(a, count, mean); };
  if (st.size() == 1) {
    reduce_ori<K>(x, st[0].O, st[0].R, st[0].I, fin);
    return;
  }
  auto buffer = [](const Stage& s) {
    return std::unique_ptr<A[]>(new A[static_cast<size_t>(std::max<int64_t>(1, s.O * s.I))]);
  };
  std::unique_ptr<A[]> cur = buffer(st[0]);
  reduce_ori<K>(x, st[0].O, st[0].R, st[0].I, [&](int64_t i, A a) { cur[i] = a; });
  for (size_t k = 1; k < st.size(); ++k) {
    const Stage& s = st[k];
    if (k + 1 == st.size()) {
      reduce_ori<K>(cur.get(), s.O, s.R, s.I, fin);
    } else {
      std::unique_ptr<A[]> next = buffer(s);
      reduce_ori<K>(cur.get(), s.O, s.R, s.I, [&](int64_t i, A a) { next[i] = a; });
      cur = std::move(next);
    }
  }
}

SmallVector<bool, 8> reduced_dims(const std::vector<int64_t>& axis, int64_t nd,
                                  std::string_view op) {
  SmallVector<bool, 8> red(static_cast<size_t>(nd), axis.empty());
  for (int64_t a : axis) {
    int64_t n = normalize_axis(a, nd, op);
    if (nd > 0) red[static_cast<size_t>(n)] = true;
  }
  return red;
}

// ---- Argmax / Argmin ------------------------------------------------------------------

// The first index i < n with p[i] == m (kNan: the first NaN), scanning kRowLanes at a time.
template <bool kNan, class T>
int64_t find_first(const T* p, int64_t n, compute_t<T> m) {
  using C = compute_t<T>;
  auto hit = [m](C v) { return kNan ? v != v : v == m; };
  int64_t at = 0;
  for (; at + kRowLanes <= n; at += kRowLanes) {
    uint32_t any = 0;
    for (int64_t j = 0; j < kRowLanes; ++j) any |= hit(load_as<C>(p[at + j]));
    if (any) break;
  }
  while (at < n && !hit(load_as<C>(p[at]))) ++at;
  return at;
}

template <bool kMax, class T, class Idx>
void arg_ori(const T* x, Idx* y, int64_t O, int64_t R, int64_t I) {
  using C = compute_t<T>;
  constexpr RK K = kMax ? RK::Max : RK::Min;
  if (I == 1) {
    parallel_for(0, O, std::max<int64_t>(1, kGrain / R), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* p = x + o * R;
        const C m = Kern<K, T>::row(p, R);
        y[o] = static_cast<Idx>(m != m ? find_first<true>(p, R, m) : find_first<false>(p, R, m));
      }
    });
    return;
  }
  const int64_t ntiles = ceil_div(I, kTile);
  const int64_t tile_work = std::max<int64_t>(1, R * std::min(I, kTile));
  parallel_for(0, O * ntiles, std::max<int64_t>(1, kGrain / tile_work), [&](int64_t b, int64_t e) {
    C best[kTile];
    int64_t idx[kTile];
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / ntiles, c0 = (it % ntiles) * kTile;
      const int64_t w = std::min(kTile, I - c0);
      const T* base = x + o * R * I + c0;
      for (int64_t i = 0; i < w; ++i) {
        best[i] = load_as<C>(base[i]);
        idx[i] = 0;
      }
      for (int64_t r = 1; r < R; ++r) {
        const T* p = base + r * I;
        for (int64_t i = 0; i < w; ++i) {
          const C v = load_as<C>(p[i]);
          const bool better = kMax ? v > best[i] : v < best[i];
          const bool take = better || (v != v && best[i] == best[i]);
          best[i] = take ? v : best[i];
          idx[i] = take ? r : idx[i];
        }
      }
      for (int64_t i = 0; i < w; ++i) y[o * I + c0 + i] = static_cast<Idx>(idx[i]);
    }
  });
}

}  // namespace

void cpu_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const SmallVector<Stage, 4> st =
      plan_stages(x.shape(), reduced_dims(ctx.attrs.get_ints("axis"), x.ndim(), ctx.op.name));
  const bool mean = ctx.op.id == OpId::ReduceMean;
  if (is_complex(x.dtype())) {  // Sum, Mean, Prod (the infer rule refuses Max and Min)
    complex_reduce(ctx);
    return;
  }
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x.data<T>();
    switch (ctx.op.id) {
      case OpId::ReduceSum:
      case OpId::ReduceMean:
        run_reduce<RK::Sum, T>(xs, y.data<out_t<RK::Sum, T>>(), st, mean);
        break;
      case OpId::ReduceProd:
        run_reduce<RK::Prod, T>(xs, y.data<out_t<RK::Prod, T>>(), st, false);
        break;
      case OpId::ReduceMax:
        run_reduce<RK::Max, T>(xs, y.data<T>(), st, false);
        break;
      case OpId::ReduceMin:
        run_reduce<RK::Min, T>(xs, y.data<T>(), st, false);
        break;
      default:
        MC_ASSERT(false, "cpu_reduce on ", ctx.op.name);
    }
  });
}

void cpu_arg_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const int64_t nd = x.ndim();
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), nd, ctx.op.name);
  int64_t O = 1, R = 1, I = 1;
  for (int64_t d = 0; d < nd; ++d) (d < axis ? O : d == axis ? R : I) *= x.dim(d);
  const bool is_max = ctx.op.id == OpId::Argmax;
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto run = [&](auto* out) {
      if (is_max)
        arg_ori<true>(x.data<T>(), out, O, R, I);
      else
        arg_ori<false>(x.data<T>(), out, O, R, I);
    };
    if (y.dtype() == DType::Int32)
      run(y.data<int32_t>());
    else
      run(y.data<int64_t>());
  });
}

}  // namespace mycel
