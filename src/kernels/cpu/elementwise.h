// Shared machinery of the elementwise CPU kernels (elementwise_unary.cc, _binary.cc,
// _misc.cc).
//
// A kernel is a 1-d loop over byte-strided operands, picked once per call from (op, dtype):
//   UnaryLoop(n, x, x_stride, y, y_stride)
//   BinaryLoop(n, a, a_stride, b, b_stride, out, out_stride)
// The drivers below hand it either the whole tensor (contiguous operands, or a one-element
// operand with stride 0), split over threads in chunks of `grain` elements, or the rows of a
// StridedLoop for broadcast and strided layouts. Loops test for the common stride patterns
// (all unit, one operand a scalar) and run plain indexed loops there, which GCC vectorises.
//
// Small tensors go straight to the loop: no StridedLoop, no thread-pool wake-up, no heap
// allocation, so the eager per-op cost stays with the dispatcher.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "base/parallel.h"
#include "tensor/strided.h"
#include "tensor/tensor.h"

// Hot float loops are compiled for AVX-512, AVX2 and baseline x86-64 and picked at load time.
#define MC_EW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define MC_EW_INLINE [[gnu::always_inline]] inline

namespace mycel::ew {

// Elements per thread chunk: cheap ops are memory bound, transcendental ones do ~20x the work
// per element and split sooner.
inline constexpr int64_t kGrainCheap = 32768;
inline constexpr int64_t kGrainHeavy = 8192;

using UnaryLoop = void (*)(int64_t n, const char* x, int64_t sx, char* y, int64_t sy);
using BinaryLoop = void (*)(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb,
                            char* o, int64_t so);

// Integer arithmetic that wraps (two's complement) instead of overflowing into UB.
template <class T>
using wide_unsigned_t = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
template <class T>
MC_EW_INLINE T wrap_add(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
}
template <class T>
MC_EW_INLINE T wrap_sub(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
}
template <class T>
MC_EW_INLINE T wrap_mul(T a, T b) {
  using W = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
}
template <class T>
MC_EW_INLINE T wrap_neg(T a) {
  return wrap_sub(T(0), a);
}

// y = f(x) over tensors of one shape; x may be strided, y is contiguous.
inline void run_unary(const Tensor& x, const Tensor& y, UnaryLoop fn, int64_t grain) {
  const int64_t n = y.numel();
  if (n == 0) return;
  const int64_t isz = static_cast<int64_t>(x.itemsize());
  const int64_t osz = static_cast<int64_t>(y.itemsize());
  char* xp = static_cast<char*>(x.raw_data());
  char* yp = static_cast<char*>(y.raw_data());
  if (x.is_contiguous()) {
    parallel_for(0, n, grain,
                 [&](int64_t b, int64_t e) { fn(e - b, xp + b * isz, isz, yp + b * osz, osz); });
    return;
  }
  StridedLoop<2> loop(y.shape(), {y.strides().data(), x.strides().data()}, {osz, isz}, {yp, xp});
  loop.run_parallel(
      grain, [fn](int64_t m, char** p, const int64_t* st) { fn(m, p[1], st[1], p[0], st[0]); });
}

// o = f(a, b) with numpy broadcasting; a and b have one dtype and may be strided.
inline void run_binary(const Tensor& a, const Tensor& b, const Tensor& o, BinaryLoop fn,
                       int64_t grain) {
  const int64_t n = o.numel();
  if (n == 0) return;
  const int64_t isz = static_cast<int64_t>(a.itemsize());
  const int64_t osz = static_cast<int64_t>(o.itemsize());
  char* ap = static_cast<char*>(a.raw_data());
  char* bp = static_cast<char*>(b.raw_data());
  char* op = static_cast<char*>(o.raw_data());
  const int64_t na = a.numel(), nb = b.numel();
  if ((na == n || na == 1) && (nb == n || nb == 1) && a.is_contiguous() && b.is_contiguous()) {
    const int64_t sa = na == n ? isz : 0, sb = nb == n ? isz : 0;
    parallel_for(0, n, grain, [&](int64_t lo, int64_t hi) {
      fn(hi - lo, ap + lo * sa, sa, bp + lo * sb, sb, op + lo * osz, osz);
    });
    return;
  }
  const Shape sa = broadcast_strides(a.shape(), a.strides(), o.shape());
  const Shape sb = broadcast_strides(b.shape(), b.strides(), o.shape());
  StridedLoop<3> loop(o.shape(), {o.strides().data(), sa.data(), sb.data()}, {osz, isz, isz},
                      {op, ap, bp});
  loop.run_parallel(grain, [fn](int64_t m, char** p, const int64_t* st) {
    fn(m, p[1], st[1], p[2], st[2], p[0], st[0]);
  });
}

// Conversion of one value as Cast defines it: tensor/dtype.h's saturate_cast.
template <class D, class S>
inline D cast_value(S v) {
  return saturate_cast<D, S>(v);
}

}  // namespace mycel::ew
