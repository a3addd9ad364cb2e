// FftPlan (fft_plan.h): mixed-radix Stockham stages and Bluestein's chirp-z.
#include "kernels/cpu/fft_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
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

// i * c * a for a pack.
template <class R>
inline PackV<R> rot(PackV<R> a, R c) {
  return Pack<R>::swap(a) * Pack<R>::alt(-c, c);
}
// The scalar and pack arithmetic the butterflies share.
template <class R>
inline std::complex<R> scale_by(std::complex<R> a, R c) {
  return {a.real() * c, a.imag() * c};
}
template <class R>
inline PackV<R> scale_by(PackV<R> a, R c) {
  return a * c;
}

// The butterflies, in place on a[0..P): a[j] = sum_k a[k] r^{jk}, r = e^{sign 2 pi i / P};
// T is std::complex<R> or PackV<R>.
template <class R>
struct Bf2 {
  static constexpr int P = 2;
  R sg;
  template <class T>
  void operator()(T* a) const {
    const T a0 = a[0], a1 = a[1];
    a[0] = a0 + a1;
    a[1] = a0 - a1;
  }
};
template <class R>
struct Bf3 {
  static constexpr int P = 3;
  R sg;
  template <class T>
  void operator()(T* a) const {
    const R c = sg * static_cast<R>(std::numbers::sqrt3 / 2);
    const T a0 = a[0], a1 = a[1], a2 = a[2];
    const T sum = a1 + a2, mid = a0 - scale_by(sum, R(0.5)), d = rot(a1 - a2, c);
    a[0] = a0 + sum;
    a[1] = mid + d;
    a[2] = mid - d;
  }
};
template <class R>
struct Bf4 {
  static constexpr int P = 4;
  R sg;
  template <class T>
  void operator()(T* a) const {
    const T a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const T s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = rot(a1 - a3, sg);
    a[0] = s02 + s13;
    a[1] = d02 + d13;
    a[2] = s02 - s13;
    a[3] = d02 - d13;
  }
};
// Radix 8 from two radix-4 halves: X_j = E_j + r^j O_j, X_{j+4} = E_j - r^j O_j (j < 4), E and
// O the 4-point transforms of the even and odd entries, r^2 = i sign.
template <class R>
struct Bf8 {
  static constexpr int P = 8;
  R sg;
  template <class T>
  void operator()(T* a) const {
    const R h = static_cast<R>(0.70710678118654752440);  // 1 / sqrt(2)
    T e[4] = {a[0], a[2], a[4], a[6]}, o[4] = {a[1], a[3], a[5], a[7]};
    const Bf4<R> bf4{sg};
    bf4(e);
    bf4(o);
    const T o1 = scale_by(o[1] + rot(o[1], sg), h), o2 = rot(o[2], sg);
    const T o3 = scale_by(rot(o[3], sg) - o[3], h);
    a[0] = e[0] + o[0];
    a[4] = e[0] - o[0];
    a[1] = e[1] + o1;
    a[5] = e[1] - o1;
    a[2] = e[2] + o2;
    a[6] = e[2] - o2;
    a[3] = e[3] + o3;
    a[7] = e[3] - o3;
  }
};
template <class R>
struct Bf5 {
  static constexpr int P = 5;
  R sg;
  template <class T>
  void operator()(T* a) const {
    const R c1 = static_cast<R>(0.30901699437494742410);       // cos(2 pi / 5)
    const R c2 = static_cast<R>(-0.80901699437494742410);      // cos(4 pi / 5)
    const R s1 = sg * static_cast<R>(0.95105651629515357212);  // sin(2 pi / 5)
    const R s2 = sg * static_cast<R>(0.58778525229247312917);  // sin(4 pi / 5)
    const T a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4];
    const T t1 = a1 + a4, t2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
    const T e1 = a0 + scale_by(t1, c1) + scale_by(t2, c2),
            e2 = a0 + scale_by(t1, c2) + scale_by(t2, c1);
    const T o1 = rot(scale_by(d1, s1) + scale_by(d2, s2), R(1));
    const T o2 = rot(scale_by(d1, s2) - scale_by(d2, s1), R(1));
    a[0] = a0 + t1 + t2;
    a[1] = e1 + o1;
    a[2] = e2 + o2;
    a[3] = e2 - o2;
    a[4] = e1 - o1;
  }
};

// W lines' entries as a pack: contiguous (kC: the lines one entry apart) or from W places
// `stride` apart; stored the same way.
template <class R, bool kC>
inline PackV<R> ld(const std::complex<R>* p, int64_t stride) {
  if constexpr (kC || Pack<R>::W == 1) {
    return vload(p);
  } else {
    static_assert(Pack<R>::W == 2);
    PackV<R> v;
    __builtin_memcpy(&v, p, sizeof *p);
    __builtin_memcpy(reinterpret_cast<char*>(&v) + sizeof *p, p + stride, sizeof *p);
    return v;
  }
}
template <class R, bool kC>
inline void st(std::complex<R>* p, int64_t stride, PackV<R> v) {
  if constexpr (kC || Pack<R>::W == 1) {
    vstore(p, v);
  } else {
    __builtin_memcpy(static_cast<void*>(p), &v, sizeof *p);
    __builtin_memcpy(static_cast<void*>(p + stride), reinterpret_cast<const char*>(&v) + sizeof *p,
                     sizeof *p);
  }
}

