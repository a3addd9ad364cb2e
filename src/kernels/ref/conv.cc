// Reference Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter: the convolution sum written
// out tap by tap, in double.
#include <vector>

#include "kernels/ref/ref_util.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

using ref::store;
using ref::to_double;

// Calls f(x_index, w_index, y_index) for every tap of the convolution that reads the input.
template <class F>
void for_each_tap(const ConvGeom& g, F&& f) {
  int64_t cg = g.c / g.group, og = g.o / g.group;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t o = 0; o < g.o; ++o) {
      int64_t grp = o / og;
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        for (int64_t ow = 0; ow < g.wo; ++ow) {
          int64_t yi = ((n * g.o + o) * g.ho + oh) * g.wo + ow;
          for (int64_t ci = 0; ci < cg; ++ci) {
            int64_t c = grp * cg + ci;
            for (int64_t i = 0; i < g.kh; ++i) {
              int64_t ih = oh * g.sh - g.pt + i * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              for (int64_t j = 0; j < g.kw; ++j) {
                int64_t iw = ow * g.sw - g.pl + j * g.dw;
                if (iw < 0 || iw >= g.w) continue;
                int64_t xi = ((n * g.c + c) * g.h + ih) * g.w + iw;
                int64_t wi = ((o * cg + ci) * g.kh + i) * g.kw + j;
                f(xi, wi, yi);
              }
            }
          }
        }
      }
    }
  }
}

// The operands of a convolution, naming the index for_each_tap gives each.
enum Operand { kX, kW, kY };

// The convolution sum of the op's two inputs: out[tap's `out` index] += in0[its `a` index] *
// in1[its `b` index] over every tap, in double. The forward op and both gradients are this
// sum with the operands' roles exchanged.
void conv_sum(const KernelContext& ctx, const ConvGeom& g, Operand out, Operand a, Operand b) {
  std::vector<double> va = to_double(ctx.in[0]), vb = to_double(ctx.in[1]);
  std::vector<double> r(static_cast<size_t>(ctx.out[0].numel()), 0.0);
  for_each_tap(g, [&](int64_t xi, int64_t wi, int64_t yi) {
    const size_t idx[3] = {static_cast<size_t>(xi), static_cast<size_t>(wi),
                           static_cast<size_t>(yi)};
    r[idx[out]] += va[idx[a]] * vb[idx[b]];
  });
  store(ctx.out[0], r);
}

}  // namespace

// y = x * w; dx = dy * w; dw = dy * x.
void ref_conv2d(const KernelContext& ctx) { conv_sum(ctx, conv2d_geometry(ctx), kY, kX, kW); }

void ref_conv2d_backprop_input(const KernelContext& ctx) {
  conv_sum(ctx, conv2d_backprop_input_geometry(ctx), kX, kY, kW);
}

void ref_conv2d_backprop_filter(const KernelContext& ctx) {
  conv_sum(ctx, conv2d_backprop_filter_geometry(ctx), kW, kY, kX);
}

}  // namespace mycel
