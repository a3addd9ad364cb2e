// Inference rules of the NN family's non-windowed ops: softmax and the cross entropies,
// BatchNorm, LayerNorm and their gradients, Dropout.
#include <algorithm>
#include <string>

#include "ops/infer_nn.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

void check_float(const char* op, DType t, const char* what) {
  MC_CHECK(is_floating(t), Type, "For '", op, "', the '", what,
           "' must be a floating-point tensor (Float16, BFloat16, Float32 or Float64), but got ", t,
           ".");
}

// Normalisation parameters (scale, mean, gamma, ...) are in x's dtype, or float32 when x is
// float16/bfloat16 (statistics are kept in float32 then).
void check_param_dtype(const char* op, DType x, DType p, const char* what) {
  bool half = x == DType::Float16 || x == DType::BFloat16;
  MC_CHECK(p == x || (half && p == DType::Float32), Type, "For '", op, "', the '", what,
           "' must have x's dtype ", x, half ? " or Float32" : "", ", but got ", p, ".");
}

DType stat_dtype(DType x) {
  return (x == DType::Float16 || x == DType::BFloat16) ? DType::Float32 : x;
}

void check_shape(const char* op, const Shape& got, const Shape& want, const char* what,
                 const char* why) {
  MC_CHECK(shapes_agree(got, want), Value, "For '", op, "', the '", what, "' shape must be ", want,
           " (", why, "), but got ", got, ".");
}

}  // namespace

AxisSplit softmax_split(const char* op, const Shape& x, const Attrs& attrs) {
  std::vector<int64_t> axes;
  const AttrValue& v = attrs.get("axis");
  if (const auto* list = std::get_if<std::vector<int64_t>>(&v)) {
    MC_CHECK(!list->empty(), Value, "For '", op,
             "', the 'axis' must be an int or a non-empty tuple of ints, but got ",
             attr_value_str(v), ".");
    axes = *list;
  } else {
    axes = {std::get<int64_t>(v)};
  }
  int64_t nd = static_cast<int64_t>(x.size());
  for (int64_t& a : axes) a = normalize_axis(a, nd, op);
  AxisSplit s{1, 1, 1};
  if (nd == 0) return s;
  // Several axes (MindSpore's Softmax(axis=(0, 1))) must be distinct neighbours: the softmax
  // then runs over their flattened product, the [outer, len, inner] split of one axis.
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i)
    MC_CHECK(axes[i] == axes[0] + static_cast<int64_t>(i), Value, "For '", op,
             "', the axes of 'axis' must be distinct and contiguous, but got ", attr_value_str(v),
             ".");
  const int64_t first = axes.front(), last = axes.back();
  for (int64_t d = 0; d < first; ++d) s.outer *= x[static_cast<size_t>(d)];
  for (int64_t d = first; d <= last; ++d) s.len *= x[static_cast<size_t>(d)];
  for (int64_t d = last + 1; d < nd; ++d) s.inner *= x[static_cast<size_t>(d)];
  return s;
}

void infer_softmax(InferContext& ctx) {
  check_float(ctx.op.name, ctx.in[0].dtype, "x");
  softmax_split(ctx.op.name, ctx.in[0].shape, ctx.attrs);
  ctx.out.push_back(ctx.in[0]);
}

namespace {
void check_logits(const char* op, const TensorMeta& logits) {
  check_float(op, logits.dtype, "logits");
  MC_CHECK(logits.shape.size() == 2, Value, "For '", op,
           "', the 'logits' must be 2-d [batch, classes], but got shape ", logits.shape, ".");
}
}  // namespace

void infer_sparse_softmax_ce(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta &logits = ctx.in[0], &labels = ctx.in[1];
  check_logits(op, logits);
  MC_CHECK(labels.dtype == DType::Int32 || labels.dtype == DType::Int64, Type, "For '", op,
           "', the 'labels' must be Int32 or Int64, but got ", labels.dtype, ".");
  MC_CHECK(labels.shape.size() == 1 && dims_agree(labels.shape[0], logits.shape[0]), Value, "For '",
           op, "', the 'labels' shape must be [", logits.shape[0], "] (logits shape ", logits.shape,
           "), but got ", labels.shape, ".");
  if (ctx.attrs.get_bool("is_grad")) {
    ctx.out.push_back(logits);
  } else {
    ctx.out.push_back({logits.dtype, {}});
  }
}