// A stage of a fixed radix (FftPlan::stage's comment) over lines b < `lines` and t < s, the
// loop over b in packs of W, the rest one by one; kXC / kYC: x's / y's lines one entry apart.
// q = 0 has no twiddles; a scale other than 1 multiplies every result.
template <class R, class Bf, bool kXC, bool kYC>
void fixed_stage(const Bf& bf, const std::complex<R>* x, Dims xd, std::complex<R>* y, Dims yd,
                 int64_t lines, int64_t s, int64_t m, const std::complex<R>* tw,
                 const PackV<R>* twv, R scale) {
  using C = std::complex<R>;
  using V = PackV<R>;
  constexpr int P = Bf::P;
  constexpr int64_t W = Pack<R>::W;
  const int64_t xb = kXC ? 1 : xd.b, yb = kYC ? 1 : yd.b;
  const int64_t xk = m * xd.e, ye = yd.e;
  const bool scaled = scale != R(1);
  for (int64_t q = 0; q < m; ++q) {
    const V* wq = twv + 2 * (P - 1) * q;  // (re, re) and (-im, im) of each twiddle
    const C* w = tw + (P - 1) * q;
    for (int64_t t = 0; t < s; ++t) {
      const C* a = x + t * xd.t + q * xd.e;
      C* o = y + t * yd.t + P * q * ye;
      int64_t b = 0;
      for (; b + W <= lines; b += W) {
        V v[P];
        for (int k = 0; k < P; ++k) v[k] = ld<R, kXC>(a + b * xb + k * xk, xb);
        bf(v);
        if (q > 0)
          for (int j = 1; j < P; ++j)
            v[j] = v[j] * wq[2 * j - 2] + Pack<R>::swap(v[j]) * wq[2 * j - 1];
        if (scaled)
          for (int j = 0; j < P; ++j) v[j] *= scale;
        C* ob = o + b * yb;
        for (int j = 0; j < P; ++j) st<R, kYC>(ob + j * ye, yb, v[j]);
      }
      for (; b < lines; ++b) {
        C v[P];
        for (int k = 0; k < P; ++k) v[k] = a[b * xb + k * xk];
        bf(v);
        if (q > 0)
          for (int j = 1; j < P; ++j) v[j] = mul(v[j], w[j - 1]);
        C* ob = o + b * yb;
        for (int j = 0; j < P; ++j) ob[j * ye] = scaled ? scale_by(v[j], scale) : v[j];
      }
    }
  }
}

template <class R, class Bf>
void fixed_stage(const Bf& bf, const std::complex<R>* x, Dims xd, std::complex<R>* y, Dims yd,
                 int64_t lines, int64_t s, int64_t m, const std::complex<R>* tw,
                 const PackV<R>* twv, R scale) {
  if (xd.b == 1 && yd.b == 1)
    fixed_stage<R, Bf, true, true>(bf, x, xd, y, yd, lines, s, m, tw, twv, scale);
  else if (xd.b == 1)
    fixed_stage<R, Bf, true, false>(bf, x, xd, y, yd, lines, s, m, tw, twv, scale);
  else if (yd.b == 1)
    fixed_stage<R, Bf, false, true>(bf, x, xd, y, yd, lines, s, m, tw, twv, scale);
  else
    fixed_stage<R, Bf, false, false>(bf, x, xd, y, yd, lines, s, m, tw, twv, scale);
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
    for (size_t i = st.tw; i < tw_.size(); ++i) {
      twv_.push_back(Pack<R>::alt(tw_[i].real(), tw_[i].real()));
      twv_.push_back(Pack<R>::alt(-tw_[i].imag(), tw_[i].imag()));
    }
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
        const V v = ld<R, true>(xk + b, 1);
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
  const PackV<R>* twv = twv_.data() + 2 * st.tw;
  auto run = [&](const auto& bf) {
    fixed_stage<R>(bf, x, xd, y, yd, lines, s, m, twq, twv, scale);
  };
  if (p == 8) return run(Bf8<R>{sign_});
  if (p == 4) return run(Bf4<R>{sign_});
  if (p == 2) return run(Bf2<R>{sign_});
  if (p == 3) return run(Bf3<R>{sign_});
  if (p == 5) return run(Bf5<R>{sign_});
  {  // a prime p <= kMaxGenericRadix
    const C* r = roots_.data() + st.roots;
    std::array<C, kMaxGenericRadix> in{};
    for (int64_t q = 0; q < m; ++q, twq += p - 1)
      for (int64_t t = 0; t < s; ++t)
        for (int64_t b = 0; b < lines; ++b) {
          const C* a = x + b * xd.b + t * xd.t + q * xd.e;
          C* o = y + b * yd.b + t * yd.t + p * q * yd.e;
          for (int64_t k = 0; k < p; ++k) in[static_cast<size_t>(k)] = a[k * m * xd.e];
          for (int64_t j = 0; j < p; ++j) {
            C acc = in[0];
            int64_t e = 0;
            for (int64_t k = 1; k < p; ++k) {
              e += j;
              if (e >= p) e -= p;
              acc += mul(in[static_cast<size_t>(k)], r[e]);
            }
            o[j * yd.e] = scale_by(j == 0 ? acc : mul(acc, twq[j - 1]), scale);
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
