// Reference MaxPool, AvgPool, their gradients and MaxPoolGradGrad: every window visited from
// scratch, in double. A window's maximum is its first maximum in row-major order (a NaN counts
// as the maximum); averages divide by PoolGeom::divisor.
#include <cmath>
#include <vector>

#include "kernels/ref/ref_util.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

using ref::store;
using ref::to_double;

// Calls f(i, j, in_index) for each input element of window (i, j) of plane p, in row-major
// window order, skipping positions in the padding.
template <class F>
void for_window(const PoolGeom& g, int64_t p, int64_t i, int64_t j, F&& f) {
  for (int64_t a = 0; a < g.kh; ++a) {
    int64_t h = i * g.sh - g.pt + a;
    if (h < 0 || h >= g.h) continue;
    for (int64_t b = 0; b < g.kw; ++b) {
      int64_t w = j * g.sw - g.pl + b;
      if (w < 0 || w >= g.w) continue;
      f((p * g.h + h) * g.w + w);
    }
  }
}

int64_t window_argmax(const PoolGeom& g, const std::vector<double>& x, int64_t p, int64_t i,
                      int64_t j) {
  int64_t best = -1;
  for_window(g, p, i, j, [&](int64_t k) {
    double v = x[static_cast<size_t>(k)];
    if (best < 0) {
      best = k;
      return;
    }
    double b = x[static_cast<size_t>(best)];
    if (v > b || (std::isnan(v) && !std::isnan(b))) best = k;
  });
  return best;
}

double window_mean(const PoolGeom& g, const std::vector<double>& x, int64_t p, int64_t i,
                   int64_t j) {
  double s = 0;
  for_window(g, p, i, j, [&](int64_t k) { s += x[static_cast<size_t>(k)]; });
  return s / static_cast<double>(g.divisor(i, j));
}

// Calls f(p, i, j) for every window, in output order: plane p, output row i, column j.
template <class F>
void for_each_window(const PoolGeom& g, F&& f) {
  for (int64_t p = 0; p < g.n * g.c; ++p) {
    for (int64_t i = 0; i < g.ho; ++i) {
      for (int64_t j = 0; j < g.wo; ++j) f(p, i, j);
    }
  }
}

}  // namespace

void ref_max_pool(const KernelContext& ctx) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), y;
  for_each_window(g, [&](int64_t p, int64_t i, int64_t j) {
    y.push_back(x[static_cast<size_t>(window_argmax(g, x, p, i, j))]);
  });
  store(ctx.out[0], y);
}

void ref_avg_pool(const KernelContext& ctx) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), y;
  for_each_window(
      g, [&](int64_t p, int64_t i, int64_t j) { y.push_back(window_mean(g, x, p, i, j)); });
  store(ctx.out[0], y);
}

void ref_max_pool_grad(const KernelContext& ctx) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), dy = to_double(ctx.in[2]);
  std::vector<double> dx(x.size(), 0.0);
  size_t o = 0;
  for_each_window(g, [&](int64_t p, int64_t i, int64_t j) {
    dx[static_cast<size_t>(window_argmax(g, x, p, i, j))] += dy[o++];
  });
  store(ctx.out[0], dx);
}

void ref_max_pool_grad_grad(const KernelContext& ctx) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), ddx = to_double(ctx.in[2]), ddy;
  for_each_window(g, [&](int64_t p, int64_t i, int64_t j) {
    ddy.push_back(ddx[static_cast<size_t>(window_argmax(g, x, p, i, j))]);
  });
  store(ctx.out[0], ddy);
}

void ref_avg_pool_grad(const KernelContext& ctx) {
  PoolGeom g = pool_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> dy = to_double(ctx.in[2]);
  std::vector<double> dx(static_cast<size_t>(ctx.in[0].numel()), 0.0);
  size_t o = 0;
  for_each_window(g, [&](int64_t p, int64_t i, int64_t j) {
    double d = dy[o++] / static_cast<double>(g.divisor(i, j));
    for_window(g, p, i, j, [&](int64_t k) { dx[static_cast<size_t>(k)] += d; });
  });
  store(ctx.out[0], dx);
}

}  // namespace mycel
