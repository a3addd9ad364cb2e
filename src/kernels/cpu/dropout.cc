// Dropout: element i draws word i % 4 of Philox block (offset + i / 4) of the op's stream and
// is kept iff that word as a uniform float is below keep_prob. Each block is computed where it
// is needed, so the result is the same whatever the thread count, and the reference (a scalar
// loop over the same stream) reproduces it exactly.
#include <algorithm>

#include "base/parallel.h"
#include "ops/op_table.h"
#include "tensor/random.h"

namespace mycel {

namespace {

template <class T>
void dropout(const T* x, T* y, T* mask, int64_t n, double keep, RandomStream rs) {
  using C = compute_t<T>;
  const C scale = static_cast<C>(1.0 / keep);
  // Chunks start on multiples of 4 so every Philox block is drawn once.
  int64_t blocks = (n + 3) / 4;
  parallel_for(0, blocks, 2048, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      Philox4 r = philox(rs.key, 0, rs.offset + static_cast<uint64_t>(blk));
      int64_t base = blk * 4;
      int64_t m = std::min<int64_t>(4, n - base);
      for (int64_t k = 0; k < m; ++k) {
        bool kept = static_cast<double>(uniform_float(r[static_cast<size_t>(k)])) < keep;
        C mk = kept ? C(1) : C(0);
        mask[base + k] = static_cast<T>(mk);
        y[base + k] = static_cast<T>(static_cast<C>(x[base + k]) * (mk * scale));
      }
    }
  });
}

}  // namespace

void cpu_dropout(const KernelContext& ctx) {
  int64_t n = ctx.in[0].numel();
  double keep = ctx.attrs.get_float("keep_prob");
  RandomStream rs = op_random_stream(ctx, "Seed0", "Seed1", static_cast<uint64_t>((n + 3) / 4));
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout(ctx.in[0].data<T>(), ctx.out[0].data<T>(), ctx.out[1].data<T>(), n, keep, rs);
  });
}

}  // namespace mycel
