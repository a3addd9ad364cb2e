// cpu_eig: Eig's CPU kernel (ops/defs/linalg.def), in complex<double> for every input dtype.
//
// Per matrix (matrices in parallel, parallel_for):
//   1. Householder reduction to upper Hessenberg form H = Q^H A Q (Q kept for vectors);
//   2. complex single-shift QR iterations on H (Givens rotations, Wilkinson shift from the
//      trailing 2 x 2 block, an exceptional shift after 10 and 20 steps without deflation), a
//      subdiagonal entry below eps * (|h_ii| + |h_i+1,i+1|) deflating; H becomes the upper
//      triangular Schur form T = Z^H A Z, whose diagonal holds the eigenvalues. Without
//      compute_v the rotations touch only the active block; with it, whole rows and columns
//      of H and the columns of Z = Q G_1^H G_2^H ...;
//   3. eigenvectors: y_k solves (T - w_k I) y = 0 with y_k = 1 by back-substitution (a
//      divisor below eps * |T| replaced by that, as LAPACK's xTREVC), v_k = Z y_k.
// Then the output is made canonical, as the reference does it: for a real input, eigenvalues
// whose imaginary part is within rounding of 0 are made real and the others paired into
// exact conjugates (as LAPACK's real xGEEV returns them); the eigenvalues are sorted by real
// part, then imaginary part; each eigenvector has unit 2-norm and its largest entry real and
// positive. A matrix with a non-finite entry gives NaN everywhere (nothing to iterate on); the
// iteration is capped at 100 N steps, past which the op raises a ValueError.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

using cd = std::complex<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// Row-major n x n complex matrix.
struct Mat {
  int64_t n = 0;
  std::vector<cd> a;
  explicit Mat(int64_t size, bool eye = false) : n(size), a(static_cast<size_t>(size * size)) {
    if (eye)
      for (int64_t i = 0; i < n; ++i) at(i, i) = 1.0;
  }
  cd& at(int64_t i, int64_t j) { return a[static_cast<size_t>(i * n + j)]; }
  cd at(int64_t i, int64_t j) const { return a[static_cast<size_t>(i * n + j)]; }
};

// 1. H = Q^H A Q, Q accumulated when q is given.
void hessenberg(Mat& h, Mat* q) {
  const int64_t n = h.n;
  std::vector<cd> v(static_cast<size_t>(n));
  for (int64_t k = 0; k + 2 < n; ++k) {
    double norm2 = 0;
    for (int64_t i = k + 1; i < n; ++i) norm2 += std::norm(h.at(i, k));
    const double xnorm = std::sqrt(norm2);
    if (xnorm == 0) continue;
    const cd x0 = h.at(k + 1, k);
    const cd phase = std::abs(x0) == 0 ? cd(1) : x0 / std::abs(x0);
    // v = x + phase |x| e1 (no cancellation); H <- P H P with P = I - 2 v v^H / (v^H v).
    for (int64_t i = k + 1; i < n; ++i) v[static_cast<size_t>(i)] = h.at(i, k);
    v[static_cast<size_t>(k + 1)] += phase * xnorm;
    double vv = 0;
    for (int64_t i = k + 1; i < n; ++i) vv += std::norm(v[static_cast<size_t>(i)]);
    const double beta = 2.0 / vv;
    for (int64_t j = 0; j < n; ++j) {  // rows k+1.. : H <- P H
      cd s = 0;
      for (int64_t i = k + 1; i < n; ++i) s += std::conj(v[static_cast<size_t>(i)]) * h.at(i, j);
      s *= beta;
      for (int64_t i = k + 1; i < n; ++i) h.at(i, j) -= v[static_cast<size_t>(i)] * s;
    }
    auto right = [&](Mat& m) {  // columns k+1.. : M <- M P
      for (int64_t i = 0; i < n; ++i) {
        cd s = 0;
        for (int64_t j = k + 1; j < n; ++j) s += m.at(i, j) * v[static_cast<size_t>(j)];
        s *= beta;
        for (int64_t j = k + 1; j < n; ++j) m.at(i, j) -= s * std::conj(v[static_cast<size_t>(j)]);
      }
    };
    right(h);
    if (q) right(*q);
    for (int64_t i = k + 2; i < n; ++i) h.at(i, k) = 0;
  }
}

