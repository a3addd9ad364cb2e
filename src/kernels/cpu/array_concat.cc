// Joining and splitting kernels (Concat, Stack, Split), Tile, Pad and Range.
#include <algorithm>
#include <cstring>

#include "base/parallel.h"
#include "kernels/cpu/array.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

constexpr int64_t kGrainBytes = 1 << 16;

// One block move of a join or split: `parts` tensors, each [outer, chunk_i] with chunk_i =
// its axis size times inner, against one tensor [outer, sum(chunk_i)]. join=true copies the
// parts into the whole (Concat, Stack); false the whole into the parts (Split).
void move_blocks(const Tensor& whole, std::span<const Tensor> parts, int64_t outer, bool join) {
  const size_t isz = whole.itemsize();
  std::vector<int64_t> chunk(parts.size()), start(parts.size());
  int64_t row = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    chunk[i] = outer > 0 ? parts[i].numel() / outer : 0;
    start[i] = row;
    row += chunk[i];
  }
  if (row == 0 || outer == 0) return;
  char* w = static_cast<char*>(whole.raw_data());
  const int64_t units = outer * static_cast<int64_t>(parts.size());
  const int64_t avg_bytes =
      std::max<int64_t>(1, row * static_cast<int64_t>(isz) / static_cast<int64_t>(parts.size()));
  const int64_t grain = std::max<int64_t>(1, kGrainBytes / avg_bytes);
  parallel_for(0, units, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / static_cast<int64_t>(parts.size());
      const size_t i = static_cast<size_t>(u % static_cast<int64_t>(parts.size()));
      if (chunk[i] == 0) continue;
      char* wp = w + (o * row + start[i]) * static_cast<int64_t>(isz);
      char* pp = static_cast<char*>(parts[i].raw_data()) + o * chunk[i] * static_cast<int64_t>(isz);
      const size_t n = static_cast<size_t>(chunk[i]) * isz;
      if (join)
        std::memcpy(wp, pp, n);
      else
        std::memcpy(pp, wp, n);
    }
  });
}

int64_t prod(const Shape& s, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e; ++i) p *= s[i];
  return p;
}

}  // namespace

void cpu_concat(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  move_blocks(out, ctx.in, prod(out.shape(), 0, static_cast<size_t>(axis)), true);
}

void cpu_stack(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), out.ndim(), ctx.op.name);
  move_blocks(out, ctx.in, prod(out.shape(), 0, static_cast<size_t>(axis)), true);
}

void cpu_split(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), x.ndim(), ctx.op.name);
  std::vector<Tensor> parts(ctx.out.begin(), ctx.out.end());
  move_blocks(x, parts, prod(x.shape(), 0, static_cast<size_t>(axis)), false);
}

void cpu_tile(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  if (out.numel() == 0) return;
  // out seen as [m0, s0, m1, s1, ...]; x read with stride 0 over the m_i.
  const auto& m = ctx.attrs.get_ints("multiples");
  const size_t off = m.size() - static_cast<size_t>(x.ndim());
  Shape shape, dst_st, src_st;
  for (size_t i = 0; i < m.size(); ++i) {
    const int64_t s = i >= off ? x.dim(static_cast<int64_t>(i - off)) : 1;
    const int64_t os = out.strides()[i];
    shape.push_back(m[i]);
    shape.push_back(s);
    dst_st.push_back(s * os);
    dst_st.push_back(os);
    src_st.push_back(0);
    src_st.push_back(i >= off ? x.strides()[i - off] : 0);
  }
  strided_copy(Tensor::make_view(out.storage(), out.dtype(), shape, dst_st, out.offset()),
               Tensor::make_view(x.storage(), x.dtype(), shape, src_st, x.offset()));
}

void cpu_pad(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  const auto& p = ctx.attrs.get_ints("paddings");
  if (out.numel() != x.numel()) out.fill(Scalar::from_float(ctx.attrs.get_float("value")));
  int64_t offset = out.offset();
  for (size_t d = 0; d < x.shape().size(); ++d) offset += p[2 * d] * out.strides()[d];
  if (x.numel() == 0) return;
  strided_copy(Tensor::make_view(out.storage(), out.dtype(), x.shape(), out.strides(), offset), x);
}

void cpu_range(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  const double start = ctx.attrs.get_float("start"), delta = ctx.attrs.get_float("delta");
  dispatch_number(out.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    parallel_for(0, out.numel(), 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(static_cast<compute_t<T>>(start + static_cast<double>(i) * delta));
      }
    });
  });
}

}  // namespace mycel
