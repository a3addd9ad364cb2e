// Reference kernels for complex dtypes (see complex_ref.h).
#include "kernels/ref/complex_ref.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "kernels/ref/ref_util.h"

namespace mycel {

namespace {

struct Cx {
  double re = 0, im = 0;
};

Cx add(Cx a, Cx b) { return {a.re + b.re, a.im + b.im}; }
Cx sub(Cx a, Cx b) { return {a.re - b.re, a.im - b.im}; }
Cx mul(Cx a, Cx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
Cx div(Cx a, Cx b) {
  // Smith's algorithm: scale by the larger part of b so that |b|^2 does not overflow.
  if (std::fabs(b.re) >= std::fabs(b.im)) {
    const double r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  const double r = b.re / b.im, d = b.im + b.re * r;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
double modulus(Cx a) { return std::hypot(a.re, a.im); }
Cx cexp(Cx a) {
  const double m = std::exp(a.re);
  return {m * std::cos(a.im), m * std::sin(a.im)};
}
Cx clog(Cx a) { return {std::log(modulus(a)), std::atan2(a.im, a.re)}; }
Cx csqrt(Cx a) {
  // sqrt(|a|) at half the angle: the principal root (real part >= 0, imag's sign of a.im).
  const double m = std::sqrt(modulus(a)), h = std::atan2(a.im, a.re) / 2;
  return {m * std::cos(h), m * std::sin(h)};
}
Cx csin(Cx a) { return {std::sin(a.re) * std::cosh(a.im), std::cos(a.re) * std::sinh(a.im)}; }
Cx ccos(Cx a) { return {std::cos(a.re) * std::cosh(a.im), -std::sin(a.re) * std::sinh(a.im)}; }
Cx csinh(Cx a) { return {std::sinh(a.re) * std::cos(a.im), std::cosh(a.re) * std::sin(a.im)}; }
Cx ccosh(Cx a) { return {std::cosh(a.re) * std::cos(a.im), std::sinh(a.re) * std::sin(a.im)}; }
Cx cpow(Cx a, Cx b) {
  if (b.re == 0 && b.im == 0) return {1, 0};
  if (a.re == 0 && a.im == 0) return {0, 0};
  return cexp(mul(b, clog(a)));
}

Cx unary(OpId id, Cx x) {
  switch (id) {
    case OpId::Neg:
      return {-x.re, -x.im};
    case OpId::Conj:
      return {x.re, -x.im};
    case OpId::Sign: {
      const double m = modulus(x);
      return m == 0 ? Cx{0, 0} : Cx{x.re / m, x.im / m};
    }
    case OpId::Square:
      return mul(x, x);
    case OpId::Exp:
      return cexp(x);
    case OpId::Log:
      return clog(x);
    case OpId::Sqrt:
      return csqrt(x);
    case OpId::Reciprocal:
      return div({1, 0}, x);
    case OpId::Sin:
      return csin(x);
    case OpId::Cos:
      return ccos(x);
    case OpId::Tan:
      return div(csin(x), ccos(x));
    case OpId::Atan: {  // (i/2) (log(1 - iz) - log(1 + iz)), iz = (-y, x)
      const Cx d = {clog({1 + x.im, -x.re}).re - clog({1 - x.im, x.re}).re,
                    clog({1 + x.im, -x.re}).im - clog({1 - x.im, x.re}).im};
      return {-d.im / 2, d.re / 2};
    }
    case OpId::Sinh:
      return csinh(x);
    case OpId::Cosh:
      return ccosh(x);
    case OpId::Tanh:
      return div(csinh(x), ccosh(x));
    case OpId::Abs:
    case OpId::ComplexAbs:
      return {modulus(x), 0};
    case OpId::Real:
      return {x.re, 0};
    case OpId::Imag:
      return {x.im, 0};
    case OpId::Angle:
      return {std::atan2(x.im, x.re), 0};
    default:
      MC_THROW(Type, "For '", op_def(id).name, "', complex inputs are not supported.");
  }
}

using ref::offset_of;  // ref_util.h

// A complex element read as its two parts, and written back from them.
Cx read(const Tensor& t, int64_t off) {
  if (t.dtype() == DType::Complex64) {
    const float* p = static_cast<const float*>(t.raw_data()) + 2 * off;
    return {p[0], p[1]};
  }
  MC_ASSERT(t.dtype() == DType::Complex128, "complex reference kernel on ", t.dtype());
  const double* p = static_cast<const double*>(t.raw_data()) + 2 * off;
  return {p[0], p[1]};
}
void write(const Tensor& t, int64_t i, Cx v) {
  if (t.dtype() == DType::Complex64) {
    float* p = static_cast<float*>(t.raw_data()) + 2 * i;
    p[0] = static_cast<float>(v.re);
    p[1] = static_cast<float>(v.im);
    return;
  }
  double* p = static_cast<double*>(t.raw_data()) + 2 * i;
  p[0] = v.re;
  p[1] = v.im;
}
// Element i of a contiguous real tensor out, from a double (float32/float64/bool outputs).
void write_real(const Tensor& t, int64_t i, double v) {
  if (t.dtype() == DType::Float32)
    t.data<float>()[i] = static_cast<float>(v);
  else if (t.dtype() == DType::Float64)
    t.data<double>()[i] = v;
  else if (t.dtype() == DType::Bool)
    t.data<bool>()[i] = v != 0;
  else
    MC_ASSERT(false, "complex reference kernel writing ", t.dtype());
}

}  // namespace

namespace ref {

void complex_unary(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const Shape st = broadcast_strides(x.shape(), x.strides(), y.shape());
  for (int64_t i = 0; i < y.numel(); ++i) {
    const Cx v = unary(ctx.op.id, read(x, offset_of(i, y.shape(), st)));
    if (is_complex(y.dtype()))
      write(y, i, v);
    else
      write_real(y, i, v.re);
  }
}

void complex_binary(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& y = ctx.out[0];
  const Shape sa = broadcast_strides(a.shape(), a.strides(), y.shape());
  const Shape sb = broadcast_strides(b.shape(), b.strides(), y.shape());
  for (int64_t i = 0; i < y.numel(); ++i) {
    const Cx u = read(a, offset_of(i, y.shape(), sa)), v = read(b, offset_of(i, y.shape(), sb));
    switch (ctx.op.id) {
      case OpId::Add:
        write(y, i, add(u, v));
        break;
      case OpId::Sub:
        write(y, i, sub(u, v));
        break;
      case OpId::Mul:
        write(y, i, mul(u, v));
        break;
      case OpId::Div:
        write(y, i, div(u, v));
        break;
      case OpId::Pow:
        write(y, i, cpow(u, v));
        break;
      case OpId::Equal:
        write_real(y, i, u.re == v.re && u.im == v.im);
        break;
      case OpId::NotEqual:
        write_real(y, i, !(u.re == v.re && u.im == v.im));
        break;
      default:
        MC_THROW(Type, "For '", ctx.op.name, "', complex inputs are not supported.");
    }
  }
}

void complex_cast(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const Shape st = broadcast_strides(x.shape(), x.strides(), y.shape());
  if (is_complex(y.dtype()) && !is_complex(x.dtype())) {  // the value as the real part
    // (Cast keeps the shape: element_as_double reads row-major index i through x's strides.)
    for (int64_t i = 0; i < y.numel(); ++i) write(y, i, {x.element_as_double(i), 0});
    return;
  }
  if (is_complex(y.dtype())) {  // complex to complex: each part rounded
    for (int64_t i = 0; i < y.numel(); ++i) write(y, i, read(x, offset_of(i, y.shape(), st)));
    return;
  }
  // Complex to real: the real part (bool: either part nonzero), held in the part dtype, then
  // converted to y's dtype as a real Cast does.
  if (y.dtype() == DType::Bool) {
    for (int64_t i = 0; i < y.numel(); ++i) {
      const Cx v = read(x, offset_of(i, y.shape(), st));
      y.data<bool>()[i] = v.re != 0 || v.im != 0;
    }
    return;
  }
  Tensor re = Tensor::empty(y.shape(), complex_part_dtype(x.dtype()));
  for (int64_t i = 0; i < y.numel(); ++i)
    write_real(re, i, read(x, offset_of(i, y.shape(), st)).re);
  y.copy_from(re);
}

void complex_fill(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const double v = ctx.op.id == OpId::Fill       ? ctx.attrs.get_float("value")
                   : ctx.op.id == OpId::OnesLike ? 1.0
                                                 : 0.0;
  for (int64_t i = 0; i < y.numel(); ++i) write(y, i, {v, 0});
}

void complex_reduce(const KernelContext& ctx) {
  const Tensor x = ctx.in[0].contiguous();
  const Tensor& y = ctx.out[0];
  const int64_t nd = x.ndim();
  const std::vector<int64_t>& axis = ctx.attrs.get_ints("axis");
  std::vector<bool> reduced(static_cast<size_t>(nd), axis.empty());
  for (int64_t a : axis) {
    if (nd > 0) reduced[static_cast<size_t>(normalize_axis(a, nd, ctx.op.name))] = true;
  }
  // Accumulate each input element into the output element its kept coordinates name.
  const bool prod = ctx.op.id == OpId::ReduceProd;
  std::vector<Cx> acc(static_cast<size_t>(y.numel()), prod ? Cx{1, 0} : Cx{0, 0});
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[static_cast<size_t>(d)]) count *= x.dim(d);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rest = i, o = 0, scale = 1;
    for (int64_t d = nd; d-- > 0;) {
      const int64_t c = rest % x.dim(d);
      rest /= x.dim(d);
      if (!reduced[static_cast<size_t>(d)]) {
        o += c * scale;
        scale *= x.dim(d);
      }
    }
    Cx& a = acc[static_cast<size_t>(o)];
    a = prod ? mul(a, read(x, i)) : add(a, read(x, i));
  }
  for (int64_t o = 0; o < y.numel(); ++o) {
    Cx v = acc[static_cast<size_t>(o)];
    if (ctx.op.id == OpId::ReduceMean) v = {v.re / count, v.im / count};
    write(y, o, v);
  }
}

void complex_matmul(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& y = ctx.out[0];
  const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  const Shape &as = a.shape(), &bs = b.shape(), &ys = y.shape();
  const size_t ra = as.size(), rb = bs.size(), ry = ys.size();
  const int64_t M = ys[ry - 2], N = ys[ry - 1], K = as[ra - (ta ? 2 : 1)];
  const int64_t lda = as[ra - 1], ldb = bs[rb - 1];
  int64_t batches = 1;
  for (size_t i = 0; i + 2 < ry; ++i) batches *= ys[i];
  // The matrix of operand s (rank r) for output batch t: its batch coordinates are the
  // trailing ones of t's, a size-1 dimension broadcast.
  auto matrix = [&](const Shape& s, size_t r, int64_t t) {
    int64_t off = 0, stride = s[r - 2] * s[r - 1], rest = t;
    for (size_t i = ry - 2; i-- > 0;) {
      const int64_t c = rest % ys[i];
      rest /= ys[i];
      const ptrdiff_t j = static_cast<ptrdiff_t>(i) - static_cast<ptrdiff_t>(ry - r);
      if (j < 0) continue;
      const int64_t d = s[static_cast<size_t>(j)];
      off += (d == 1 ? 0 : c) * stride;
      stride *= d;
    }
    return off;
  };
  for (int64_t t = 0; t < batches; ++t) {
    const int64_t oa = matrix(as, ra, t), ob = matrix(bs, rb, t);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        Cx s;
        for (int64_t k = 0; k < K; ++k) {
          const Cx u = read(a, oa + (ta ? k * lda + i : i * lda + k));
          const Cx v = read(b, ob + (tb ? j * ldb + k : k * ldb + j));
          s = add(s, mul(u, v));
        }
        write(y, t * M * N + i * N + j, s);
      }
    }
  }
}

}  // namespace ref