// The eigenvalue of the 2 x 2 block [[a, b], [c, d]] nearer d.
cd wilkinson(cd a, cd b, cd c, cd d) {
  const cd half = 0.5 * (a - d);
  const cd root = std::sqrt(half * half + b * c);
  const cd l1 = d + half + root, l2 = d + half - root;  // (a + d) / 2 -/+ root
  return std::abs(l1 - d) < std::abs(l2 - d) ? l1 : l2;
}

// 2. The Schur form in place; Z accumulated when z is given. False if the cap is reached.
bool schur(Mat& h, Mat* z) {
  const int64_t n = h.n;
  const bool full = z != nullptr;
  std::vector<double> cs(static_cast<size_t>(n));
  std::vector<cd> sn(static_cast<size_t>(n));
  int64_t budget = 100 * std::max<int64_t>(n, 1), since = 0;
  int64_t hi = n - 1;
  while (hi > 0) {
    int64_t l = hi;
    for (; l > 0; --l) {
      const double s = std::abs(h.at(l - 1, l - 1)) + std::abs(h.at(l, l));
      if (std::abs(h.at(l, l - 1)) <= kEps * s || std::abs(h.at(l, l - 1)) < 1e-300) {
        h.at(l, l - 1) = 0;
        break;
      }
    }
    if (l == hi) {  // h[hi][hi] is an eigenvalue
      --hi;
      since = 0;
      continue;
    }
    if (budget-- <= 0) return false;
    ++since;
    cd mu = wilkinson(h.at(hi - 1, hi - 1), h.at(hi - 1, hi), h.at(hi, hi - 1), h.at(hi, hi));
    if (since % 10 == 0) mu = h.at(hi, hi) + 0.75 * std::abs(h.at(hi, hi - 1));
    const int64_t c1 = full ? n : hi + 1;
    for (int64_t i = l; i <= hi; ++i) h.at(i, i) -= mu;
    for (int64_t k = l; k < hi; ++k) {  // H - mu I = G^H R: rotations from the left
      const cd a = h.at(k, k), b = h.at(k + 1, k);
      const double r = std::hypot(std::abs(a), std::abs(b));
      double c;
      cd s;
      if (r == 0) {
        c = 1;
        s = 0;
      } else if (std::abs(a) == 0) {
        c = 0;
        s = 1;
      } else {
        c = std::abs(a) / r;
        s = (a / std::abs(a)) * std::conj(b) / r;
      }
      cs[static_cast<size_t>(k)] = c;
      sn[static_cast<size_t>(k)] = s;
      for (int64_t j = k; j < c1; ++j) {
        const cd x = h.at(k, j), y = h.at(k + 1, j);
        h.at(k, j) = c * x + s * y;
        h.at(k + 1, j) = -std::conj(s) * x + c * y;
      }
    }
    const int64_t r0 = full ? 0 : l;
    for (int64_t k = l; k < hi; ++k) {  // R Q + mu I: the same rotations from the right
      const double c = cs[static_cast<size_t>(k)];
      const cd s = sn[static_cast<size_t>(k)];
      const int64_t rend = std::min(k + 2, hi);
      for (int64_t i = r0; i <= rend; ++i) {
        const cd x = h.at(i, k), y = h.at(i, k + 1);
        h.at(i, k) = c * x + std::conj(s) * y;
        h.at(i, k + 1) = -s * x + c * y;
      }
      if (z) {
        for (int64_t i = 0; i < n; ++i) {
          const cd x = z->at(i, k), y = z->at(i, k + 1);
          z->at(i, k) = c * x + std::conj(s) * y;
          z->at(i, k + 1) = -s * x + c * y;
        }
      }
    }
    for (int64_t i = l; i <= hi; ++i) h.at(i, i) += mu;
  }
  return true;
}

