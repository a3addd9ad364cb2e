// FftPlan: the 1-d complex transform behind FFTN's CPU kernel (kernels/cpu/fft.cc), written
// from the math (no FFT library: Debian's kissfft would add a runtime library to the GPU
// bundle and builds one scalar type per library).
//
// A plan is an unscaled transform of one length n and direction (sign -1 forward, +1
// inverse) in the precision R (float for float32/complex64, double otherwise):
//   - mixed radix: n = p1 * p2 * ... with radices 4, 2, 3, 5 (hand-written butterflies) and
//     other primes up to kMaxGenericRadix (a generic O(p^2) butterfly); a Stockham autosort
//     transform (no bit reversal: each stage reads one buffer and writes the other), its
//     twiddles precomputed per stage; the stages of radix 2, 3, 4, 5, 8 run on vector packs
//     of 16 bytes, or 32 with AVX2 where the CPU has it (fft_stages.inc; the same bits);
//   - Bluestein's chirp-z for lengths with a larger prime factor: the DFT as a convolution
//     with the chirp w_k = e^{-i pi k^2 / n}, done by a mixed-radix power-of-two plan of length
//     m >= 2n - 1 (its inverse as conj(fft(conj(.))), so one inner plan).
// Twiddles and chirps are computed in double (angles reduced exactly: j*q mod n, k^2 mod 2n)
// and rounded to R. Plans are immutable after construction and shared through a bounded,
// thread-safe cache (fft_plan<R>(n, inverse)).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace mycel::fft_detail {

inline constexpr int64_t kMaxGenericRadix = 31;

// Packs of complex numbers in GCC vector registers (16 bytes: 2 complex<float> or 1
// complex<double>, interleaved as in memory), so that the loop over t runs W lines at once.
template <class R>
struct Pack;
template <>
struct Pack<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef int I __attribute__((vector_size(16)));
  static constexpr int64_t W = 2;
#if defined(__clang__)
  static V swap(V a) { return __builtin_shufflevector(a, a, 1, 0, 3, 2); }
#else
  static V swap(V a) { return __builtin_shuffle(a, I{1, 0, 3, 2}); }
#endif
  static V alt(float re, float im) { return V{re, im, re, im}; }
};
template <>
struct Pack<double> {
  typedef double V __attribute__((vector_size(16)));
  typedef long long I __attribute__((vector_size(16)));
  static constexpr int64_t W = 1;
#if defined(__clang__)
  static V swap(V a) { return __builtin_shufflevector(a, a, 1, 0); }
#else
  static V swap(V a) { return __builtin_shuffle(a, I{1, 0}); }
#endif
  static V alt(double re, double im) { return V{re, im}; }
};
template <class R>
using PackV = typename Pack<R>::V;

