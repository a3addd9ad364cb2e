// ONNX import, the shape and data-movement translations (onnx_ops.def). Shapes are static,
// so Reshape, Squeeze, Unsqueeze and Flatten all become Reshape to the computed shape;
// Slice and Split become StridedSlice; Shape, Size, Constant and ConstantOfShape are
// constants.
#include "serialize/onnx_translate.h"

namespace mycel::serialize::onnx_detail {

namespace {

int64_t rank_of(const Val& v) { return static_cast<int64_t>(v.meta.shape.size()); }

// The axes attribute (before opset 13) or input 1.
std::vector<int64_t> axes_of(Translator& t) {
  std::vector<int64_t> axes = t.attr_ints("axes", {});
  if (t.has_input(1)) axes = t.ints_in(1, "axes");
  return axes;
}

Val strided_slice(Translator& t, const Val& x, std::vector<int64_t> begin, std::vector<int64_t> end,
                  std::vector<int64_t> strides, int64_t end_mask) {
  Attrs a;
  a.set("begin", std::move(begin));
  a.set("end", std::move(end));
  a.set("strides", std::move(strides));
  a.set("end_mask", end_mask);
  return t.op1(OpId::StridedSlice, {x}, a);
}

Tensor int64s(const std::vector<int64_t>& v) {
  Tensor out = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Int64);
  std::copy(v.begin(), v.end(), out.data<int64_t>());
  return out;
}

}  // namespace

void identity(Translator& t, OpId) { t.set_out(0, t.in(0)); }

void flatten(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  int64_t axis = t.attr_int("axis", 1);
  if (axis < -rank || axis > rank) t.fail(str("axis ", axis, " is out of range"));
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= x.meta.shape[k];
  t.set_out(0, reshape(t, x, {outer, inner}));
}

// 0 copies the input's dimension (unless allowzero), -1 takes what is left.
void reshape_op(Translator& t, OpId) {
  const Val& x = t.in(0);
  std::vector<int64_t> want = t.ints_in(1, "shape");
  bool allowzero = t.attr_int("allowzero", 0) != 0;
  Shape s;
  int infer = -1;
  int64_t known = 1;
  for (size_t k = 0; k < want.size(); ++k) {
    int64_t d = want[k];
    if (d == 0 && !allowzero) {
      if (k >= x.meta.shape.size()) t.fail("a 0 in shape has no input dimension to copy");
      d = x.meta.shape[k];
    }
    if (d == -1) {
      if (infer >= 0) t.fail("shape has two -1 entries");
      infer = static_cast<int>(k);
      s.push_back(1);
      continue;
    }
    if (d < 0) t.fail(str("shape has the entry ", d));
    if (d > 0 && known > (int64_t{1} << 62) / d) t.fail("the shape is too large");
    s.push_back(d);
    known *= d;
  }
  int64_t n = numel(x.meta.shape);
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      t.fail(str("cannot infer the -1 of the shape for ", n, " elements"));
    s[infer] = n / known;
  }
  if (numel(s) != n) t.fail(str("the shape holds ", numel(s), " elements, the input ", n));
  t.set_out(0, reshape(t, x, s));
}

void transpose(Translator& t, OpId) {
  const Val& x = t.in(0);
  std::vector<int64_t> perm;
  for (int64_t k = rank_of(x) - 1; k >= 0; --k) perm.push_back(k);
  perm = t.attr_ints("perm", perm);
  Attrs a;
  a.set("perm", perm);
  t.set_out(0, t.op1(OpId::Transpose, {x}, a));
}

void concat(Translator& t, OpId) {
  if (t.num_inputs() == 0) t.fail("Concat needs an input");
  std::vector<Val> ins;
  for (int i = 0; i < t.num_inputs(); ++i) ins.push_back(t.in(i));
  int64_t axis = norm_axis(t, t.attr_int_req("axis"), rank_of(ins[0]), "axis");
  if (ins.size() == 1) return t.set_out(0, ins[0]);
  Attrs a;
  a.set("axis", axis);
  t.set_out(0, t.op1(OpId::Concat, ins, a));
}

