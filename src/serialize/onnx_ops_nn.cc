// ONNX import, the neural-network translations (onnx_ops.def): Conv, Gemm, MatMul, the
// poolings, the normalisations, Softmax and Dropout. Convolution and pooling are 2-D (rank-4
// NCHW inputs), as mycel's Conv2D and pools; auto_pad modes become explicit pads.
#include <limits>

#include "serialize/onnx_translate.h"

namespace mycel::serialize::onnx_detail {

namespace {

// The spatial window attributes of Conv and the poolings, mapped to mycel's 2-D ones: pads as
// (top, bottom, left, right) from ONNX's (begins..., ends...) or from auto_pad. A 1-D window
// (a rank-3 input) becomes a 2-D one of height 1.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pad;
};

// x as a rank-4 NCHW tensor: a rank-3 [N, C, L] input gets a unit height.
Val as_2d(Translator& t, const Val& x) {
  const Shape& s = x.meta.shape;
  if (s.size() == 3) return reshape(t, x, {s[0], s[1], 1, s[2]});
  if (s.size() != 4)
    t.fail(
        str("only 1-D and 2-D windows (rank-3 and rank-4 inputs) are supported, the input "
            "has rank ",
            s.size()));
  return x;
}

// The 2-D result y back to the input's rank.
Val from_2d(Translator& t, const Val& x, const Val& y) {
  if (x.meta.shape.size() == 4) return y;
  const Shape& s = y.meta.shape;
  return reshape(t, y, {s[0], s[1], s[3]});
}

// `kernel` (from the weight; empty for pools) and the attributes, for the input x (rank 3 or
// 4, not yet made 2-D).
Window window(Translator& t, const Val& x, std::vector<int64_t> kernel) {
  size_t n = x.meta.shape.size() - 2;  // spatial dimensions: 1 or 2 (as_2d checked)
  std::vector<int64_t> ks = t.attr_ints("kernel_shape", kernel);
  if (!kernel.empty() && ks != kernel) t.fail("kernel_shape disagrees with the weight's shape");
  std::vector<int64_t> strides = t.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations = t.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = t.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (ks.size() != n || strides.size() != n || dilations.size() != n || pads.size() != 2 * n)
    t.fail(str("kernel_shape, strides and dilations need ", n, " values, pads ", 2 * n));
  check_range(t, ks, 1, "kernel_shape");
  check_range(t, strides, 1, "strides");
  check_range(t, dilations, 1, "dilations");
  check_range(t, pads, 0, "pads");
  std::string mode = t.attr_str("auto_pad", "NOTSET");
  if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    for (size_t k = 0; k < n; ++k) {
      int64_t in = x.meta.shape[2 + k], s = strides[k];
      int64_t out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + (ks[k] - 1) * dilations[k] + 1 - in);
      pads[k] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[n + k] = total - pads[k];
    }
  } else if (mode == "VALID") {
    pads.assign(2 * n, 0);
  } else if (mode != "NOTSET") {
    t.fail("auto_pad '" + mode + "' is not supported");
  }
  Window w;
  if (n == 1) {
    w.kernel = {1, ks[0]};
    w.strides = {1, strides[0]};
    w.dilations = {1, dilations[0]};
    w.pad = {0, 0, pads[0], pads[1]};
  } else {
    w.kernel = ks;
    w.strides = strides;
    w.dilations = dilations;
    w.pad = {pads[0], pads[2], pads[1], pads[3]};
  }
  return w;
}

// Conv2D's (and its input gradient's) attributes for window `w`.
Attrs conv_attrs(int64_t out_channel, const Window& w, int64_t group) {
  Attrs a;
  a.set("out_channel", out_channel);
  a.set("kernel_size", w.kernel);
  a.set("pad_mode", std::string("pad"));
  a.set("pad", w.pad);
  a.set("stride", w.strides);
  a.set("dilation", w.dilations);
  a.set("group", group);
  return a;
}

}  // namespace

