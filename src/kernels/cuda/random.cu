// StandardNormal, UniformReal and Dropout on the device: the CPU kernels' numbers
// (kernels/cpu/random.cc, kernels/cpu/dropout.cc).
//
//   - Philox4x32-10 is integer arithmetic (tensor/random.h's rounds, __umulhi for the high
//     words): the same words as on the CPU, bit for bit.
//   - StandardNormal's Box-Muller transform is the CPU's own function (base/philox_normal.h:
//     host and device code): the same polynomial ln, sqrt and sin/cos of a turn in double,
//     rounded to the dtype. The only freedom left is where the compilers contract a*b+c into
//     an FMA (nvcc does by default; GCC does in the CPU's x86-64-v3/v4 clones): the doubles
//     agree to a few 1e-16, so float32/float16/bfloat16 outputs are equal except when a double
//     falls within that of a rounding boundary of the dtype (then 1 ulp apart; probability
//     ~1e-8 per float32 element); float64 outputs agree to ~1e-15 relative.
//   - UniformReal keeps the top 24/11/8 bits of a word (float32/float16/bfloat16) or 53 bits
//     of two (float64): exact, so equal to the CPU bit for bit.
//   - Dropout compares the same exact uniform float with keep_prob in double, and computes
//     x * (mask * scale) in the CPU's compute type (two products, nothing to fuse): its mask
//     and output equal the CPU's bit for bit.
//   - RandomPoisson draws with the CPU's own sampler (base/poisson_draw.h: +, -, *, / and sqrt
//     in double with no FMA contraction, its own exp/log/ln k!): the same counts bit for bit.
#include <limits>

#include "base/philox_normal.h"
#include "base/poisson_draw.h"
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/random.h"