void infer_softmax_ce(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta &logits = ctx.in[0], &labels = ctx.in[1];
  check_logits(op, logits);
  MC_CHECK(shapes_agree(labels.shape, logits.shape), Value, "For '", op,
           "', the 'labels' shape must equal the 'logits' shape ", logits.shape, ", but got ",
           labels.shape, ".");
  ctx.out.push_back({logits.dtype, {logits.shape[0]}});
  ctx.out.push_back(logits);
}

BatchNormGeom batch_norm_geometry(const char* op, const Shape& x) {
  MC_CHECK(x.size() == 2 || x.size() == 4, Value, "For '", op,
           "', the input x must be 2-d [N, C] or 4-d [N, C, H, W], but got shape ", x, ".");
  check_static_dims(x, 1, x.size(), op, "channels and spatial sizes of x");
  BatchNormGeom g{x[0], x[1], 1};
  if (x.size() == 4) g.s = x[2] * x[3];
  return g;
}

namespace {
// The four [C] parameters of BatchNorm / three of BatchNormGrad, from input `first` on.
void check_bn_params(const InferContext& ctx, size_t first, const char* const* names, size_t count,
                     const TensorMeta& x) {
  const char* op = ctx.op.name;
  MC_CHECK(ctx.attrs.get_str("data_format") == "NCHW", Value, "For '", op,
           "', the 'data_format' must be 'NCHW', but got '", ctx.attrs.get_str("data_format"),
           "'.");
  Shape c{x.shape[1]};
  DType p = ctx.in[first].dtype;
  for (size_t i = 0; i < count; ++i) {
    const TensorMeta& m = ctx.in[first + i];
    MC_CHECK(m.shape == c, Value, "For '", op, "', the '", names[i], "' shape must be [C] = ", c,
             " (x shape ", x.shape, "), but got ", m.shape, ".");
    check_param_dtype(op, x.dtype, m.dtype, names[i]);
    MC_CHECK(m.dtype == p, Type, "For '", op, "', the '", names[i], "' must have the '", names[0],
             "' dtype ", p, ", but got ", m.dtype, ".");
  }
}
}  // namespace

void infer_batch_norm(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta& x = ctx.in[0];
  check_float(op, x.dtype, "x");
  BatchNormGeom g = batch_norm_geometry(op, x.shape);
  static const char* const kNames[] = {"scale", "bias", "mean", "variance"};
  check_bn_params(ctx, 1, kNames, 4, x);
  if (ctx.attrs.get_bool("is_training")) {
    MC_CHECK(g.n < 0 || g.n * g.s > 1, Value, "For '", op,
             "', training needs more than one value per channel, but got x shape ", x.shape, ".");
  }
  ctx.out.push_back(x);
  for (int i = 0; i < 4; ++i) ctx.out.push_back({ctx.in[1].dtype, {g.c}});
}

void infer_batch_norm_grad(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta &dy = ctx.in[0], &x = ctx.in[1];
  check_float(op, x.dtype, "x");
  batch_norm_geometry(op, x.shape);
  MC_CHECK(shapes_agree(dy.shape, x.shape) && dy.dtype == x.dtype, Value, "For '", op,
           "', the 'dy' must have x's shape and dtype (", x.shape, ", ", x.dtype, "), but got (",
           dy.shape, ", ", dy.dtype, ").");
  static const char* const kNames[] = {"scale", "saved_mean", "saved_invstd"};
  check_bn_params(ctx, 2, kNames, 3, x);
  ctx.out.push_back(x);
  ctx.out.push_back({ctx.in[2].dtype, {x.shape[1]}});
  ctx.out.push_back({ctx.in[2].dtype, {x.shape[1]}});
}

