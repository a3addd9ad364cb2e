// ref_fftn: FFTN's reference kernel, the oracle of kernels/cpu/fft.cc.
//
// The definition itself, in long double: for each transformed axis a (in the order the real
// modes need: r2c's last axis first, c2r's last axis last) every output line is
//   Y[k] = sum_{j < len} X[j] e^{sign 2 pi i j k / n}   (sign -1 forward, +1 inverse)
// where X is the input line zero-padded or truncated to len (n, or n // 2 + 1 bins for the
// half spectrum of c2r, whose bins j >= len stand for conj(X[n - j])); then the real part
// (c2r) and the norm's scale. O(n^2) per line, on a flat row-major copy.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "ops/fft_attrs.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

using LC = std::complex<long double>;

// e^{sign 2 pi i p / n} with p reduced mod n.
LC root(int64_t p, int64_t n, int sign) {
  const long double ang = static_cast<long double>(sign) * 2.0L * std::numbers::pi_v<long double> *
                          static_cast<long double>(p % n) / static_cast<long double>(n);
  return LC(std::cos(ang), std::sin(ang));
}

// The naive DFT of axis `axis` of v (shape `shape`), to `out_len` bins. `half`: v's lines are
// half spectra of a length-n Hermitian line.
std::vector<LC> dft_axis(const std::vector<LC>& v, Shape& shape, int64_t axis, int64_t n,
                         int64_t out_len, bool inverse, bool half) {
  const size_t ax = static_cast<size_t>(axis);
  const int64_t m = shape[ax];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < ax; ++d) outer *= shape[d];
  for (size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
  const int sign = inverse ? 1 : -1;
  const int64_t stored = half ? n / 2 + 1 : n;  // bins the padded/truncated line holds
  std::vector<LC> out(static_cast<size_t>(outer * out_len * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) -> LC {  // the padded/truncated (and extended) input bin j
        if (half && j >= stored) {
          const int64_t r = n - j;
          return r < m ? std::conj(v[static_cast<size_t>((o * m + r) * inner + i)]) : LC(0);
        }
        return j < m && j < stored ? v[static_cast<size_t>((o * m + j) * inner + i)] : LC(0);
      };
      for (int64_t k = 0; k < out_len; ++k) {
        LC acc(0);
        for (int64_t j = 0; j < n; ++j) acc += at(j) * root(j * k, n, sign);
        out[static_cast<size_t>((o * out_len + k) * inner + i)] = acc;
      }
    }
  }
  shape[ax] = out_len;
  return out;
}

}  // namespace

void ref_fftn(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const FftAttrs a = read_fft_attrs(ctx.attrs, static_cast<int64_t>(x.shape().size()), ctx.op.name);
  std::vector<LC> v(static_cast<size_t>(x.numel()));
  if (x.dtype() == DType::Complex64) {
    for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = LC(x.data<complex64>()[i]);
  } else if (x.dtype() == DType::Complex128) {
    for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = LC(x.data<complex128>()[i]);
  } else {
    for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = LC(x.element_as_double(i));
  }
  Shape shape = x.shape();
  const size_t last = a.axes.size() - 1;
  if (a.mode == FftMode::R2C)
    v = dft_axis(v, shape, a.axes[last], a.sizes[last], a.sizes[last] / 2 + 1, a.inverse, false);
  for (size_t i = 0; i < a.axes.size(); ++i)
    if (a.mode == FftMode::C2C || i != last)
      v = dft_axis(v, shape, a.axes[i], a.sizes[i], a.sizes[i], a.inverse, false);
  if (a.mode == FftMode::C2R)
    v = dft_axis(v, shape, a.axes[last], a.sizes[last], a.sizes[last], a.inverse, true);
  const long double s = static_cast<long double>(a.scale());
  const Tensor& y = ctx.out[0];
  for (size_t i = 0; i < v.size(); ++i) {
    const LC z = v[i] * s;
    switch (y.dtype()) {
      case DType::Complex64:
        y.data<complex64>()[i] =
            complex64(static_cast<float>(z.real()), static_cast<float>(z.imag()));
        break;
      case DType::Complex128:
        y.data<complex128>()[i] =
            complex128(static_cast<double>(z.real()), static_cast<double>(z.imag()));
        break;
      case DType::Float32:
        y.data<float>()[i] = static_cast<float>(z.real());
        break;
      default:
        y.data<double>()[i] = static_cast<double>(z.real());
        break;
    }
  }
}

}  // namespace mycel
