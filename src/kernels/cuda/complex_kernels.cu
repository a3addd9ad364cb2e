// The complex64/complex128 CUDA kernels (see complex_kernels.h): one grid-stride loop per
// launch over a contiguous output, inputs located through Strided<K> (elementwise_loops.h).
#include <cuda/std/complex>

#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/elementwise_loops.h"

namespace mycel::cuda::cx {

namespace {

template <class R>
using C = ::cuda::std::complex<R>;

template <class R>
__device__ inline C<R> unary_complex(Unary op, C<R> x) {
  switch (op) {
    case Unary::Neg:
      return -x;
    case Unary::Sign: {
      if (x == C<R>(0)) return C<R>(0);
      const R a = ::cuda::std::abs(x);
      return C<R>(x.real() / a, x.imag() / a);
    }
    case Unary::Square:
      return x * x;
    case Unary::Exp:
      return ::cuda::std::exp(x);
    case Unary::Log:
      return ::cuda::std::log(x);
    case Unary::Sqrt:
      return ::cuda::std::sqrt(x);
    case Unary::Reciprocal:
      return C<R>(1) / x;
    case Unary::Sin:
      return ::cuda::std::sin(x);
    case Unary::Cos:
      return ::cuda::std::cos(x);
    case Unary::Tan:
      return ::cuda::std::tan(x);
    case Unary::Sinh:
      return ::cuda::std::sinh(x);
    case Unary::Cosh:
      return ::cuda::std::cosh(x);
    case Unary::Tanh:
      return ::cuda::std::tanh(x);
    default:
      return ::cuda::std::conj(x);  // Conj
  }
}

template <class R>
__device__ inline R unary_part(Unary op, C<R> x) {
  switch (op) {
    case Unary::Abs:
      return ::cuda::std::abs(x);
    case Unary::Real:
      return x.real();
    case Unary::Imag:
      return x.imag();
    default:
      return ::cuda::std::arg(x);  // Angle
  }
}

template <class R, bool kPart>
__global__ void unary_kernel(Unary op, std::conditional_t<kPart, R, C<R>>* y, const C<R>* x,
                             Strided<1> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[1];
    ew::offsets_of(s, i, off);
    if constexpr (kPart)
      y[i] = unary_part(op, x[off[0]]);
    else
      y[i] = unary_complex(op, x[off[0]]);
  }
}

template <class R>
__device__ inline C<R> power(C<R> a, C<R> b) {
  if (b == C<R>(0)) return C<R>(1);
  if (a == C<R>(0)) return C<R>(0);
  return ::cuda::std::exp(b * ::cuda::std::log(a));
}

template <class R, bool kCompare>
__global__ void binary_kernel(Binary op, std::conditional_t<kCompare, bool, C<R>>* o, const C<R>* a,
                              const C<R>* b, Strided<2> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[2];
    ew::offsets_of(s, i, off);
    const C<R> x = a[off[0]], y = b[off[1]];
    if constexpr (kCompare) {
      o[i] = op == Binary::Equal ? x == y : x != y;
    } else {
      switch (op) {
        case Binary::Add:
          o[i] = x + y;
          break;
        case Binary::Sub:
          o[i] = x - y;
          break;
        case Binary::Mul:
          o[i] = x * y;
          break;
        case Binary::Div:
          o[i] = x / y;
          break;
        default:
          o[i] = power(x, y);
          break;  // Pow
      }
    }
  }
}

template <class R>
__global__ void make_complex_kernel(C<R>* o, const R* re, const R* im, Strided<2> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[2];
    ew::offsets_of(s, i, off);
    o[i] = C<R>(re[off[0]], im[off[1]]);
  }
}

__global__ void real_angle_abs_kernel(bool angle, double* y, const double* x, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    const double v = x[i];
    y[i] = angle ? (isnan(v) ? v : (signbit(v) ? 3.141592653589793238462643383279502884 : 0.0))
                 : fabs(v);
  }
}

template <class R>
void unary_typed(Unary op, void* y, const void* x, const Strided<1>& s, int64_t n,
                 cudaStream_t st) {
  const bool part =
      op == Unary::Abs || op == Unary::Real || op == Unary::Imag || op == Unary::Angle;
  const C<R>* xp = static_cast<const C<R>*>(x);
  if (part)
    unary_kernel<R, true><<<grid_for(n), 256, 0, st>>>(op, static_cast<R*>(y), xp, s, n);
  else
    unary_kernel<R, false><<<grid_for(n), 256, 0, st>>>(op, static_cast<C<R>*>(y), xp, s, n);
}

template <class R>
void binary_typed(Binary op, void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
                  cudaStream_t st) {
  const C<R>* ap = static_cast<const C<R>*>(a);
  const C<R>* bp = static_cast<const C<R>*>(b);
  if (op == Binary::Equal || op == Binary::NotEqual)
    binary_kernel<R, true><<<grid_for(n), 256, 0, st>>>(op, static_cast<bool*>(o), ap, bp, s, n);
  else
    binary_kernel<R, false><<<grid_for(n), 256, 0, st>>>(op, static_cast<C<R>*>(o), ap, bp, s, n);
}

}  // namespace

void launch_unary(Unary op, bool dbl, void* y, const void* x, const Strided<1>& s, int64_t n,
                  cudaStream_t stream) {
  if (n == 0) return;
  if (dbl)
    unary_typed<double>(op, y, x, s, n, stream);
  else
    unary_typed<float>(op, y, x, s, n, stream);
}

void launch_binary(Binary op, bool dbl, void* o, const void* a, const void* b, const Strided<2>& s,
                   int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (dbl)
    binary_typed<double>(op, o, a, b, s, n, stream);
  else
    binary_typed<float>(op, o, a, b, s, n, stream);
}

void launch_make_complex(bool dbl, void* o, const void* re, const void* im, const Strided<2>& s,
                         int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (dbl)
    make_complex_kernel<double><<<grid_for(n), 256, 0, stream>>>(
        static_cast<C<double>*>(o), static_cast<const double*>(re), static_cast<const double*>(im),
        s, n);
  else
    make_complex_kernel<float>
        <<<grid_for(n), 256, 0, stream>>>(static_cast<C<float>*>(o), static_cast<const float*>(re),
                                          static_cast<const float*>(im), s, n);
}

void launch_real_angle_abs(bool angle, double* y, const double* x, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  real_angle_abs_kernel<<<grid_for(n), 256, 0, stream>>>(angle, y, x, n);
}

}  // namespace mycel::cuda::cx
