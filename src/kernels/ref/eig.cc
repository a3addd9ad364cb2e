// Reference Eig (ops/defs/linalg.def), independent of the kernel's QR algorithm: the
// eigenvalues are the roots of p(z) = det(zI - A), found all at once by the Durand-Kerner
// (Weierstrass) iteration z_i <- z_i - p(z_i) / prod_{j != i} (z_i - z_j), p evaluated by
// Gaussian elimination with partial pivoting; each eigenvector is a null vector of A - wI
// (elimination with complete pivoting, the last unknown set to 1, back-substitution). Then the
// same canonical form as the kernel: for a real input, eigenvalues within 1e-9 |A| of the real
// axis made real and the others paired into exact conjugates; sorted by real part, then
// imaginary part; unit vectors with their largest entry real and positive. Meant for the small
// matrices of the kernel cases (the iteration needs simple roots to converge fast).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "ops/op_table.h"

namespace mycel {

namespace {

using cd = std::complex<double>;
using CMat = std::vector<std::vector<cd>>;

cd char_poly(const CMat& a, cd z) {
  const size_t n = a.size();
  CMat m(n, std::vector<cd>(n));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) m[i][j] = (i == j ? z : cd(0)) - a[i][j];
  cd det = 1;
  for (size_t k = 0; k < n; ++k) {
    size_t p = k;
    for (size_t i = k + 1; i < n; ++i)
      if (std::abs(m[i][k]) > std::abs(m[p][k])) p = i;
    if (m[p][k] == cd(0)) return 0;
    if (p != k) {
      std::swap(m[p], m[k]);
      det = -det;
    }
    det *= m[k][k];
    for (size_t i = k + 1; i < n; ++i) {
      const cd f = m[i][k] / m[k][k];
      for (size_t j = k; j < n; ++j) m[i][j] -= f * m[k][j];
    }
  }
  return det;
}

std::vector<cd> roots(const CMat& a) {
  const size_t n = a.size();
  double radius = 0;
  for (const auto& row : a) {
    double s = 0;
    for (const cd& e : row) s += std::abs(e);
    radius = std::max(radius, s);
  }
  radius = 1 + radius;
  std::vector<cd> z(n);
  for (size_t k = 0; k < n; ++k)
    z[k] = 0.9 * radius * std::polar(1.0, 0.4 + 6.283185307179586 * static_cast<double>(k) / n);
  for (int it = 0; it < 5000; ++it) {
    double step = 0;
    for (size_t i = 0; i < n; ++i) {
      cd den = 1;
      for (size_t j = 0; j < n; ++j)
        if (j != i) den *= z[i] - z[j];
      if (den == cd(0)) den = 1e-300;
      const cd d = char_poly(a, z[i]) / den;
      z[i] -= d;
      step = std::max(step, std::abs(d));
    }
    if (step <= 1e-15 * radius) break;
  }
  return z;
}

std::vector<cd> null_vector(const CMat& a, cd w) {
  const size_t n = a.size();
  CMat m = a;
  for (size_t i = 0; i < n; ++i) m[i][i] -= w;
  std::vector<size_t> col(n);
  for (size_t i = 0; i < n; ++i) col[i] = i;
  for (size_t k = 0; k + 1 < n; ++k) {
    size_t pr = k, pc = k;
    for (size_t i = k; i < n; ++i)
      for (size_t j = k; j < n; ++j)
        if (std::abs(m[i][j]) > std::abs(m[pr][pc])) pr = i, pc = j;
    std::swap(m[pr], m[k]);
    for (auto& row : m) std::swap(row[pc], row[k]);
    std::swap(col[pc], col[k]);
    if (m[k][k] == cd(0)) continue;
    for (size_t i = k + 1; i < n; ++i) {
      const cd f = m[i][k] / m[k][k];
      for (size_t j = k; j < n; ++j) m[i][j] -= f * m[k][j];
    }
  }
  std::vector<cd> y(n);
  y[n - 1] = 1;
  for (size_t r = n - 1; r-- > 0;) {
    cd s = 0;
    for (size_t c = r + 1; c < n; ++c) s += m[r][c] * y[c];
    y[r] = m[r][r] == cd(0) ? cd(0) : -s / m[r][r];
  }
  std::vector<cd> v(n);
  for (size_t i = 0; i < n; ++i) v[col[i]] = y[i];
  double nrm = 0;
  size_t big = 0;
  for (size_t i = 0; i < n; ++i) {
    nrm += std::norm(v[i]);
    if (std::abs(v[i]) > std::abs(v[big])) big = i;
  }
  const cd f = std::conj(v[big]) / (std::abs(v[big]) * std::sqrt(nrm));
  for (cd& e : v) e *= f;
  return v;
}

// Real input: eigenvalues within 1e-9 scale of the real axis made real, the others paired
// into exact conjugates; then sorted by real part, then imaginary part.
void canonical_order(std::vector<cd>& w, bool real, double scale) {
  const size_t n = w.size();
  if (real) {
    std::vector<bool> used(n, false);
    for (size_t i = 0; i < n; ++i)
      if (std::abs(w[i].imag()) <= 1e-9 * scale) w[i].imag(0), used[i] = true;
    for (size_t i = 0; i < n; ++i) {
      if (used[i] || w[i].imag() < 0) continue;
      size_t best = n;
      for (size_t j = 0; j < n; ++j)
        if (!used[j] && w[j].imag() < 0 &&
            (best == n || std::abs(w[j] - std::conj(w[i])) < std::abs(w[best] - std::conj(w[i]))))
          best = j;
      if (best == n) continue;
      const cd mid = 0.5 * (w[i] + std::conj(w[best]));
      w[i] = mid;
      w[best] = std::conj(mid);
      used[i] = used[best] = true;
    }
  }
  std::sort(w.begin(), w.end(), [](cd p, cd q) {
    return p.real() != q.real() ? p.real() < q.real() : p.imag() < q.imag();
  });
}

}  // namespace

