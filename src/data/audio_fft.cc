// FftPlan: radix-2 for powers of two, Bluestein otherwise (see audio_fft.h).
#include "data/audio_fft.h"

#include <cmath>

#include "base/error.h"

namespace mycel::data {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// a * b without std::complex's NaN/inf recovery (__muldc3): the operands are finite.
inline cdouble cmul(const cdouble& a, const cdouble& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

}  // namespace

// The prime factors of n when all are at most 7 (4s first: fewer levels), else empty.
std::vector<int64_t> small_factors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t p : {4, 2, 3, 5, 7}) {
    while (n % p == 0 && n > 1) {
      f.push_back(p);
      n /= p;
    }
  }
  if (n != 1) f.clear();
  return f;
}

FftPlan::FftPlan(int64_t n) : n_(n), pow2_(is_pow2(n)) {
  MC_CHECK(n >= 1, Value, "FFT: the size must be positive, but got ", n, ".");
  if (!pow2_) factors_ = small_factors(n);
  if (!factors_.empty()) {
    twiddle_.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      double a = -2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
      twiddle_[static_cast<size_t>(k)] = cdouble(std::cos(a), std::sin(a));
    }
    return;
  }
  if (pow2_) {
    twiddle_.resize(static_cast<size_t>(n / 2));
    for (int64_t k = 0; k < n / 2; ++k) {
      double a = -2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
      twiddle_[static_cast<size_t>(k)] = cdouble(std::cos(a), std::sin(a));
    }
    bitrev_.resize(static_cast<size_t>(n));
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      bitrev_[static_cast<size_t>(i)] = r;
    }
    return;
  }
  // Bluestein: jk = (j^2 + k^2 - (k - j)^2) / 2 turns the DFT into a convolution with the
  // chirp conj(w). k^2 is reduced mod 2n before the angle so large k keep their precision.
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t k2 = (k * k) % (2 * n);
    double a = -kPi * static_cast<double>(k2) / static_cast<double>(n);
    chirp_[static_cast<size_t>(k)] = cdouble(std::cos(a), std::sin(a));
  }
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  sub_ = std::make_unique<FftPlan>(m);
  kernel_fft_.assign(static_cast<size_t>(m), cdouble(0, 0));
  kernel_fft_[0] = std::conj(chirp_[0]);
  for (int64_t k = 1; k < n; ++k) {
    kernel_fft_[static_cast<size_t>(k)] = kernel_fft_[static_cast<size_t>(m - k)] =
        std::conj(chirp_[static_cast<size_t>(k)]);
  }
  sub_->forward(kernel_fft_.data());
}

FftPlan::~FftPlan() = default;

void FftPlan::forward(cdouble* x) const {
  if (n_ == 1) return;
  if (pow2_) {
    radix2(x);
  } else if (!factors_.empty()) {
    std::vector<cdouble> in(x, x + n_);
    mixed(in.data(), x, n_, 1, 0);
  } else {
    bluestein(x);
  }
}

void FftPlan::mixed(const cdouble* in, cdouble* out, int64_t n, int64_t stride,
                    size_t level) const {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  int64_t p = factors_[level], m = n / p;
  // Decimation in time: out[q * m + k] is the DFT (size m) of the q-th of p interleaved
  // sub-sequences; then X[k + r m] = sum_q w_n^{q (k + r m)} out[q m + k].
  for (int64_t q = 0; q < p; ++q) mixed(in + q * stride, out + q * m, m, stride * p, level + 1);
  int64_t step = n_ / n;  // w_n^j = w_N^{j step}
  cdouble t[7], wp[7];    // wp[j] = w_p^j
  for (int64_t j = 0; j < p; ++j) wp[j] = twiddle_[static_cast<size_t>(j * (n_ / p))];
  for (int64_t k = 0; k < m; ++k) {
    t[0] = out[k];
    for (int64_t q = 1; q < p; ++q) {
      t[q] = cmul(out[q * m + k], twiddle_[static_cast<size_t>(q * k * step)]);
    }
    if (p == 2) {
      out[k] = t[0] + t[1];
      out[k + m] = t[0] - t[1];
      continue;
    }
    if (p == 4) {  // w_4 = -i
      cdouble a = t[0] + t[2], b = t[0] - t[2], c = t[1] + t[3], d = t[1] - t[3];
      cdouble mid(d.imag(), -d.real());  // -i d
      out[k] = a + c;
      out[k + m] = b + mid;
      out[k + 2 * m] = a - c;
      out[k + 3 * m] = b - mid;
      continue;
    }
    for (int64_t r = 0; r < p; ++r) {
      cdouble acc = t[0];
      for (int64_t q = 1, e = r; q < p; ++q, e = (e + r) % p) acc += cmul(t[q], wp[e]);
      out[k + r * m] = acc;
    }
  }
}

