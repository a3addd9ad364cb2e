// Indexing kernels: StridedSlice(+Grad), Gather, UnsortedSegmentSum, GatherD(+Grad), ScatterNd,
// TensorScatterUpdate, OneHot. Index values are checked before anything is written, so an
// out-of-range index raises an IndexError and leaves no half-written output.
#include <algorithm>
#include <cstring>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/array.h"
#include "kernels/gather_layout.h"
#include "ops/infer_array.h"
#include "ops/op_semantics.h"

namespace mycel {

namespace {

constexpr int64_t kGrainElems = 1 << 15;

// Position of the first index outside [lo, hi), or -1.
template <class Ix>
int64_t first_out_of_range(const Ix* p, int64_t count, int64_t lo, int64_t hi) {
  for (int64_t i = 0; i < count; ++i) {
    if (p[i] < lo || p[i] >= hi) return i;
  }
  return -1;
}

// Runs fn(acc) on a zeroed buffer of out's size that sums are accumulated in: out itself, or a
// float buffer for float16/bfloat16 that is rounded into out once at the end.
template <class T, class F>
void accumulate_into(const Tensor& out, const F& fn) {
  using A = compute_t<T>;
  if constexpr (std::is_same_v<A, T>) {
    std::memset(out.raw_data(), 0, out.nbytes());
    fn(out.data<T>());
  } else {
    std::vector<A> acc(static_cast<size_t>(out.numel()), A(0));
    fn(acc.data());
    T* o = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = T(acc[i]);
  }
}

// Row-major element offsets (with `strides`) of every multi-index of dims [b, e) of `shape`.
std::vector<int64_t> offsets_table(const Shape& shape, const Shape& strides, size_t b, size_t e) {
  int64_t count = 1;
  for (size_t d = b; d < e; ++d) count *= shape[d];
  std::vector<int64_t> t(static_cast<size_t>(std::max<int64_t>(count, 0)));
  SmallVector<int64_t, 6> idx(e - b, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < count; ++i) {
    t[i] = off;
    for (size_t k = e - b; k-- > 0;) {
      const size_t d = b + k;
      off += strides[d];
      if (++idx[k] < shape[d]) break;
      off -= shape[d] * strides[d];
      idx[k] = 0;
    }
  }
  return t;
}

// Columns [c0, c1) of `cols` per row are independent: split them across threads when the rows
// are wide enough, else run inline.
template <class F>
void for_columns(int64_t rows, int64_t cols, const F& fn) {
  if (cols >= 64 && rows * cols >= 2 * kGrainElems) {
    const int64_t grain = std::max<int64_t>(64, kGrainElems / std::max<int64_t>(rows, 1));
    parallel_for(0, cols, grain, fn);
  } else {
    fn(0, cols);
  }
}

}  // namespace

void cpu_strided_slice(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  strided_copy(out, view_op(ctx.op, ctx.in[0], {out.dtype(), out.shape()}, ctx.attrs));
}

void cpu_strided_slice_grad(const KernelContext& ctx) {
  const Tensor& dy = ctx.in[0];
  const Tensor& out = ctx.out[0];
  std::memset(out.raw_data(), 0, out.nbytes());
  SliceSpec spec = strided_slice_spec(out.shape(), ctx.attrs, ctx.op.name);
  SliceView v = slice_view(spec, out.strides(), out.offset());
  strided_copy(Tensor::make_view(out.storage(), out.dtype(), spec.out_shape, v.strides, v.offset),
               dy);
}

void cpu_gather(const KernelContext& ctx) {
  const Tensor &params = ctx.in[0], &indices = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const GatherLayout l = gather_layout(params, indices, ctx.attrs.get_int("axis"),
                                       ctx.attrs.get_int("batch_dims"), ctx.op.name);
  const int64_t axis = l.axis, batch = l.batch, outer = l.outer, inner = l.inner, k = l.k;
  const int64_t n = l.n;
  dispatch_index(indices.dtype(), [&](auto itag) {
    using Ix = typename decltype(itag)::type;
    const Ix* ix = indices.data<Ix>();
    int64_t bad = first_out_of_range(ix, indices.numel(), -n, n);
    MC_CHECK(bad < 0, Index, "For '", ctx.op.name, "', the index ",
             bad < 0 ? 0 : static_cast<int64_t>(ix[bad]), " is out of range [", -n, ", ", n,
             ") for axis ", axis, " of size ", n, " ('input_params' shape ", params.shape(), ").");
    if (out.numel() == 0) return;
    dispatch_bits(params.dtype(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* p = static_cast<const U*>(params.raw_data());
      U* o = static_cast<U*>(out.raw_data());
      const int64_t rows = batch * outer * k;
      const int64_t grain = std::max<int64_t>(1, kGrainElems / inner);
      parallel_for(0, rows, grain, [&](int64_t rb, int64_t re) {
        for (int64_t r = rb; r < re; ++r) {
          const int64_t b = r / (outer * k), rem = r % (outer * k), oi = rem / k, ki = rem % k;
          int64_t i = ix[b * k + ki];
          if (i < 0) i += n;
          const U* src = p + ((b * outer + oi) * n + i) * inner;
          U* dst = o + r * inner;
          if (inner == 1)
            *dst = *src;
          else
            std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(U));
        }
      });
    });
  });
}

