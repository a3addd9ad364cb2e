// FftPlan (fft_plan.h): mixed-radix Stockham stages and Bluestein's chirp-z.
#include "kernels/cpu/fft_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <numbers>
#include <type_traits>
#include <utility>

namespace mycel::fft_detail {

namespace {

// Complex products written out (std::complex's operator* checks for NaN/inf through
// __mulsc3 unless -ffast-math, several times slower in these loops).
template <class R>
inline std::complex<R> mul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
template <class R>
inline std::complex<R> scale_by(std::complex<R> a, R c) {
  return {a.real() * c, a.imag() * c};
}

// e^{sign 2 pi i num / den}, the angle reduced exactly.
template <class R>
std::complex<R> root(int64_t num, int64_t den, double sign) {
  const double ang =
      sign * 2.0 * std::numbers::pi * static_cast<double>(num % den) / static_cast<double>(den);
  return {static_cast<R>(std::cos(ang)), static_cast<R>(std::sin(ang))};
}

// The smallest prime factor of n > 1.
int64_t smallest_factor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p)
    if (n % p == 0) return p;
  return n;
}

// The fixed-radix stages at the baseline vector width and, on x86-64, with AVX2.
namespace base {
#define MYCEL_FFT_VBYTES 16
#include "kernels/cpu/fft_stages.inc"
#undef MYCEL_FFT_VBYTES
}  // namespace base

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MYCEL_FFT_AVX2 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
#define MYCEL_FFT_VBYTES 32
#include "kernels/cpu/fft_stages.inc"
#undef MYCEL_FFT_VBYTES
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

// Whether the AVX2 stages run (the CPU has AVX2); MYCEL_FFT_NO_AVX2 set in the environment
// keeps the baseline ones (for tests and comparisons; both give the same bits).
bool use_avx2() {
#if defined(MYCEL_FFT_AVX2)
  static const bool yes =
      __builtin_cpu_supports("avx2") && std::getenv("MYCEL_FFT_NO_AVX2") == nullptr;
  return yes;
#else
  return false;
#endif
}

// The stage of a prime radix p <= kMaxGenericRadix (the Stockham step of FftPlan::stage) on
// blocks of kGenericLines lines at a time, real and imaginary parts apart in fixed-length
// arrays (loops over the lines), the pairs k, p - k folded:
// with S_k = a_k + a_{p-k}, D_k = a_k - a_{p-k} and r^{jk} = c + i s,
//   y_j = a_0 + sum_k (S_k c + i D_k s),  y_{p-j} = a_0 + sum_k (S_k c - i D_k s)
// (k, j = 1 .. (p - 1) / 2): half the products of the direct sum.
constexpr int64_t kGenericLines = 16;

template <class R>
void generic_radix_stage(int64_t p, int64_t m, const std::complex<R>* r, const std::complex<R>* twq,
                         const std::complex<R>* x, Dims xd, std::complex<R>* y, Dims yd,
                         int64_t lines, int64_t s, R scale) {
  using C = std::complex<R>;
  constexpr int64_t L = kGenericLines;
  const int64_t h = (p - 1) / 2, xk = m * xd.e;
  R sr[kMaxGenericRadix][L], si[kMaxGenericRadix][L];  // a_0, then S_k (k <= h), D_k (h + k)
  R ar[L], ai[L], br[L], bi[L];
  for (int64_t q = 0; q < m; ++q, twq += p - 1)
    for (int64_t t = 0; t < s; ++t)
      for (int64_t b0 = 0; b0 < lines; b0 += L) {
        const int64_t nb = std::min(L, lines - b0);
        const C* a = x + b0 * xd.b + t * xd.t + q * xd.e;
        C* o = y + b0 * yd.b + t * yd.t + p * q * yd.e;
        for (int64_t b = 0; b < L; ++b) {
          const C v = b < nb ? a[b * xd.b] : C(0);
          sr[0][b] = v.real();
          si[0][b] = v.imag();
        }
        for (int64_t k = 1; k <= h; ++k) {
          const C* u = a + k * xk;
          const C* w = a + (p - k) * xk;
          for (int64_t b = 0; b < L; ++b) {
            const C v1 = b < nb ? u[b * xd.b] : C(0), v2 = b < nb ? w[b * xd.b] : C(0);
            sr[k][b] = v1.real() + v2.real();
            si[k][b] = v1.imag() + v2.imag();
            sr[h + k][b] = v1.real() - v2.real();
            si[h + k][b] = v1.imag() - v2.imag();
          }
        }
        // y_0
        for (int64_t b = 0; b < L; ++b) {
          ar[b] = sr[0][b];
          ai[b] = si[0][b];
        }
        for (int64_t k = 1; k <= h; ++k)
          for (int64_t b = 0; b < L; ++b) {
            ar[b] += sr[k][b];
            ai[b] += si[k][b];
          }
        for (int64_t b = 0; b < nb; ++b) o[b * yd.b] = C(ar[b] * scale, ai[b] * scale);
        for (int64_t j = 1; j <= h; ++j) {
          for (int64_t b = 0; b < L; ++b) {
            ar[b] = sr[0][b];
            ai[b] = si[0][b];
            br[b] = R(0);
            bi[b] = R(0);
          }
          int64_t e = 0;
          for (int64_t k = 1; k <= h; ++k) {
            e += j;
            if (e >= p) e -= p;
            const R c = r[e].real(), sn = r[e].imag();
            for (int64_t b = 0; b < L; ++b) {
              ar[b] += sr[k][b] * c;
              ai[b] += si[k][b] * c;
              br[b] += sr[h + k][b] * sn;
              bi[b] += si[h + k][b] * sn;
            }
          }
          // y_j = A + i B, y_{p-j} = A - i B (i B = -B.im + i B.re), then the twiddles.
          const C w1 = twq[j - 1] * scale, w2 = twq[p - j - 1] * scale;
          C* o1 = o + j * yd.e;
          C* o2 = o + (p - j) * yd.e;
          for (int64_t b = 0; b < nb; ++b) {
            const R y1r = ar[b] - bi[b], y1i = ai[b] + br[b];
            const R y2r = ar[b] + bi[b], y2i = ai[b] - br[b];
            o1[b * yd.b] = C(y1r * w1.real() - y1i * w1.imag(), y1r * w1.imag() + y1i * w1.real());
            o2[b * yd.b] = C(y2r * w2.real() - y2i * w2.imag(), y2r * w2.imag() + y2i * w2.real());
          }
        }
      }
}

}  // namespace

