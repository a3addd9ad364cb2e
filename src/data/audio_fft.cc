// FftPlan: radix-2 for powers of two, Bluestein otherwise (see audio_fft.h).
#include "data/audio_fft.h"

#include <cmath>

#include "base/error.h"

namespace mycel::data {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

FftPlan::FftPlan(int64_t n) : n_(n), pow2_(is_pow2(n)) {
  MC_CHECK(n >= 1, Value, "FFT: the size must be positive, but got ", n, ".");
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
  } else {
    bluestein(x);
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
        cdouble t = twiddle_[static_cast<size_t>(j * step)] * x[start + j + half];
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
    a[static_cast<size_t>(j)] = x[j] * chirp_[static_cast<size_t>(j)];
  sub_->forward(a.data());
  for (int64_t k = 0; k < m; ++k) a[static_cast<size_t>(k)] *= kernel_fft_[static_cast<size_t>(k)];
  sub_->inverse(a.data());
  double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n_; ++k) {
    x[k] = a[static_cast<size_t>(k)] * scale * chirp_[static_cast<size_t>(k)];
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