// Parts of the given sizes (attribute before opset 13, input 1 after), else equal parts
// (num_outputs from opset 18, the last part smaller when the size does not divide).
void split(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  int64_t axis = norm_axis(t, t.attr_int("axis", 0), rank, "axis");
  int64_t dim = x.meta.shape[axis];
  std::vector<int64_t> sizes = t.attr_ints("split", {});
  if (t.has_input(1)) sizes = t.ints_in(1, "split");
  int64_t parts = t.attr_int("num_outputs", t.num_outputs());
  if (sizes.empty()) {
    if (parts < 1 || parts != t.num_outputs()) t.fail("num_outputs disagrees with the outputs");
    int64_t each = (dim + parts - 1) / parts;
    for (int64_t k = 0; k < parts; ++k)
      sizes.push_back(std::max<int64_t>(0, std::min(each, dim - k * each)));
    if (t.opset() < 18 && dim % parts != 0) t.fail("the axis does not split into equal parts");
  }
  if (static_cast<int>(sizes.size()) != t.num_outputs())
    t.fail(str("split gives ", sizes.size(), " sizes for ", t.num_outputs(), " outputs"));
  check_range(t, sizes, 0, "split");
  int64_t at = 0;
  for (int64_t s : sizes) at += s;
  if (at != dim) t.fail(str("the split sizes sum to ", at, ", the axis has ", dim));
  at = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<int64_t> b(rank, 0), e(x.meta.shape.begin(), x.meta.shape.end()), st(rank, 1);
    b[axis] = at;
    e[axis] = at + sizes[k];
    at += sizes[k];
    if (t.wants_output(static_cast<int>(k)))
      t.set_out(static_cast<int>(k), strided_slice(t, x, b, e, st, 0));
  }
}

// starts/ends/axes/steps (attributes before opset 10), clamped as ONNX says, then a
// StridedSlice over every axis; a negative step that runs past index 0 uses the end mask.
void slice(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  std::vector<int64_t> starts, ends, axes, steps;
  if (t.opset() < 10) {
    starts = t.attr_ints("starts", {});
    ends = t.attr_ints("ends", {});
    axes = t.attr_ints("axes", {});
  } else {
    starts = t.ints_in(1, "starts");
    ends = t.ints_in(2, "ends");
    if (t.has_input(3)) axes = t.ints_in(3, "axes");
    if (t.has_input(4)) steps = t.ints_in(4, "steps");
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    t.fail("starts, ends, axes and steps must have the same length");
  std::vector<int64_t> b(rank, 0), e(x.meta.shape.begin(), x.meta.shape.end()), st(rank, 1);
  int64_t end_mask = 0;
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t a = norm_axis(t, axes[k], rank, "axis");
    if (seen[a]) t.fail("an axis is sliced twice");
    seen[a] = true;
    int64_t d = x.meta.shape[a], s = steps[k];
    if (s == 0 || s < -(int64_t{1} << 40) || s > (int64_t{1} << 40))
      t.fail(str("the step ", s, " is 0 or out of range"));
    auto clampi = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
    int64_t lo = starts[k] < 0 ? starts[k] + d : starts[k];
    int64_t hi = ends[k] < 0 ? (ends[k] < -d ? -1 : ends[k] + d) : ends[k];
    if (s > 0) {
      b[a] = clampi(lo, 0, d);
      e[a] = clampi(hi, 0, d);
    } else {
      b[a] = clampi(lo, 0, d - 1);
      e[a] = clampi(hi, -1, d - 1);
      if (e[a] < 0) {
        e[a] = 0;
        end_mask |= mask_bit(t, a);
      }
    }
    st[a] = s;
  }
  t.set_out(0, strided_slice(t, x, b, e, st, end_mask));
}

