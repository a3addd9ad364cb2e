// CPU kernels of the selection ops (ops/defs/array.def): Unique, MaskedSelect, MaskedScatter,
// NonZero. The DYN_OUT ones count first, then allocate their outputs (alloc_output) and fill
// them. Elements are compared by value (floats in double, integers and bool as int64: every
// int64 distinct); moved as bits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/broadcast_pair.h"
#include "kernels/cpu/array.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

template <class T>
using key_t = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <class T>
key_t<T> key_of(T v) {
  return static_cast<key_t<T>>(static_cast<compute_t<T>>(v));
}

template <class K>
bool is_nan_key(K k) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(k);
  else
    return false;
}

}  // namespace

void cpu_unique(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& idx = ctx.out[1];
  const int64_t n = x.numel();
  const bool sorted = ctx.attrs.get_bool("sorted");
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = key_t<T>;
    const T* p = x.data<T>();
    std::vector<K> key(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) key[static_cast<size_t>(i)] = key_of(p[i]);
    // Positions by (value, position), NaNs last, each NaN its own value.
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const K ka = key[static_cast<size_t>(a)], kb = key[static_cast<size_t>(b)];
      const bool na = is_nan_key(ka), nb = is_nan_key(kb);
      if (na || nb) return na == nb ? a < b : nb;
      return ka != kb ? ka < kb : a < b;
    });
    // Groups of equal values in sorted order: each one's first position (the smallest, by
    // the tie-break) and size; group[i] the group of position i.
    std::vector<int64_t> first, sizes, group(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      const int64_t i = order[static_cast<size_t>(r)];
      const K k = key[static_cast<size_t>(i)];
      const bool same = r > 0 && !is_nan_key(k) &&
                        key[static_cast<size_t>(order[static_cast<size_t>(r - 1)])] == k;
      if (!same) {
        first.push_back(i);
        sizes.push_back(0);
      }
      ++sizes.back();
      group[static_cast<size_t>(i)] = static_cast<int64_t>(first.size()) - 1;
    }
    const int64_t groups = static_cast<int64_t>(first.size());
    // The output slot of each group: sorted order, or order of first occurrence.
    std::vector<int64_t> slot(static_cast<size_t>(groups));
    std::iota(slot.begin(), slot.end(), int64_t{0});
    if (!sorted) {
      std::vector<int64_t> by_first(static_cast<size_t>(groups));
      std::iota(by_first.begin(), by_first.end(), int64_t{0});
      std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
        return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)];
      });
      for (int64_t s = 0; s < groups; ++s)
        slot[static_cast<size_t>(by_first[static_cast<size_t>(s)])] = s;
    }
    T* y = alloc_output(ctx, 0, {groups}, x.dtype()).template data<T>();
    const Tensor& cnt = alloc_output(ctx, 2, {groups}, idx.dtype());
    dispatch_index(idx.dtype(), [&](auto itag) {
      using I = typename decltype(itag)::type;
      I* ip = idx.data<I>();
      I* cp = cnt.data<I>();
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t s = slot[static_cast<size_t>(g)];
        y[s] = p[first[static_cast<size_t>(g)]];
        cp[s] = static_cast<I>(sizes[static_cast<size_t>(g)]);
      }
      for (int64_t i = 0; i < n; ++i)
        ip[i] = static_cast<I>(slot[static_cast<size_t>(group[static_cast<size_t>(i)])]);
    });
  });
}

void cpu_masked_select(const KernelContext& ctx) {
  const std::pair<Tensor, Tensor> xm = broadcast_pair(ctx.in[0], ctx.in[1], ctx.op.name);
  const Tensor &x = xm.first, &mask = xm.second;  // not a structured binding: clang 14
  const int64_t n = x.numel();
  const bool* m = mask.data<bool>();
  const int64_t k = std::count(m, m + n, true);
  const Tensor& out = alloc_output(ctx, 0, {k}, x.dtype());
  dispatch_bits(x.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* src = static_cast<const U*>(x.raw_data());
    U* dst = static_cast<U*>(out.raw_data());
    for (int64_t i = 0; i < n; ++i)
      if (m[i]) *dst++ = src[i];
  });
}

void cpu_masked_scatter(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &src = ctx.in[2];
  const Tensor& out = ctx.out[0];
  const Tensor mask = expanded_to(ctx.in[1], x.shape(), ctx.op.name);
  const int64_t n = x.numel();
  const bool* m = mask.data<bool>();
  const int64_t k = std::count(m, m + n, true);
  MC_CHECK(k <= src.numel(), Value, "For '", ctx.op.name, "', the mask selects ", k,
           " elements but the 'source' (shape ", src.shape(), ") has only ", src.numel(), ".");
  dispatch_bits(x.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* xp = static_cast<const U*>(x.raw_data());
    const U* sp = static_cast<const U*>(src.raw_data());
    U* o = static_cast<U*>(out.raw_data());
    for (int64_t i = 0; i < n; ++i) o[i] = m[i] ? *sp++ : xp[i];
  });
}

void cpu_non_zero(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t n = x.numel(), rank = x.ndim();
  dispatch_all(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) k += static_cast<compute_t<T>>(p[i]) != compute_t<T>(0);
    int64_t* o = alloc_output(ctx, 0, {k, rank}, DType::Int64).template data<int64_t>();
    std::vector<int64_t> at(static_cast<size_t>(rank), 0);  // the multi-index of i
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<compute_t<T>>(p[i]) != compute_t<T>(0)) {
        std::copy(at.begin(), at.end(), o);
        o += rank;
      }
      for (int64_t d = rank; d-- > 0;) {
        if (++at[static_cast<size_t>(d)] < x.dim(d)) break;
        at[static_cast<size_t>(d)] = 0;
      }
    }
  });
}

}  // namespace mycel
