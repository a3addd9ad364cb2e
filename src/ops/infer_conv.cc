// Inference rules of the NN family's windowed ops: Conv2D, its backward ops, and pooling.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "ops/infer_nn.h"
#include "tensor/dynamic_shape.h"
#include "tensor/size.h"

namespace mycel {

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string ints_str(const std::vector<int64_t>& v) { return attr_value_str(AttrValue(v)); }

void check_nchw(const char* op, const Attrs& attrs) {
  const std::string& df = attrs.get_str("data_format");
  MC_CHECK(df == "NCHW", Value, "For '", op, "', the 'data_format' must be 'NCHW', but got '", df,
           "'.");
}

// "valid" / "same" / "pad", case-insensitive, or a ValueError listing them.
std::string pad_mode_of(const char* op, const Attrs& attrs) {
  std::string m = lower(attrs.get_str("pad_mode"));
  MC_CHECK(m == "valid" || m == "same" || m == "pad", Value, "For '", op,
           "', the 'pad_mode' must be one of ['valid', 'same', 'pad'], but got '",
           attrs.get_str("pad_mode"), "'.");
  return m;
}

// An (H, W) pair from 1, 2 or 4 values (the last two of 4 are H, W); each must be positive.
void hw_pair(const char* op, const Attrs& attrs, const char* name, bool allow4, int64_t* h,
             int64_t* w) {
  const std::vector<int64_t>& v = attrs.get_ints(name);
  bool ok_len = v.size() == 1 || v.size() == 2 || (allow4 && v.size() == 4);
  MC_CHECK(ok_len, Value, "For '", op, "', the '", name, "' must have 1, 2", allow4 ? " or 4" : "",
           " values, but got ", ints_str(v), ".");
  if (v.size() == 1) {
    *h = *w = v[0];
  } else {
    *h = v[v.size() - 2];
    *w = v[v.size() - 1];
  }
  MC_CHECK(*h > 0 && *w > 0, Value, "For '", op, "', the '", name,
           "' values must be positive, but got ", ints_str(v), ".");
}

// Explicit pads (top, bottom, left, right) from 1 or 4 non-negative values; nonzero pads need
// pad_mode "pad".
void explicit_pads(const char* op, const Attrs& attrs, const std::string& mode, int64_t p[4]) {
  const std::vector<int64_t>& v = attrs.get_ints("pad");
  MC_CHECK(v.size() == 1 || v.size() == 4, Value, "For '", op,
           "', the 'pad' must have 1 or 4 values (top, bottom, left, right), but got ", ints_str(v),
           ".");
  for (int i = 0; i < 4; ++i) p[i] = v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
  for (int i = 0; i < 4; ++i) {
    MC_CHECK(p[i] >= 0, Value, "For '", op, "', the 'pad' values must be non-negative, but got ",
             ints_str(v), ".");
    MC_CHECK(p[i] == 0 || mode == "pad", Value, "For '", op,
             "', the 'pad' must be zero unless 'pad_mode' is 'pad', but got pad ", ints_str(v),
             " with pad_mode '", attrs.get_str("pad_mode"), "'.");
  }
}

// TF-style "same" padding: out = ceil(in / stride), the odd pixel goes after.
void same_pads(const char* op, int64_t in, int64_t extent, int64_t stride, int64_t* out,
               int64_t* before, int64_t* after) {
  *out = in > 0 ? (in - 1) / stride + 1 : 0;  // ceil without overflowing for a huge stride
  int64_t reach = checked_add(checked_mul(std::max<int64_t>(*out - 1, 0), stride, op), extent, op);
  int64_t total = std::max<int64_t>(reach - in, 0);
  *before = total / 2;
  *after = total - *before;
}

void check_float_input(const char* op, DType t, const char* what) {
  MC_CHECK(is_floating(t), Type, "For '", op, "', the '", what,
           "' must be a floating-point tensor (Float16, BFloat16, Float32 or Float64), but got ", t,
           ".");
}

}  // namespace