template <class R>
inline PackV<R> vload(const std::complex<R>* p) {
  PackV<R> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class R>
inline void vstore(std::complex<R>* p, PackV<R> v) {
  __builtin_memcpy(static_cast<void*>(p), &v, sizeof v);
}

// Where a stage's block of lines lies: line b's entry (t, e) at p[b * d.b + t * d.t + e * d.e],
// t < s the Stockham stride index and e the index the stage's butterflies step (the entry
// t + s * e of the line): a strided array has d.t = its entry stride and d.e = s times it, an
// interleaved work buffer of `batch` lines d.b = 1, d.t = batch, d.e = s * batch.
struct Dims {
  int64_t b, t, e;
};

template <class R>
class FftPlan {
 public:
  using C = std::complex<R>;

  FftPlan(int64_t n, bool inverse);

  int64_t size() const { return n_; }
  // The length of the transforms it runs (Bluestein's power of two, else n).
  int64_t work_size() const { return bluestein_ ? m_ : n_; }
  // Entries of scratch run() needs.
  int64_t scratch_size() const { return bluestein_ ? m_ + inner_->scratch_size() : n_; }
  // x[0..n) in place, unscaled.
  void run(C* x, C* scratch) const;
  // `batch` lines interleaved in place (line b's entry k at x[k * batch + b]), the butterflies
  // running over the lines as over the stride: scratch of batch_scratch_size(batch) entries.
  int64_t batch_scratch_size(int64_t batch) const {
    return bluestein_ ? 2 * m_ * batch : n_ * batch;
  }
  void run_batch(C* x, C* scratch, int64_t batch) const;
  // `batch` lines read from strided memory (line b's entry k at x[b * xb + k * xe]) and
  // written transformed, times `scale`, to y[b * yb + k * ye]: the first stage reads x and
  // the last writes y directly (no copy of the lines in or out); x and y must not overlap
  // unless equal with the same strides. work: lines_scratch_size(batch) entries.
  int64_t lines_scratch_size(int64_t batch) const { return 2 * work_size() * batch; }
  void run_lines(const C* x, int64_t xb, int64_t xe, C* y, int64_t yb, int64_t ye, int64_t batch,
                 R scale, C* work) const;

 private:
  struct Stage {
    int64_t p;     // the radix
    int64_t m;     // the stage's sub-length / p
    int64_t s;     // the stride (product of the radices before)
    size_t tw;     // offset of the stage's twiddles in tw_: (p - 1) per q < m
    size_t roots;  // offset of the p-th roots of unity in roots_ (generic radix only)
  };
  void build_stockham(int64_t n, bool inverse);
  void build_bluestein(int64_t n, bool inverse);
  // The Stockham stages from x to y through the work buffers w0 and w1 (n * batch entries
  // each, interleaved; w1 unused below three stages), times scale at the last.
  void stockham(const C* x, Dims xd, C* y, Dims yd, int64_t batch, R scale, C* w0, C* w1) const;
  // One stage over `lines` lines and the stage's t < s (s = 1 for flattened buffers).
  void stage(const Stage& st, const C* x, Dims xd, C* y, Dims yd, int64_t lines, int64_t s,
             R scale) const;
  void bluestein_lines(const C* x, int64_t xb, int64_t xe, C* y, int64_t yb, int64_t ye,
                       int64_t batch, R scale, C* work) const;

  int64_t n_;
  R sign_;  // -1 forward, +1 inverse
  std::vector<Stage> stages_;
  std::vector<C> tw_, roots_;
  // Bluestein
  bool bluestein_ = false;
  int64_t m_ = 0;
  std::vector<C> chirp_, filter_;
  std::unique_ptr<FftPlan> inner_;
};

// The twiddle passes of the real transforms of even length 2h on blocks of `batch` lines
// interleaved (entry k of line b at k * batch + b), on the stages' vector packs (fft.cc's
// real_batched states the math): r2c from the half-length transform z (h entries) to the
// entries k0 <= k < k1 of the half spectrum (h + 1; entry k in x's row k - k0), conjugated
// when conj_out, times scale; c2r from the half spectrum
// spec (h + 1, conjugated first when conj_in) to z (h). tw: e^{-2 pi i k / 2h}, k <= h.
template <class R>
void r2c_twiddle(const std::complex<R>* z, int64_t h, int64_t batch, const std::complex<R>* tw,
                 bool conj_out, R scale, int64_t k0, int64_t k1, std::complex<R>* x);
template <class R>
void c2r_twiddle(const std::complex<R>* spec, int64_t h, int64_t batch, const std::complex<R>* tw,
                 bool conj_in, std::complex<R>* z);

// The cached plan of (n, inverse) for precision R (at most 64 plans per precision; a full
// cache is emptied, plans in use stay alive through their shared_ptr).
template <class R>
std::shared_ptr<const FftPlan<R>> fft_plan(int64_t n, bool inverse);

extern template class FftPlan<float>;
extern template class FftPlan<double>;
extern template std::shared_ptr<const FftPlan<float>> fft_plan<float>(int64_t, bool);
extern template std::shared_ptr<const FftPlan<double>> fft_plan<double>(int64_t, bool);
extern template void r2c_twiddle<float>(const std::complex<float>*, int64_t, int64_t,
                                        const std::complex<float>*, bool, float, int64_t, int64_t,
                                        std::complex<float>*);
extern template void r2c_twiddle<double>(const std::complex<double>*, int64_t, int64_t,
                                         const std::complex<double>*, bool, double, int64_t,
                                         int64_t, std::complex<double>*);
extern template void c2r_twiddle<float>(const std::complex<float>*, int64_t, int64_t,
                                        const std::complex<float>*, bool, std::complex<float>*);
extern template void c2r_twiddle<double>(const std::complex<double>*, int64_t, int64_t,
                                         const std::complex<double>*, bool, std::complex<double>*);

}  // namespace mycel::fft_detail