LayerNormGeom layer_norm_geometry(const char* op, const Shape& x, const Attrs& attrs) {
  int64_t nd = static_cast<int64_t>(x.size());
  MC_CHECK(nd >= 1, Value, "For '", op, "', the input x must have at least 1 dim, but got shape ",
           x, ".");
  int64_t bna = normalize_axis(attrs.get_int("begin_norm_axis"), nd, op, "begin_norm_axis");
  int64_t bpa = normalize_axis(attrs.get_int("begin_params_axis"), nd, op, "begin_params_axis");
  LayerNormGeom g{1, 1, 1, {}, {}};
  for (int64_t d = 0; d < nd; ++d) {
    int64_t n = x[static_cast<size_t>(d)];
    (d < bna ? g.rows : g.cols) *= n;
    g.stat_shape.push_back(d < bna ? n : 1);
    if (d >= bpa) {
      g.params *= n;
      g.param_shape.push_back(n);
    }
  }
  return g;
}

void infer_layer_norm(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta& x = ctx.in[0];
  check_float(op, x.dtype, "x");
  LayerNormGeom g = layer_norm_geometry(op, x.shape, ctx.attrs);
  const char* names[] = {"gamma", "beta"};
  for (size_t i = 1; i < 3; ++i) {
    check_shape(op, ctx.in[i].shape, g.param_shape, names[i - 1], "x.shape[begin_params_axis:]");
    check_param_dtype(op, x.dtype, ctx.in[i].dtype, names[i - 1]);
  }
  MC_CHECK(ctx.in[1].dtype == ctx.in[2].dtype, Type, "For '", op,
           "', the 'gamma' and 'beta' must have the same dtype, but got ", ctx.in[1].dtype, " and ",
           ctx.in[2].dtype, ".");
  ctx.out.push_back(x);
  ctx.out.push_back({stat_dtype(x.dtype), g.stat_shape});
  ctx.out.push_back({stat_dtype(x.dtype), g.stat_shape});
}

void infer_layer_norm_grad(InferContext& ctx) {
  const char* op = ctx.op.name;
  const TensorMeta &dy = ctx.in[0], &x = ctx.in[1], &gamma = ctx.in[2];
  check_float(op, x.dtype, "x");
  LayerNormGeom g = layer_norm_geometry(op, x.shape, ctx.attrs);
  MC_CHECK(shapes_agree(dy.shape, x.shape) && dy.dtype == x.dtype, Value, "For '", op,
           "', the 'dy' must have x's shape and dtype (", x.shape, ", ", x.dtype, "), but got (",
           dy.shape, ", ", dy.dtype, ").");
  check_shape(op, gamma.shape, g.param_shape, "gamma", "x.shape[begin_params_axis:]");
  check_param_dtype(op, x.dtype, gamma.dtype, "gamma");
  const char* names[] = {"mean", "rstd"};
  for (size_t i = 3; i < 5; ++i) {
    check_shape(op, ctx.in[i].shape, g.stat_shape, names[i - 3],
                "x.shape with the normalised axes as 1");
    MC_CHECK(ctx.in[i].dtype == stat_dtype(x.dtype), Type, "For '", op, "', the '", names[i - 3],
             "' must be ", stat_dtype(x.dtype), ", but got ", ctx.in[i].dtype, ".");
  }
  ctx.out.push_back(x);
  ctx.out.push_back(gamma);
  ctx.out.push_back(gamma);
}

void infer_dropout(InferContext& ctx) {
  const char* op = ctx.op.name;
  check_float(op, ctx.in[0].dtype, "x");
  double kp = ctx.attrs.get_float("keep_prob");
  MC_CHECK(kp > 0.0 && kp <= 1.0, Value, "For '", op,
           "', the 'keep_prob' must be in range (0, 1], but got ", kp, ".");
  ctx.out.push_back(ctx.in[0]);
  ctx.out.push_back(ctx.in[0]);
}

}  // namespace mycel
