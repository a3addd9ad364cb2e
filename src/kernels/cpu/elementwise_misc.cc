// CPU kernels of Select, Cast and the fills (ZerosLike, OnesLike, Fill), and the bfloat16
// converters of elementwise.h.
#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/vec_load.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

// ---- Select: moves elements by size, so one loop per element width serves every dtype ------

template <class U>
MC_EW_INLINE void select_loop(int64_t n, const char* c, int64_t sc, const char* x, int64_t sx,
                              const char* y, int64_t sy, char* o, int64_t so) {
  const bool* cp = reinterpret_cast<const bool*>(c);
  const U* xp = reinterpret_cast<const U*>(x);
  const U* yp = reinterpret_cast<const U*>(y);
  U* op = reinterpret_cast<U*>(o);
  constexpr int64_t us = sizeof(U);
  const int64_t ex = sx / us, ey = sy / us, eo = so / us;
  if (sc == 1 && ex == 1 && ey == 1 && eo == 1) {
    for (int64_t i = 0; i < n; ++i) op[i] = cp[i] ? xp[i] : yp[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) op[i * eo] = cp[i * sc] ? xp[i * ex] : yp[i * ey];
}

using SelectLoop = void (*)(int64_t n, const char* c, int64_t sc, const char* x, int64_t sx,
                            const char* y, int64_t sy, char* o, int64_t so);

#define MC_EW_SELECT(U)                                                                         \
  MC_EW_CLONES void select_##U(int64_t n, const char* c, int64_t sc, const char* x, int64_t sx, \
                               const char* y, int64_t sy, char* o, int64_t so) {                \
    select_loop<U>(n, c, sc, x, sx, y, sy, o, so);                                              \
  }
MC_EW_SELECT(uint8_t)
MC_EW_SELECT(uint16_t)
MC_EW_SELECT(uint32_t)
MC_EW_SELECT(uint64_t)
#undef MC_EW_SELECT

// complex128's 16-byte elements, moved whole.
void select_16(int64_t n, const char* c, int64_t sc, const char* x, int64_t sx, const char* y,
               int64_t sy, char* o, int64_t so) {
  select_loop<complex128>(n, c, sc, x, sx, y, sy, o, so);
}

SelectLoop select_for_size(size_t size) {
  switch (size) {
    case 1:
      return &select_uint8_t;
    case 2:
      return &select_uint16_t;
    case 4:
      return &select_uint32_t;
    case 16:
      return &select_16;
    default:
      MC_ASSERT(size == 8, "element size ", size);
      return &select_uint64_t;
  }
}

// ---- Cast ---------------------------------------------------------------------------------

