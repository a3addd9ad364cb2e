// Reference kernels of the array family: one output element at a time, from its multi-index,
// reading inputs through their strides. Sums accumulate in double.
#include <cmath>
#include <vector>

#include "ops/infer_array.h"

namespace mycel {

namespace {

using Index = SmallVector<int64_t, 6>;

// Advances a row-major multi-index over `shape`; false after the last one.
bool next(Index& idx, const Shape& shape) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

Index unravel(int64_t flat, const Shape& shape) {
  Index idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

// Calls fn(out_index) for every element of a shape (nothing for a 0-size shape; once for 0-d).
template <class F>
void each(const Shape& shape, const F& fn) {
  if (numel(shape) == 0) return;
  Index idx(shape.size(), 0);
  do fn(idx);
  while (next(idx, shape));
}

template <class T>
T& at(const Tensor& t, const Index& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  return t.data<T>()[off];
}

int64_t read_index(const Tensor& t, const Index& idx) {
  if (t.dtype() == DType::Int32) return at<int32_t>(t, idx);
  return at<int64_t>(t, idx);
}

int64_t read_index_flat(const Tensor& t, int64_t flat) {
  return read_index(t, unravel(flat, t.shape()));
}

// out[o] = src[i] for every output element o, where i starts as o and source(i) turns it into
// the index read and returns the tensor src it reads (one of several inputs).
template <class Source>
void gather_sources(const Tensor& out, const Source& source) {
  dispatch_all(out.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    each(out.shape(), [&](const Index& o) {
      Index i = o;
      const Tensor& src = source(i);
      at<T>(out, o) = at<T>(src, i);
    });
  });
}

// out[idx] = in[map(idx)] for every output element.
template <class Map>
void gather_elements(const Tensor& out, const Tensor& in, const Map& map) {
  gather_sources(out, [&](Index& i) -> const Tensor& {
    i = map(static_cast<const Index&>(i));
    return in;
  });
}

// Sums of in[idx] into out[map(idx)] (map returns false to skip), accumulated in double.
template <class Map>
void scatter_add(const Tensor& out, const Tensor& in, const Map& map) {
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  dispatch_all(in.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    each(in.shape(), [&](const Index& idx) {
      Index o;
      if (!map(idx, &o)) return;
      int64_t flat = 0;
      for (size_t d = 0; d < o.size(); ++d) flat = flat * out.shape()[d] + o[d];
      acc[flat] += static_cast<double>(static_cast<compute_t<T>>(at<T>(in, idx)));
    });
  });
  dispatch_all(out.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t i = 0;
    each(out.shape(), [&](const Index& idx) {
      double v = acc[i++];
      if constexpr (std::is_same_v<T, bool>)
        at<T>(out, idx) = v != 0;
      else
        at<T>(out, idx) = static_cast<T>(static_cast<compute_t<T>>(v));
    });
  });
}

}  // namespace

void ref_copy_view(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  switch (ctx.op.id) {
    case OpId::Transpose: {
      const auto& perm = ctx.attrs.get_ints("perm");
      gather_elements(out, x, [&](const Index& o) {
        Index i(o.size(), 0);
        for (size_t k = 0; k < perm.size(); ++k) {
          int64_t a = perm[k] < 0 ? perm[k] + x.ndim() : perm[k];
          i[a] = o[k];
        }
        return i;
      });
      return;
    }
    case OpId::BroadcastTo: {
      const size_t off = out.shape().size() - x.shape().size();
      gather_elements(out, x, [&](const Index& o) {
        Index i(x.shape().size(), 0);
        for (size_t d = 0; d < i.size(); ++d) i[d] = x.shape()[d] == 1 ? 0 : o[d + off];
        return i;
      });
      return;
    }
    default: {
      // Reshape-like: the n-th output element is x's n-th in row-major order.
      int64_t n = 0;
      gather_elements(out, x, [&](const Index&) { return unravel(n++, x.shape()); });
      return;
    }
  }
}

namespace {
// The input index an output index of a strided slice reads.
Index slice_source(const SliceSpec& s, const Index& o) {
  Index i(s.start.begin(), s.start.end());
  for (size_t k = 0; k < s.src.size(); ++k) {
    if (s.src[k] >= 0) i[s.src[k]] += o[k] * s.step[s.src[k]];
  }
  return i;
}
}  // namespace

