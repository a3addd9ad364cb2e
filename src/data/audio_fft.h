// The discrete Fourier transform of the audio transforms (Spectrogram, InverseSpectrogram,
// GriffinLim, ...). The repository links no FFT library, so this is its own: an iterative
// radix-2 Cooley-Tukey transform for power-of-two sizes, a recursive mixed-radix one for sizes
// whose prime factors are all at most 7 (400 = 2^4 5^2, MindSpore's default n_fft), and
// Bluestein's chirp-z algorithm (a convolution done with a power-of-two FFT) for the rest, so
// any n_fft costs O(n log n). RealFftPlan transforms real input of even length through a
// complex FFT of half the length. naive_dft is the O(n^2) definition, the tests' reference.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace mycel::data {

using cdouble = std::complex<double>;

// A plan for DFTs of one size n >= 1: the twiddle factors (and Bluestein's chirp) computed
// once. Immutable after construction, so one plan serves every worker thread.
class FftPlan {
 public:
  explicit FftPlan(int64_t n);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  int64_t size() const { return n_; }
  // In place: X[k] = sum_j x[j] exp(-2 pi i j k / n); inverse uses exp(+...) and does not
  // divide by n.
  void forward(cdouble* x) const;
  void inverse(cdouble* x) const;

 private:
  void radix2(cdouble* x) const;     // forward, n_ a power of two
  void bluestein(cdouble* x) const;  // forward, any n_
  // forward, mixed radix: the DFT of the n points in[0], in[stride], ... into out[0 .. n),
  // factors_[level..] multiplying to n.
  void mixed(const cdouble* in, cdouble* out, int64_t n, int64_t stride, size_t level) const;

  int64_t n_;
  bool pow2_;
  std::vector<int64_t> factors_;  // mixed radix: the prime factors (<= 7) of n_, or empty
  std::vector<cdouble> twiddle_;  // exp(-2 pi i k / n), k < n / 2 (radix-2), k < n (mixed)
  std::vector<int64_t> bitrev_;   // the radix-2 input permutation
  // Bluestein: w[k] = exp(-i pi k^2 / n); the convolution kernel's FFT, of size m (a power of
  // two >= 2n - 1), and the plan of size m.
  std::vector<cdouble> chirp_;
  std::vector<cdouble> kernel_fft_;
  std::unique_ptr<FftPlan> sub_;
};

// The DFT of n real values: out[k] for k = 0 .. n / 2 (the rest are conj(out[n - k])). Even n
// runs one complex FFT of n / 2 points (even and odd samples as real and imaginary parts),
// odd n a complex FFT of n points.
class RealFftPlan {
 public:
  explicit RealFftPlan(int64_t n);
  int64_t size() const { return n_; }
  void forward(const double* x, cdouble* out) const;

 private:
  int64_t n_;
  FftPlan half_;                  // n / 2 points (even n) or n points (odd n)
  std::vector<cdouble> twiddle_;  // exp(-2 pi i k / n), k <= n / 2 (even n)
};

// The DFT by its definition (exp(-2 pi i j k / n), or + for inverse, unscaled).
std::vector<cdouble> naive_dft(const std::vector<cdouble>& x, bool inverse);

}  // namespace mycel::data