namespace mycel::cuda {

namespace {

constexpr int kThreads = 256;

struct Words {
  uint32_t w[4];
};

// tensor/random.h's philox(key, counter_hi, counter_lo), with __umulhi for the high words:
// RandomPoisson's later uniforms of an element come from counter_hi = 1, 2, ...
__device__ inline Words philox_hi(uint64_t key, uint64_t hi, uint64_t counter) {
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(hi), c3 = static_cast<uint32_t>(hi >> 32);
  for (int r = 0; r < 10; ++r) {
    const uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    const uint32_t n0 = hi1 ^ c1 ^ k0;
    const uint32_t n2 = hi0 ^ c3 ^ k1;
    c1 = lo1;
    c3 = lo0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}

// The stream every other kernel draws from: counter_hi = 0.
__device__ inline Words philox(uint64_t key, uint64_t counter) {
  return philox_hi(key, 0, counter);
}

// Where the stream starts: the launch's values, or the words a captured graph's replay
// wrote before launching it (random.h).
__device__ inline uint64_t seed_key(const PhiloxSeed& s) { return s.dev ? s.dev[0] : s.key; }
__device__ inline uint64_t seed_offset(const PhiloxSeed& s) { return s.dev ? s.dev[1] : s.offset; }

// The dtype's value of a double (the CPU's from_double: through float for the narrow ones).
template <class T>
__device__ inline T from_double(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return cast_to<T>(static_cast<float>(v));
}

// What StandardNormal and UniformReal make of one Philox call: kPer values (out[i0 ..
// i0 + kPer), those below n), the CPU kernels' formulas.
template <class T>
struct NormalDraw {
  static constexpr int kPer = 2;
  __device__ static void put(const Words& w, T* out, int64_t i0, int64_t n) {
    double z0, z1;
    philox_normal::box_muller(w.w[0], w.w[1], w.w[2], w.w[3], &z0, &z1);
    out[i0] = from_double<T>(z0);
    if (i0 + 1 < n) out[i0 + 1] = from_double<T>(z1);
  }
};

template <class T>
struct UniformDraw {
  static constexpr int kPer = std::is_same_v<T, double> ? 2 : 4;
  __device__ static void put(const Words& w, T* out, int64_t i0, int64_t n) {
    for (int k = 0; k < kPer && i0 + k < n; ++k) {
      T v;
      if constexpr (std::is_same_v<T, double>)
        v = philox_normal::uniform53(w.w[2 * k], w.w[2 * k + 1]);
      else if constexpr (std::is_same_v<T, float>)
        v = static_cast<float>(w.w[k] >> 8) * 0x1p-24f;
      else if constexpr (std::is_same_v<T, half_t>)
        v = cast_to<T>(static_cast<float>(w.w[k] >> 21) * 0x1p-11f);
      else
        v = cast_to<T>(static_cast<float>(w.w[k] >> 24) * 0x1p-8f);
      out[i0 + k] = v;
    }
  }
};

// out[0, n) from Philox calls offset, offset + 1, ..., one call per D::kPer values.
template <class D, class T>
__global__ void draw_kernel(T* out, int64_t n, PhiloxSeed seed) {
  const uint64_t key = seed_key(seed), offset = seed_offset(seed);
  const int64_t calls = (n + D::kPer - 1) / D::kPer;
  MC_CUDA_KERNEL_LOOP(c, calls) {
    D::put(philox(key, offset + static_cast<uint64_t>(c)), out, c * D::kPer, n);
  }
}

// Launches draw_kernel<D<T>> for the float dtype `code`.
template <template <class> class D>
void launch_draw(int code, void* out, int64_t n, PhiloxSeed seed, cudaStream_t s) {
  dispatch_float_code(code, [&](auto t) {
    using T = decltype(t);
    const int64_t calls = (n + D<T>::kPer - 1) / D<T>::kPer;
    if (calls == 0) return;
    draw_kernel<D<T>, T>
        <<<grid_for(calls, kThreads), kThreads, 0, s>>>(static_cast<T*>(out), n, seed);
  });
}

// ---- Dropout ----------------------------------------------------------------------------

// Four consecutive elements, for one vector load or store when the pointers allow it.
template <class T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

// One element of kernels/cpu/dropout.cc's loop.
template <class T>
__device__ inline void drop_one(T x, uint32_t word, double keep, acc_t<T> scale, T* y, T* mask) {
  using C = acc_t<T>;
  const bool kept = static_cast<double>(static_cast<float>(word >> 8) * 0x1p-24f) < keep;
  const C mk = kept ? C(1) : C(0);
  *mask = cast_to<T>(mk);
  *y = cast_to<T>(load(x) * (mk * scale));
}

// One thread per Philox block: elements 4b .. 4b + 3 from counter offset + b.
template <class T>
__global__ void dropout_kernel(const T* x, T* y, T* mask, int64_t n, double keep, acc_t<T> scale,
                               PhiloxSeed seed, bool quads) {
  const int64_t blocks = (n + 3) / 4;
  const uint64_t key = seed_key(seed), offset = seed_offset(seed);
  MC_CUDA_KERNEL_LOOP(b, blocks) {
    const Words w = philox(key, offset + static_cast<uint64_t>(b));
    const int64_t base = 4 * b;
    if (quads && base + 4 <= n) {
      const Quad<T> xq = *reinterpret_cast<const Quad<T>*>(x + base);
      Quad<T> yq, mq;
#pragma unroll
      for (int k = 0; k < 4; ++k) drop_one(xq.v[k], w.w[k], keep, scale, &yq.v[k], &mq.v[k]);
      *reinterpret_cast<Quad<T>*>(y + base) = yq;
      *reinterpret_cast<Quad<T>*>(mask + base) = mq;
    } else {
      for (int k = 0; k < 4 && base + k < n; ++k)
        drop_one(x[base + k], w.w[k], keep, scale, &y[base + k], &mask[base + k]);
    }
  }
}

template <class T>
void dropout_as(const void* x, void* y, void* mask, int64_t n, double keep, PhiloxSeed seed,
                cudaStream_t s) {
  const int64_t blocks = (n + 3) / 4;
  if (blocks == 0) return;
  constexpr uintptr_t kAlign = alignof(Quad<T>);
  const bool quads = (reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y) |
                      reinterpret_cast<uintptr_t>(mask)) %
                         kAlign ==
                     0;
  // The CPU's scale: 1 / keep in double, rounded to the compute type.
  const acc_t<T> scale = static_cast<acc_t<T>>(1.0 / keep);
  dropout_kernel<T><<<grid_for(blocks, kThreads), kThreads, 0, s>>>(
      static_cast<const T*>(x), static_cast<T*>(y), static_cast<T*>(mask), n, keep, scale, seed,
      quads);
}

// The uniforms of one RandomPoisson element (kernels/cpu/random_format.h's ElementUniforms):
// philox(key, j, counter) for j = 0, 1, ..., two 53-bit uniforms a call.
class ElementUniforms {
 public:
  __device__ ElementUniforms(uint64_t key, uint64_t counter) : key_(key), counter_(counter) {}
  __device__ double next() {
    if (half_ == 2) {
      words_ = philox_hi(key_, call_++, counter_);
      half_ = 0;
    }
    const double u = philox_normal::uniform53(words_.w[2 * half_], words_.w[2 * half_ + 1]);
    ++half_;
    return u;
  }

