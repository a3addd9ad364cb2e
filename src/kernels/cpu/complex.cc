// CPU kernels for complex64/complex128 (see complex.h).
#include "kernels/cpu/complex.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "base/parallel.h"
#include "kernels/complex_real_input.h"
#include "ops/complex_ops.h"

namespace mycel {

namespace {

// ---- elementwise loops ------------------------------------------------------------------

// y[i] = F(x[i]) over byte strides (run_unary's loop form).
template <class T, class R, class F>
void unary_loop(int64_t n, const char* x, int64_t sx, char* y, int64_t sy) {
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<R*>(y + i * sy) = F::f(*reinterpret_cast<const T*>(x + i * sx));
}

template <class T, class R, class F>
void binary_loop(int64_t n, const char* a, int64_t sa, const char* b, int64_t sb, char* o,
                 int64_t so) {
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<R*>(o + i * so) =
        F::f(*reinterpret_cast<const T*>(a + i * sa), *reinterpret_cast<const T*>(b + i * sb));
  }
}

#define MC_CX_UNARY(Name, expr) \
  struct Name {                 \
    template <class T>          \
    static T f(T x) {           \
      return expr;              \
    }                           \
  };
MC_CX_UNARY(NegF, -x)
MC_CX_UNARY(SquareF, x* x)
MC_CX_UNARY(ExpF, std::exp(x))
MC_CX_UNARY(LogF, std::log(x))
MC_CX_UNARY(SqrtF, std::sqrt(x))
MC_CX_UNARY(ReciprocalF, T(1) / x)
MC_CX_UNARY(SinF, std::sin(x))
MC_CX_UNARY(CosF, std::cos(x))
MC_CX_UNARY(TanF, std::tan(x))
MC_CX_UNARY(AtanF, std::atan(x))
MC_CX_UNARY(SinhF, std::sinh(x))
MC_CX_UNARY(CoshF, std::cosh(x))
MC_CX_UNARY(TanhF, std::tanh(x))
MC_CX_UNARY(ConjF, std::conj(x))
// sign(z) = z / |z|, 0 for 0 (PyTorch's sgn, MindSpore's Sign on complex).
MC_CX_UNARY(SignF, x == T(0) ? T(0) : x / std::abs(x))
#undef MC_CX_UNARY

struct AbsF {
  template <class T>
  static typename T::value_type f(T x) {
    return std::abs(x);  // hypot: no overflow for large parts
  }
};
struct RealF {
  template <class T>
  static typename T::value_type f(T x) {
    return x.real();
  }
};
struct ImagF {
  template <class T>
  static typename T::value_type f(T x) {
    return x.imag();
  }
};
struct AngleF {
  template <class T>
  static typename T::value_type f(T x) {
    return std::arg(x);
  }
};

#define MC_CX_BINARY(Name, expr) \
  struct Name {                  \
    template <class T>           \
    static T f(T a, T b) {       \
      return expr;               \
    }                            \
  };
MC_CX_BINARY(AddF, a + b)
MC_CX_BINARY(SubF, a - b)
MC_CX_BINARY(MulF, a* b)
MC_CX_BINARY(DivF, a / b)
// a ** 0 is 1 (numpy and PyTorch), 0 ** b is 0 for b with a positive real part; else
// exp(b log a).
MC_CX_BINARY(PowF, b == T(0) ? T(1) : std::pow(a, b))
#undef MC_CX_BINARY

struct EqualF {
  template <class T>
  static bool f(T a, T b) {
    return a == b;
  }
};
struct NotEqualF {
  template <class T>
  static bool f(T a, T b) {
    return a != b;
  }
};
struct MakeComplexF {  // Complex(real, imag)
  template <class P>
  static std::complex<P> f(P re, P im) {
    return {re, im};
  }
};

// The output element type of a loop (ops/complex_ops.h's Out column) for input T.
template <class T>
using SameOf = T;
template <class T>
using PartOf = typename T::value_type;
template <class T>
using BoolOf = bool;

// The loop of each row of ops/complex_ops.h: functor <Loop>F, output <Out>Of<T>.
template <class T>
ew::UnaryLoop unary_for(OpId id) {
  switch (id) {
#define MC_CX_CASE(Op, Loop, Out, Dev) \
  case OpId::Op:                       \
    return &unary_loop<T, Out##Of<T>, Loop##F>;
    MC_COMPLEX_UNARY_OPS(MC_CX_CASE)
    MC_COMPLEX_PART_OPS(MC_CX_CASE)
#undef MC_CX_CASE
    default:
      return nullptr;
  }
}

template <class T>
ew::BinaryLoop binary_for(OpId id) {
  switch (id) {
#define MC_CX_CASE(Op, Loop, Out, Dev) \
  case OpId::Op:                       \
    return &binary_loop<T, Out##Of<T>, Loop##F>;
    MC_COMPLEX_BINARY_OPS(MC_CX_CASE)
#undef MC_CX_CASE
    default:
      return nullptr;
  }
}

// Angle or |x| of n float64 values (complex_op_on_real's loop on the CPU).
void real_angle_abs(bool angle, double* y, const double* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = angle ? (std::isnan(v) ? v : (std::signbit(v) ? std::numbers::pi : 0.0)) : std::fabs(v);
  }
}

