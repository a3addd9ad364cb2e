// FftPlan (fft_plan.h): mixed-radix Stockham stages and Bluestein's chirp-z.
#include "kernels/cpu/fft_plan.h"

#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <utility>

namespace mycel::fft_detail {

namespace {

// Complex products written out (std::complex's operator* checks for NaN/inf through
// __mulsc3 unless -ffast-math, several times slower in these loops).
template <class R>
inline std::complex<R> mul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
// i * sgn * a
template <class R>
inline std::complex<R> rot(std::complex<R> a, R sgn) {
  return {-sgn * a.imag(), sgn * a.real()};
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
    if (p != 2 && p != 3 && p != 4 && p != 5)
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
  if (n_ <= 1) return;
  if (!bluestein_) {
    stockham(x, scratch);
    return;
  }
  // a_k = x_k w_k, zero-padded to m; A = fft(a); c = ifft(A * B) = conj(fft(conj(A * B))) / m.
  C* a = scratch;
  C* rest = scratch + m_;
  for (int64_t k = 0; k < n_; ++k) a[k] = mul(x[k], chirp_[static_cast<size_t>(k)]);
  for (int64_t k = n_; k < m_; ++k) a[k] = C(0);
  inner_->run(a, rest);
  for (int64_t k = 0; k < m_; ++k) a[k] = std::conj(mul(a[k], filter_[static_cast<size_t>(k)]));
  inner_->run(a, rest);
  const R inv_m = R(1) / static_cast<R>(m_);
  for (int64_t k = 0; k < n_; ++k)
    x[k] = mul(std::conj(a[k]), chirp_[static_cast<size_t>(k)]) * inv_m;
}

template <class R>
void FftPlan<R>::stockham(C* x, C* y) const {
  C* in = x;
  C* out = y;
  for (const Stage& st : stages_) {
    stage(st, in, out);
    std::swap(in, out);
  }
  if (in != x)
    for (int64_t k = 0; k < n_; ++k) x[k] = in[k];
}

// One Stockham stage of radix p, stride s, sub-length p*m (decimation in frequency):
// for q < m, t < s, with a_k = x[t + s (q + k m)], y[t + s (p q + j)] = w^{jq} sum_k a_k r^{jk},
// r the p-th root of unity and w the (p m)-th, of the plan's sign.
template <class R>
void FftPlan<R>::stage(const Stage& st, const C* x, C* y) const {
  const int64_t p = st.p, m = st.m, s = st.s;
  const C* twq = tw_.data() + st.tw;
  const R sg = sign_;
  if (p == 4) {
    for (int64_t q = 0; q < m; ++q, twq += 3) {
      const C w1 = twq[0], w2 = twq[1], w3 = twq[2];
      const C* a = x + s * q;
      C* b = y + s * 4 * q;
      for (int64_t t = 0; t < s; ++t) {
        const C a0 = a[t], a1 = a[t + s * m], a2 = a[t + 2 * s * m], a3 = a[t + 3 * s * m];
        const C s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = rot(a1 - a3, sg);
        b[t] = s02 + s13;
        b[t + s] = mul(d02 + d13, w1);
        b[t + 2 * s] = mul(s02 - s13, w2);
        b[t + 3 * s] = mul(d02 - d13, w3);
      }
    }
  } else if (p == 2) {
    for (int64_t q = 0; q < m; ++q, ++twq) {
      const C w1 = twq[0];
      const C* a = x + s * q;
      C* b = y + s * 2 * q;
      for (int64_t t = 0; t < s; ++t) {
        const C a0 = a[t], a1 = a[t + s * m];
        b[t] = a0 + a1;
        b[t + s] = mul(a0 - a1, w1);
      }
    }
  } else if (p == 3) {
    const R h = R(0.5), c = sg * static_cast<R>(std::numbers::sqrt3 / 2);
    for (int64_t q = 0; q < m; ++q, twq += 2) {
      const C w1 = twq[0], w2 = twq[1];
      const C* a = x + s * q;
      C* b = y + s * 3 * q;
      for (int64_t t = 0; t < s; ++t) {
        const C a0 = a[t], a1 = a[t + s * m], a2 = a[t + 2 * s * m];
        const C sum = a1 + a2, mid = a0 - sum * h, d = rot(a1 - a2, c);
        b[t] = a0 + sum;
        b[t + s] = mul(mid + d, w1);
        b[t + 2 * s] = mul(mid - d, w2);
      }
    }
  } else if (p == 5) {
    const R c1 = static_cast<R>(std::cos(2 * std::numbers::pi / 5));
    const R c2 = static_cast<R>(std::cos(4 * std::numbers::pi / 5));
    const R s1 = sg * static_cast<R>(std::sin(2 * std::numbers::pi / 5));
    const R s2 = sg * static_cast<R>(std::sin(4 * std::numbers::pi / 5));
    for (int64_t q = 0; q < m; ++q, twq += 4) {
      const C* a = x + s * q;
      C* b = y + s * 5 * q;
      for (int64_t t = 0; t < s; ++t) {
        const C a0 = a[t], a1 = a[t + s * m], a2 = a[t + 2 * s * m], a3 = a[t + 3 * s * m],
                a4 = a[t + 4 * s * m];
        const C t1 = a1 + a4, t2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
        const C e1 = a0 + t1 * c1 + t2 * c2, e2 = a0 + t1 * c2 + t2 * c1;
        const C o1 = rot(d1 * s1 + d2 * s2, R(1)), o2 = rot(d1 * s2 - d2 * s1, R(1));
        b[t] = a0 + t1 + t2;
        b[t + s] = mul(e1 + o1, twq[0]);
        b[t + 2 * s] = mul(e2 + o2, twq[1]);
        b[t + 3 * s] = mul(e2 - o2, twq[2]);
        b[t + 4 * s] = mul(e1 - o1, twq[3]);
      }
    }
  } else {  // a prime p <= kMaxGenericRadix
    const C* r = roots_.data() + st.roots;
    std::array<C, kMaxGenericRadix> in{};
    for (int64_t q = 0; q < m; ++q, twq += p - 1) {
      const C* a = x + s * q;
      C* b = y + s * p * q;
      for (int64_t t = 0; t < s; ++t) {
        for (int64_t k = 0; k < p; ++k) in[static_cast<size_t>(k)] = a[t + k * s * m];
        for (int64_t j = 0; j < p; ++j) {
          C acc = in[0];
          int64_t e = 0;
          for (int64_t k = 1; k < p; ++k) {
            e += j;
            if (e >= p) e -= p;
            acc += mul(in[static_cast<size_t>(k)], r[e]);
          }
          b[t + j * s] = j == 0 ? acc : mul(acc, twq[j - 1]);
        }
      }
    }
  }
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

template class FftPlan<float>;
template class FftPlan<double>;
template std::shared_ptr<const FftPlan<float>> fft_plan<float>(int64_t, bool);
template std::shared_ptr<const FftPlan<double>> fft_plan<double>(int64_t, bool);

}  // namespace mycel::fft_detail
