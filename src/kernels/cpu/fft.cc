// cpu_fftn: FFTN's CPU kernel (ops/defs/linalg.def).
//
// The transform is separable: the input (converted to complex of the computing precision:
// complex<float> for float32/complex64, complex<double> otherwise) is transformed one axis
// after another; each pass copies a line out (zero-padded or truncated to the pass's length),
// transforms it and writes it back to a buffer with the axis's new length, lines in parallel
// (parallel_for; each chunk has its own scratch). Scaling by norm comes last.
//   - c2c: every axis is a complex transform of length sizes[i];
//   - r2c: the last axis first, a complex transform of the (real) line keeping the first
//     n // 2 + 1 bins, then the other axes complex;
//   - c2r: the other axes complex first, then the last: the half spectrum (padded/truncated
//     to n // 2 + 1 bins) extended to the full Hermitian spectrum X[n-k] = conj(X[k]), a
//     complex inverse transform and its real part (the imaginary parts of the DC and, for even
//     n, the Nyquist bin drop out, as numpy's irfft).
// The real transforms go through the complex one of the full line (no half-length trick).
//
// The 1-d transform (written from the math; no FFT library: Debian's kissfft would add a
// runtime library to the GPU bundle and builds one scalar type per library): an iterative
// radix-2 Cooley-Tukey for powers of two, and Bluestein's chirp-z for every other length n
// (the DFT as a convolution with the chirp w_k = e^{-i pi k^2 / n}, done by power-of-two
// transforms of length >= 2n - 1): O(n log n) for every n. Twiddles and chirps are computed in
// double (k^2 reduced mod 2n so that the angle stays exact) and rounded to the precision.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "base/parallel.h"
#include "ops/fft_attrs.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

// An unscaled transform of one length and direction (sign -1 forward, +1 inverse).
template <class R>
class Fft1d {
 public:
  using C = std::complex<R>;

  Fft1d(int64_t n, bool inverse) : n_(n), inverse_(inverse) {
    if ((n & (n - 1)) == 0) {
      pow2_twiddles(n, inverse, &tw_);
      return;
    }
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
    pow2_twiddles(m_, false, &tw_);
    const double sign = inverse ? 1.0 : -1.0;
    chirp_.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t k2 = (k * k) % (2 * n);  // e^{i pi k^2/n} has period 2n in k^2
      const double ang = sign * std::numbers::pi * static_cast<double>(k2) / static_cast<double>(n);
      chirp_[static_cast<size_t>(k)] =
          C(static_cast<R>(std::cos(ang)), static_cast<R>(std::sin(ang)));
    }
    // The filter b_k = conj(w_k) for |k| < n, circular in m, and its transform.
    std::vector<C> b(static_cast<size_t>(m_), C(0));
    for (int64_t k = 0; k < n; ++k) {
      b[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
      if (k > 0) b[static_cast<size_t>(m_ - k)] = std::conj(chirp_[static_cast<size_t>(k)]);
    }
    radix2(b.data(), m_, false);
    filter_ = std::move(b);
  }

  int64_t scratch_size() const { return m_; }

  // x[0..n) in place; scratch of scratch_size() entries.
  void run(C* x, C* scratch) const {
    if (n_ <= 1) return;
    if (m_ == 0) {
      radix2(x, n_, inverse_);
      return;
    }
    for (int64_t k = 0; k < n_; ++k) scratch[k] = x[k] * chirp_[static_cast<size_t>(k)];
    for (int64_t k = n_; k < m_; ++k) scratch[k] = C(0);
    radix2(scratch, m_, false);
    for (int64_t k = 0; k < m_; ++k) scratch[k] *= filter_[static_cast<size_t>(k)];
    radix2(scratch, m_, true);
    const R inv_m = R(1) / static_cast<R>(m_);
    for (int64_t k = 0; k < n_; ++k) x[k] = scratch[k] * chirp_[static_cast<size_t>(k)] * inv_m;
  }

 private:
  // w^j = e^{-2 pi i j / n}, j < n/2 (the forward twiddles of length n).
  static void pow2_twiddles(int64_t n, bool /*inverse*/, std::vector<C>* tw) {
    tw->resize(static_cast<size_t>(n / 2));
    for (int64_t j = 0; j < n / 2; ++j) {
      const double ang = -2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
      (*tw)[static_cast<size_t>(j)] =
          C(static_cast<R>(std::cos(ang)), static_cast<R>(std::sin(ang)));
    }
  }