// ---- reductions -------------------------------------------------------------------------

// The reduced axes of x (the axis attribute; empty means all), as a mask.
std::vector<bool> reduced_mask(const KernelContext& ctx, int64_t nd) {
  const std::vector<int64_t>& axis = ctx.attrs.get_ints("axis");
  std::vector<bool> red(static_cast<size_t>(nd), axis.empty());
  for (int64_t a : axis) red[static_cast<size_t>(a < 0 ? a + nd : a)] = true;
  return red;
}

template <class T>
void reduce_typed(const KernelContext& ctx) {
  const Tensor x = ctx.in[0].contiguous();
  const Tensor& y = ctx.out[0];
  const int64_t nd = x.ndim();
  const std::vector<bool> red = reduced_mask(ctx, nd);
  // Kept and reduced axes with their element strides in x.
  Shape kept_n, kept_s, red_n, red_s;
  const Shape xs = contiguous_strides(x.shape());
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const size_t u = static_cast<size_t>(d);
    if (red[u]) {
      red_n.push_back(x.shape()[u]);
      red_s.push_back(xs[u]);
      count *= x.shape()[u];
    } else {
      kept_n.push_back(x.shape()[u]);
      kept_s.push_back(xs[u]);
    }
  }
  const bool prod = ctx.op.id == OpId::ReduceProd;
  const bool mean = ctx.op.id == OpId::ReduceMean;
  const T* xp = x.data<T>();
  T* yp = y.data<T>();
  const int64_t n_out = y.numel();
  parallel_for(0, n_out, std::max<int64_t>(1, 65536 / std::max<int64_t>(count, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t o = lo; o < hi; ++o) {
                   int64_t base = 0, rest = o;
                   for (size_t k = kept_n.size(); k-- > 0;) {
                     base += (rest % kept_n[k]) * kept_s[k];
                     rest /= kept_n[k];
                   }
                   T acc = prod ? T(1) : T(0);
                   for (int64_t r = 0; r < count; ++r) {
                     int64_t off = base, q = r;
                     for (size_t k = red_n.size(); k-- > 0;) {
                       off += (q % red_n[k]) * red_s[k];
                       q /= red_n[k];
                     }
                     acc = prod ? acc * xp[off] : acc + xp[off];
                   }
                   if (mean) acc /= static_cast<typename T::value_type>(count);
                   yp[o] = acc;
                 }
               });
}

// ---- matrix product -----------------------------------------------------------------------

// Blocked complex GEMM: op(B) is packed per k-block into a contiguous [kc x N] panel, and
// rows of C accumulate over it in kMc x kNc tiles held in a local buffer (the parts kept
// separately, so the inner loop is two real fused multiply-adds per part, vectorisable).
constexpr int64_t kKc = 128, kMc = 32, kNc = 256;

