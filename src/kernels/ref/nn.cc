// Reference Softmax, LogSoftmax, the softmax cross entropies and Dropout, in double.
#include <cmath>
#include <vector>

#include "kernels/ref/ref_util.h"
#include "ops/infer_nn.h"
#include "tensor/random.h"

namespace mycel {

namespace {

using ref::store;
using ref::store_all;
using ref::to_double;

// log_softmax of the `len` elements x[base + k*stride].
std::vector<double> log_softmax_of(const std::vector<double>& x, int64_t base, int64_t len,
                                   int64_t stride) {
  double m = -INFINITY;
  for (int64_t k = 0; k < len; ++k) m = std::fmax(m, x[static_cast<size_t>(base + k * stride)]);
  if (std::isinf(m) && m < 0) m = 0;
  double s = 0;
  for (int64_t k = 0; k < len; ++k) s += std::exp(x[static_cast<size_t>(base + k * stride)] - m);
  std::vector<double> out(static_cast<size_t>(len));
  for (int64_t k = 0; k < len; ++k) {
    out[static_cast<size_t>(k)] = x[static_cast<size_t>(base + k * stride)] - m - std::log(s);
  }
  return out;
}

void softmax_ref(const KernelContext& ctx, bool log) {
  AxisSplit sp = softmax_split(ctx.op.name, ctx.in[0].shape(), ctx.attrs);
  std::vector<double> x = to_double(ctx.in[0]), y(x.size());
  for (int64_t o = 0; o < sp.outer; ++o) {
    for (int64_t j = 0; j < sp.inner; ++j) {
      int64_t base = o * sp.len * sp.inner + j;
      std::vector<double> ls = log_softmax_of(x, base, sp.len, sp.inner);
      for (int64_t k = 0; k < sp.len; ++k) {
        double v = ls[static_cast<size_t>(k)];
        y[static_cast<size_t>(base + k * sp.inner)] = log ? v : std::exp(v);
      }
    }
  }
  store(ctx.out[0], y);
}

}  // namespace

void ref_softmax(const KernelContext& ctx) { softmax_ref(ctx, false); }
void ref_log_softmax(const KernelContext& ctx) { softmax_ref(ctx, true); }

void ref_sparse_softmax_ce(const KernelContext& ctx) {
  int64_t n = ctx.in[0].dim(0), c = ctx.in[0].dim(1);
  std::vector<double> x = to_double(ctx.in[0]);
  bool grad = ctx.attrs.get_bool("is_grad");
  std::vector<double> out(grad ? x.size() : 1, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double lv = ctx.in[1].element_as_double(i);
    MC_CHECK(lv >= 0 && lv < static_cast<double>(c), Index, "For '", ctx.op.name, "', the label ",
             static_cast<int64_t>(lv), " is out of range [0, ", c, ") (logits shape ",
             ctx.in[0].shape(), ").");
    int64_t l = static_cast<int64_t>(lv);
    std::vector<double> ls = log_softmax_of(x, i * c, c, 1);
    if (grad) {
      for (int64_t j = 0; j < c; ++j) {
        double onehot = j == l ? 1.0 : 0.0;
        out[static_cast<size_t>(i * c + j)] =
            (std::exp(ls[static_cast<size_t>(j)]) - onehot) / static_cast<double>(n);
      }
    } else {
      out[0] -= ls[static_cast<size_t>(l)];
    }
  }
  if (!grad) out[0] /= static_cast<double>(n);
  store(ctx.out[0], out);
}

void ref_softmax_ce(const KernelContext& ctx) {
  int64_t n = ctx.in[0].dim(0), c = ctx.in[0].dim(1);
  std::vector<double> x = to_double(ctx.in[0]), y = to_double(ctx.in[1]);
  std::vector<double> loss(static_cast<size_t>(n), 0.0), d(x.size());
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> ls = log_softmax_of(x, i * c, c, 1);
    for (int64_t j = 0; j < c; ++j) {
      size_t k = static_cast<size_t>(i * c + j);
      loss[static_cast<size_t>(i)] -= y[k] * ls[static_cast<size_t>(j)];
      d[k] = std::exp(ls[static_cast<size_t>(j)]) - y[k];
    }
  }
  store_all(ctx.out, loss, d);
}

void ref_dropout(const KernelContext& ctx) {
  int64_t n = ctx.in[0].numel();
  double keep = ctx.attrs.get_float("keep_prob");
  RandomStream rs = op_random_stream(ctx, "Seed0", "Seed1", static_cast<uint64_t>((n + 3) / 4));
  std::vector<double> x = to_double(ctx.in[0]), y(x.size()), mask(x.size());
  for (int64_t i = 0; i < n; ++i) {
    Philox4 r = philox(rs.key, 0, rs.offset + static_cast<uint64_t>(i / 4));
    bool kept = static_cast<double>(uniform_float(r[static_cast<size_t>(i % 4)])) < keep;
    mask[static_cast<size_t>(i)] = kept ? 1.0 : 0.0;
    y[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] * mask[static_cast<size_t>(i)] / keep;
  }
  store_all(ctx.out, y, mask);
}

}  // namespace mycel
