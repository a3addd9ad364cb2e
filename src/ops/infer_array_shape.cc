// Rules of the array family's shape ops: views (Reshape ... BroadcastTo), joins and splits
// (Concat, Stack, Split), Tile, Pad and Range.
#include <cmath>

#include "ops/infer_array.h"
#include "tensor/dynamic_shape.h"
#include "tensor/size.h"

namespace mycel {

namespace {

const TensorMeta& single(InferContext& ctx) { return ctx.in[0]; }

Shape ints_to_shape(const std::vector<int64_t>& v) { return Shape(v.begin(), v.end()); }

}  // namespace

namespace {
// Reshape of an input with dynamic dimensions: a -1 of the target stays dynamic (its size is
// the run-time element count over the known target dims); a target without one is taken as
// it is. Both are checked against the run-time shape when the executor infers the op again;
// here only what can never work is refused (known counts that do not divide).
Shape dynamic_reshape(const Shape& from, const Shape& to, std::string_view op) {
  int64_t known_in = 1, known_to = 1, unknown = 0;
  for (int64_t d : from) known_in *= d < 0 ? 1 : d;
  for (int64_t d : to) {
    MC_CHECK(d >= -1, Value, "For '", op, "', the target shape ", to, " has a negative dimension.");
    if (d == -1) ++unknown;
    known_to = checked_mul(known_to, d < 0 ? 1 : d, op);
  }
  MC_CHECK(unknown <= 1, Value, "For '", op, "', only one dimension of the target shape ", to,
           " can be -1 (the input's shape ", from,
           " is dynamic; a dynamic dimension read from x.shape is -1 at compile time: keep "
           "one -1, as ops.flatten(x) or (-1, n) do).");
  MC_CHECK(unknown == 1 || known_in == 0 || known_to % known_in == 0, Value, "For '", op,
           "', cannot reshape a tensor of shape ", from, " (a multiple of ", known_in,
           " elements) to ", to, " (", known_to, " elements).");
  return to;
}
}  // namespace

void infer_reshape_op(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  Shape target = ints_to_shape(ctx.attrs.get_ints("shape"));
  Shape to = is_dynamic(x.shape) ? dynamic_reshape(x.shape, target, ctx.op.name)
                                 : infer_reshape(x.shape, target, ctx.op.name);
  ctx.out.push_back({x.dtype, to});
}

void infer_transpose(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  Shape perm = ints_to_shape(ctx.attrs.get_ints("perm"));
  const int64_t n = static_cast<int64_t>(x.shape.size());
  MC_CHECK(static_cast<int64_t>(perm.size()) == n, Value, "For '", ctx.op.name,
           "', the permutation ", perm, " must have one entry per dimension of the input of shape ",
           x.shape, ".");
  Shape out(perm.size());
  SmallVector<bool, 8> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t a = normalize_axis(perm[i], n, ctx.op.name, "perm");
    MC_CHECK(!seen[a], Value, "For '", ctx.op.name, "', the permutation ", perm, " repeats axis ",
             perm[i], ".");
    seen[a] = true;
    out[i] = x.shape[a];
  }
  ctx.out.push_back({x.dtype, out});
}

void infer_expand_dims(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  const int64_t n = static_cast<int64_t>(x.shape.size());
  int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), n + 1, ctx.op.name);
  Shape out = x.shape;
  out.insert(out.begin() + axis, 1);
  ctx.out.push_back({x.dtype, out});
}