void cpu_unsorted_segment_sum(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &ids = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int64_t rows = ids.numel(), segs = out.dim(0);
  const int64_t cols = rows > 0 ? x.numel() / rows : 0;
  dispatch_index(ids.dtype(), [&](auto itag) {
    using Ix = typename decltype(itag)::type;
    const Ix* id = ids.data<Ix>();
    dispatch_number(x.dtype(), ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = compute_t<T>;
      const T* xp = x.data<T>();
      accumulate_into<T>(out, [&](A* acc) {
        for_columns(rows, cols, [&](int64_t c0, int64_t c1) {
          for (int64_t m = 0; m < rows; ++m) {
            const int64_t s = id[m];
            if (s < 0 || s >= segs) continue;
            A* dst = acc + s * cols;
            const T* src = xp + m * cols;
            for (int64_t c = c0; c < c1; ++c) dst[c] += static_cast<A>(src[c]);
          }
        });
      });
    });
  });
}

namespace {

// The GatherD layout: index dims before `dim` (outer), along it (nj), after it (inner), with
// the data offsets of the outer and inner multi-indices.
struct GatherDLayout {
  int64_t outer = 1, nj = 1, inner = 1, n = 1, dstride = 1;
  std::vector<int64_t> outer_off, inner_off;
};

GatherDLayout gather_d_layout(const Shape& data, const Shape& index, int64_t dim) {
  GatherDLayout l;
  Shape st = contiguous_strides(data);
  const size_t d = static_cast<size_t>(dim);
  for (size_t i = 0; i < d; ++i) l.outer *= index[i];
  for (size_t i = d + 1; i < index.size(); ++i) l.inner *= index[i];
  l.nj = index[d];
  l.n = data[d];
  l.dstride = st[d];
  l.outer_off = offsets_table(index, st, 0, d);
  l.inner_off = offsets_table(index, st, d + 1, index.size());
  return l;
}

template <class Ix>
void check_gather_d_index(const OpDef& op, const Ix* ix, int64_t count, int64_t n, int64_t dim,
                          const Shape& data) {
  int64_t bad = first_out_of_range(ix, count, -n, n);
  MC_CHECK(bad < 0, Index, "For '", op.name, "', the index ",
           bad < 0 ? 0 : static_cast<int64_t>(ix[bad]), " is out of range [", -n, ", ", n,
           ") for dim ", dim, " of size ", n, " (shape ", data, ").");
}

// GatherD's index for data of `shape` (x for GatherD, dx for its gradient), checked: calls
// fn(ix, layout) with the index's typed elements and the layout along attribute dim.
template <class F>
void with_gather_d_index(const KernelContext& ctx, const Tensor& index, const Shape& shape,
                         F&& fn) {
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), static_cast<int64_t>(shape.size()),
                                     ctx.op.name, "dim");
  GatherDLayout l = gather_d_layout(shape, index.shape(), dim);
  dispatch_index(index.dtype(), [&](auto itag) {
    using Ix = typename decltype(itag)::type;
    const Ix* ix = index.data<Ix>();
    check_gather_d_index(ctx.op, ix, index.numel(), l.n, dim, shape);
    fn(ix, l);
  });
}

}  // namespace

