// Rules of the array family's indexing ops: StridedSlice(+Grad), Gather, UnsortedSegmentSum,
// GatherD(+Grad), ScatterNd, TensorScatterUpdate, OneHot; and the slice-spec helper.
#include "ops/infer_array.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

// An end at least this large takes a dimension to its end whatever its size.
constexpr int64_t kWholeEnd = int64_t{1} << 31;

bool bit(int64_t mask, size_t i) { return i < 63 && ((mask >> i) & 1) != 0; }

Shape ints_to_shape(std::span<const int64_t> v) { return Shape(v.begin(), v.end()); }

void check_index_dtype(const InferContext& ctx, const TensorMeta& t, const char* what) {
  MC_CHECK(t.dtype == DType::Int32 || t.dtype == DType::Int64, Type, "For '", ctx.op.name,
           "', the '", what, "' must be an int32 or int64 tensor, but got ", t.dtype, ".");
}

// The shape the updates of an indices [..., K] update into `shape` must have.
Shape nd_updates_shape(const InferContext& ctx, const Shape& indices, const Shape& shape) {
  MC_CHECK(!indices.empty(), Value, "For '", ctx.op.name,
           "', the 'indices' must have at least 1 dimension, but got shape ", indices, ".");
  const int64_t k = indices.back();
  MC_CHECK(k >= 1 && k <= static_cast<int64_t>(shape.size()), Value, "For '", ctx.op.name,
           "', the last dimension of 'indices' (shape ", indices, ") must be in [1, ", shape.size(),
           "] for a target of shape ", shape, ".");
  Shape want(indices.begin(), indices.end() - 1);
  for (size_t d = static_cast<size_t>(k); d < shape.size(); ++d) want.push_back(shape[d]);
  return want;
}

}  // namespace

SliceArgs slice_args(const Attrs& attrs) {
  return {attrs.get_ints("begin"),        attrs.get_ints("end"),
          attrs.get_ints("strides"),      attrs.get_int("begin_mask"),
          attrs.get_int("end_mask"),      attrs.get_int("ellipsis_mask"),
          attrs.get_int("new_axis_mask"), attrs.get_int("shrink_axis_mask")};
}