void infer_squeeze(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  const auto& axes = ctx.attrs.get_ints("axis");
  const int64_t n = static_cast<int64_t>(x.shape.size());
  SmallVector<bool, 8> drop(x.shape.size(), false);
  if (axes.empty()) {
    check_static_dims(x.shape, 0, x.shape.size(), ctx.op.name,
                      "size of each dimension (which "
                      "ones are 1; give 'axis' to squeeze known ones)");
    for (int64_t d = 0; d < n; ++d) drop[d] = x.shape[d] == 1;
  } else {
    for (int64_t a : axes) {
      int64_t d = normalize_axis(a, n, ctx.op.name);
      check_static_dims(x.shape, d, d + 1, ctx.op.name, "size of a squeezed axis");
      MC_CHECK(x.shape[d] == 1, Value, "For '", ctx.op.name, "', cannot squeeze axis ", a,
               " of size ", x.shape[d], " (only size-1 dimensions can be squeezed; input shape ",
               x.shape, ").");
      drop[d] = true;
    }
  }
  Shape out;
  for (int64_t d = 0; d < n; ++d) {
    if (!drop[d]) out.push_back(x.shape[d]);
  }
  ctx.out.push_back({x.dtype, out});
}

void infer_flatten(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  MC_CHECK(!x.shape.empty(), Value, "For '", ctx.op.name,
           "', the input must have at least 1 dimension, but got shape ", x.shape, ".");
  int64_t rest = 1;
  for (size_t d = 1; d < x.shape.size(); ++d)
    rest = rest < 0 || x.shape[d] < 0 ? kDynamicDim : rest * x.shape[d];
  ctx.out.push_back({x.dtype, Shape{x.shape[0], rest}});
}

void infer_broadcast_to(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  Shape to = ints_to_shape(ctx.attrs.get_ints("shape"));
  MC_CHECK(to.size() >= x.shape.size(), Value, "For '", ctx.op.name, "', cannot broadcast shape ",
           x.shape, " to ", to, ": the target has fewer dimensions.");
  const size_t off = to.size() - x.shape.size();
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] == -1) {
      MC_CHECK(i >= off, Value, "For '", ctx.op.name, "', the target shape ", to,
               " has -1 at dimension ", i, ", which the input of shape ", x.shape,
               " does not have.");
      to[i] = x.shape[i - off];
    }
    MC_CHECK(to[i] >= 0 || (i >= off && x.shape[i - off] < 0), Value, "For '", ctx.op.name,
             "', the target shape ", to, " has a negative dimension.");
    if (i >= off) {
      int64_t d = x.shape[i - off];
      MC_CHECK(dims_agree(d, to[i]) || d == 1, Value, "For '", ctx.op.name,
               "', cannot broadcast shape ", x.shape, " to ", to, ".");
    }
  }
  ctx.out.push_back({x.dtype, to});
}

void infer_concat(InferContext& ctx) {
  const TensorMeta& first = ctx.in[0];
  const int64_t n = static_cast<int64_t>(first.shape.size());
  MC_CHECK(n >= 1, Value, "For '", ctx.op.name,
           "', the inputs must have at least 1 dimension, but got shape ", first.shape, ".");
  int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), n, ctx.op.name);
  Shape out = first.shape;
  out[axis] = 0;
  for (const TensorMeta& t : ctx.in) {
    bool ok = t.shape.size() == first.shape.size();
    for (int64_t d = 0; ok && d < n; ++d) ok = d == axis || dims_agree(t.shape[d], first.shape[d]);
    MC_CHECK(ok, Value, "For '", ctx.op.name,
             "', the shapes of the inputs must be equal except at axis ", axis, ", but got ",
             first.shape, " and ", t.shape, ".");
    out[axis] = out[axis] < 0 || t.shape[axis] < 0
                    ? kDynamicDim
                    : checked_add(out[axis], t.shape[axis], ctx.op.name);
  }
  ctx.out.push_back({first.dtype, out});
}

void infer_stack(InferContext& ctx) {
  const TensorMeta& first = ctx.in[0];
  const int64_t n = static_cast<int64_t>(first.shape.size());
  int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), n + 1, ctx.op.name);
  for (const TensorMeta& t : ctx.in) {
    MC_CHECK(shapes_agree(t.shape, first.shape), Value, "For '", ctx.op.name,
             "', all inputs must have the same shape, but got ", first.shape, " and ", t.shape,
             ".");
  }
  Shape out = first.shape;
  out.insert(out.begin() + axis, static_cast<int64_t>(ctx.in.size()));
  ctx.out.push_back({first.dtype, out});
}