// 3. Eigenvectors of A from the Schur form T and Z, column k of the result for T's k-th
// eigenvalue.
Mat schur_vectors(const Mat& t, const Mat& z) {
  const int64_t n = t.n;
  double tnorm = 0;
  for (const cd& x : t.a) tnorm = std::max(tnorm, std::abs(x));
  const double smin = std::max(kEps * tnorm, std::numeric_limits<double>::min());
  Mat v(n);
  std::vector<cd> y(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const cd w = t.at(k, k);
    std::fill(y.begin(), y.end(), cd(0));
    y[static_cast<size_t>(k)] = 1;
    for (int64_t j = k - 1; j >= 0; --j) {
      cd s = 0;
      for (int64_t m = j + 1; m <= k; ++m) s += t.at(j, m) * y[static_cast<size_t>(m)];
      cd d = t.at(j, j) - w;
      if (std::abs(d) < smin) d = smin;
      y[static_cast<size_t>(j)] = -s / d;
      // Keep the entries bounded: a near-repeated eigenvalue makes them grow.
      const double big = std::abs(y[static_cast<size_t>(j)]);
      if (big > 1e100)
        for (cd& e : y) e /= big;
    }
    for (int64_t i = 0; i < n; ++i) {
      cd s = 0;
      for (int64_t m = 0; m <= k; ++m) s += z.at(i, m) * y[static_cast<size_t>(m)];
      v.at(i, k) = s;
    }
  }
  return v;
}

// Canonical order and scaling (see the top of the file).
void canonical(std::vector<cd>& w, Mat* v, bool real_input, double scale) {
  const int64_t n = static_cast<int64_t>(w.size());
  if (real_input) {
    const double tiny = 1e3 * kEps * std::max(scale, std::numeric_limits<double>::min());
    std::vector<bool> done(static_cast<size_t>(n), false);
    for (int64_t i = 0; i < n; ++i)
      if (std::abs(w[static_cast<size_t>(i)].imag()) <= tiny) {
        w[static_cast<size_t>(i)].imag(0);
        done[static_cast<size_t>(i)] = true;
      }
    for (int64_t i = 0; i < n; ++i) {
      if (done[static_cast<size_t>(i)] || w[static_cast<size_t>(i)].imag() < 0) continue;
      int64_t best = -1;
      for (int64_t j = 0; j < n; ++j) {
        if (done[static_cast<size_t>(j)] || w[static_cast<size_t>(j)].imag() >= 0) continue;
        if (best < 0 ||
            std::abs(w[static_cast<size_t>(j)] - std::conj(w[static_cast<size_t>(i)])) <
                std::abs(w[static_cast<size_t>(best)] - std::conj(w[static_cast<size_t>(i)])))
          best = j;
      }
      if (best < 0) continue;
      cd& p = w[static_cast<size_t>(i)];
      cd& q = w[static_cast<size_t>(best)];
      const double re = 0.5 * (p.real() + q.real()), im = 0.5 * (p.imag() - q.imag());
      p = cd(re, im);
      q = cd(re, -im);
      done[static_cast<size_t>(i)] = done[static_cast<size_t>(best)] = true;
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const cd x = w[static_cast<size_t>(a)], y = w[static_cast<size_t>(b)];
    return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag();
  });
  std::vector<cd> ws(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    ws[static_cast<size_t>(k)] = w[static_cast<size_t>(order[static_cast<size_t>(k)])];
  w.swap(ws);
  if (!v) return;
  Mat out(n);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t src = order[static_cast<size_t>(k)];
    double nrm = 0;
    int64_t arg = 0;
    for (int64_t i = 0; i < n; ++i) {
      nrm += std::norm(v->at(i, src));
      if (std::abs(v->at(i, src)) > std::abs(v->at(arg, src))) arg = i;
    }
    nrm = std::sqrt(nrm);
    const cd big = v->at(arg, src);
    const cd f = nrm == 0 || std::abs(big) == 0 ? cd(1) : std::conj(big) / (std::abs(big) * nrm);
    for (int64_t i = 0; i < n; ++i) out.at(i, k) = v->at(i, src) * f;
  }
  *v = std::move(out);
}