void ref_strided_slice(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  SliceSpec s = strided_slice_spec(x.shape(), ctx.attrs, ctx.op.name);
  gather_elements(ctx.out[0], x, [&](const Index& o) { return slice_source(s, o); });
}

void ref_strided_slice_grad(const KernelContext& ctx) {
  const Tensor& dy = ctx.in[0];
  const Tensor& out = ctx.out[0];
  SliceSpec s = strided_slice_spec(out.shape(), ctx.attrs, ctx.op.name);
  scatter_add(out, dy, [&](const Index& o, Index* i) {
    *i = slice_source(s, o);
    return true;
  });
}

void ref_gather(const KernelContext& ctx) {
  const Tensor &params = ctx.in[0], &indices = ctx.in[1];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), params.ndim(), ctx.op.name);
  int64_t bd = ctx.attrs.get_int("batch_dims");
  if (bd < 0) bd += indices.ndim();
  const int64_t ni = indices.ndim() - bd, n = params.dim(axis);
  for (int64_t f = 0; f < indices.numel(); ++f) {
    int64_t v = read_index_flat(indices, f);
    MC_CHECK(v >= -n && v < n, Index, "For '", ctx.op.name, "', the index ", v,
             " is out of range [", -n, ", ", n, ") for axis ", axis, " of size ", n,
             " ('input_params' shape ", params.shape(), ").");
  }
  gather_elements(ctx.out[0], params, [&](const Index& o) {
    // o = params[:axis] + indices[bd:] + params[axis+1:]
    Index ii(o.begin(), o.begin() + bd);
    for (int64_t k = 0; k < ni; ++k) ii.push_back(o[axis + k]);
    int64_t v = read_index(indices, ii);
    Index p(o.begin(), o.begin() + axis);
    p.push_back(v < 0 ? v + n : v);
    for (size_t k = static_cast<size_t>(axis + ni); k < o.size(); ++k) p.push_back(o[k]);
    return p;
  });
}

void ref_unsorted_segment_sum(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &ids = ctx.in[1];
  const int64_t segs = ctx.out[0].dim(0);
  const size_t k = ids.shape().size();
  scatter_add(ctx.out[0], x, [&](const Index& i, Index* o) {
    int64_t s = read_index(ids, Index(i.begin(), i.begin() + k));
    if (s < 0 || s >= segs) return false;
    *o = Index{s};
    for (size_t d = k; d < i.size(); ++d) o->push_back(i[d]);
    return true;
  });
}

namespace {
void check_dim_index(const OpDef& op, const Tensor& index, int64_t n, int64_t dim,
                     const Shape& data) {
  for (int64_t f = 0; f < index.numel(); ++f) {
    int64_t v = read_index_flat(index, f);
    MC_CHECK(v >= -n && v < n, Index, "For '", op.name, "', the index ", v, " is out of range [",
             -n, ", ", n, ") for dim ", dim, " of size ", n, " (shape ", data, ").");
  }
}
}  // namespace

void ref_gather_d(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &index = ctx.in[1];
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), x.ndim(), ctx.op.name, "dim");
  const int64_t n = x.dim(dim);
  check_dim_index(ctx.op, index, n, dim, x.shape());
  gather_elements(ctx.out[0], x, [&](const Index& o) {
    Index i = o;
    int64_t v = read_index(index, o);
    i[dim] = v < 0 ? v + n : v;
    return i;
  });
}

void ref_gather_d_grad(const KernelContext& ctx) {
  const Tensor &index = ctx.in[0], &dout = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), out.ndim(), ctx.op.name, "dim");
  const int64_t n = out.dim(dim);
  check_dim_index(ctx.op, index, n, dim, out.shape());
  scatter_add(out, dout, [&](const Index& i, Index* o) {
    *o = i;
    int64_t v = read_index(index, i);
    (*o)[dim] = v < 0 ? v + n : v;
    return true;
  });
}

namespace {
// The target index of element i of updates for indices [..., K].
Index nd_target(const OpDef& op, const Tensor& indices, const Shape& shape, const Index& i) {
  const int64_t k = indices.shape().back();
  const size_t lead = indices.shape().size() - 1;
  Index row(i.begin(), i.begin() + lead);
  row.push_back(0);
  Index o;
  for (int64_t j = 0; j < k; ++j) {
    row[lead] = j;
    int64_t v = read_index(indices, row);
    MC_CHECK(v >= 0 && v < shape[j], Index, "For '", op.name, "', the index ", v,
             " in 'indices' is out of range [0, ", shape[j], ") for dimension ", j, " of shape ",
             shape, ".");
    o.push_back(v);
  }
  for (size_t d = lead; d < i.size(); ++d) o.push_back(i[d]);
  return o;
}
}  // namespace