// float32 <-> bfloat16 casts on the vectorised converters (the activations' casts of mixed
// precision).
void cast_bf16_f32(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  float* yp = reinterpret_cast<float*>(y);
  if (sy == 4) {
    ew::bf16_to_f32(reinterpret_cast<const bfloat16*>(x), sx / 2, yp, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    yp[i * (sy / 4)] = reinterpret_cast<const bfloat16*>(x)[i * (sx / 2)];
}

void cast_f32_bf16(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  const float* xp = reinterpret_cast<const float*>(x);
  if (sx == 4) {
    ew::f32_to_bf16(xp, reinterpret_cast<bfloat16*>(y), sy / 2, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) reinterpret_cast<bfloat16*>(y)[i * (sy / 2)] = xp[i * (sx / 4)];
}

template <class D, class S>
void cast_fn(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  const S* xp = reinterpret_cast<const S*>(x);
  D* yp = reinterpret_cast<D*>(y);
  const int64_t ex = sx / static_cast<int64_t>(sizeof(S));
  const int64_t ey = sy / static_cast<int64_t>(sizeof(D));
  if (ex == 1 && ey == 1) {
    for (int64_t i = 0; i < n; ++i) yp[i] = ew::cast_value<D, S>(xp[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) yp[i * ey] = ew::cast_value<D, S>(xp[i * ex]);
}

}  // namespace

namespace ew {

MC_EW_CLONES void bf16_to_f32(const bfloat16* x, int64_t ex, float* y, int64_t n) {
  const uint16_t* xb = reinterpret_cast<const uint16_t*>(x);
  if (ex == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = cpu::bf16_to_float(xb[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = cpu::bf16_to_float(xb[i * ex]);
}

MC_EW_CLONES void f32_to_bf16(const float* x, bfloat16* y, int64_t ey, int64_t n) {
  if (ey == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = bfloat16(x[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i * ey] = bfloat16(x[i]);
}

}  // namespace ew

void cpu_select(const KernelContext& ctx) {
  const Tensor& c = ctx.in[0];
  const Tensor& x = ctx.in[1];
  const Tensor& y = ctx.in[2];
  const Tensor& o = ctx.out[0];
  const int64_t n = o.numel();
  if (n == 0) return;
  const SelectLoop fn = select_for_size(o.itemsize());
  const int64_t isz = static_cast<int64_t>(o.itemsize());
  char* cp = static_cast<char*>(c.raw_data());
  char* xp = static_cast<char*>(x.raw_data());
  char* yp = static_cast<char*>(y.raw_data());
  char* op = static_cast<char*>(o.raw_data());
  if (c.numel() == n && x.numel() == n && y.numel() == n && c.is_contiguous() &&
      x.is_contiguous() && y.is_contiguous()) {
    parallel_for(0, n, ew::kGrainCheap, [&](int64_t b, int64_t e) {
      fn(e - b, cp + b, 1, xp + b * isz, isz, yp + b * isz, isz, op + b * isz, isz);
    });
    return;
  }
  const Shape sc = broadcast_strides(c.shape(), c.strides(), o.shape());
  const Shape sx = broadcast_strides(x.shape(), x.strides(), o.shape());
  const Shape sy = broadcast_strides(y.shape(), y.strides(), o.shape());
  StridedLoop<4> loop(o.shape(), {o.strides().data(), sc.data(), sx.data(), sy.data()},
                      {isz, 1, isz, isz}, {op, cp, xp, yp});
  loop.run_parallel(ew::kGrainCheap, [fn](int64_t m, char** p, const int64_t* st) {
    fn(m, p[1], st[1], p[2], st[2], p[3], st[3], p[0], st[0]);
  });
}

void cpu_cast(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const std::string_view name = ctx.op.name;
  if (x.dtype() == DType::BFloat16 && y.dtype() == DType::Float32) {
    ew::run_unary(x, y, &cast_bf16_f32, ew::kGrainCheap);
    return;
  }
  if (x.dtype() == DType::Float32 && y.dtype() == DType::BFloat16) {
    ew::run_unary(x, y, &cast_f32_bf16, ew::kGrainCheap);
    return;
  }
  ew::UnaryLoop fn = dispatch_any(y.dtype(), name, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    return dispatch_any(x.dtype(), name, [](auto stag) -> ew::UnaryLoop {
      using S = typename decltype(stag)::type;
      return &cast_fn<D, S>;
    });
  });
  ew::run_unary(x, y, fn, ew::kGrainCheap);
}

void cpu_fill(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  double v = 0.0;
  switch (ctx.op.id) {
    case OpId::ZerosLike:
      v = 0.0;
      break;
    case OpId::OnesLike:
      v = 1.0;
      break;
    case OpId::Fill:
      v = ctx.attrs.get_float("value");
      break;
    default:
      MC_ASSERT(false, "cpu_fill has no kernel for ", ctx.op.name);
  }
  dispatch_any(out.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = ew::cast_value<T, double>(v);
    T* p = out.data<T>();
    parallel_for(0, n, ew::kGrainCheap,
                 [&](int64_t b, int64_t e) { std::fill(p + b, p + e, value); });
  });
}

}  // namespace mycel