  // In-place radix-2 transform of a power-of-two length len whose twiddles are a stride of
  // tw_ (tw_ holds those of the largest length this plan uses).
  void radix2(C* x, int64_t len, bool inverse) const {
    if (len <= 1) return;
    for (int64_t i = 1, j = 0; i < len; ++i) {  // bit reversal
      int64_t bit = len >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    const int64_t full = static_cast<int64_t>(tw_.size()) * 2;
    for (int64_t half = 1; half < len; half <<= 1) {
      const int64_t step = full / (2 * half);
      for (int64_t s = 0; s < len; s += 2 * half) {
        for (int64_t j = 0; j < half; ++j) {
          C w = tw_[static_cast<size_t>(j * step)];
          if (inverse) w = std::conj(w);
          const C t = w * x[s + j + half];
          x[s + j + half] = x[s + j] - t;
          x[s + j] += t;
        }
      }
    }
  }

  int64_t n_;
  bool inverse_;
  int64_t m_ = 0;  // Bluestein's power-of-two length, 0 for a power-of-two n
  std::vector<C> tw_, chirp_, filter_;
};

enum class Line : uint8_t { C2C, R2C, C2R };

// One pass over axis `axis` of src (complex, shape `shape`): each line of length m becomes a
// line of length n_out in dst (shape with shape[axis] = n_out).
template <class R>
void pass(const std::complex<R>* src, std::complex<R>* dst, const Shape& shape, int64_t axis,
          int64_t n, int64_t n_out, bool inverse, Line kind, int64_t n_in_cap) {
  using C = std::complex<R>;
  const int64_t m = shape[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const Fft1d<R> plan(n, inverse);
  const int64_t lines = outer * inner;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1));
  parallel_for(0, lines, grain, [&](int64_t b, int64_t e) {
    std::vector<C> line(static_cast<size_t>(n)), scratch(static_cast<size_t>(plan.scratch_size()));
    for (int64_t l = b; l < e; ++l) {
      const int64_t o = l / inner, i = l % inner;
      const C* in = src + o * m * inner + i;
      C* out = dst + o * n_out * inner + i;
      const int64_t take = std::min(m, n_in_cap);
      for (int64_t k = 0; k < n_in_cap; ++k)
        line[static_cast<size_t>(k)] = k < take ? in[k * inner] : C(0);
      if (kind == Line::C2R)  // the Hermitian extension of the half spectrum
        for (int64_t k = n_in_cap; k < n; ++k)
          line[static_cast<size_t>(k)] = std::conj(line[static_cast<size_t>(n - k)]);
      else
        for (int64_t k = n_in_cap; k < n; ++k) line[static_cast<size_t>(k)] = C(0);
      plan.run(line.data(), scratch.data());
      for (int64_t k = 0; k < n_out; ++k) out[k * inner] = line[static_cast<size_t>(k)];
    }
  });
}

template <class R>
void fftn_typed(const KernelContext& ctx, const FftAttrs& a) {
  using C = std::complex<R>;
  const Tensor& x = ctx.in[0];
  Shape shape = x.shape();
  std::vector<C> buf(static_cast<size_t>(x.numel()));
  if (is_complex(x.dtype())) {
    const C* p = x.data<C>();
    std::copy(p, p + x.numel(), buf.begin());
  } else {
    const R* p = x.data<R>();
    for (int64_t i = 0; i < x.numel(); ++i) buf[static_cast<size_t>(i)] = C(p[i], R(0));
  }
  const size_t last = a.axes.size() - 1;
  // The order of the passes: r2c's real axis first, c2r's last, otherwise as given.
  std::vector<size_t> order;
  if (a.mode == FftMode::R2C) order.push_back(last);
  for (size_t i = 0; i < a.axes.size(); ++i)
    if (a.mode == FftMode::C2C || i != last) order.push_back(i);
  if (a.mode == FftMode::C2R) order.push_back(last);
  for (size_t i : order) {
    const int64_t axis = a.axes[i];
    const int64_t n = a.sizes[i];
    const Line kind = a.mode == FftMode::C2C || i != last ? Line::C2C
                      : a.mode == FftMode::R2C            ? Line::R2C
                                                          : Line::C2R;
    const int64_t n_out = kind == Line::R2C ? n / 2 + 1 : n;
    const int64_t cap = kind == Line::C2R ? n / 2 + 1 : n;
    Shape next = shape;
    next[static_cast<size_t>(axis)] = n_out;
    std::vector<C> dst(static_cast<size_t>(numel(next)));
    pass<R>(buf.data(), dst.data(), shape, axis, n, n_out, a.inverse, kind, cap);
    buf = std::move(dst);
    shape = next;
  }
  const R s = static_cast<R>(a.scale());
  const Tensor& y = ctx.out[0];
  if (a.mode == FftMode::C2R) {
    R* q = y.data<R>();
    for (size_t i = 0; i < buf.size(); ++i) q[i] = buf[i].real() * s;
  } else {
    C* q = y.data<C>();
    for (size_t i = 0; i < buf.size(); ++i) q[i] = buf[i] * s;
  }
}

}  // namespace

void cpu_fftn(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const FftAttrs a = read_fft_attrs(ctx.attrs, static_cast<int64_t>(x.shape().size()), ctx.op.name);
  const DType t = x.dtype();
  if (t == DType::Float32 || t == DType::Complex64)
    fftn_typed<float>(ctx, a);
  else
    fftn_typed<double>(ctx, a);
}

}  // namespace mycel