ConvGeom conv_geometry(const char* op, const Shape& x, const Shape& w, const Attrs& attrs) {
  check_nchw(op, attrs);
  MC_CHECK(attrs.get_int("mode") == 1, Value, "For '", op, "', the 'mode' must be 1, but got ",
           attrs.get_int("mode"), ".");
  MC_CHECK(x.size() == 4, Value, "For '", op, "', the input x must be 4-d (NCHW), but got shape ",
           x, ".");
  MC_CHECK(w.size() == 4, Value, "For '", op,
           "', the weight must be 4-d [out_channel, in_channel / group, kh, kw], but got shape ", w,
           ".");
  // Only the batch may be dynamic (its output dimension is then dynamic too).
  check_static_dims(x, 1, 4, op, "channels, height and width of x");
  ConvGeom g{};
  g.n = x[0], g.c = x[1], g.h = x[2], g.w = x[3];
  MC_CHECK(g.h >= 1 && g.w >= 1, Value, "For '", op,
           "', the input height and width must be positive, but got x shape ", x, ".");
  g.o = w[0], g.kh = w[2], g.kw = w[3];
  int64_t ksh, ksw;
  hw_pair(op, attrs, "kernel_size", false, &ksh, &ksw);
  MC_CHECK(ksh == g.kh && ksw == g.kw, Value, "For '", op, "', the 'kernel_size' ",
           ints_str(attrs.get_ints("kernel_size")), " does not match the weight's (kh, kw) = (",
           g.kh, ", ", g.kw, ") (weight shape ", w, ").");
  int64_t oc = attrs.get_int("out_channel");
  MC_CHECK(oc == g.o, Value, "For '", op, "', the 'out_channel' (", oc,
           ") must equal the weight's first dim, but got weight shape ", w, ".");
  g.group = attrs.get_int("group");
  MC_CHECK(g.group >= 1, Value, "For '", op, "', the 'group' must be positive, but got ", g.group,
           ".");
  MC_CHECK(g.c >= 1 && g.c % g.group == 0, Value, "For '", op, "', the input channels (", g.c,
           ") must be a positive multiple of 'group' (", g.group, "), but got x shape ", x, ".");
  MC_CHECK(g.o % g.group == 0, Value, "For '", op, "', the 'out_channel' (", g.o,
           ") must be divisible by 'group' (", g.group, ").");
  MC_CHECK(w[1] * g.group == g.c, Value, "For '", op, "', the input channels must match: x has ",
           g.c, " channels, but the weight expects ", w[1], " * group ", g.group, " = ",
           w[1] * g.group, " (x shape ", x, ", weight shape ", w, ").");
  hw_pair(op, attrs, "stride", true, &g.sh, &g.sw);
  hw_pair(op, attrs, "dilation", true, &g.dh, &g.dw);
  std::string mode = pad_mode_of(op, attrs);
  int64_t p[4];
  explicit_pads(op, attrs, mode, p);
  // Attributes are user ints: the effective kernel and padded sizes are checked arithmetic.
  int64_t ekh = checked_add(checked_mul(g.kh - 1, g.dh, op), 1, op);
  int64_t ekw = checked_add(checked_mul(g.kw - 1, g.dw, op), 1, op);
  if (mode == "same") {
    same_pads(op, g.h, ekh, g.sh, &g.ho, &g.pt, &g.pb);
    same_pads(op, g.w, ekw, g.sw, &g.wo, &g.pl, &g.pr);
  } else {
    g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
    int64_t hh = checked_add(g.h, checked_add(g.pt, g.pb, op), op);
    int64_t ww = checked_add(g.w, checked_add(g.pl, g.pr, op), op);
    g.ho = hh >= ekh ? (hh - ekh) / g.sh + 1 : 0;
    g.wo = ww >= ekw ? (ww - ekw) / g.sw + 1 : 0;
  }
  MC_CHECK(g.ho >= 1 && g.wo >= 1, Value, "For '", op,
           "', the output height and width must be positive, but got (", g.ho, ", ", g.wo,
           ") from x shape ", x, ", weight shape ", w, ", pad_mode '", mode, "', pads (", g.pt,
           ", ", g.pb, ", ", g.pl, ", ", g.pr, "), stride (", g.sh, ", ", g.sw, ") and dilation (",
           g.dh, ", ", g.dw, ").");
  return g;
}

ConvGeom conv2d_geometry(const KernelContext& ctx) {
  return conv_geometry(ctx.op.name, ctx.in[0].shape(), ctx.in[1].shape(), ctx.attrs);
}