SliceSpec strided_slice_spec(const Shape& in, const SliceArgs& args, std::string_view op) {
  const std::span<const int64_t> begin = args.begin, end = args.end, strides = args.strides;
  const int64_t begin_mask = args.begin_mask, end_mask = args.end_mask,
                ellipsis_mask = args.ellipsis_mask, new_axis_mask = args.new_axis_mask,
                shrink_mask = args.shrink_axis_mask;
  MC_CHECK(begin.size() == end.size() && end.size() == strides.size(), Value, "For '", op,
           "', 'begin', 'end' and 'strides' must have the same length, but got ", begin.size(),
           ", ", end.size(), " and ", strides.size(), ".");
  const size_t entries = begin.size();
  MC_CHECK(entries <= 62, Value, "For '", op, "', at most 62 slice entries are supported, but got ",
           entries, ".");
  size_t consumed = 0, ellipses = 0;
  for (size_t i = 0; i < entries; ++i) {
    MC_CHECK(strides[i] != 0, Value, "For '", op, "', the 'strides' must not contain 0, but got ",
             ints_to_shape(strides), ".");
    if (bit(ellipsis_mask, i))
      ++ellipses;
    else if (!bit(new_axis_mask, i))
      ++consumed;
  }
  MC_CHECK(ellipses <= 1, Value, "For '", op,
           "', only one bit of 'ellipsis_mask' can be set, but got ", ellipsis_mask, ".");
  const size_t ndim = in.size();
  MC_CHECK(consumed <= ndim, Value, "For '", op, "', the slice has ", consumed,
           " entries that index dimensions, but the input of shape ", in, " has only ", ndim, ".");

  SliceSpec s;
  s.start.resize(ndim, 0);
  s.step.resize(ndim, 1);
  s.len.resize(ndim, 0);
  size_t d = 0;
  auto whole = [&](size_t dim) {
    s.start[dim] = 0;
    s.step[dim] = 1;
    s.len[dim] = in[dim];
    s.src.push_back(static_cast<int64_t>(dim));
    s.out_shape.push_back(in[dim]);
  };
  for (size_t i = 0; i < entries; ++i) {
    if (bit(ellipsis_mask, i)) {
      for (size_t k = 0; k < ndim - consumed; ++k) whole(d++);
      continue;
    }
    if (bit(new_axis_mask, i)) {
      s.src.push_back(-1);
      s.out_shape.push_back(1);
      continue;
    }
    const int64_t n = in[d];
    if (n < 0) {  // a dynamic dimension (graph compilation): only taken whole
      const bool whole_dim = strides[i] == 1 && !bit(shrink_mask, i) &&
                             (bit(begin_mask, i) || begin[i] == 0) &&
                             (bit(end_mask, i) || end[i] >= kWholeEnd);
      MC_CHECK(whole_dim, Value, "For '", op, "', axis ", d, " of the input shape ", in,
               " is dynamic (-1): it can only be taken whole (a slice ':'), since the result "
               "of other slices depends on its size.");
      whole(d++);
      continue;
    }
    if (bit(shrink_mask, i)) {
      int64_t idx = begin[i];
      MC_CHECK(idx >= -n && idx < n, Index, "For '", op, "', the index ", idx, " of shrunk axis ",
               d, " is out of range [", -n, ", ", n, ") (input shape ", in, ").");
      s.start[d] = idx < 0 ? idx + n : idx;
      s.step[d] = 1;
      s.len[d] = 1;
      ++d;
      continue;
    }
    const int64_t st = strides[i];
    // Python's slice.indices(): bounds clamp to [0, n] going forward, [-1, n-1] going back.
    const int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? n : n - 1;
    auto clamp = [&](int64_t v) {
      if (v < 0) v += n;
      return v < lo ? lo : (v > hi ? hi : v);
    };
    int64_t b = bit(begin_mask, i) ? (st > 0 ? 0 : n - 1) : clamp(begin[i]);
    int64_t e = bit(end_mask, i) ? (st > 0 ? n : -1) : clamp(end[i]);
    // ceil(span / |st|) in unsigned arithmetic: |st| may be 2^63 and span + |st| overflow.
    const uint64_t mag =
        st > 0 ? static_cast<uint64_t>(st) : uint64_t{0} - static_cast<uint64_t>(st);
    const int64_t span = st > 0 ? e - b : b - e;  // b, e in [-1, n]: no overflow
    int64_t len = span > 0 ? static_cast<int64_t>(1 + (static_cast<uint64_t>(span) - 1) / mag) : 0;
    s.start[d] = len > 0 ? b : 0;
    s.step[d] = st;
    s.len[d] = len;
    s.src.push_back(static_cast<int64_t>(d));
    s.out_shape.push_back(len);
    ++d;
  }
  while (d < ndim) whole(d++);
  return s;
}

SliceView slice_view(const SliceSpec& spec, const Shape& base_strides, int64_t base_offset) {
  SliceView v;
  v.offset = base_offset;
  for (size_t d = 0; d < spec.start.size(); ++d) v.offset += spec.start[d] * base_strides[d];
  for (int64_t src : spec.src) {
    int64_t stride = 0;
    // A step so large that step * stride overflows leaves at most one element (the next one
    // would lie past the tensor), whose stride is never used: 0 then.
    if (src >= 0 && __builtin_mul_overflow(base_strides[src], spec.step[src], &stride)) stride = 0;
    v.strides.push_back(stride);
  }
  return v;
}

Tensor sliced_view(const Tensor& x, const SliceSpec& spec) {
  SliceView v = slice_view(spec, x.strides(), x.offset());
  return Tensor::make_view(x.storage(), x.dtype(), spec.out_shape, v.strides, v.offset);
}

NdIndexLayout nd_index_layout(const Shape& indices, const Shape& shape) {
  NdIndexLayout l;
  l.k = indices.back();
  for (size_t i = 0; i + 1 < indices.size(); ++i) l.rows *= indices[i];
  for (size_t d = static_cast<size_t>(l.k); d < shape.size(); ++d) l.slice *= shape[d];
  return l;
}

void infer_strided_slice(InferContext& ctx) {
  SliceSpec s = strided_slice_spec(ctx.in[0].shape, ctx.attrs, ctx.op.name);
  ctx.out.push_back({ctx.in[0].dtype, s.out_shape});
}

void infer_strided_slice_grad(InferContext& ctx) {
  Shape shapex = ints_to_shape(ctx.attrs.get_ints("shapex"));
  for (int64_t v : shapex) {
    MC_CHECK(v >= 0, Value, "For '", ctx.op.name, "', 'shapex' ", shapex,
             " must not have negative dimensions.");
  }
  SliceSpec s = strided_slice_spec(shapex, ctx.attrs, ctx.op.name);
  MC_CHECK(shapes_agree(ctx.in[0].shape, s.out_shape), Value, "For '", ctx.op.name,
           "', the shape of 'dy' ", ctx.in[0].shape, " must be the slice's shape ", s.out_shape,
           " (shapex ", shapex, ").");
  ctx.out.push_back({ctx.in[0].dtype, shapex});
}