void infer_split(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  const int64_t n = static_cast<int64_t>(x.shape.size());
  MC_CHECK(n >= 1, Value, "For '", ctx.op.name,
           "', the input must have at least 1 dimension, but got shape ", x.shape, ".");
  int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), n, ctx.op.name);
  check_static_dims(x.shape, axis, axis + 1, ctx.op.name, "size of the split axis");
  int64_t parts = ctx.attrs.get_int("output_num");
  MC_CHECK(parts >= 1, Value, "For '", ctx.op.name, "', 'output_num' must be positive, but got ",
           parts, ".");
  MC_CHECK(x.shape[axis] % parts == 0, Value, "For '", ctx.op.name, "', the size ", x.shape[axis],
           " of axis ", axis, " must be divisible by output_num ", parts, " (input shape ", x.shape,
           ").");
  Shape out = x.shape;
  out[axis] /= parts;
  for (int64_t i = 0; i < parts; ++i) ctx.out.push_back({x.dtype, out});
}

void infer_tile(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  const auto& m = ctx.attrs.get_ints("multiples");
  MC_CHECK(m.size() >= x.shape.size(), Value, "For '", ctx.op.name, "', 'multiples' ",
           ints_to_shape(m), " must have at least one entry per dimension of the input of shape ",
           x.shape, ".");
  Shape out(m.size());
  const size_t off = m.size() - x.shape.size();
  for (size_t i = 0; i < m.size(); ++i) {
    MC_CHECK(m[i] >= 0, Value, "For '", ctx.op.name, "', 'multiples' ", ints_to_shape(m),
             " must not be negative.");
    const int64_t d = i >= off ? x.shape[i - off] : 1;
    out[i] = d < 0 && m[i] != 0 ? kDynamicDim : checked_mul(m[i], d, ctx.op.name);
  }
  ctx.out.push_back({x.dtype, out});
}

void infer_pad(InferContext& ctx) {
  const TensorMeta& x = single(ctx);
  const auto& p = ctx.attrs.get_ints("paddings");
  MC_CHECK(p.size() == 2 * x.shape.size(), Value, "For '", ctx.op.name,
           "', 'paddings' must hold a (before, after) pair for each of the ", x.shape.size(),
           " dimensions of the input of shape ", x.shape, ", but got ", p.size(), " values.");
  Shape out = x.shape;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    MC_CHECK(p[2 * d] >= 0 && p[2 * d + 1] >= 0, Value, "For '", ctx.op.name,
             "', 'paddings' must not be negative, but got ", ints_to_shape(p), ".");
    if (out[d] >= 0)
      out[d] = checked_add(out[d], checked_add(p[2 * d], p[2 * d + 1], ctx.op.name), ctx.op.name);
  }
  ctx.out.push_back({x.dtype, out});
}

void infer_range(InferContext& ctx) {
  double start = ctx.attrs.get_float("start"), limit = ctx.attrs.get_float("limit"),
         delta = ctx.attrs.get_float("delta");
  DType dt = ctx.attrs.get_dtype("dtype");
  MC_CHECK(!is_bool(dt), Type, "For '", ctx.op.name, "', the dtype must be numeric, but got ", dt,
           ".");
  MC_CHECK(std::isfinite(start) && std::isfinite(limit) && std::isfinite(delta), Value, "For '",
           ctx.op.name, "', start, limit and delta must be finite, but got ", start, ", ", limit,
           " and ", delta, ".");
  MC_CHECK(delta != 0, Value, "For '", ctx.op.name, "', delta must not be 0.");
  double len = std::ceil((limit - start) / delta);
  MC_CHECK(len < 9.0e15, Value, "For '", ctx.op.name, "', the range [", start, ", ", limit, ") by ",
           delta, " has too many elements.");
  ctx.out.push_back({dt, Shape{len > 0 ? static_cast<int64_t>(len) : 0}});
}

}  // namespace mycel
