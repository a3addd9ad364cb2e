// Reference reductions: one pass over the input in index order, each element added to the
// output slot its kept coordinates name. Sums, means and products of floats accumulate in
// double, of integers in 64 bits (wrapping, as the output dtype does); max/min compare exact
// values, a NaN winning.
#include <cmath>
#include <vector>

#include "kernels/ref/complex_ref.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<compute_t<T>>) {
    return std::isnan(static_cast<compute_t<T>>(v));
  } else {
    return false;
  }
}

// For each input element (row-major), the flat index of its output element.
std::vector<int64_t> output_index(const Shape& shape, const std::vector<bool>& reduced) {
  const size_t nd = shape.size();
  std::vector<int64_t> ostride(nd, 0);
  int64_t acc = 1;
  for (size_t d = nd; d-- > 0;) {
    if (!reduced[d]) {
      ostride[d] = acc;
      acc *= shape[d];
    }
  }
  const int64_t n = numel(shape);
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, o = 0;
    for (size_t d = nd; d-- > 0;) {
      o += (rest % shape[d]) * ostride[d];
      rest /= shape[d];
    }
    out[static_cast<size_t>(i)] = o;
  }
  return out;
}

template <class T, class Out>
void reduce_ref(OpId id, const T* x, Out* y, const std::vector<int64_t>& oidx, int64_t out_n,
                int64_t count) {
  using C = compute_t<T>;
  const size_t n = oidx.size(), m = static_cast<size_t>(out_n);
  if (id == OpId::ReduceMax || id == OpId::ReduceMin) {
    std::vector<C> best(m);
    std::vector<bool> seen(m, false);
    for (size_t i = 0; i < n; ++i) {
      const size_t o = static_cast<size_t>(oidx[i]);
      const C v = static_cast<C>(x[i]);
      if (!seen[o]) {
        best[o] = v;
        seen[o] = true;
      } else if (!is_nan(best[o])) {
        if (is_nan(v) || (id == OpId::ReduceMax ? v > best[o] : v < best[o])) best[o] = v;
      }
    }
    for (size_t o = 0; o < m; ++o) y[o] = Out(best[o]);
    return;
  }
  const bool prod = id == OpId::ReduceProd;
  if constexpr (std::is_floating_point_v<C>) {
    std::vector<double> acc(m, prod ? 1.0 : 0.0);
    for (size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(static_cast<C>(x[i]));
      double& a = acc[static_cast<size_t>(oidx[i])];
      a = prod ? a * v : a + v;
    }
    for (size_t o = 0; o < m; ++o) {
      double v = id == OpId::ReduceMean ? acc[o] / static_cast<double>(count) : acc[o];
      y[o] = Out(static_cast<C>(v));
    }
  } else {
    std::vector<uint64_t> acc(m, prod ? 1 : 0);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(x[i]));
      uint64_t& a = acc[static_cast<size_t>(oidx[i])];
      a = prod ? a * v : a + v;
    }
    for (size_t o = 0; o < m; ++o) y[o] = static_cast<Out>(static_cast<int64_t>(acc[o]));
  }
}

}  // namespace

void ref_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (is_complex(x.dtype())) {
    ref::complex_reduce(ctx);
    return;
  }
  const int64_t nd = x.ndim();
  const std::vector<int64_t>& axis = ctx.attrs.get_ints("axis");
  std::vector<bool> reduced(static_cast<size_t>(nd), axis.empty());
  for (int64_t a : axis) {
    int64_t d = normalize_axis(a, nd, ctx.op.name);
    if (nd > 0) reduced[static_cast<size_t>(d)] = true;
  }
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)]) count *= x.dim(d);
  }
  const std::vector<int64_t> oidx = output_index(x.shape(), reduced);
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (y.dtype() == x.dtype()) {
      reduce_ref(ctx.op.id, x.data<T>(), y.data<T>(), oidx, y.numel(), count);
    } else {
      MC_ASSERT(y.dtype() == DType::Int64);
      reduce_ref(ctx.op.id, x.data<T>(), y.data<int64_t>(), oidx, y.numel(), count);
    }
  });
}

void ref_arg_reduce(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t nd = x.ndim();
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), nd, ctx.op.name);
  int64_t O = 1, R = 1, I = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < axis)
      O *= x.dim(d);
    else if (d == axis)
      R = x.dim(d);
    else
      I *= x.dim(d);
  }
  const bool is_max = ctx.op.id == OpId::Argmax;
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* xs = x.data<T>();
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t i = 0; i < I; ++i) {
        int64_t best_at = 0;
        C best = static_cast<C>(xs[o * R * I + i]);
        for (int64_t r = 1; r < R && !is_nan(best); ++r) {
          const C v = static_cast<C>(xs[(o * R + r) * I + i]);
          if (is_nan(v) || (is_max ? v > best : v < best)) {
            best = v;
            best_at = r;
          }
        }
        if (y.dtype() == DType::Int32)
          y.data<int32_t>()[o * I + i] = static_cast<int32_t>(best_at);
        else
          y.data<int64_t>()[o * I + i] = best_at;
      }
    }
  });
}

}  // namespace mycel