template <class R>
FftPlan<R>::FftPlan(int64_t n, bool inverse) : n_(n), sign_(inverse ? R(1) : R(-1)) {
  // Bluestein when a prime factor is above kMaxGenericRadix.
  int64_t rest = n;
  bool smooth = true;
  while (rest > 1) {
    const int64_t p = smallest_factor(rest);
    if (p > kMaxGenericRadix) smooth = false;
    rest /= p;
  }
  if (smooth)
    build_stockham(n, inverse);
  else
    build_bluestein(n, inverse);
}

template <class R>
void FftPlan<R>::build_stockham(int64_t n, bool inverse) {
  std::vector<int64_t> radices;
  int64_t rest = n;
  // Radix 8 for float (measured faster than 4 with two complex<float> per pack); double's
  // one-complex packs spill its registers (SSE2's 16), so radix 4 there.
  if (std::is_same_v<R, float>)
    while (rest % 8 == 0) radices.push_back(8), rest /= 8;
  while (rest % 4 == 0) radices.push_back(4), rest /= 4;
  while (rest % 2 == 0) radices.push_back(2), rest /= 2;
  while (rest > 1) {
    const int64_t p = smallest_factor(rest);
    radices.push_back(p);
    rest /= p;
  }
  const double sign = inverse ? 1.0 : -1.0;
  int64_t len = n, s = 1;
  for (int64_t p : radices) {
    Stage st{p, len / p, s, tw_.size(), roots_.size()};
    for (int64_t q = 0; q < st.m; ++q)
      for (int64_t j = 1; j < p; ++j) tw_.push_back(root<R>(j * q, len, sign));
    if (p != 2 && p != 3 && p != 4 && p != 5 && p != 8)
      for (int64_t k = 0; k < p; ++k) roots_.push_back(root<R>(k, p, sign));
    stages_.push_back(st);
    len /= p;
    s *= p;
  }
}

template <class R>
void FftPlan<R>::build_bluestein(int64_t n, bool inverse) {
  bluestein_ = true;
  m_ = 1;
  while (m_ < 2 * n - 1) m_ <<= 1;
  inner_ = std::make_unique<FftPlan>(m_, false);
  const double sign = inverse ? 1.0 : -1.0;
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)  // e^{sign i pi k^2 / n} = e^{sign 2 pi i (k^2 mod 2n) / 2n}
    chirp_[static_cast<size_t>(k)] = root<R>((k * k) % (2 * n), 2 * n, sign);
  // The filter b_k = conj(w_k) for |k| < n, circular in m, and its transform.
  std::vector<C> b(static_cast<size_t>(m_), C(0));
  for (int64_t k = 0; k < n; ++k) {
    b[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
    if (k > 0) b[static_cast<size_t>(m_ - k)] = std::conj(chirp_[static_cast<size_t>(k)]);
  }
  std::vector<C> scratch(static_cast<size_t>(inner_->scratch_size()));
  inner_->run(b.data(), scratch.data());
  filter_ = std::move(b);
}