namespace {
// input_size / filter_size. The gradient of a convolution of a dynamic batch gives
// input_size a batch of -1: it is dout's (`dout`, known at run time; nullptr for filter_size).
Shape size_attr(const char* op, const Attrs& attrs, const char* name, const Shape* dout) {
  const std::vector<int64_t>& v = attrs.get_ints(name);
  MC_CHECK(v.size() == 4, Value, "For '", op, "', the '", name, "' must have 4 values, but got ",
           ints_str(v), ".");
  Shape s(v.begin(), v.end());
  if (dout != nullptr && !dout->empty() && s[0] == kDynamicDim) s[0] = (*dout)[0];
  for (size_t i = 0; i < s.size(); ++i) {
    MC_CHECK(s[i] >= 0 || (i == 0 && dout != nullptr && s[0] == kDynamicDim), Value, "For '", op,
             "', the '", name, "' values must be non-negative, but got ", ints_str(v), ".");
  }
  return s;
}
}  // namespace

ConvGeom conv2d_backprop_input_geometry(const KernelContext& ctx) {
  return conv_geometry(ctx.op.name,
                       size_attr(ctx.op.name, ctx.attrs, "input_size", &ctx.in[0].shape()),
                       ctx.in[1].shape(), ctx.attrs);
}

ConvGeom conv2d_backprop_filter_geometry(const KernelContext& ctx) {
  return conv_geometry(ctx.op.name, ctx.in[1].shape(),
                       size_attr(ctx.op.name, ctx.attrs, "filter_size", nullptr), ctx.attrs);
}

void infer_conv2d(InferContext& ctx) {
  const char* op = ctx.op.name;
  check_float_input(op, ctx.in[0].dtype, "x");
  ConvGeom g = conv_geometry(op, ctx.in[0].shape, ctx.in[1].shape, ctx.attrs);
  ctx.out.push_back({ctx.in[0].dtype, g.y_shape()});
}

namespace {
void check_dout(const char* op, const Shape& dout, const ConvGeom& g) {
  MC_CHECK(shapes_agree(dout, g.y_shape()), Value, "For '", op, "', the 'dout' shape must be the ",
           "convolution's output shape ", g.y_shape(), " (input ", g.x_shape(), ", weight ",
           g.w_shape(), "), but got ", dout, ".");
}
}  // namespace

void infer_conv2d_backprop_input(InferContext& ctx) {
  const char* op = ctx.op.name;
  check_float_input(op, ctx.in[0].dtype, "dout");
  Shape xs = size_attr(op, ctx.attrs, "input_size", &ctx.in[0].shape);
  ConvGeom g = conv_geometry(op, xs, ctx.in[1].shape, ctx.attrs);
  check_dout(op, ctx.in[0].shape, g);
  ctx.out.push_back({ctx.in[0].dtype, xs});
}

void infer_conv2d_backprop_filter(InferContext& ctx) {
  const char* op = ctx.op.name;
  check_float_input(op, ctx.in[0].dtype, "dout");
  Shape ws = size_attr(op, ctx.attrs, "filter_size", nullptr);
  ConvGeom g = conv_geometry(op, ctx.in[1].shape, ws, ctx.attrs);
  check_dout(op, ctx.in[0].shape, g);
  ctx.out.push_back({ctx.in[0].dtype, ws});
}

int64_t PoolGeom::divisor(int64_t i, int64_t j) const {
  int64_t h0 = i * sh - pt, w0 = j * sw - pl;
  int64_t h1, w1;
  if (count_pad) {
    h1 = std::min(h0 + kh, h + pb);
    w1 = std::min(w0 + kw, w + pr);
  } else {
    h1 = std::min(h0 + kh, h);
    w1 = std::min(w0 + kw, w);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
  }
  return (h1 - h0) * (w1 - w0);
}