void ref_eig(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const bool vec = ctx.attrs.get_bool("compute_v");
  const size_t n = static_cast<size_t>(x.shape().back());
  const int64_t nn = static_cast<int64_t>(n * n);
  const int64_t batches = n == 0 ? 0 : x.numel() / nn;
  const bool real = !is_complex(x.dtype());
  dispatch_complex(ctx.out[0].dtype(), ctx.op.name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    for (int64_t b = 0; b < batches; ++b) {
      CMat a(n, std::vector<cd>(n));
      bool finite = true;
      double scale = 0;
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
          const int64_t at = b * nn + static_cast<int64_t>(i * n + j);
          if (real) {
            a[i][j] = x.dtype() == DType::Float64 ? x.data<double>()[at] : x.data<float>()[at];
          } else {
            const C e = x.data<C>()[at];
            a[i][j] = cd(e.real(), e.imag());
          }
          finite = finite && std::isfinite(a[i][j].real()) && std::isfinite(a[i][j].imag());
          scale = std::max(scale, std::abs(a[i][j]));
        }
      }
      const double nan = std::numeric_limits<double>::quiet_NaN();
      std::vector<cd> w = finite ? roots(a) : std::vector<cd>(n, cd(nan, nan));
      if (finite) canonical_order(w, real, scale);
      for (size_t k = 0; k < n; ++k) {
        ctx.out[0].data<C>()[b * static_cast<int64_t>(n) + static_cast<int64_t>(k)] = C(w[k]);
        if (!vec) continue;
        const std::vector<cd> v = finite ? null_vector(a, w[k]) : std::vector<cd>(n, cd(nan, nan));
        for (size_t i = 0; i < n; ++i)
          ctx.out[1].data<C>()[b * nn + static_cast<int64_t>(i * n + k)] = C(v[i]);
      }
    }
  });
}

}  // namespace mycel