template <class R>
void FftPlan<R>::run(C* x, C* scratch) const {
  run_batch(x, scratch, 1);
}

template <class R>
void FftPlan<R>::run_batch(C* x, C* scratch, int64_t batch) const {
  if (n_ <= 1) return;
  if (bluestein_) return bluestein_lines(x, 1, batch, x, 1, batch, batch, R(1), scratch);
  // In place: x is also the second work buffer (a stage never reads the buffer it writes, and
  // the last, of m = 1, reads and writes the same entries of a line).
  const Dims d{1, batch, batch};
  stockham(x, d, x, d, batch, R(1), scratch, x);
}

template <class R>
void FftPlan<R>::run_lines(const C* x, int64_t xb, int64_t xe, C* y, int64_t yb, int64_t ye,
                           int64_t batch, R scale, C* work) const {
  if (bluestein_) return bluestein_lines(x, xb, xe, y, yb, ye, batch, scale, work);
  if (n_ == 1) {
    for (int64_t b = 0; b < batch; ++b) y[b * yb] = scale_by(x[b * xb], scale);
    return;
  }
  stockham(x, Dims{xb, xe, xe}, y, Dims{yb, ye, ye}, batch, scale, work, work + n_ * batch);
}

// Bluestein over a block of lines, interleaved in the work buffer a (m x batch):
// a_k = x_k w_k zero-padded to m; A = fft(a); c = ifft(A * B) = conj(fft(conj(A * B))) / m;
// y_k = c_k w_k.
template <class R>
void FftPlan<R>::bluestein_lines(const C* x, int64_t xb, int64_t xe, C* y, int64_t yb, int64_t ye,
                                 int64_t batch, R scale, C* work) const {
  using V = PackV<R>;
  constexpr int64_t W = Pack<R>::W;
  C* a = work;
  C* rest = work + m_ * batch;
  const V conj_mask = Pack<R>::alt(R(1), R(-1));
  for (int64_t k = 0; k < n_; ++k) {
    const C w = chirp_[static_cast<size_t>(k)];
    const V wr = Pack<R>::alt(w.real(), w.real()), wi = Pack<R>::alt(-w.imag(), w.imag());
    const C* xk = x + k * xe;
    C* ak = a + k * batch;
    int64_t b = 0;
    if (xb == 1)
      for (; b + W <= batch; b += W) {
        const V v = vload(xk + b);
        vstore(ak + b, v * wr + Pack<R>::swap(v) * wi);
      }
    for (; b < batch; ++b) ak[b] = mul(xk[b * xb], w);
  }
  std::fill(a + n_ * batch, a + m_ * batch, C(0));
  inner_->run_batch(a, rest, batch);
  for (int64_t k = 0; k < m_; ++k) {
    const C f = filter_[static_cast<size_t>(k)];
    const V fr = Pack<R>::alt(f.real(), f.real()), fi = Pack<R>::alt(-f.imag(), f.imag());
    C* ak = a + k * batch;
    int64_t b = 0;
    for (; b + W <= batch; b += W) {
      const V v = vload(ak + b);
      vstore(ak + b, (v * fr + Pack<R>::swap(v) * fi) * conj_mask);
    }
    for (; b < batch; ++b) ak[b] = std::conj(mul(ak[b], f));
  }
  inner_->run_batch(a, rest, batch);
  const R s = scale / static_cast<R>(m_);
  for (int64_t k = 0; k < n_; ++k) {
    const C w = chirp_[static_cast<size_t>(k)] * s;
    const V wr = Pack<R>::alt(w.real(), w.real()), wi = Pack<R>::alt(-w.imag(), w.imag());
    const C* ak = a + k * batch;
    C* yk = y + k * ye;
    int64_t b = 0;
    if (yb == 1)
      for (; b + W <= batch; b += W) {
        const V v = vload(ak + b) * conj_mask;
        vstore(yk + b, v * wr + Pack<R>::swap(v) * wi);
      }
    for (; b < batch; ++b) yk[b * yb] = mul(std::conj(ak[b]), w);
  }
}

