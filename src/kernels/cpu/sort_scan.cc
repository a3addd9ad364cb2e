// Optimised scans and sorts along one axis: CumSum/CumProd, Sort, TopK.
//
// Every op sees the contiguous input as [O, R, I] (outer, the axis, inner).
//
// CumSum/CumProd walk the axis once (from its end when reversed) with one accumulator per
// inner element, in tiles of up to kTile inner elements, so each input row updates a row of
// accumulators (vectorised across the tile); threads take outer indices and tiles. Floats
// accumulate in double, integers and bools in uint64 with wrap-around (the exact result
// modulo the output width), as the reductions do (kernels/cpu/reduce.cc).
//
// Sort copies each line along the axis into a buffer of (value, index) and stable-sorts it;
// TopK selects on the contiguous last axis with a total order (value, then lower index), so
// ties are deterministic: std::partial_sort when sorted, std::nth_element then an index sort
// otherwise. NaN is the largest value. Threads take lines.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "base/parallel.h"
#include "kernels/axis_layout.h"
#include "kernels/cpu/vec_load.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

constexpr int64_t kTile = 256;
constexpr int64_t kScanGrain = 16384;  // elements per task

// The accumulator of a scan over T: double for floats, uint64 (wrapping) for integers and bool.
template <class T>
using acc_t = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, uint64_t>;

template <class Out, class A>
inline Out store_as(A v) {
  if constexpr (std::is_same_v<Out, float16> || std::is_same_v<Out, bfloat16>)
    return Out(static_cast<float>(v));
  else
    return static_cast<Out>(v);
}

template <bool kProd, class T, class Out>
void run_cum(const T* x, Out* y, AxisLayout l, bool exclusive, bool reverse) {
  using A = acc_t<T>;
  const int64_t R = l.len, I = l.inner;
  const int64_t ntiles = (I + kTile - 1) / kTile;
  const int64_t grain =
      std::max<int64_t>(1, kScanGrain / std::max<int64_t>(1, R * std::min(I, kTile)));
  parallel_for(0, l.outer * ntiles, grain, [&](int64_t b, int64_t e) {
    A acc[kTile];
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / ntiles, c0 = (it % ntiles) * kTile;
      const int64_t w = std::min(kTile, I - c0);
      std::fill(acc, acc + w, kProd ? A(1) : A(0));
      for (int64_t step = 0; step < R; ++step) {
        const int64_t r = reverse ? R - 1 - step : step;
        const T* xp = x + (o * R + r) * I + c0;
        Out* yp = y + (o * R + r) * I + c0;
        for (int64_t i = 0; i < w; ++i) {
          const A v = cpu::load_as<A>(xp[i]);
          const A next = kProd ? A(acc[i] * v) : A(acc[i] + v);
          yp[i] = store_as<Out>(exclusive ? acc[i] : next);
          acc[i] = next;
        }
      }
    }
  });
}

// a before b in ascending order: NaN is the largest value.
template <class C>
inline bool lt_nan_last(C a, C b) {
  return a < b || (b != b && a == a);
}

template <class T>
void run_sort(const T* x, T* vals, int32_t* idx, AxisLayout l, bool descending) {
  using C = compute_t<T>;
  const int64_t R = l.len, I = l.inner;
  parallel_for(0, l.outer * I, std::max<int64_t>(1, kScanGrain / std::max<int64_t>(1, R)),
               [&](int64_t b, int64_t e) {
                 // bool lines in bytes (std::vector<bool> packs bits)
                 std::vector<std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>> v(
                     static_cast<size_t>(R));
                 std::vector<int32_t> p(static_cast<size_t>(R));
                 for (int64_t line = b; line < e; ++line) {
                   const int64_t o = line / I, i = line % I, base = o * R * I + i;
                   for (int64_t r = 0; r < R; ++r) v[r] = static_cast<C>(x[base + r * I]);
                   std::iota(p.begin(), p.end(), 0);
                   if (descending)
                     std::stable_sort(p.begin(), p.end(), [&](int32_t a, int32_t c) {
                       return lt_nan_last(v[c], v[a]);
                     });
                   else
                     std::stable_sort(p.begin(), p.end(), [&](int32_t a, int32_t c) {
                       return lt_nan_last(v[a], v[c]);
                     });
                   for (int64_t r = 0; r < R; ++r) {
                     vals[base + r * I] = x[base + p[r] * I];
                     idx[base + r * I] = p[r];
                   }
                 }
               });
}

template <class T>
void run_topk(const T* x, T* vals, int32_t* idx, int64_t rows, int64_t n, int64_t k, bool sorted) {
  using C = compute_t<T>;
  parallel_for(0, rows, std::max<int64_t>(1, kScanGrain / std::max<int64_t>(1, n)),
               [&](int64_t b, int64_t e) {
                 std::vector<int32_t> p(static_cast<size_t>(n));
                 for (int64_t row = b; row < e; ++row) {
                   const T* xr = x + row * n;
                   // A total order: larger value first (NaN largest), then lower index.
                   auto better = [&](int32_t a, int32_t c) {
                     const C va = static_cast<C>(xr[a]), vc = static_cast<C>(xr[c]);
                     if (lt_nan_last(vc, va)) return true;
                     if (lt_nan_last(va, vc)) return false;
                     return a < c;
                   };
                   std::iota(p.begin(), p.end(), 0);
                   if (sorted) {
                     std::partial_sort(p.begin(), p.begin() + k, p.end(), better);
                   } else {
                     std::nth_element(p.begin(), p.begin() + k, p.end(), better);
                     std::sort(p.begin(), p.begin() + k);
                   }
                   for (int64_t j = 0; j < k; ++j) {
                     vals[row * k + j] = xr[p[j]];
                     idx[row * k + j] = p[j];
                   }
                 }
               });
}

}  // namespace

void cpu_cum(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const AxisLayout l = axis_layout(x, ctx.attrs.get_int("axis"), ctx.op.name);
  const bool excl = ctx.attrs.get_bool("exclusive"), rev = ctx.attrs.get_bool("reverse");
  const bool prod = ctx.op.id == OpId::CumProd;
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<std::is_same_v<T, bool>, int64_t, T>;
    if (prod)
      run_cum<true>(x.data<T>(), y.data<Out>(), l, excl, rev);
    else
      run_cum<false>(x.data<T>(), y.data<Out>(), l, excl, rev);
  });
}

void cpu_sort(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  if (x.numel() == 0) return;
  const AxisLayout l = axis_layout(x, ctx.attrs.get_int("axis"), ctx.op.name);
  const bool desc = ctx.attrs.get_bool("descending");
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_sort(x.data<T>(), ctx.out[0].data<T>(), ctx.out[1].data<int32_t>(), l, desc);
  });
}

void cpu_topk(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  if (ctx.out[0].numel() == 0) return;
  const int64_t n = x.ndim() == 0 ? 1 : x.dim(x.ndim() - 1);
  const int64_t rows = x.numel() / n;
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_topk(x.data<T>(), ctx.out[0].data<T>(), ctx.out[1].data<int32_t>(), rows, n,
             ctx.attrs.get_int("k"), ctx.attrs.get_bool("sorted"));
  });
}

}  // namespace mycel
