// Dropout: element i draws word i % 4 of Philox block (offset + i / 4) of the op's stream and
// is kept iff that word as a uniform float is below keep_prob. Each block is computed where it
// is needed, so the result is the same whatever the thread count, and the reference (a scalar
// loop over the same stream) reproduces it exactly.
//
// Speed: Philox's ten rounds are the cost (two 32x32->64 multiplies per round and block), so
// blocks are drawn kLanes at a time in struct-of-arrays form, which the AVX-512/AVX2 clones
// vectorise (vpmuludq), and the keep test is an integer compare: for v = word >> 8,
// v * 2^-24 < keep  <=>  v < ceil(keep * 2^24) (both sides exact in double).
#include <algorithm>
#include <cmath>

#include "base/parallel.h"
#include "kernels/cpu/elementwise.h"
#include "ops/op_table.h"
#include "tensor/random.h"

namespace mycel {

namespace {

constexpr int kLanes = 16;  // Philox blocks per group: 64 elements

// The words of blocks first .. first + kLanes - 1 of `key` (counter high word 0), element
// order: words[4 * lane + j] is word j of block first + lane. Same rounds as philox().
MC_EW_CLONES void philox_group(uint64_t key, uint64_t first, uint32_t* words) {
  uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    uint64_t ctr = first + static_cast<uint64_t>(l);
    c0[l] = static_cast<uint32_t>(ctr);
    c1[l] = static_cast<uint32_t>(ctr >> 32);
    c2[l] = 0;
    c3[l] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < 10; ++r) {
    for (int l = 0; l < kLanes; ++l) {
      uint64_t p0 = uint64_t{0xD2511F53u} * c0[l];
      uint64_t p1 = uint64_t{0xCD9E8D57u} * c2[l];
      uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = static_cast<uint32_t>(p1);
      c3[l] = static_cast<uint32_t>(p0);
      c0[l] = n0;
      c2[l] = n2;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int l = 0; l < kLanes; ++l) {
    words[4 * l] = c0[l];
    words[4 * l + 1] = c1[l];
    words[4 * l + 2] = c2[l];
    words[4 * l + 3] = c3[l];
  }
}

template <class T>
void dropout(const T* x, T* y, T* mask, int64_t n, double keep, RandomStream rs) {
  using C = compute_t<T>;
  const C scale = static_cast<C>(1.0 / keep);
  const uint32_t threshold = static_cast<uint32_t>(std::ceil(keep * 0x1p24));
  constexpr int64_t kGroup = 4 * kLanes;
  // Chunks start on multiples of a group, so every Philox block is drawn once.
  int64_t groups = (n + kGroup - 1) / kGroup;
  parallel_for(0, groups, 512, [&](int64_t b, int64_t e) {
    uint32_t words[kGroup];
    for (int64_t g = b; g < e; ++g) {
      philox_group(rs.key, rs.offset + static_cast<uint64_t>(g * kLanes), words);
      int64_t base = g * kGroup;
      int64_t m = std::min<int64_t>(kGroup, n - base);
      for (int64_t k = 0; k < m; ++k) {
        C mk = (words[k] >> 8) < threshold ? C(1) : C(0);
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
  RandomStream rs = next_random_stream(ctx.attrs.get_int("Seed0"), ctx.attrs.get_int("Seed1"),
                                       static_cast<uint64_t>((n + 3) / 4));
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout(ctx.in[0].data<T>(), ctx.out[0].data<T>(), ctx.out[1].data<T>(), n, keep, rs);
  });
}

}  // namespace mycel