// The stages from x through the work buffers to y; a stage over two buffers of the same line
// layout runs over the flattened (t, b) (s * batch lines of stride 1, t = 0).
template <class R>
void FftPlan<R>::stockham(const C* x, Dims xd, C* y, Dims yd, int64_t batch, R scale, C* w0,
                          C* w1) const {
  const size_t count = stages_.size();
  const C* in = x;
  for (size_t i = 0; i < count; ++i) {
    const Stage& st = stages_[i];
    const int64_t s = st.s;
    const bool last = i + 1 == count;
    const Dims buf{1, batch, s * batch};
    const Dims id = i == 0 ? Dims{xd.b, xd.t, s * xd.t} : buf;
    const Dims od = last ? Dims{yd.b, yd.t, s * yd.t} : buf;
    C* out = last ? y : (i % 2 == 0 ? w0 : w1);
    if (id.t == batch * id.b && od.t == batch * od.b)
      stage(st, in, Dims{id.b, 0, id.e}, out, Dims{od.b, 0, od.e}, s * batch, 1,
            last ? scale : R(1));
    else
      stage(st, in, id, out, od, batch, s, last ? scale : R(1));
    in = out;
  }
}

// One Stockham stage of radix p, stride s, sub-length p*m (decimation in frequency):
// for q < m, t < s, with a_k = x[t + s (q + k m)], y[t + s (p q + j)] = w^{jq} sum_k a_k r^{jk},
// r the p-th root of unity and w the (p m)-th, of the plan's sign; per line, addressed by Dims
// (e = q + k m in x, p q + j in y).
template <class R>
void FftPlan<R>::stage(const Stage& st, const C* x, Dims xd, C* y, Dims yd, int64_t lines,
                       int64_t s, R scale) const {
  const int64_t p = st.p, m = st.m;
  const C* twq = tw_.data() + st.tw;
  if (p == 2 || p == 3 || p == 4 || p == 5 || p == 8) {
#if defined(MYCEL_FFT_AVX2)
    // The wider packs where they leave fewer steps (packs plus one-by-one tails) over the lines
    // (a stage over 3 lines: one 16-byte pack and one single entry, not three single ones).
    const int64_t w32 = 32 / static_cast<int64_t>(sizeof(C)), w16 = w32 / 2;
    if (use_avx2() && lines / w32 + lines % w32 <= lines / w16 + lines % w16)
      return avx2::fixed_radix_stage(p, sign_, x, xd, y, yd, lines, s, m, twq, scale);
#endif
    return base::fixed_radix_stage(p, sign_, x, xd, y, yd, lines, s, m, twq, scale);
  }
  // a prime p <= kMaxGenericRadix
  generic_radix_stage(p, m, roots_.data() + st.roots, twq, x, xd, y, yd, lines, s, scale);
}

template <class R>
std::shared_ptr<const FftPlan<R>> fft_plan(int64_t n, bool inverse) {
  static std::mutex mu;
  static std::map<std::pair<int64_t, bool>, std::shared_ptr<const FftPlan<R>>> cache;
  const std::pair<int64_t, bool> key{n, inverse};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  auto plan = std::make_shared<const FftPlan<R>>(n, inverse);  // built outside the lock
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 64) cache.clear();
  return cache.try_emplace(key, std::move(plan)).first->second;
}

template <class R>
void r2c_twiddle(const std::complex<R>* z, int64_t h, int64_t batch, const std::complex<R>* tw,
                 bool conj_out, R scale, int64_t k0, int64_t k1, std::complex<R>* x) {
#if defined(MYCEL_FFT_AVX2)
  if (use_avx2()) return avx2::real_twiddle_r2c(z, h, batch, tw, conj_out, scale, k0, k1, x);
#endif
  base::real_twiddle_r2c(z, h, batch, tw, conj_out, scale, k0, k1, x);
}
template <class R>
void c2r_twiddle(const std::complex<R>* spec, int64_t h, int64_t batch, const std::complex<R>* tw,
                 bool conj_in, std::complex<R>* z) {
#if defined(MYCEL_FFT_AVX2)
  if (use_avx2()) return avx2::real_twiddle_c2r(spec, h, batch, tw, conj_in, z);
#endif
  base::real_twiddle_c2r(spec, h, batch, tw, conj_in, z);
}

template class FftPlan<float>;
template class FftPlan<double>;
template std::shared_ptr<const FftPlan<float>> fft_plan<float>(int64_t, bool);
template std::shared_ptr<const FftPlan<double>> fft_plan<double>(int64_t, bool);
template void r2c_twiddle<float>(const std::complex<float>*, int64_t, int64_t,
                                 const std::complex<float>*, bool, float, int64_t, int64_t,
                                 std::complex<float>*);
template void r2c_twiddle<double>(const std::complex<double>*, int64_t, int64_t,
                                  const std::complex<double>*, bool, double, int64_t, int64_t,
                                  std::complex<double>*);
template void c2r_twiddle<float>(const std::complex<float>*, int64_t, int64_t,
                                 const std::complex<float>*, bool, std::complex<float>*);
template void c2r_twiddle<double>(const std::complex<double>*, int64_t, int64_t,
                                  const std::complex<double>*, bool, std::complex<double>*);

}  // namespace mycel::fft_detail