void infer_gather(InferContext& ctx) {
  const TensorMeta &params = ctx.in[0], &indices = ctx.in[1];
  check_index_dtype(ctx, indices, "input_indices");
  const int64_t pn = static_cast<int64_t>(params.shape.size());
  const int64_t in = static_cast<int64_t>(indices.shape.size());
  MC_CHECK(pn >= 1, Value, "For '", ctx.op.name,
           "', the 'input_params' must have at least 1 dimension, but got shape ", params.shape,
           ".");
  int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), pn, ctx.op.name);
  int64_t bd = ctx.attrs.get_int("batch_dims");
  if (bd < 0) bd += in;
  MC_CHECK(bd >= 0 && bd <= in && bd <= axis, Value, "For '", ctx.op.name, "', 'batch_dims' ",
           ctx.attrs.get_int("batch_dims"), " must be in [-", in, ", ", in,
           "] and not exceed axis ", axis, " (indices shape ", indices.shape, ").");
  for (int64_t d = 0; d < bd; ++d) {
    MC_CHECK(dims_agree(params.shape[d], indices.shape[d]), Value, "For '", ctx.op.name,
             "', the first ", bd, " (batch) dimensions of 'input_params' ", params.shape,
             " and 'input_indices' ", indices.shape, " must be equal.");
  }
  Shape out(params.shape.begin(), params.shape.begin() + axis);
  for (int64_t d = bd; d < in; ++d) out.push_back(indices.shape[d]);
  for (int64_t d = axis + 1; d < pn; ++d) out.push_back(params.shape[d]);
  ctx.out.push_back({params.dtype, out});
}

void infer_unsorted_segment_sum(InferContext& ctx) {
  const TensorMeta &x = ctx.in[0], &ids = ctx.in[1];
  check_index_dtype(ctx, ids, "segment_ids");
  MC_CHECK(!is_bool(x.dtype), Type, "For '", ctx.op.name,
           "', the 'input_x' must be a numeric tensor, but got ", x.dtype, ".");
  bool prefix = ids.shape.size() <= x.shape.size();
  for (size_t d = 0; prefix && d < ids.shape.size(); ++d)
    prefix = dims_agree(ids.shape[d], x.shape[d]);
  MC_CHECK(prefix, Value, "For '", ctx.op.name, "', the shape of 'segment_ids' ", ids.shape,
           " must be a prefix of the shape of 'input_x' ", x.shape, ".");
  int64_t n = ctx.attrs.get_int("num_segments");
  MC_CHECK(n >= 0, Value, "For '", ctx.op.name, "', 'num_segments' must not be negative, but got ",
           n, ".");
  Shape out{n};
  for (size_t d = ids.shape.size(); d < x.shape.size(); ++d) out.push_back(x.shape[d]);
  ctx.out.push_back({x.dtype, out});
}

namespace {
// GatherD and its gradient: index has the rank of the data and fits inside it except along dim.
int64_t check_gather_d(const InferContext& ctx, const Shape& data, const Shape& index,
                       int64_t dim_in, const char* data_name) {
  const int64_t n = static_cast<int64_t>(data.size());
  MC_CHECK(n >= 1, Value, "For '", ctx.op.name, "', the '", data_name,
           "' must have at least 1 dimension, but got shape ", data, ".");
  int64_t dim = normalize_axis(dim_in, n, ctx.op.name, "dim");
  bool ok = index.size() == data.size();
  for (int64_t d = 0; ok && d < n; ++d)
    ok = d == dim || index[d] < 0 || data[d] < 0 || index[d] <= data[d];
  MC_CHECK(ok, Value, "For '", ctx.op.name, "', the 'index' of shape ", index,
           " must have the rank of '", data_name, "' of shape ", data,
           " and no larger dimension except at dim ", dim, ".");
  return dim;
}
}  // namespace

void infer_gather_d(InferContext& ctx) {
  const TensorMeta &x = ctx.in[0], &index = ctx.in[1];
  check_index_dtype(ctx, index, "index");
  check_gather_d(ctx, x.shape, index.shape, ctx.attrs.get_int("dim"), "x");
  ctx.out.push_back({x.dtype, index.shape});
}