void FftPlan::inverse(cdouble* x) const {
  // ifft(x) = conj(fft(conj(x))), unscaled.
  for (int64_t i = 0; i < n_; ++i) x[i] = std::conj(x[i]);
  forward(x);
  for (int64_t i = 0; i < n_; ++i) x[i] = std::conj(x[i]);
}

void FftPlan::radix2(cdouble* x) const {
  for (int64_t i = 0; i < n_; ++i) {
    int64_t r = bitrev_[static_cast<size_t>(i)];
    if (i < r) std::swap(x[i], x[r]);
  }
  for (int64_t len = 2; len <= n_; len <<= 1) {
    int64_t half = len / 2, step = n_ / len;
    for (int64_t start = 0; start < n_; start += len) {
      for (int64_t j = 0; j < half; ++j) {
        cdouble t = cmul(twiddle_[static_cast<size_t>(j * step)], x[start + j + half]);
        x[start + j + half] = x[start + j] - t;
        x[start + j] += t;
      }
    }
  }
}

void FftPlan::bluestein(cdouble* x) const {
  int64_t m = sub_->size();
  std::vector<cdouble> a(static_cast<size_t>(m), cdouble(0, 0));
  for (int64_t j = 0; j < n_; ++j)
    a[static_cast<size_t>(j)] = cmul(x[j], chirp_[static_cast<size_t>(j)]);
  sub_->forward(a.data());
  for (int64_t k = 0; k < m; ++k) {
    a[static_cast<size_t>(k)] =
        cmul(a[static_cast<size_t>(k)], kernel_fft_[static_cast<size_t>(k)]);
  }
  sub_->inverse(a.data());
  double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n_; ++k) {
    x[k] = cmul(a[static_cast<size_t>(k)], chirp_[static_cast<size_t>(k)]) * scale;
  }
}

RealFftPlan::RealFftPlan(int64_t n) : n_(n), half_(n % 2 == 0 ? std::max<int64_t>(n / 2, 1) : n) {
  if (n % 2 == 0) {
    twiddle_.resize(static_cast<size_t>(n / 2 + 1));
    for (int64_t k = 0; k <= n / 2; ++k) {
      double a = -2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
      twiddle_[static_cast<size_t>(k)] = cdouble(std::cos(a), std::sin(a));
    }
  }
}

void RealFftPlan::forward(const double* x, cdouble* out) const {
  if (n_ % 2 != 0) {
    std::vector<cdouble> buf(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) buf[static_cast<size_t>(j)] = cdouble(x[j], 0.0);
    half_.forward(buf.data());
    for (int64_t k = 0; k <= n_ / 2; ++k) out[k] = buf[static_cast<size_t>(k)];
    return;
  }
  int64_t h = n_ / 2;
  thread_local std::vector<cdouble> z;  // per worker thread: no allocation per frame
  z.resize(static_cast<size_t>(h));
  for (int64_t j = 0; j < h; ++j) z[static_cast<size_t>(j)] = cdouble(x[2 * j], x[2 * j + 1]);
  half_.forward(z.data());
  // E[k] = (Z[k] + conj(Z[h - k])) / 2 (even samples), O[k] = (Z[k] - conj(Z[h - k])) / 2i.
  for (int64_t k = 0; k <= h; ++k) {
    cdouble a = z[static_cast<size_t>(k % h)], b = std::conj(z[static_cast<size_t>((h - k) % h)]);
    cdouble even = (a + b) * 0.5, odd = (a - b) * cdouble(0.0, -0.5);
    out[k] = even + cmul(twiddle_[static_cast<size_t>(k)], odd);
  }
}

std::vector<cdouble> naive_dft(const std::vector<cdouble>& x, bool inverse) {
  auto n = static_cast<int64_t>(x.size());
  std::vector<cdouble> out(x.size());
  double sign = inverse ? 2.0 : -2.0;
  for (int64_t k = 0; k < n; ++k) {
    cdouble acc(0, 0);
    for (int64_t j = 0; j < n; ++j) {
      double a = sign * kPi * static_cast<double>((j * k) % n) / static_cast<double>(n);
      acc += x[static_cast<size_t>(j)] * cdouble(std::cos(a), std::sin(a));
    }
    out[static_cast<size_t>(k)] = acc;
  }
  return out;
}

}  // namespace mycel::data
