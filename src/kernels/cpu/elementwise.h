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
#include "kernels/elementwise_forms.h"
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

// wrap_add, wrap_sub, wrap_mul, wrap_neg: kernels/elementwise_forms.h.

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

// ---- bfloat16 through the float32 loops -------------------------------------------------
//
// bfloat16 elementwise ops load a block of each operand into float buffers (vectorised),
// run the op's multiversioned float32 loop on them and round the block back: the float32
// kernel's speed at half the memory traffic, and the same values as computing each element in
// float (the float32 loops are the same arithmetic as the scalar forms).

// y[i] = float(x[i * ex]) for i < n (ex in elements; 0 repeats one value).
void bf16_to_f32(const bfloat16* x, int64_t ex, float* y, int64_t n);
// y[i * ey] = bfloat16(x[i]) for i < n (half.h's branch-free rounding, vectorised).
void f32_to_bf16(const float* x, bfloat16* y, int64_t ey, int64_t n);

inline constexpr int64_t kBf16Block = 1024;

template <UnaryLoop F32>
void bf16_unary(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  alignas(64) float a[kBf16Block], r[kBf16Block];
  const auto* xp = reinterpret_cast<const bfloat16*>(x);
  auto* yp = reinterpret_cast<bfloat16*>(y);
  const int64_t ex = sx / 2, ey = sy / 2;
  for (int64_t b = 0; b < n; b += kBf16Block) {
    const int64_t m = std::min(kBf16Block, n - b);
    bf16_to_f32(xp + b * ex, ex, a, m);
    F32(m, reinterpret_cast<const char*>(a), 4, reinterpret_cast<char*>(r), 4);
    f32_to_bf16(r, yp + b * ey, ey, m);
  }
}

template <BinaryLoop F32>
void bf16_binary(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb, char* o,
                 int64_t so) {
  alignas(64) float fa[kBf16Block], fb[kBf16Block], r[kBf16Block];
  const auto* ap = reinterpret_cast<const bfloat16*>(a);
  const auto* bp = reinterpret_cast<const bfloat16*>(b);
  auto* op = reinterpret_cast<bfloat16*>(o);
  const int64_t ea = sa / 2, eb = sb / 2, eo = so / 2;
  // A broadcast operand (stride 0) is converted once and read with stride 0.
  if (ea == 0) bf16_to_f32(ap, 0, fa, 1);
  if (eb == 0) bf16_to_f32(bp, 0, fb, 1);
  for (int64_t i = 0; i < n; i += kBf16Block) {
    const int64_t m = std::min(kBf16Block, n - i);
    if (ea != 0) bf16_to_f32(ap + i * ea, ea, fa, m);
    if (eb != 0) bf16_to_f32(bp + i * eb, eb, fb, m);
    F32(m, reinterpret_cast<const char*>(fa), ea ? 4 : 0, reinterpret_cast<const char*>(fb),
        eb ? 4 : 0, reinterpret_cast<char*>(r), 4);
    f32_to_bf16(r, op + i * eo, eo, m);
  }
}

// Conversion of one value as Cast defines it: tensor/dtype.h's saturate_cast.
template <class D, class S>
inline D cast_value(S v) {
  return saturate_cast<D, S>(v);
}

}  // namespace mycel::ew