void cpu_gather_d(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &index = ctx.in[1];
  const Tensor& out = ctx.out[0];
  with_gather_d_index(ctx, index, x.shape(), [&](const auto* ix, const GatherDLayout& l) {
    dispatch_bits(x.dtype(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* xp = static_cast<const U*>(x.raw_data());
      U* o = static_cast<U*>(out.raw_data());
      const int64_t grain = std::max<int64_t>(1, kGrainElems / std::max<int64_t>(l.inner, 1));
      parallel_for(0, l.outer * l.nj, grain, [&](int64_t rb, int64_t re) {
        for (int64_t r = rb; r < re; ++r) {
          const int64_t base = l.outer_off[r / l.nj];
          const auto* ir = ix + r * l.inner;
          U* orow = o + r * l.inner;
          for (int64_t q = 0; q < l.inner; ++q) {
            int64_t i = ir[q];
            if (i < 0) i += l.n;
            orow[q] = xp[base + i * l.dstride + l.inner_off[q]];
          }
        }
      });
    });
  });
}

void cpu_gather_d_grad(const KernelContext& ctx) {
  const Tensor &index = ctx.in[0], &dout = ctx.in[1];
  const Tensor& out = ctx.out[0];
  with_gather_d_index(ctx, index, out.shape(), [&](const auto* ix, const GatherDLayout& l) {
    dispatch_number(dout.dtype(), ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = compute_t<T>;
      const T* dp = dout.data<T>();
      accumulate_into<T>(out, [&](A* acc) {
        // Different outer or inner positions never meet; only the nj entries along dim do, so
        // units are (outer, inner chunk) pairs that each walk all of dim.
        if (index.numel() == 0) return;
        constexpr int64_t kChunk = 256;
        const int64_t chunks = (l.inner + kChunk - 1) / kChunk;
        const int64_t grain = std::max<int64_t>(1, kGrainElems / (l.nj * kChunk));
        parallel_for(0, l.outer * chunks, grain, [&](int64_t ub, int64_t ue) {
          for (int64_t u = ub; u < ue; ++u) {
            const int64_t o = u / chunks, q0 = (u % chunks) * kChunk;
            const int64_t q1 = std::min(l.inner, q0 + kChunk);
            A* base = acc + l.outer_off[o];
            for (int64_t j = 0; j < l.nj; ++j) {
              const int64_t row = (o * l.nj + j) * l.inner;
              for (int64_t q = q0; q < q1; ++q) {
                int64_t i = ix[row + q];
                if (i < 0) i += l.n;
                base[i * l.dstride + l.inner_off[q]] += static_cast<A>(dp[row + q]);
              }
            }
          }
        });
      });
    });
  });
}