void squeeze(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  std::vector<bool> drop(rank, false);
  std::vector<int64_t> axes = axes_of(t);
  for (int64_t a : axes) {
    int64_t k = norm_axis(t, a, rank, "axis");
    if (x.meta.shape[k] != 1) t.fail(str("axis ", a, " has size ", x.meta.shape[k], ", not 1"));
    drop[k] = true;
  }
  Shape s;
  for (int64_t k = 0; k < rank; ++k)
    if (!(axes.empty() ? x.meta.shape[k] == 1 : drop[k])) s.push_back(x.meta.shape[k]);
  t.set_out(0, reshape(t, x, s));
}

void unsqueeze(Translator& t, OpId) {
  const Val& x = t.in(0);
  std::vector<int64_t> axes = axes_of(t);
  int64_t rank = rank_of(x) + static_cast<int64_t>(axes.size());
  std::vector<bool> added(rank, false);
  for (int64_t a : axes) {
    int64_t k = norm_axis(t, a, rank, "axis");
    if (added[k]) t.fail("an axis is given twice");
    added[k] = true;
  }
  Shape s;
  size_t next = 0;
  for (int64_t k = 0; k < rank; ++k) s.push_back(added[k] ? 1 : x.meta.shape[next++]);
  t.set_out(0, reshape(t, x, s));
}

void gather(Translator& t, OpId) {
  const Val& x = t.in(0);
  Attrs a;
  a.set("axis", norm_axis(t, t.attr_int("axis", 0), rank_of(x), "axis"));
  t.set_out(0, t.op1(OpId::Gather, {x, t.in(1)}, a));
}

// GatherD, with negative indices counted from the end of the axis.
void gather_elements(Translator& t, OpId) {
  const Val& x = t.in(0);
  Val idx = t.in(1);
  int64_t axis = norm_axis(t, t.attr_int("axis", 0), rank_of(x), "axis");
  Val neg = t.op1(OpId::Less, {idx, t.scalar(0, idx.meta.dtype)});
  Val wrapped =
      t.op1(OpId::Add, {idx, t.scalar(static_cast<double>(x.meta.shape[axis]), idx.meta.dtype)});
  idx = t.op1(OpId::Select, {neg, wrapped, idx});
  Attrs a;
  a.set("dim", axis);
  t.set_out(0, t.op1(OpId::GatherD, {x, idx}, a));
}

void shape(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  auto bound = [&](int64_t v) {
    return std::max<int64_t>(0, std::min(rank, v < 0 ? v + rank : v));
  };
  int64_t start = bound(t.attr_int("start", 0)), end = bound(t.attr_int("end", rank));
  std::vector<int64_t> dims;
  for (int64_t k = start; k < end; ++k) dims.push_back(x.meta.shape[k]);
  t.set_out(0, t.constant(int64s(dims)));
}

void size(Translator& t, OpId) {
  t.set_out(0,
            t.constant(Tensor::scalar(Scalar::from_int(numel(t.in(0).meta.shape)), DType::Int64)));
}

void constant(Translator& t, OpId) {
  if (std::optional<Tensor> v = t.attr_tensor("value")) return t.set_out(0, t.constant(*v));
  if (t.has_attr("value_float"))
    return t.set_out(0, t.constant(Tensor::scalar(
                            Scalar::from_float(t.attr_float("value_float", 0)), DType::Float32)));
  if (t.has_attr("value_int"))
    return t.set_out(
        0, t.constant(Tensor::scalar(Scalar::from_int(t.attr_int("value_int", 0)), DType::Int64)));
  if (t.has_attr("value_ints"))
    return t.set_out(0, t.constant(int64s(t.attr_ints("value_ints", {}))));
  if (t.has_attr("value_floats")) {
    std::vector<double> f = t.attr_floats("value_floats");
    Tensor out = Tensor::empty({static_cast<int64_t>(f.size())}, DType::Float32);
    for (size_t k = 0; k < f.size(); ++k) out.data<float>()[k] = static_cast<float>(f[k]);
    return t.set_out(0, t.constant(out));
  }
  t.fail("only tensor, float and int constants are supported (not sparse or string ones)");
}