template <class P>
void gemm_blocked(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const std::complex<P>* A,
                  const std::complex<P>* B, std::complex<P>* C) {
  using T = std::complex<P>;
  for (int64_t i = 0; i < M * N; ++i) C[i] = T(0);
  if (K == 0 || M == 0 || N == 0) return;
  auto a_at = [&](int64_t i, int64_t k) { return ta ? A[k * M + i] : A[i * K + k]; };
  auto b_at = [&](int64_t k, int64_t j) { return tb ? B[j * K + k] : B[k * N + j]; };
  for (int64_t k0 = 0; k0 < K; k0 += kKc) {
    const int64_t kc = std::min(kKc, K - k0);
    for (int64_t j0 = 0; j0 < N; j0 += kNc) {
      const int64_t nc = std::min(kNc, N - j0);
      // op(B)[k0:k0+kc, j0:j0+nc] as real and imaginary planes.
      std::vector<P> br(static_cast<size_t>(kc * nc)), bi(static_cast<size_t>(kc * nc));
      for (int64_t k = 0; k < kc; ++k) {
        for (int64_t j = 0; j < nc; ++j) {
          const T v = b_at(k0 + k, j0 + j);
          br[static_cast<size_t>(k * nc + j)] = v.real();
          bi[static_cast<size_t>(k * nc + j)] = v.imag();
        }
      }
      parallel_for(0, (M + kMc - 1) / kMc, 1, [&](int64_t t0, int64_t t1) {
        std::vector<P> cr(static_cast<size_t>(kMc * nc)), ci(static_cast<size_t>(kMc * nc));
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t i0 = t * kMc, mc = std::min(kMc, M - i0);
          std::fill(cr.begin(), cr.end(), P(0));
          std::fill(ci.begin(), ci.end(), P(0));
          for (int64_t i = 0; i < mc; ++i) {
            P* __restrict rr = cr.data() + i * nc;
            P* __restrict ri = ci.data() + i * nc;
            for (int64_t k = 0; k < kc; ++k) {
              const T a = a_at(i0 + i, k0 + k);
              const P ar = a.real(), ai = a.imag();
              const P* __restrict pr = br.data() + k * nc;
              const P* __restrict pi = bi.data() + k * nc;
              for (int64_t j = 0; j < nc; ++j) {
                rr[j] += ar * pr[j] - ai * pi[j];
                ri[j] += ar * pi[j] + ai * pr[j];
              }
            }
          }
          for (int64_t i = 0; i < mc; ++i) {
            T* crow = C + (i0 + i) * N + j0;
            for (int64_t j = 0; j < nc; ++j) {
              crow[j] +=
                  T(cr[static_cast<size_t>(i * nc + j)], ci[static_cast<size_t>(i * nc + j)]);
            }
          }
        }
      });
    }
  }
}

}  // namespace

ew::UnaryLoop complex_unary_loop(OpId id, DType t) {
  return dispatch_complex(t, "complex_unary_loop",
                          [id](auto tag) { return unary_for<typename decltype(tag)::type>(id); });
}

ew::BinaryLoop complex_binary_loop(OpId id, DType t) {
  return dispatch_complex(t, "complex_binary_loop",
                          [id](auto tag) { return binary_for<typename decltype(tag)::type>(id); });
}

void complex_reduce(const KernelContext& ctx) {
  dispatch_complex(ctx.in[0].dtype(), ctx.op.name,
                   [&](auto tag) { reduce_typed<typename decltype(tag)::type>(ctx); });
}

void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const complex64* A,
                  const complex64* B, complex64* C) {
  gemm_blocked<float>(ta, tb, M, N, K, A, B, C);
}

void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const complex128* A,
                  const complex128* B, complex128* C) {
  gemm_blocked<double>(ta, tb, M, N, K, A, B, C);
}

void cpu_complex_op(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (ctx.op.id == OpId::Complex) {
    const ew::BinaryLoop fn = dispatch_float(x.dtype(), ctx.op.name, [](auto tag) {
      using P = typename decltype(tag)::type;
      if constexpr (std::is_same_v<P, float> || std::is_same_v<P, double>)
        return &binary_loop<P, std::complex<P>, MakeComplexF>;
      else
        return static_cast<ew::BinaryLoop>(nullptr);
    });
    MC_CHECK(fn, Type, "For 'Complex', the parts must be float32 or float64, but got ", x.dtype(),
             ".");
    ew::run_binary(x, ctx.in[1], y, fn, ew::kGrainCheap);
    return;
  }
  if (is_complex(x.dtype())) {
    ew::run_unary(x, y, complex_unary_loop(ctx.op.id, x.dtype()), ew::kGrainCheap);
    return;
  }
  complex_op_on_real(ctx, real_angle_abs);
}

}  // namespace mycel