// One matrix: eigenvalues into w, eigenvectors into v when wanted. False: no convergence.
bool eig_one(Mat a, bool real_input, std::vector<cd>& w, Mat* v) {
  const int64_t n = a.n;
  double scale = 0;
  for (const cd& x : a.a) scale = std::max(scale, std::abs(x));
  Mat z(n, true);
  Mat* zp = v ? &z : nullptr;
  hessenberg(a, zp);
  if (!schur(a, zp)) return false;
  w.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = a.at(i, i);
  if (v) *v = schur_vectors(a, z);
  canonical(w, v, real_input, scale);
  return true;
}

}  // namespace

void cpu_eig(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& wt = ctx.out[0];
  const Tensor& vt = ctx.out[1];
  const bool vec = ctx.attrs.get_bool("compute_v");
  const int64_t n = x.shape().back();
  const int64_t batches = n == 0 ? 0 : x.numel() / (n * n);
  const bool real_input = !is_complex(x.dtype());
  bool failed = false;
  dispatch_complex(wt.dtype(), ctx.op.name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    C* W = wt.data<C>();
    C* V = vec ? vt.data<C>() : nullptr;
    auto load = [&](int64_t b, Mat& m) {
      if (real_input) {
        dispatch_float(x.dtype(), ctx.op.name, [&](auto rt) {
          using R = typename decltype(rt)::type;
          const R* X = x.data<R>() + b * n * n;
          for (int64_t i = 0; i < n * n; ++i)
            m.a[static_cast<size_t>(i)] = static_cast<double>(X[i]);
        });
      } else {
        const C* X = x.data<C>() + b * n * n;
        for (int64_t i = 0; i < n * n; ++i)
          m.a[static_cast<size_t>(i)] = cd(X[i].real(), X[i].imag());
      }
    };
    std::vector<char> bad(static_cast<size_t>(batches), 0);
    parallel_for(0, batches, std::max<int64_t>(1, 4096 / std::max<int64_t>(n * n * n, 1)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b) {
                     Mat m(n);
                     load(b, m);
                     std::vector<cd> w;
                     Mat v(n);
                     bool finite = true;
                     for (const cd& e : m.a)
                       finite = finite && std::isfinite(e.real()) && std::isfinite(e.imag());
                     const double nan = std::numeric_limits<double>::quiet_NaN();
                     if (!finite) {
                       w.assign(static_cast<size_t>(n), cd(nan, nan));
                       std::fill(v.a.begin(), v.a.end(), cd(nan, nan));
                     } else if (!eig_one(std::move(m), real_input, w, vec ? &v : nullptr)) {
                       bad[static_cast<size_t>(b)] = 1;
                       continue;
                     }
                     for (int64_t i = 0; i < n; ++i) W[b * n + i] = C(w[static_cast<size_t>(i)]);
                     if (V)
                       for (int64_t i = 0; i < n * n; ++i)
                         V[b * n * n + i] = C(v.a[static_cast<size_t>(i)]);
                   }
                 });
    failed = std::find(bad.begin(), bad.end(), 1) != bad.end();
  });
  MC_CHECK(!failed, Value, "For '", ctx.op.name, "', the QR iteration did not converge within ",
           100 * std::max<int64_t>(n, 1), " steps for an input of shape ", x.shape(), ".");
}

}  // namespace mycel