void ref_scatter_nd(const KernelContext& ctx) {
  const Tensor &indices = ctx.in[0], &updates = ctx.in[1];
  const Tensor& out = ctx.out[0];
  scatter_add(out, updates, [&](const Index& i, Index* o) {
    *o = nd_target(ctx.op, indices, out.shape(), i);
    return true;
  });
}

void ref_tensor_scatter_update(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &indices = ctx.in[1], &updates = ctx.in[2];
  const Tensor& out = ctx.out[0];
  // Validate every index first, so an error leaves nothing half written.
  each(updates.shape(), [&](const Index& i) { nd_target(ctx.op, indices, x.shape(), i); });
  dispatch_all(x.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    each(x.shape(), [&](const Index& i) { at<T>(out, i) = at<T>(x, i); });
    each(updates.shape(), [&](const Index& i) {
      at<T>(out, nd_target(ctx.op, indices, x.shape(), i)) = at<T>(updates, i);
    });
  });
}

void ref_one_hot(const KernelContext& ctx) {
  const Tensor& ind = ctx.in[0];
  const Tensor& out = ctx.out[0];
  int64_t axis = ctx.attrs.get_int("axis");
  if (axis < 0) axis = ind.ndim();
  const double on = ctx.attrs.get_float("on_value"), off = ctx.attrs.get_float("off_value");
  dispatch_all(out.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    each(out.shape(), [&](const Index& o) {
      Index i = o;
      i.erase(i.begin() + axis);
      int64_t v = 0;
      dispatch_all(ind.dtype(), "ref", [&](auto itag) {
        using I = typename decltype(itag)::type;
        v = static_cast<int64_t>(at<I>(ind, i));
      });
      at<T>(out, o) = (v == o[axis] ? Scalar::from_float(on) : Scalar::from_float(off)).to<T>();
    });
  });
}

void ref_concat(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  gather_sources(out, [&](Index& i) -> const Tensor& {
    size_t k = 0;
    while (i[axis] >= ctx.in[k].dim(axis)) i[axis] -= ctx.in[k++].dim(axis);
    return ctx.in[k];
  });
}

void ref_stack(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  gather_sources(out, [&](Index& i) -> const Tensor& {
    const int64_t k = i[axis];
    i.erase(i.begin() + axis);
    return ctx.in[k];
  });
}

void ref_split(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), x.ndim(), ctx.op.name);
  for (size_t k = 0; k < ctx.out.size(); ++k) {
    const int64_t base = static_cast<int64_t>(k) * ctx.out[k].dim(axis);
    gather_elements(ctx.out[k], x, [&](const Index& o) {
      Index i = o;
      i[axis] += base;
      return i;
    });
  }
}

void ref_tile(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const size_t off = ctx.out[0].shape().size() - x.shape().size();
  gather_elements(ctx.out[0], x, [&](const Index& o) {
    Index i(x.shape().size(), 0);
    for (size_t d = 0; d < i.size(); ++d) i[d] = o[d + off] % x.shape()[d];
    return i;
  });
}

void ref_pad(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  const auto& p = ctx.attrs.get_ints("paddings");
  const Scalar value = Scalar::from_float(ctx.attrs.get_float("value"));
  dispatch_all(out.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    each(out.shape(), [&](const Index& o) {
      Index i = o;
      bool inside = true;
      for (size_t d = 0; d < i.size(); ++d) {
        i[d] -= p[2 * d];
        inside &= i[d] >= 0 && i[d] < x.shape()[d];
      }
      at<T>(out, o) = inside ? at<T>(x, i) : value.to<T>();
    });
  });
}

void ref_range(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const double start = ctx.attrs.get_float("start"), delta = ctx.attrs.get_float("delta");
  dispatch_number(out.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < out.numel(); ++i) {
      double v = start + static_cast<double>(i) * delta;
      out.data<T>()[i] = static_cast<T>(static_cast<compute_t<T>>(v));
    }
  });
}

}  // namespace mycel