void infer_gather_d_grad(InferContext& ctx) {
  const TensorMeta &index = ctx.in[0], &dout = ctx.in[1];
  check_index_dtype(ctx, index, "index");
  MC_CHECK(!is_bool(dout.dtype), Type, "For '", ctx.op.name,
           "', the 'dout' must be a numeric tensor, but got ", dout.dtype, ".");
  MC_CHECK(shapes_agree(index.shape, dout.shape), Value, "For '", ctx.op.name,
           "', the shapes of 'index' ", index.shape, " and 'dout' ", dout.shape, " must be equal.");
  Shape shape = ints_to_shape(ctx.attrs.get_ints("shape"));
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), static_cast<int64_t>(shape.size()),
                                     ctx.op.name, "dim");
  for (size_t d = 0; d < shape.size(); ++d) {
    // The gradient of a GatherD of a dynamic-shape program (bprop_gather_d): a -1 off `dim`
    // is index's dimension (the bprop emits it only where x and index share it).
    if (shape[d] == kDynamicDim && static_cast<int64_t>(d) != dim && d < index.shape.size())
      shape[d] = index.shape[d];
    MC_CHECK(shape[d] >= 0 || (shape[d] == kDynamicDim && static_cast<int64_t>(d) != dim), Value,
             "For '", ctx.op.name, "', the 'shape' ", ints_to_shape(ctx.attrs.get_ints("shape")),
             " must not have negative dimensions.");
  }
  check_gather_d(ctx, shape, index.shape, ctx.attrs.get_int("dim"), "shape");
  ctx.out.push_back({dout.dtype, shape});
}

void infer_scatter_nd(InferContext& ctx) {
  const TensorMeta &indices = ctx.in[0], &updates = ctx.in[1];
  check_index_dtype(ctx, indices, "indices");
  Shape shape = ints_to_shape(ctx.attrs.get_ints("shape"));
  MC_CHECK(!shape.empty(), Value, "For '", ctx.op.name, "', the 'shape' must not be empty.");
  for (int64_t v : shape) {
    MC_CHECK(v >= 0, Value, "For '", ctx.op.name, "', the 'shape' ", shape,
             " must not have negative dimensions.");
  }
  Shape want = nd_updates_shape(ctx, indices.shape, shape);
  MC_CHECK(updates.shape == want, Value, "For '", ctx.op.name, "', the 'updates' must have shape ",
           want, " for indices of shape ", indices.shape, " and shape ", shape, ", but got ",
           updates.shape, ".");
  ctx.out.push_back({updates.dtype, shape});
}

void infer_tensor_scatter_update(InferContext& ctx) {
  const TensorMeta &x = ctx.in[0], &indices = ctx.in[1], &updates = ctx.in[2];
  check_index_dtype(ctx, indices, "indices");
  MC_CHECK(updates.dtype == x.dtype, Type, "For '", ctx.op.name,
           "', the 'updates' must have the dtype of 'input_x' (", x.dtype, "), but got ",
           updates.dtype, ".");
  Shape want = nd_updates_shape(ctx, indices.shape, x.shape);
  MC_CHECK(updates.shape == want, Value, "For '", ctx.op.name, "', the 'updates' must have shape ",
           want, " for indices of shape ", indices.shape, " and input_x of shape ", x.shape,
           ", but got ", updates.shape, ".");
  ctx.out.push_back({x.dtype, x.shape});
}

void infer_one_hot(InferContext& ctx) {
  const TensorMeta& ind = ctx.in[0];
  MC_CHECK(is_integral(ind.dtype), Type, "For '", ctx.op.name,
           "', the 'indices' must be an integer tensor, but got ", ind.dtype, ".");
  int64_t depth = ctx.attrs.get_int("depth");
  MC_CHECK(depth >= 0, Value, "For '", ctx.op.name, "', 'depth' must not be negative, but got ",
           depth, ".");
  const int64_t n = static_cast<int64_t>(ind.shape.size());
  int64_t axis = ctx.attrs.get_int("axis");
  MC_CHECK(axis >= -1 && axis <= n, Value, "For '", ctx.op.name, "', the 'axis' must be in [-1, ",
           n, "], but got ", axis, ".");
  if (axis < 0) axis = n;
  Shape out = ind.shape;
  out.insert(out.begin() + axis, depth);
  ctx.out.push_back({ctx.attrs.get_dtype("dtype"), out});
}

}  // namespace mycel