void ref_complex_op(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (ctx.op.id == OpId::Complex) {
    const Tensor re = x.cast(DType::Float64).contiguous();
    const Tensor im = ctx.in[1].cast(DType::Float64).contiguous();
    const Shape sr = broadcast_strides(re.shape(), re.strides(), y.shape());
    const Shape si = broadcast_strides(im.shape(), im.strides(), y.shape());
    for (int64_t i = 0; i < y.numel(); ++i) {
      const int64_t o1 = offset_of(i, y.shape(), sr), o2 = offset_of(i, y.shape(), si);
      write(y, i, {re.data<double>()[o1], im.data<double>()[o2]});
    }
    return;
  }
  if (is_complex(x.dtype())) {
    ref::complex_unary(ctx);
    return;
  }
  // A real input, computed in double and converted to y's dtype as Cast does.
  Tensor r = Tensor::empty(x.shape(), DType::Float64);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.element_as_double(i);
    double out = v;
    switch (ctx.op.id) {
      case OpId::Imag:
        out = 0;
        break;
      case OpId::Angle:
        out = std::isnan(v) ? v : (v < 0 || (v == 0 && std::signbit(v)) ? std::numbers::pi : 0);
        break;
      case OpId::ComplexAbs:
        out = std::fabs(v);
        break;
      default:  // Real, Conj
        break;
    }
    r.data<double>()[i] = out;
  }
  if (ctx.op.id == OpId::Real || ctx.op.id == OpId::Conj)
    y.copy_from(x);  // exact for every dtype (int64 values beyond 2**53 included)
  else
    y.copy_from(r);
}

}  // namespace mycel