namespace {

// Element offsets into a contiguous tensor of `shape` of each index tuple of indices [..., K],
// checked against [0, shape[k]).
std::vector<int64_t> nd_offsets(const OpDef& op, const Tensor& indices, const Shape& shape) {
  NdIndexLayout l = nd_index_layout(indices.shape(), shape);
  Shape st = contiguous_strides(shape);
  std::vector<int64_t> offs(static_cast<size_t>(l.rows));
  dispatch_index(indices.dtype(), [&](auto itag) {
    using Ix = typename decltype(itag)::type;
    const Ix* ix = indices.data<Ix>();
    for (int64_t m = 0; m < l.rows; ++m) {
      int64_t off = 0;
      for (int64_t k = 0; k < l.k; ++k) {
        const int64_t v = ix[m * l.k + k];
        MC_CHECK(v >= 0 && v < shape[k], Index, "For '", op.name, "', the index ", v,
                 " in 'indices' is out of range [0, ", shape[k], ") for dimension ", k,
                 " of shape ", shape, ".");
        off += v * st[k];
      }
      offs[m] = off;
    }
  });
  return offs;
}

}  // namespace

void cpu_scatter_nd(const KernelContext& ctx) {
  const Tensor &indices = ctx.in[0], &updates = ctx.in[1];
  const Tensor& out = ctx.out[0];
  std::vector<int64_t> offs = nd_offsets(ctx.op, indices, out.shape());
  const int64_t rows = static_cast<int64_t>(offs.size());
  const int64_t cols = nd_index_layout(indices.shape(), out.shape()).slice;
  dispatch_all(updates.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = compute_t<T>;
    const T* up = updates.data<T>();
    accumulate_into<T>(out, [&](A* acc) {
      for_columns(rows, cols, [&](int64_t c0, int64_t c1) {
        for (int64_t m = 0; m < rows; ++m) {
          A* dst = acc + offs[m];
          const T* src = up + m * cols;
          if constexpr (std::is_same_v<T, bool>) {
            for (int64_t c = c0; c < c1; ++c) dst[c] = dst[c] || src[c];
          } else {
            for (int64_t c = c0; c < c1; ++c) dst[c] += static_cast<A>(src[c]);
          }
        }
      });
    });
  });
}

void cpu_tensor_scatter_update(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &indices = ctx.in[1], &updates = ctx.in[2];
  const Tensor& out = ctx.out[0];
  std::vector<int64_t> offs = nd_offsets(ctx.op, indices, x.shape());
  strided_copy(out, x);
  const int64_t rows = static_cast<int64_t>(offs.size());
  const int64_t cols = nd_index_layout(indices.shape(), x.shape()).slice;
  dispatch_bits(x.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* up = static_cast<const U*>(updates.raw_data());
    U* o = static_cast<U*>(out.raw_data());
    // Rows apply in order, so with repeated indices the last one wins, as in the reference.
    for_columns(rows, cols, [&](int64_t c0, int64_t c1) {
      for (int64_t m = 0; m < rows; ++m) {
        std::memcpy(o + offs[m] + c0, up + m * cols + c0, static_cast<size_t>(c1 - c0) * sizeof(U));
      }
    });
  });
}

void cpu_one_hot(const KernelContext& ctx) {
  const Tensor& ind = ctx.in[0];
  const Tensor& out = ctx.out[0];
  const int64_t depth = ctx.attrs.get_int("depth");
  const OneHotLayout l = one_hot_layout(ind, ctx.attrs.get_int("axis"));
  const int64_t outer = l.outer, inner = l.inner;
  out.fill(Scalar::from_float(ctx.attrs.get_float("off_value")));
  if (out.numel() == 0) return;
  const Scalar on = Scalar::from_float(ctx.attrs.get_float("on_value"));
  dispatch_all(out.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T onv = on.to<T>();
    T* o = out.data<T>();
    dispatch_number(ind.dtype(), ctx.op.name, [&](auto itag) {
      using Ix = typename decltype(itag)::type;
      if constexpr (std::is_integral_v<Ix>) {
        const Ix* ip = ind.data<Ix>();
        parallel_for(0, outer * inner, kGrainElems, [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p) {
            const int64_t v = static_cast<int64_t>(ip[p]);
            if (v < 0 || v >= depth) continue;
            const int64_t oi = p / inner, ii = p % inner;
            o[(oi * depth + v) * inner + ii] = onv;
          }
        });
      }
    });
  });
}

}  // namespace mycel
