// Reference scans and sorts: the naive definitions, written independently of kernels/cpu.
//
// CumSum/CumProd recompute each output from its definition (the sum or product of the
// elements before it, or up to it, in walk order), in double for floats and in uint64 with
// wrap-around for integers and bools. Sort and TopK place each element by counting: its rank
// is the number of elements that come before it in the order (NaN largest; equal values by
// index), which is a stable sort without any sorting code.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/kernel_table.h"

namespace mycel {

namespace {

struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
  int64_t at(int64_t line, int64_t r) const {  // flat index of element r of a line
    return (line / inner) * len * inner + r * inner + line % inner;
  }
};

Lines lines_of(const Tensor& x, int64_t axis) {
  Lines l;
  const int64_t nd = x.ndim();
  if (nd == 0) return l;
  const int64_t a = axis < 0 ? axis + nd : axis;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < a) l.outer *= x.dim(d);
    if (d == a) l.len = x.dim(d);
    if (d > a) l.inner *= x.dim(d);
  }
  return l;
}

bool is_nan_value(double v) { return v != v; }

// u comes before v in ascending order (NaN after every number, NaNs equal).
bool before(double u, double v) {
  if (is_nan_value(u)) return false;
  if (is_nan_value(v)) return true;
  return u < v;
}

// Where element r of a line of n values goes: the number of elements ordered before it.
int64_t rank_of(const std::vector<double>& v, int64_t r, bool descending) {
  int64_t rank = 0;
  for (int64_t j = 0; j < static_cast<int64_t>(v.size()); ++j) {
    const bool equal = !before(v[j], v[r]) && !before(v[r], v[j]);
    const bool strictly = descending ? before(v[r], v[j]) : before(v[j], v[r]);
    if (strictly || (equal && j < r)) ++rank;
  }
  return rank;
}

template <class T>
void put(const Tensor& t, int64_t i, T v) {
  t.data<T>()[i] = v;
}

}  // namespace

void ref_cum(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const Lines l = lines_of(x, ctx.attrs.get_int("axis"));
  const bool excl = ctx.attrs.get_bool("exclusive"), rev = ctx.attrs.get_bool("reverse");
  const bool prod = ctx.op.id == OpId::CumProd;
  const bool flt = is_floating(x.dtype());
  for (int64_t line = 0; line < l.outer * l.inner; ++line) {
    for (int64_t r = 0; r < l.len; ++r) {
      double fd = prod ? 1.0 : 0.0;
      uint64_t iu = prod ? 1 : 0;
      for (int64_t j = 0; j < l.len; ++j) {
        const bool in = rev ? (excl ? j > r : j >= r) : (excl ? j < r : j <= r);
        if (!in) continue;
        const double v = x.element_as_double(l.at(line, j));
        if (flt) {
          fd = prod ? fd * v : fd + v;
        } else {
          const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
          iu = prod ? iu * u : iu + u;
        }
      }
      const int64_t at = l.at(line, r);
      dispatch_all(y.dtype(), "reference CumSum/CumProd", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
          put<T>(y, at, T(static_cast<float>(fd)));
        else if constexpr (std::is_floating_point_v<T>)
          put<T>(y, at, static_cast<T>(fd));
        else
          put<T>(y, at, static_cast<T>(iu));
      });
    }
  }
}

void ref_sort(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Lines l = lines_of(x, ctx.attrs.get_int("axis"));
  const bool desc = ctx.attrs.get_bool("descending");
  const size_t es = dtype_size(x.dtype());
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.out[0].raw_data());
  int32_t* idx = ctx.out[1].data<int32_t>();
  for (int64_t line = 0; line < l.outer * l.inner; ++line) {
    std::vector<double> v(static_cast<size_t>(l.len));
    for (int64_t r = 0; r < l.len; ++r) v[r] = x.element_as_double(l.at(line, r));
    for (int64_t r = 0; r < l.len; ++r) {
      const int64_t to = l.at(line, rank_of(v, r, desc));
      std::memcpy(dst + to * es, src + l.at(line, r) * es, es);
      idx[to] = static_cast<int32_t>(r);
    }
  }
}

void ref_topk(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t n = x.ndim() == 0 ? 1 : x.dim(x.ndim() - 1);
  const int64_t k = ctx.attrs.get_int("k");
  const bool sorted = ctx.attrs.get_bool("sorted");
  if (n == 0) return;
  const size_t es = dtype_size(x.dtype());
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.out[0].raw_data());
  int32_t* idx = ctx.out[1].data<int32_t>();
  for (int64_t row = 0; row < x.numel() / n; ++row) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) v[r] = x.element_as_double(row * n + r);
    int64_t taken_before = 0;  // selected elements of lower index (the unsorted position)
    for (int64_t r = 0; r < n; ++r) {
      const int64_t rank = rank_of(v, r, /*descending=*/true);
      if (rank >= k) continue;
      const int64_t pos = row * k + (sorted ? rank : taken_before++);
      std::memcpy(dst + pos * es, src + (row * n + r) * es, es);
      idx[pos] = static_cast<int32_t>(r);
    }
  }
}

}  // namespace mycel