PoolGeom pool_geometry(const char* op, const Shape& x, const Attrs& attrs) {
  check_nchw(op, attrs);
  MC_CHECK(x.size() == 4, Value, "For '", op, "', the input x must be 4-d (NCHW), but got shape ",
           x, ".");
  check_static_dims(x, 1, 4, op, "channels, height and width of x");
  PoolGeom g{};
  g.n = x[0], g.c = x[1], g.h = x[2], g.w = x[3];
  MC_CHECK(g.h >= 1 && g.w >= 1, Value, "For '", op,
           "', the input height and width must be positive, but got x shape ", x, ".");
  hw_pair(op, attrs, "kernel_size", true, &g.kh, &g.kw);
  hw_pair(op, attrs, "strides", true, &g.sh, &g.sw);
  std::string mode = pad_mode_of(op, attrs);
  int64_t p[4];
  explicit_pads(op, attrs, mode, p);
  bool ceil = attrs.get_bool("ceil_mode");
  if (mode == "same") {
    same_pads(op, g.h, g.kh, g.sh, &g.ho, &g.pt, &g.pb);
    same_pads(op, g.w, g.kw, g.sw, &g.wo, &g.pl, &g.pr);
    g.count_pad = false;
  } else {
    g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
    MC_CHECK(std::max(g.pt, g.pb) <= g.kh / 2 && std::max(g.pl, g.pr) <= g.kw / 2, Value, "For '",
             op, "', the 'pad' must be at most half the kernel size, but got pad ",
             ints_str(attrs.get_ints("pad")), " and kernel_size (", g.kh, ", ", g.kw, ").");
    g.count_pad = mode == "pad" && attrs.get_bool("count_include_pad");
    auto extent = [ceil, op](int64_t in, int64_t before, int64_t after, int64_t k, int64_t s) {
      int64_t span = checked_add(in, before + after, op) - k;  // pads are at most k / 2 each
      if (span < 0) return int64_t{0};
      int64_t out = (ceil ? span / s + (span % s != 0) : span / s) + 1;
      // As PyTorch: the last window must start inside the input or its leading pad.
      if (ceil && (out - 1) * s >= in + before) --out;
      return out;
    };
    g.ho = extent(g.h, g.pt, g.pb, g.kh, g.sh);
    g.wo = extent(g.w, g.pl, g.pr, g.kw, g.sw);
  }
  MC_CHECK(g.ho >= 1 && g.wo >= 1, Value, "For '", op,
           "', the output height and width must be positive, but got (", g.ho, ", ", g.wo,
           ") from x shape ", x, ", kernel_size (", g.kh, ", ", g.kw, "), strides (", g.sh, ", ",
           g.sw, ") and pad_mode '", mode, "'.");
  return g;
}

void infer_pool(InferContext& ctx) {
  const char* op = ctx.op.name;
  check_float_input(op, ctx.in[0].dtype, "x");
  PoolGeom g = pool_geometry(op, ctx.in[0].shape, ctx.attrs);
  ctx.out.push_back({ctx.in[0].dtype, g.y_shape()});
}

namespace {

void check_pooled_shape(InferContext& ctx, size_t i, const char* what, const PoolGeom& g) {
  MC_CHECK(shapes_agree(ctx.in[i].shape, g.y_shape()), Value, "For '", ctx.op.name, "', the '",
           what, "' shape must be the pooled shape ", g.y_shape(), " (x shape ", ctx.in[0].shape,
           "), but got ", ctx.in[i].shape, ".");
}

// The inputs (x, out, <third>) of the pooling gradients: x floating, out and the third of x's
// dtype, out of the pooled shape. Returns the pooling's geometry.
PoolGeom check_pool_grad_inputs(InferContext& ctx, const char* third) {
  const char* op = ctx.op.name;
  const TensorMeta& x = ctx.in[0];
  check_float_input(op, x.dtype, "x");
  for (size_t i = 1; i < 3; ++i) {
    MC_CHECK(ctx.in[i].dtype == x.dtype, Type, "For '", op, "', the '", i == 1 ? "out" : third,
             "' must have x's dtype ", x.dtype, ", but got ", ctx.in[i].dtype, ".");
  }
  PoolGeom g = pool_geometry(op, x.shape, ctx.attrs);
  check_pooled_shape(ctx, 1, "out", g);
  return g;
}

}  // namespace

// (x, out, dout) -> dx: dout has the pooled shape; dx is x's.
void infer_pool_grad(InferContext& ctx) {
  PoolGeom g = check_pool_grad_inputs(ctx, "dout");
  check_pooled_shape(ctx, 2, "dout", g);
  ctx.out.push_back(ctx.in[0]);
}

// (x, out, ddx) -> ddy: ddx has x's dtype and shape, out the pooled shape; ddy is out's.
void infer_pool_grad_grad(InferContext& ctx) {
  PoolGeom g = check_pool_grad_inputs(ctx, "ddx");
  const TensorMeta& x = ctx.in[0];
  MC_CHECK(shapes_agree(ctx.in[2].shape, x.shape), Value, "For '", ctx.op.name,
           "', the 'ddx' shape must be x's shape ", x.shape, ", but got ", ctx.in[2].shape, ".");
  ctx.out.push_back({x.dtype, g.y_shape()});
}

}  // namespace mycel