void conv(Translator& t, OpId) {
  const Val& x = t.in(0);
  Val x2 = as_2d(t, x);
  Val wv = t.in(1);
  const Shape& ws = wv.meta.shape;
  if (ws.size() != x.meta.shape.size()) t.fail("the weight's rank differs from the input's");
  Window w = window(t, x, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  if (ws.size() == 3) wv = reshape(t, wv, {ws[0], ws[1], 1, ws[2]});
  Val y = t.op1(OpId::Conv2D, {x2, wv}, conv_attrs(ws[0], w, t.attr_int("group", 1)));
  if (t.has_input(2)) y = t.op1(OpId::BiasAdd, {y, t.in(2)});
  t.set_out(0, from_2d(t, x, y));
}

// ConvTranspose as the input gradient of the convolution that maps its output back to its
// input (Conv2DBackpropInput; ONNX's weight [C_in, C_out/group, k...] is that convolution's).
// Output size per axis: stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads;
// with output_shape or a SAME auto_pad, the pads come from the wanted size.
void conv_transpose(Translator& t, OpId) {
  const Val& x = t.in(0);
  Val x2 = as_2d(t, x);
  Val wv = t.in(1);
  const Shape ws = wv.meta.shape;
  if (ws.size() != x.meta.shape.size()) t.fail("the weight's rank differs from the input's");
  size_t n = ws.size() - 2;
  std::string mode = t.attr_str("auto_pad", "NOTSET");
  std::vector<int64_t> out_shape = t.attr_ints("output_shape", {});
  std::vector<int64_t> out_pad = t.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  check_range(t, out_shape, 1, "output_shape");
  check_range(t, out_pad, 0, "output_padding");
  if ((!out_shape.empty() && out_shape.size() != n) || out_pad.size() != n)
    t.fail(str("output_shape and output_padding need ", n, " values"));
  Window w = window(t, x, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  int64_t group = t.attr_int("group", 1);
  Shape size{x.meta.shape[0], ws[1] * group};
  for (size_t k = 0; k < n; ++k) {
    size_t a = k + 2 - n;  // the 2-D axis (0: H, 1: W) of spatial axis k
    int64_t in = x.meta.shape[2 + k], s = w.strides[a];
    int64_t span = s * (in - 1) + out_pad[k] + (w.kernel[a] - 1) * w.dilations[a] + 1;
    if (!out_shape.empty() || mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      int64_t total = span - (out_shape.empty() ? in * s : out_shape[k]);
      // A larger output than the span: the extra rows at the end (only the bias reaches
      // them) are output padding, which must stay under the stride.
      if (total < 0 && out_pad[k] - total >= s)
        t.fail("output_shape exceeds what the input and the stride can give");
      if (total < 0) span -= total;
      total = std::max<int64_t>(total, 0);
      int64_t half = total / 2;
      w.pad[2 * a] = mode == "SAME_UPPER" ? half : total - half;
      w.pad[2 * a + 1] = total - w.pad[2 * a];
    }
    size.push_back(span - w.pad[2 * a] - w.pad[2 * a + 1]);
  }
  if (n == 1) {
    size.insert(size.begin() + 2, 1);
    wv = reshape(t, wv, {ws[0], ws[1], 1, ws[2]});
  }
  Attrs a = conv_attrs(ws[0], w, group);
  a.set("input_size", std::vector<int64_t>(size.begin(), size.end()));
  Val y = t.op1(OpId::Conv2DBackpropInput, {x2, wv}, a);
  if (t.has_input(2)) y = t.op1(OpId::BiasAdd, {y, t.in(2)});
  t.set_out(0, from_2d(t, x, y));
}

// mycel's pools take pads of at most half the kernel; wider ones (without ceil_mode) pad
// explicitly first: -inf for MaxPool, zeros for AvgPool, whose count_include_pad=0 average
// is then the window sum over the count of real elements (the same pool over ones).
Val wide_pad_pool(Translator& t, OpId id, const Val& x, Attrs a, bool include_pad) {
  std::vector<int64_t> pad = a.get_ints("pad");
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  Attrs p;
  p.set("paddings", std::vector<int64_t>{0, 0, 0, 0, pad[0], pad[1], pad[2], pad[3]});
  p.set("value", id == OpId::MaxPool ? -std::numeric_limits<double>::infinity() : 0.0);
  Val y = t.op1(id, {t.op1(OpId::Pad, {x}, p)}, a);
  if (id == OpId::MaxPool || include_pad) return y;
  a.set("count_include_pad", true);
  Shape one{1, 1, x.meta.shape[2], x.meta.shape[3]};
  Val ones = t.filled(one, Scalar::from_int(1), x.meta.dtype);
  Val share = t.op1(id, {t.op1(OpId::Pad, {ones}, p)}, a);  // real elements / window size
  return t.op1(OpId::Div, {y, share});
}

// Max pooling of small integer types runs in a float type that holds them exactly.
void pool(Translator& t, OpId id) {
  const Val& x = t.in(0);
  Val x2 = as_2d(t, x);
  Window w = window(t, x, {});
  if (w.dilations != std::vector<int64_t>{1, 1}) t.fail("dilated pooling is not supported");
  if (t.attr_int("storage_order", 0) != 0) t.fail("storage_order=1 is not supported");
  bool ceil = t.attr_int("ceil_mode", 0) != 0;
  bool include_pad = id == OpId::AvgPool && t.attr_int("count_include_pad", 0) != 0;
  Attrs a;
  a.set("kernel_size", w.kernel);
  a.set("strides", w.strides);
  a.set("pad_mode", std::string("pad"));
  a.set("pad", w.pad);
  a.set("ceil_mode", ceil);
  if (id == OpId::AvgPool) a.set("count_include_pad", include_pad);
  DType dt = x.meta.dtype;
  if (id == OpId::MaxPool && is_integral(dt) && dtype_size(dt) <= 4)
    x2 = t.cast(x2, dtype_size(dt) <= 2 ? DType::Float32 : DType::Float64);
  bool wide = 2 * std::max(w.pad[0], w.pad[1]) > w.kernel[0] ||
              2 * std::max(w.pad[2], w.pad[3]) > w.kernel[1];
  Val y = wide && !ceil ? wide_pad_pool(t, id, x2, a, include_pad) : t.op1(id, {x2}, a);
  t.set_out(0, from_2d(t, x, t.cast(y, dt)));
}

// A pool with the whole image as its window for float 1-D and 2-D inputs (the lite converter
// lowers pools, not reductions); otherwise a mean or max over the spatial axes.
void global_pool(Translator& t, OpId id) {
  const Val& x = t.in(0);
  size_t rank = x.meta.shape.size();
  if (rank < 3) t.fail("the input needs a spatial dimension (rank 3 or more)");
  if (rank <= 4 && is_floating(x.meta.dtype)) {
    Val x2 = as_2d(t, x);
    Attrs a;
    a.set("kernel_size", std::vector<int64_t>{x2.meta.shape[2], x2.meta.shape[3]});
    a.set("strides", std::vector<int64_t>{1, 1});
    OpId pool = id == OpId::ReduceMean ? OpId::AvgPool : OpId::MaxPool;
    return t.set_out(0, from_2d(t, x, t.op1(pool, {x2}, a)));
  }
  std::vector<int64_t> axes;
  for (size_t k = 2; k < rank; ++k) axes.push_back(static_cast<int64_t>(k));
  Attrs a;
  a.set("axis", axes);
  a.set("keep_dims", true);
  t.set_out(0, t.op1(id, {x}, a));
}

// Y = alpha * op(A) op(B) + beta * C, with C broadcast (a bias vector: BiasAdd).
void gemm(Translator& t, OpId) {
  const Val& a = t.in(0);
  const Val& b = t.in(1);
  if (a.meta.shape.size() != 2 || b.meta.shape.size() != 2) t.fail("A and B must be 2-D");
  Attrs at;
  at.set("transpose_a", t.attr_int("transA", 0) != 0);
  at.set("transpose_b", t.attr_int("transB", 0) != 0);
  double alpha = t.attr_float("alpha", 1.0), beta = t.attr_float("beta", 1.0);
  Val y = t.op1(OpId::MatMul, {a, b}, at);
  if (alpha != 1.0) y = t.op1(OpId::Mul, {y, t.scalar(alpha, y.meta.dtype)});
  if (t.has_input(2) && beta != 0.0) {
    Val c = t.in(2);
    if (beta != 1.0) c = t.op1(OpId::Mul, {c, t.scalar(beta, c.meta.dtype)});
    bool bias = c.meta.shape.size() == 1 && c.meta.shape[0] == y.meta.shape[1] &&
                c.meta.dtype == y.meta.dtype;
    y = t.op1(bias ? OpId::BiasAdd : OpId::Add, {y, c});
  }
  t.set_out(0, y);
}

// numpy's matmul: 1-D operands get a unit dimension that the result drops; batch dimensions
// broadcast (BatchMatMul).
void matmul(Translator& t, OpId) {
  Val a = t.in(0), b = t.in(1);
  size_t ra = a.meta.shape.size(), rb = b.meta.shape.size();
  if (ra == 0 || rb == 0) t.fail("MatMul's inputs must have rank 1 or more");
  if (ra == 1) a = reshape(t, a, {1, a.meta.shape[0]});
  if (rb == 1) b = reshape(t, b, {b.meta.shape[0], 1});
  bool two_d = a.meta.shape.size() == 2 && b.meta.shape.size() == 2;
  Val y = t.op1(two_d ? OpId::MatMul : OpId::BatchMatMul, {a, b});
  if (ra == 1 || rb == 1) {
    Shape s(y.meta.shape.begin(), y.meta.shape.end() - 2);
    if (ra != 1) s.push_back(y.meta.shape[y.meta.shape.size() - 2]);
    if (rb != 1) s.push_back(y.meta.shape.back());
    y = reshape(t, y, s);
  }
  t.set_out(0, y);
}

// Inference batch normalisation (training_mode must be 0).
void batch_norm(Translator& t, OpId) {
  if (t.attr_int("training_mode", 0) != 0) t.fail("training_mode=1 is not supported");
  if (t.attr_int("spatial", 1) != 1) t.fail("spatial=0 is not supported");
  t.ignore_attr("momentum");  // running statistics are updated in training only
  for (int i = 1; i < t.num_outputs(); ++i)
    if (t.wants_output(i)) t.fail("the training outputs (mean, var, ...) are not supported");
  const Val& x = t.in(0);
  if (x.meta.shape.size() < 2) t.fail("the input needs a channel dimension");
  Attrs a;
  a.set("is_training", false);
  a.set("epsilon", t.attr_float("epsilon", 1e-5));
  std::vector<Val> ins{x};
  for (int i = 1; i < 5; ++i) ins.push_back(t.cast(t.in(i), x.meta.dtype));
  t.set_out(0, t.op(OpId::BatchNorm, ins, a)[0]);
}

// InstanceNormalization: each (sample, channel) normalised over its spatial axes, then
// scale[C] and B[C] applied per channel.
void instance_norm(Translator& t, OpId) {
  const Val& x = t.in(0);
  size_t rank = x.meta.shape.size();
  if (rank < 3) t.fail("the input needs a spatial dimension (rank 3 or more)");
  std::vector<int64_t> axes;
  for (size_t k = 2; k < rank; ++k) axes.push_back(static_cast<int64_t>(k));
  Attrs r;
  r.set("axis", axes);
  r.set("keep_dims", true);
  Val d = t.op1(OpId::Sub, {x, t.op1(OpId::ReduceMean, {x}, r)});
  Val var = t.op1(OpId::ReduceMean, {t.op1(OpId::Square, {d})}, r);
  Val eps = t.scalar(t.attr_float("epsilon", 1e-5), x.meta.dtype);
  Val y = t.op1(OpId::Mul, {d, t.op1(OpId::Rsqrt, {t.op1(OpId::Add, {var, eps})})});
  Shape per_channel{x.meta.shape[1]};
  per_channel.resize(rank - 1, 1);
  auto channel = [&](int i) {
    const Val& v = t.in(i);
    if (v.meta.shape != Shape{x.meta.shape[1]}) t.fail(str("input ", i, " must have shape [C]"));
    return reshape(t, v, per_channel);
  };
  y = t.op1(OpId::Mul, {y, channel(1)});
  t.set_out(0, t.op1(OpId::Add, {y, channel(2)}));
}

// Softmax and LogSoftmax. Before opset 13 the input is seen as 2-D, [prod(:axis),
// prod(axis:)], normalised over its rows; from 13 along one axis (default -1).
void softmax(Translator& t, OpId id) {
  const Val& x = t.in(0);
  int64_t rank = static_cast<int64_t>(x.meta.shape.size());
  if (rank == 0) t.fail("the input must have rank 1 or more");
  bool legacy = t.opset() < 13;
  int64_t axis = t.attr_int("axis", legacy ? 1 : -1);
  Val in = x;
  if (legacy) {  // axis may be rank here: one column per row
    axis = axis == rank ? rank : norm_axis(t, axis, rank, "axis");
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= x.meta.shape[k];
    in = reshape(t, x, {outer, inner});
    axis = 1;
  } else {
    axis = norm_axis(t, axis, rank, "axis");
  }
  Attrs a;
  if (id == OpId::Softmax)
    a.set("axis", std::vector<int64_t>{axis});
  else
    a.set("axis", axis);
  t.set_out(0, reshape(t, t.op1(id, {in}, a), x.meta.shape));
}

// LayerNormalization over axes [axis, rank): scale and bias broadcast to x.shape[axis:].
void layer_norm(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = static_cast<int64_t>(x.meta.shape.size());
  int64_t axis = norm_axis(t, t.attr_int("axis", -1), rank, "axis");
  if (t.attr_int("stash_type", 1) != 1) t.fail("stash_type other than float32 is not supported");
  Shape ps(x.meta.shape.begin() + axis, x.meta.shape.end());
  auto param = [&](const Val& v) {
    if (v.meta.shape == ps) return v;
    Attrs b;
    b.set("shape", std::vector<int64_t>(ps.begin(), ps.end()));
    return t.op1(OpId::BroadcastTo, {v}, b);
  };
  Val gamma = param(t.in(1));
  Val beta = t.has_input(2) ? param(t.in(2)) : t.filled(ps, Scalar::from_int(0), x.meta.dtype);
  Attrs a;
  a.set("begin_norm_axis", axis);
  a.set("begin_params_axis", axis);
  a.set("epsilon", t.attr_float("epsilon", 1e-5));
  std::vector<Val> outs = t.op(OpId::LayerNorm, {x, gamma, beta}, a);
  for (int i = 0; i < 3; ++i)
    if (t.wants_output(i)) t.set_out(i, outs[i]);
}

// Inference dropout: the identity, and an all-true mask.
void dropout(Translator& t, OpId) {
  t.ignore_attr("seed");
  t.ignore_attr("ratio");
  t.ignore_attr("is_test");
  if (t.has_input(2) && t.scalar_in(2, "training_mode") != 0)
    t.fail("training_mode=true is not supported");
  const Val& x = t.in(0);
  t.set_out(0, x);
  if (t.wants_output(1)) {
    DType mask = t.opset() < 10 ? x.meta.dtype : DType::Bool;
    t.set_out(1, t.filled(x.meta.shape, Scalar::from_int(1), mask));
  }
}

}  // namespace mycel::serialize::onnx_detail
