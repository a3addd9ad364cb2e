// Optimised StandardNormal and UniformReal, and RandomPoisson.
//
// Stream format (kernels/cpu/random_format.h): each Philox4x32-10 call, keyed by the op's
// stream and counted from its offset, yields 2 normals (Box-Muller on two 53-bit uniforms,
// in double) or 4 uniforms (2 for Float64). Element i depends only on counter offset + i / P,
// so the output is the same whatever the thread count, and equals the scalar reference.
//
// The work goes in blocks of 256 counters: Philox for the whole block in structure-of-arrays
// form (the 10 rounds vectorise: 32x32->64-bit multiplies are vpmuludq), then the transform
// over the block. The transform is base/philox_normal.h's, shared with the CUDA kernel: ln,
// sqrt and sin/cos are polynomial there, so that they vectorise too. The threads split
// blocks, not elements. (The multiversioned clones may contract to FMA, so a Float64 normal can
// differ in its last bits between CPU generations; on one machine it never varies.)
#include <cmath>
#include <vector>

#include "base/parallel.h"
#include "base/philox_normal.h"
#include "kernels/cpu/random_format.h"
#include "ops/op_table.h"
#include "tensor/random.h"

#define MC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

namespace mycel {

namespace {

constexpr int64_t kBlock = 256;  // counters per block

struct Words {
  uint32_t w[4][kBlock];
};

MC_CLONES void philox_block(uint64_t key, uint64_t counter, int64_t n, Words* out) {
  for (int64_t j = 0; j < n; ++j) {
    const Philox4 r = philox(key, 0, counter + static_cast<uint64_t>(j));
    out->w[0][j] = r[0];
    out->w[1][j] = r[1];
    out->w[2][j] = r[2];
    out->w[3][j] = r[3];
  }
}

MC_CLONES void box_muller_block(int64_t n, const Words* in, double* z0, double* z1) {
  for (int64_t j = 0; j < n; ++j)
    philox_normal::box_muller(in->w[0][j], in->w[1][j], in->w[2][j], in->w[3][j], &z0[j], &z1[j]);
}

// Runs fn(first_counter, count, block) over the op's counters, a block at a time.
template <class F>
void for_blocks(int64_t calls, int64_t elems_per_call, const F& fn) {
  const int64_t blocks = (calls + kBlock - 1) / kBlock;
  const int64_t grain = std::max<int64_t>(1, 16384 / (kBlock * elems_per_call));
  parallel_for(0, blocks, grain, [&](int64_t b, int64_t e) {
    Words words;
    for (int64_t blk = b; blk < e; ++blk) {
      const int64_t c0 = blk * kBlock;
      fn(c0, std::min(kBlock, calls - c0), &words);
    }
  });
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return T(static_cast<float>(v));
}

}  // namespace

void cpu_standard_normal(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const int64_t calls = (n + 1) / 2;
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(calls));
  dispatch_float(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for_blocks(calls, 2, [&](int64_t c0, int64_t m, Words* words) {
      philox_block(st.key, st.offset + static_cast<uint64_t>(c0), m, words);
      double z0[kBlock], z1[kBlock];
      box_muller_block(m, words, z0, z1);
      T* dst = out + 2 * c0;
      const int64_t left = n - 2 * c0;
      for (int64_t j = 0; j < m; ++j) {
        dst[2 * j] = from_double<T>(z0[j]);
        if (2 * j + 1 < left) dst[2 * j + 1] = from_double<T>(z1[j]);
      }
    });
  });
}

void cpu_uniform_real(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const int64_t per = random_format::per_call(false, y.dtype());
  const int64_t calls = (n + per - 1) / per;
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(calls));
  dispatch_float(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for_blocks(calls, per, [&](int64_t c0, int64_t m, Words* words) {
      philox_block(st.key, st.offset + static_cast<uint64_t>(c0), m, words);
      const int64_t base = c0 * per;
      const int64_t cnt = std::min(m * per, n - base);
      constexpr int64_t P = std::is_same_v<T, double> ? 2 : 4;
      T* dst = out + base;
      for (int64_t j = 0; j < m; ++j) {
        for (int64_t k = 0; k < P && j * P + k < cnt; ++k) {
          T& d = dst[j * P + k];
          if constexpr (std::is_same_v<T, double>) {
            d = philox_normal::uniform53(words->w[2 * k][j], words->w[2 * k + 1][j]);
          } else if constexpr (std::is_same_v<T, float>) {
            d = random_format::uniform_f32(words->w[k][j]);
          } else if constexpr (std::is_same_v<T, float16>) {
            d = T(random_format::uniform_f16(words->w[k][j]));
          } else {
            d = T(random_format::uniform_bf16(words->w[k][j]));
          }
        }
      }
    });
  });
}

// Element i: poisson_draw of rate[i mod rate.numel()] from its own counter (random_format.h).
void cpu_random_poisson(const KernelContext& ctx) {
  const Tensor& rate = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel(), nr = rate.numel();
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(n));
  if (n == 0) return;
  std::vector<poisson::Rate> lam(static_cast<size_t>(nr));  // each rate prepared once
  dispatch_number(rate.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < nr; ++i)
      lam[static_cast<size_t>(i)] =
          poisson::prepare(static_cast<double>(static_cast<compute_t<T>>(rate.data<T>()[i])));
  });
  dispatch_number(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    parallel_for(0, n, 1024, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        random_format::ElementUniforms u(st.key, st.offset + static_cast<uint64_t>(i));
        out[i] = random_format::poisson_count<T>(lam[static_cast<size_t>(i % nr)], u);
      }
    });
  });
}

}  // namespace mycel