 private:
  uint64_t key_, counter_, call_ = 0;
  Words words_{};
  int half_ = 2;
};

// random_format.h's poisson_count: the count in T (cast_to: saturate_cast's rules), or for a
// rate that is negative, NaN or infinite, -1 (integers) or NaN.
template <class T>
__device__ inline T poisson_count(double lam, ElementUniforms& u) {
  if (!(isfinite(lam) && lam >= 0.0)) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(-1);
    else
      return cast_to<T>(std::numeric_limits<float>::quiet_NaN());
  }
  return cast_to<T>(poisson::draw(lam, u));
}

template <class T, class R>
__global__ void poisson_kernel(T* out, const R* rate, int64_t nr, int64_t n, PhiloxSeed seed) {
  const uint64_t key = seed_key(seed), offset = seed_offset(seed);
  MC_CUDA_KERNEL_LOOP(i, n) {
    ElementUniforms u(key, offset + static_cast<uint64_t>(i));
    out[i] = poisson_count<T>(static_cast<double>(load(rate[i % nr])), u);
  }
}

}  // namespace

void launch_random_poisson(int rate_code, const void* rate, int64_t nr, int out_code, void* out,
                           int64_t n, PhiloxSeed seed, cudaStream_t s) {
  if (n == 0 || nr == 0) return;
  dispatch_code(out_code, [&](auto t) {
    using T = decltype(t);
    if constexpr (!std::is_same_v<T, bool>) {
      dispatch_code(rate_code, [&](auto r) {
        using R = decltype(r);
        if constexpr (!std::is_same_v<R, bool>)
          poisson_kernel<T, R><<<grid_for(n), kThreads, 0, s>>>(
              static_cast<T*>(out), static_cast<const R*>(rate), nr, n, seed);
      });
    }
  });
}

void launch_dropout(int code, const void* x, void* y, void* mask, int64_t n, double keep,
                    PhiloxSeed seed, cudaStream_t s) {
  dispatch_float_code(code, [&](auto t) { dropout_as<decltype(t)>(x, y, mask, n, keep, seed, s); });
}

void launch_standard_normal(int code, void* out, int64_t n, PhiloxSeed seed, cudaStream_t s) {
  launch_draw<NormalDraw>(code, out, n, seed, s);
}

void launch_uniform_real(int code, void* out, int64_t n, PhiloxSeed seed, cudaStream_t s) {
  launch_draw<UniformDraw>(code, out, n, seed, s);
}

}  // namespace mycel::cuda