void constant_of_shape(Translator& t, OpId) {
  std::vector<int64_t> dims = t.ints_in(0, "shape");
  Scalar v = Scalar::from_float(0);
  DType dt = DType::Float32;
  if (std::optional<Tensor> value = t.attr_tensor("value")) {
    if (value->numel() != 1) t.fail("the value attribute must hold one element");
    v = value->item();
    dt = value->dtype();
  }
  t.set_out(0, t.filled(Shape(dims.begin(), dims.end()), v, dt));
}

// Constant padding only; pads as (begins..., ends...) for all axes or for `axes` (opset 18).
void pad(Translator& t, OpId) {
  const Val& x = t.in(0);
  int64_t rank = rank_of(x);
  std::string mode = t.attr_str("mode", "constant");
  if (mode != "constant") t.fail("pad mode '" + mode + "' is not supported (only 'constant')");
  std::vector<int64_t> pads;
  double value = 0;
  std::vector<int64_t> axes;
  if (t.opset() < 11) {
    pads = t.attr_ints("pads", {});
    value = t.attr_float("value", 0);
  } else {
    pads = t.ints_in(1, "pads");
    if (t.has_input(2)) value = t.scalar_in(2, "constant_value");
    if (t.has_input(3)) axes = t.ints_in(3, "axes");
  }
  if (axes.empty())
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  size_t n = axes.size();
  if (pads.size() != 2 * n) t.fail(str("pads needs ", 2 * n, " values, it has ", pads.size()));
  std::vector<int64_t> paddings(2 * rank, 0);
  for (size_t k = 0; k < n; ++k) {
    int64_t a = norm_axis(t, axes[k], rank, "axis");
    check_range(t, {pads[k], pads[n + k]}, 0, "pads");
    paddings[2 * a] = pads[k];
    paddings[2 * a + 1] = pads[n + k];
  }
  Attrs at;
  at.set("paddings", paddings);
  at.set("value", value);
  t.set_out(0, t.op1(OpId::Pad, {x}, at));
}

// Bidirectional broadcast of x and the shape input.
void expand(Translator& t, OpId) {
  Val x = t.in(0);
  std::vector<int64_t> want = t.ints_in(1, "shape");
  check_range(t, want, 0, "shape");
  size_t rank = std::max(want.size(), x.meta.shape.size());
  Shape xs(rank - x.meta.shape.size(), 1), out(rank, 1);
  for (int64_t d : x.meta.shape) xs.push_back(d);
  for (size_t k = 0; k < rank; ++k) {
    int64_t w = k + want.size() >= rank ? want[k + want.size() - rank] : 1;
    if (xs[k] != w && xs[k] != 1 && w != 1)
      t.fail(
          str("shape ", w, " does not broadcast with the input's ", xs[k], " (dimension ", k, ")"));
    out[k] = xs[k] == 1 ? w : xs[k];
  }
  x = reshape(t, x, xs);
  if (xs == out) return t.set_out(0, x);
  Attrs a;
  a.set("shape", std::vector<int64_t>(out.begin(), out.end()));
  t.set_out(0, t.op1(OpId::BroadcastTo, {x}, a));
}

void tile(Translator& t, OpId) {
  std::vector<int64_t> repeats = t.ints_in(1, "repeats");
  check_range(t, repeats, 0, "repeats");
  Attrs a;
  a.set("multiples", repeats);
  t.set_out(0, t.op1(OpId::Tile, {t.in(0)}, a));
}

void range(Translator& t, OpId) {
  DType dt = t.in(0).meta.dtype;
  Attrs a;
  a.set("start", t.scalar_in(0, "start"));
  a.set("limit", t.scalar_in(1, "limit"));
  a.set("delta", t.scalar_in(2, "delta"));
  a.set("dtype", dt);
  t.set_out(0, t.op1(OpId::Range, {}, a));
}

}  // namespace mycel::serialize::onnx_detail
