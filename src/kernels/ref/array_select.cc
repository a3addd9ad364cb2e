// Reference kernels of the selection ops (Unique, MaskedSelect, MaskedScatter, NonZero): one
// element at a time from its multi-index, the broadcasts by index arithmetic, Unique by a
// linear search of the values found so far. Values are compared in long double (exact for
// every int64 and every float), elements moved as bytes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_table.h"

namespace mycel {

namespace {

long double value_at(const Tensor& t, int64_t flat) {
  return dispatch_all(t.dtype(), "ref", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<long double>(static_cast<compute_t<T>>(t.data<T>()[flat]));
  });
}

// The row-major flat index into a tensor of shape `from` that broadcasts to `to`, of the
// element at flat index j of `to`.
int64_t broadcast_source(int64_t j, const Shape& to, const Shape& from) {
  int64_t src = 0, stride = 1;
  const size_t lead = to.size() - from.size();
  for (size_t d = to.size(); d-- > 0;) {
    const int64_t i = j % to[d];
    j /= to[d];
    if (d < lead) continue;
    const int64_t n = from[d - lead];
    src += (n == 1 ? 0 : i) * stride;
    stride *= n;
  }
  return src;
}

void copy_element(const Tensor& dst, int64_t di, const Tensor& src, int64_t si) {
  const size_t w = dtype_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + di * static_cast<int64_t>(w),
              static_cast<const char*>(src.raw_data()) + si * static_cast<int64_t>(w), w);
}

void store_index(const Tensor& t, int64_t i, int64_t v) {
  if (t.dtype() == DType::Int32)
    t.data<int32_t>()[i] = static_cast<int32_t>(v);
  else
    t.data<int64_t>()[i] = v;
}

}  // namespace

void ref_unique(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& idx = ctx.out[1];
  const int64_t n = x.numel();
  // Distinct values by first occurrence: their first position, and each element's.
  std::vector<int64_t> first, of(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const long double v = value_at(x, i);
    size_t g = 0;
    while (g < first.size() && !(value_at(x, first[g]) == v)) ++g;  // NaN == nothing
    if (g == first.size()) first.push_back(i);
    of[static_cast<size_t>(i)] = static_cast<int64_t>(g);
  }
  // Their output slots: order of first occurrence, or ascending values with NaNs last.
  std::vector<size_t> by(first.size());
  for (size_t g = 0; g < by.size(); ++g) by[g] = g;
  if (ctx.attrs.get_bool("sorted")) {
    std::stable_sort(by.begin(), by.end(), [&](size_t a, size_t b) {
      const long double va = value_at(x, first[a]), vb = value_at(x, first[b]);
      if (std::isnan(va) || std::isnan(vb)) return !std::isnan(va) && std::isnan(vb);
      return va < vb;
    });
  }
  std::vector<int64_t> slot(first.size());
  for (size_t s = 0; s < by.size(); ++s) slot[by[s]] = static_cast<int64_t>(s);
  const int64_t k = static_cast<int64_t>(first.size());
  const Tensor& y = alloc_output(ctx, 0, {k}, x.dtype());
  const Tensor& counts = alloc_output(ctx, 2, {k}, idx.dtype());
  std::vector<int64_t> c(first.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const size_t g = static_cast<size_t>(of[static_cast<size_t>(i)]);
    ++c[g];
    store_index(idx, i, slot[g]);
  }
  for (size_t g = 0; g < first.size(); ++g) {
    copy_element(y, slot[g], x, first[g]);
    store_index(counts, slot[g], c[g]);
  }
}

void ref_masked_select(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &mask = ctx.in[1];
  const Shape s = broadcast_shapes(x.shape(), mask.shape(), ctx.op.name);
  const int64_t n = numel(s);
  std::vector<int64_t> picked;
  for (int64_t j = 0; j < n; ++j)
    if (mask.data<bool>()[broadcast_source(j, s, mask.shape())])
      picked.push_back(broadcast_source(j, s, x.shape()));
  const Tensor& out = alloc_output(ctx, 0, {static_cast<int64_t>(picked.size())}, x.dtype());
  for (size_t k = 0; k < picked.size(); ++k)
    copy_element(out, static_cast<int64_t>(k), x, picked[k]);
}

void ref_masked_scatter(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &mask = ctx.in[1], &src = ctx.in[2];
  const Tensor& out = ctx.out[0];
  int64_t used = 0;
  for (int64_t j = 0; j < x.numel(); ++j) {
    if (!mask.data<bool>()[broadcast_source(j, x.shape(), mask.shape())]) {
      copy_element(out, j, x, j);
      continue;
    }
    MC_CHECK(used < src.numel(), Value, "For '", ctx.op.name,
             "', the mask selects more elements than the 'source' (shape ", src.shape(), ") has.");
    copy_element(out, j, src, used++);
  }
}

void ref_non_zero(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t rank = x.ndim();
  std::vector<int64_t> hits;
  for (int64_t j = 0; j < x.numel(); ++j)
    if (value_at(x, j) != 0) hits.push_back(j);  // NaN counts: it is not zero
  const Tensor& out = alloc_output(ctx, 0, {static_cast<int64_t>(hits.size()), rank}, DType::Int64);
  for (size_t k = 0; k < hits.size(); ++k) {
    int64_t j = hits[k];
    for (int64_t d = rank; d-- > 0;) {
      out.data<int64_t>()[static_cast<int64_t>(k) * rank + d] = j % x.dim(d);
      j /= x.dim(d);
    }
  }
}

}  // namespace mycel
