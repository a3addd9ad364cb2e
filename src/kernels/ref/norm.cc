// Reference BatchNorm, LayerNorm and their gradients: the textbook formulas in double.
#include <cmath>
#include <vector>

#include "kernels/ref/ref_util.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

using ref::store;
using ref::store_all;
using ref::to_double;

// Index of element (n, c, s) of x viewed as [N, C, S].
size_t at(const BatchNormGeom& g, int64_t n, int64_t c, int64_t s) {
  return static_cast<size_t>((n * g.c + c) * g.s + s);
}

}  // namespace

void ref_batch_norm(const KernelContext& ctx) {
  BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[0].shape());
  std::vector<double> x = to_double(ctx.in[0]), scale = to_double(ctx.in[1]),
                      bias = to_double(ctx.in[2]), rmean = to_double(ctx.in[3]),
                      rvar = to_double(ctx.in[4]);
  bool training = ctx.attrs.get_bool("is_training");
  double eps = ctx.attrs.get_float("epsilon"), mom = ctx.attrs.get_float("momentum");
  double m = static_cast<double>(g.n * g.s);
  std::vector<double> y(x.size()), mean(static_cast<size_t>(g.c)), var(mean.size()),
      inv(mean.size());
  for (int64_t c = 0; c < g.c; ++c) {
    size_t ci = static_cast<size_t>(c);
    if (training) {
      double s = 0, q = 0;
      for (int64_t n = 0; n < g.n; ++n) {
        for (int64_t i = 0; i < g.s; ++i) s += x[at(g, n, c, i)];
      }
      mean[ci] = s / m;
      for (int64_t n = 0; n < g.n; ++n) {
        for (int64_t i = 0; i < g.s; ++i)
          q += (x[at(g, n, c, i)] - mean[ci]) * (x[at(g, n, c, i)] - mean[ci]);
      }
      var[ci] = q / m;
      rmean[ci] = (1 - mom) * rmean[ci] + mom * mean[ci];
      rvar[ci] = (1 - mom) * rvar[ci] + mom * var[ci] * m / (m - 1);
    } else {
      mean[ci] = rmean[ci];
      var[ci] = rvar[ci];
    }
    inv[ci] = 1.0 / std::sqrt(var[ci] + eps);
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t i = 0; i < g.s; ++i) {
        size_t k = at(g, n, c, i);
        y[k] = (x[k] - mean[ci]) * inv[ci] * scale[ci] + bias[ci];
      }
    }
  }
  store_all(ctx.out, y, mean, var, mean, inv);
  if (training) {
    store(ctx.in[3], rmean);
    store(ctx.in[4], rvar);
  }
}

void ref_batch_norm_grad(const KernelContext& ctx) {
  BatchNormGeom g = batch_norm_geometry(ctx.op.name, ctx.in[1].shape());
  std::vector<double> dy = to_double(ctx.in[0]), x = to_double(ctx.in[1]),
                      scale = to_double(ctx.in[2]), mean = to_double(ctx.in[3]),
                      inv = to_double(ctx.in[4]);
  bool training = ctx.attrs.get_bool("is_training");
  double m = static_cast<double>(g.n * g.s);
  std::vector<double> dx(x.size()), dscale(static_cast<size_t>(g.c)), dbias(dscale.size());
  for (int64_t c = 0; c < g.c; ++c) {
    size_t ci = static_cast<size_t>(c);
    double sdy = 0, sdyx = 0;
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t i = 0; i < g.s; ++i) {
        size_t k = at(g, n, c, i);
        sdy += dy[k];
        sdyx += dy[k] * (x[k] - mean[ci]) * inv[ci];
      }
    }
    dbias[ci] = sdy;
    dscale[ci] = sdyx;
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t i = 0; i < g.s; ++i) {
        size_t k = at(g, n, c, i);
        if (training) {
          double xhat = (x[k] - mean[ci]) * inv[ci];
          dx[k] = scale[ci] * inv[ci] / m * (m * dy[k] - sdy - xhat * sdyx);
        } else {
          dx[k] = dy[k] * scale[ci] * inv[ci];
        }
      }
    }
  }
  store_all(ctx.out, dx, dscale, dbias);
}

void ref_layer_norm(const KernelContext& ctx) {
  LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), gamma = to_double(ctx.in[1]),
                      beta = to_double(ctx.in[2]);
  double eps = ctx.attrs.get_float("epsilon");
  std::vector<double> y(x.size()), mean(static_cast<size_t>(g.rows)), rstd(mean.size());
  for (int64_t r = 0; r < g.rows; ++r) {
    double s = 0, q = 0;
    for (int64_t j = 0; j < g.cols; ++j) s += x[static_cast<size_t>(r * g.cols + j)];
    double mu = s / static_cast<double>(g.cols);
    for (int64_t j = 0; j < g.cols; ++j) {
      double d = x[static_cast<size_t>(r * g.cols + j)] - mu;
      q += d * d;
    }
    double rs = 1.0 / std::sqrt(q / static_cast<double>(g.cols) + eps);
    mean[static_cast<size_t>(r)] = mu;
    rstd[static_cast<size_t>(r)] = rs;
    for (int64_t j = 0; j < g.cols; ++j) {
      int64_t f = r * g.cols + j;
      size_t p = static_cast<size_t>(f % g.params);
      y[static_cast<size_t>(f)] = (x[static_cast<size_t>(f)] - mu) * rs * gamma[p] + beta[p];
    }
  }
  store_all(ctx.out, y, mean, rstd);
}

void ref_layer_norm_grad(const KernelContext& ctx) {
  LayerNormGeom g = layer_norm_geometry(ctx.op.name, ctx.in[1].shape(), ctx.attrs);
  std::vector<double> dy = to_double(ctx.in[0]), x = to_double(ctx.in[1]),
                      gamma = to_double(ctx.in[2]), mean = to_double(ctx.in[3]),
                      rstd = to_double(ctx.in[4]);
  std::vector<double> dx(x.size()), dgamma(static_cast<size_t>(g.params), 0.0),
      dbeta(dgamma.size(), 0.0);
  for (int64_t r = 0; r < g.rows; ++r) {
    double mu = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
    double sg = 0, sgx = 0;
    for (int64_t j = 0; j < g.cols; ++j) {
      int64_t f = r * g.cols + j;
      size_t p = static_cast<size_t>(f % g.params), k = static_cast<size_t>(f);
      double xhat = (x[k] - mu) * rs;
      double gv = dy[k] * gamma[p];
      sg += gv;
      sgx += gv * xhat;
      dgamma[p] += dy[k] * xhat;
      dbeta[p] += dy[k];
    }
    double cols = static_cast<double>(g.cols);
    for (int64_t j = 0; j < g.cols; ++j) {
      int64_t f = r * g.cols + j;
      size_t p = static_cast<size_t>(f % g.params), k = static_cast<size_t>(f);
      double xhat = (x[k] - mu) * rs;
      dx[k] = rs * (dy[k] * gamma[p] - sg / cols - xhat * sgx / cols);
    }
  }
  store_all(ctx.out, dx, dgamma, dbeta);
}

}  // namespace mycel
