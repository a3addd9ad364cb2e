// cpu_fftn: FFTN's CPU kernel (ops/defs/linalg.def).
//
// The transform is separable: the input (converted to complex of the computing precision:
// complex<float> for float32/complex64, complex<double> otherwise) is transformed one axis
// after another; each pass transforms blocks of lines (zero-padded or truncated to the pass's
// length) into a buffer with the axis's new length, blocks in parallel (parallel_for; each
// chunk has its own scratch): columns of a strided axis where they lie (c2c_direct), rows
// and the rest through an interleaved copy. Scaling by norm comes last. With several axes,
// groups of the independent leading slices go through all the passes in turn (fftn_groups).
//   - c2c: every axis is a complex transform of length sizes[i];
//   - r2c: the last axis first, a complex transform of the (real) line keeping the first
//     n // 2 + 1 bins, then the other axes complex;
//   - c2r: the other axes complex first, then the last: the half spectrum (padded/truncated
//     to n // 2 + 1 bins) extended to the full Hermitian spectrum X[n-k] = conj(X[k]), a
//     complex inverse transform and its real part (the imaginary parts of the DC and, for even
//     n, the Nyquist bin drop out, as numpy's irfft).
// The real transforms of even length n go through one complex transform of length n/2 (the
// even and odd samples as real and imaginary parts) and a twiddle pass that separates them;
// odd lengths through the complex transform of the full line, in blocks of lines like the
// complex transforms (c2c_batched). Both real directions are
// written once: r2c's inverse is the conjugate of its forward transform (the input is real),
// c2r's forward that of the inverse on the conjugated half spectrum (the output is real).
//
// The 1-d transforms are FftPlan (fft_plan.h: mixed radix 8/4/2/3/5/small primes, Bluestein
// for large prime factors; AVX2 where the CPU has it), cached per (length, direction,
// precision).
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <type_traits>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/fft_plan.h"
#include "ops/fft_attrs.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

using fft_detail::fft_plan;
using fft_detail::FftPlan;

enum class Line : uint8_t { C2C, R2C, C2R };

// e^{-2 pi i k / n} for k <= n / 2 (the real transforms' twiddles), cached like the plans.
template <class R>
std::shared_ptr<const std::vector<std::complex<R>>> real_twiddles(int64_t n) {
  static std::mutex mu;
  static std::map<int64_t, std::shared_ptr<const std::vector<std::complex<R>>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  auto v = std::make_shared<std::vector<std::complex<R>>>(static_cast<size_t>(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) {
    const double ang = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    (*v)[static_cast<size_t>(k)] = {static_cast<R>(std::cos(ang)), static_cast<R>(std::sin(ang))};
  }
  if (cache.size() >= 64) cache.clear();
  return cache.try_emplace(n, std::move(v)).first->second;
}

template <class R>
inline std::complex<R> cmul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Loads and stores of the passes: the input may be real (r2c, or c2c of a real tensor), the
// last pass writes the output tensor (real for c2r) scaled by norm.
template <class R>
inline std::complex<R> load(const std::complex<R>& v) {
  return v;
}
template <class R>
inline std::complex<R> load(R v) {
  return {v, R(0)};
}
template <class R>
inline R real_of(const std::complex<R>& v) {
  return v.real();
}
template <class R>
inline R real_of(R v) {
  return v;
}
template <class R>
inline void store(std::complex<R>* p, std::complex<R> v, R s) {
  *p = {v.real() * s, v.imag() * s};
}
template <class R>
inline void store(R* p, std::complex<R> v, R s) {
  *p = v.real() * s;
}

// A block's work memory, zeroed, aligned to 64 bytes: a 32-byte pack at an even entry offset
// then never straddles two cache lines (std::vector's 16-byte alignment made half of them
// do for complex<double>).
template <class T>
class AlignedBuf {
 public:
  explicit AlignedBuf(int64_t n)
      : n_(std::max<int64_t>(n, 1)),
        p_(static_cast<T*>(::operator new(static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T),
                                          std::align_val_t(64)))) {
    std::fill(p_, p_ + n_, T(0));
  }
  ~AlignedBuf() { ::operator delete(p_, std::align_val_t(64)); }
  AlignedBuf(const AlignedBuf&) = delete;
  AlignedBuf& operator=(const AlignedBuf&) = delete;
  T* data() const { return p_; }
  T* begin() const { return p_; }
  T* end() const { return p_ + n_; }
  T& operator[](size_t i) const { return p_[i]; }

 private:
  int64_t n_;
  T* p_;
};

// Two complex<float> in 16 bytes as 64-bit halves, for the 2x2 transposes of rows_to_block.
typedef long long Pair64 __attribute__((vector_size(16)));
inline Pair64 load_pair(const void* p) {
  Pair64 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store_pair(void* p, Pair64 v) { __builtin_memcpy(p, &v, sizeof v); }
#if defined(__clang__)
inline Pair64 lo_lo(Pair64 a, Pair64 b) { return __builtin_shufflevector(a, b, 0, 2); }
inline Pair64 hi_hi(Pair64 a, Pair64 b) { return __builtin_shufflevector(a, b, 1, 3); }
#else
inline Pair64 lo_lo(Pair64 a, Pair64 b) { return __builtin_shuffle(a, b, Pair64{0, 2}); }
inline Pair64 hi_hi(Pair64 a, Pair64 b) { return __builtin_shuffle(a, b, Pair64{1, 3}); }
#endif
template <class R>
inline Pair64 scale_pair(Pair64 a, R s) {
  fft_detail::PackV<R> v;
  __builtin_memcpy(&v, &a, sizeof v);
  v *= s;
  __builtin_memcpy(&a, &v, sizeof v);
  return a;
}
template <class R>
inline std::complex<R> store_scaled(std::complex<R> v, R s) {
  return {v.real() * s, v.imag() * s};
}

// The lines a block transforms together: up to 16, about 8192 entries of work (for Bluestein's
// plans 16384 and at least 4 lines: their pointwise passes and inner transforms gain from
// longer loops over the lines, measured: 4 lines of 4097 twice as fast as one).
template <class R>
int64_t block_lines(const FftPlan<R>& plan) {
  const int64_t entries =
      plan.work_size() > plan.size() ? std::max<int64_t>(16384, 4 * plan.work_size()) : 8192;
  return std::clamp<int64_t>(entries / std::max<int64_t>(plan.work_size(), 1), 1, 16);
}

// The complex pass of complex columns read whole (m >= n, inner >= batch), without copies:
// per outer index, blocks of `batch` consecutive columns, the plan's first stage reading them
// and its last writing the output (FftPlan::run_lines). (Rows
// go through rows_to_blocks instead: a stage reading or writing batch rows of a power-of-two length
// directly touches p * batch places 4 KiB apart at once, more than a cache set holds.)
template <class R>
void c2c_direct(const std::complex<R>* src, std::complex<R>* dst, int64_t m, int64_t inner,
                int64_t lines, int64_t n, const FftPlan<R>& plan, int64_t batch, R scale) {
  using C = std::complex<R>;
  const int64_t per = (inner + batch - 1) / batch;  // blocks per outer index
  const int64_t blocks = lines / inner * per;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n * batch, 1));
  parallel_for(0, blocks, grain, [&](int64_t b0, int64_t e0) {
    AlignedBuf<C> work(plan.lines_scratch_size(batch));
    for (int64_t blk = b0; blk < e0; ++blk) {
      const int64_t o = blk / per, i0 = blk % per * batch, nb = std::min(batch, inner - i0);
      plan.run_lines(src + o * m * inner + i0, 1, inner, dst + o * n * inner + i0, 1, inner, nb,
                     scale, work.data());
    }
  });
}

// Rows to an interleaved block and back: x[k * batch + j] = rows[j * ld + k] for j < nb,
// k < count, and the reverse times scale; in tiles of 16 entries by pairs of rows, two rows'
// entries k, k + 1 transposed in registers (complex<float>: two per 16 bytes).
template <class R>
void rows_to_block(const std::complex<R>* rows, int64_t ld, int64_t nb, int64_t count,
                   int64_t batch, std::complex<R>* x) {
  using L = Pair64;
  for (int64_t k0 = 0; k0 < count; k0 += 16) {
    const int64_t k1 = std::min(count, k0 + 16);
    int64_t j = 0;
    if constexpr (sizeof(std::complex<R>) == 8)
      for (; j + 2 <= nb; j += 2) {
        const std::complex<R>* r0 = rows + j * ld;
        const std::complex<R>* r1 = r0 + ld;
        int64_t k = k0;
        for (; k + 2 <= k1; k += 2) {
          const L a = load_pair(r0 + k), b = load_pair(r1 + k);
          store_pair(x + k * batch + j, lo_lo(a, b));
          store_pair(x + (k + 1) * batch + j, hi_hi(a, b));
        }
        for (; k < k1; ++k) {
          x[k * batch + j] = r0[k];
          x[k * batch + j + 1] = r1[k];
        }
      }
    for (; j < nb; ++j)
      for (int64_t k = k0; k < k1; ++k) x[k * batch + j] = rows[j * ld + k];
  }
}
template <class R>
void block_to_rows(const std::complex<R>* x, int64_t nb, int64_t count, int64_t batch,
                   std::complex<R>* rows, int64_t ld, R scale) {
  using L = Pair64;
  const bool scaled = scale != R(1);
  for (int64_t k0 = 0; k0 < count; k0 += 16) {
    const int64_t k1 = std::min(count, k0 + 16);
    int64_t j = 0;
    if constexpr (sizeof(std::complex<R>) == 8)
      for (; j + 2 <= nb; j += 2) {
        std::complex<R>* r0 = rows + j * ld;
        std::complex<R>* r1 = r0 + ld;
        int64_t k = k0;
        for (; k + 2 <= k1; k += 2) {
          L a = load_pair(x + k * batch + j);
          L b = load_pair(x + (k + 1) * batch + j);
          if (scaled) {
            a = scale_pair<R>(a, scale);
            b = scale_pair<R>(b, scale);
          }
          store_pair(r0 + k, lo_lo(a, b));
          store_pair(r1 + k, hi_hi(a, b));
        }
        for (; k < k1; ++k) {
          r0[k] = store_scaled(x[k * batch + j], scale);
          r1[k] = store_scaled(x[k * batch + j + 1], scale);
        }
      }
    for (; j < nb; ++j)
      for (int64_t k = k0; k < k1; ++k) rows[j * ld + k] = store_scaled(x[k * batch + j], scale);
  }
}

// Real rows to an interleaved block (x[k * batch + j] = rows[j * ld + k] as complex, in tiles
// of 16 entries) and the real parts of a block back to rows, times scale.
template <class R>
void real_rows_to_block(const R* rows, int64_t ld, int64_t nb, int64_t count, int64_t batch,
                        std::complex<R>* x) {
  for (int64_t k0 = 0; k0 < count; k0 += 16) {
    const int64_t k1 = std::min(count, k0 + 16);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t k = k0; k < k1; ++k) x[k * batch + j] = {rows[j * ld + k], R(0)};
  }
}
template <class R>
void block_to_real_rows(const std::complex<R>* x, int64_t nb, int64_t count, int64_t batch, R* rows,
                        int64_t ld, R scale) {
  for (int64_t k0 = 0; k0 < count; k0 += 16) {
    const int64_t k1 = std::min(count, k0 + 16);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t k = k0; k < k1; ++k) rows[j * ld + k] = x[k * batch + j].real() * scale;
  }
}

// Points ins[j] and outs[j] at the lines of block blk of the batched passes and returns how
// many it holds (nb): lines blk * batch.., fewer in the last block; line l = o * inner + i of
// src (lines of m entries, inner apart) starts at src + o * m * inner + i, of dst (n_out
// entries) at dst + o * n_out * inner + i.
template <class In, class Out>
[[gnu::always_inline]] inline int64_t point_block(const In* src, Out* dst, int64_t m, int64_t n_out,
                                                  int64_t inner, int64_t lines, int64_t batch,
                                                  int64_t blk, std::vector<const In*>& ins,
                                                  std::vector<Out*>& outs) {
  const int64_t l0 = blk * batch, nb = std::min(batch, lines - l0);
  for (int64_t j = 0; j < nb; ++j) {
    const int64_t o = (l0 + j) / inner, i = (l0 + j) % inner;
    ins[static_cast<size_t>(j)] = src + o * m * inner + i;
    outs[static_cast<size_t>(j)] = dst + o * n_out * inner + i;
  }
  return nb;
}

// The complex pass: c2c_direct where it applies, otherwise blocks of lines gathered
// interleaved (line j's entry k at k * batch + j, zero-padded), transformed together and
// scattered. Also the real transforms of odd length n (no half-length trick): r2c reads real
// lines and keeps the first n_out = n / 2 + 1 bins (the output's lines n_out long); c2r
// (hermitian) extends the half spectrum read (take <= n / 2 + 1 entries, zero-padded) to the
// full one, X[k] = conj(X[n - k]) for k > n / 2, and keeps the real parts.
template <class R, class In, class Out>
void c2c_batched(const In* src, Out* dst, int64_t m, int64_t inner, int64_t lines, int64_t n,
                 const FftPlan<R>& plan, int64_t take, R scale, int64_t n_out,
                 bool hermitian = false) {
  using C = std::complex<R>;
  const int64_t batch = block_lines(plan);
  if constexpr (std::is_same_v<In, C> && std::is_same_v<Out, C>) {
    if (take == n && n_out == n && !hermitian && inner >= batch)
      return c2c_direct<R>(src, dst, m, inner, lines, n, plan, batch, scale);
  }
  const int64_t blocks = (lines + batch - 1) / batch;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n * batch, 1));
  parallel_for(0, blocks, grain, [&](int64_t b0, int64_t e0) {
    AlignedBuf<C> buf(n * batch);
    AlignedBuf<C> scratch(plan.batch_scratch_size(batch));
    std::vector<const In*> ins(static_cast<size_t>(batch));
    std::vector<Out*> outs(static_cast<size_t>(batch));
    for (int64_t blk = b0; blk < e0; ++blk) {
      const int64_t nb = point_block(src, dst, m, n_out, inner, lines, batch, blk, ins, outs);
      C* x = buf.data();
      if constexpr (std::is_same_v<In, C>) {
        if (inner == 1)
          rows_to_block(ins[0], m, nb, take, batch, x);
        else
          for (int64_t k = 0; k < take; ++k)
            for (int64_t j = 0; j < nb; ++j)
              x[k * batch + j] = ins[static_cast<size_t>(j)][k * inner];
      } else {
        if (inner == 1)
          real_rows_to_block(ins[0], m, nb, take, batch, x);
        else
          for (int64_t k = 0; k < take; ++k)
            for (int64_t j = 0; j < nb; ++j)
              x[k * batch + j] = load(ins[static_cast<size_t>(j)][k * inner]);
      }
      std::fill(x + take * batch, x + n * batch, C(0));
      if (nb < batch)  // a short last block: its missing lines zero
        for (int64_t k = 0; k < take; ++k)
          for (int64_t j = nb; j < batch; ++j) x[k * batch + j] = C(0);
      if (hermitian)  // n odd, take <= n / 2 + 1: entries n / 2 + 1.. from n - k <= n / 2
        for (int64_t k = n / 2 + 1; k < n; ++k)
          for (int64_t j = 0; j < batch; ++j) x[k * batch + j] = std::conj(x[(n - k) * batch + j]);
      plan.run_batch(x, scratch.data(), batch);
      if (inner == 1) {
        if constexpr (std::is_same_v<Out, C>) {
          block_to_rows(x, nb, n_out, batch, outs[0], n_out, scale);
          continue;
        } else {
          block_to_real_rows(x, nb, n_out, batch, outs[0], n_out, scale);
          continue;
        }
      }
      for (int64_t k = 0; k < n_out; ++k)
        for (int64_t j = 0; j < nb; ++j)
          store(outs[static_cast<size_t>(j)] + k * inner, x[k * batch + j], scale);
    }
  });
}

// c2r's gather for a block: the half spectra of nb lines (the first min(take, h + 1) entries,
// zero-padded) interleaved into spec ((h + 1) x batch, lines nb.. zero), the imaginary parts
// of X_0 and X_h dropped.
template <class R, class In>
void c2r_gather(const In* const* ins, int64_t m, int64_t nb, int64_t inner, int64_t take, int64_t h,
                int64_t batch, std::complex<R>* spec) {
  using C = std::complex<R>;
  const int64_t count = std::min(take, h + 1);
  if constexpr (std::is_same_v<In, C>) {
    if (inner == 1) {
      rows_to_block(ins[0], m, nb, count, batch, spec);
    } else if (ins[nb - 1] - ins[0] == nb - 1) {  // side by side
      for (int64_t k = 0; k < count; ++k)
        for (int64_t j = 0; j < nb; ++j) spec[k * batch + j] = ins[0][k * inner + j];
    } else {
      for (int64_t k = 0; k < count; ++k)
        for (int64_t j = 0; j < nb; ++j) spec[k * batch + j] = ins[j][k * inner];
    }
  } else {
    for (int64_t k = 0; k < count; ++k)
      for (int64_t j = 0; j < nb; ++j) spec[k * batch + j] = load(ins[j][k * inner]);
  }
  if (nb < batch)
    for (int64_t k = 0; k < count; ++k)
      std::fill(spec + k * batch + nb, spec + (k + 1) * batch, C(0));
  std::fill(spec + count * batch, spec + (h + 1) * batch, C(0));
  for (int64_t j = 0; j < batch; ++j) {
    spec[j] = C(spec[j].real(), R(0));
    spec[h * batch + j] = C(spec[h * batch + j].real(), R(0));
  }
}

// The real pass of even length n = 2h, in blocks of up to 16 lines interleaved like
// c2c_batched, through one complex transform of length h per line:
//   - r2c (forward): z_k = x_{2k} + i x_{2k+1}, Z = fft_h(z); with E_k = (Z_k + conj Z_{h-k})/2
//     and O_k = -i (Z_k - conj Z_{h-k})/2 (the transforms of the even and odd samples),
//     X_k = E_k + e^{-2 pi i k/n} O_k for k <= h; its inverse is the conjugate (x is real);
//   - c2r (inverse, the imaginary parts of X_0 and X_h ignored): Z_k = E'_k + i O'_k with
//     E'_k = X_k + conj X_{h-k}, O'_k = (X_k - conj X_{h-k}) e^{2 pi i k/n}; z = ifft_h(Z)
//     unscaled gives x_{2k} = Re z_k, x_{2k+1} = Im z_k; its forward is the inverse of the
//     conjugated half spectrum (x is real).
constexpr int64_t kChunk = 64;  // r2c's half-spectrum entries per chunk

template <class R, class In, class Out>
void real_batched(const In* src, Out* dst, int64_t m, int64_t inner, int64_t lines, int64_t n,
                  bool r2c, bool inverse, const FftPlan<R>& half, const std::complex<R>* tw,
                  int64_t take, R scale) {
  using C = std::complex<R>;
  const int64_t h = n / 2, n_out = r2c ? h + 1 : n;
  // Columns side by side (inner >= 16) in blocks of 16: whole cache lines of the input.
  const int64_t batch = inner >= 16 ? 16 : block_lines(half);
  const int64_t blocks = (lines + batch - 1) / batch;
  const int64_t grain = std::max<int64_t>(1, 16384 / (n * batch));
  // Rows of real samples read whole are complex rows of z (a line's z_k its samples 2k, 2k+1),
  // transposed into the block by rows_to_block; c2r's real rows are written back the same way.
  bool rows_in = false, rows_out = false;
  if constexpr (std::is_same_v<In, R>) rows_in = inner == 1 && take == n && m % 2 == 0;
  if constexpr (std::is_same_v<Out, R>) rows_out = inner == 1;
  parallel_for(0, blocks, grain, [&](int64_t b0, int64_t e0) {
    AlignedBuf<C> z(h * batch);
    AlignedBuf<C> spec((r2c ? std::min(h + 1, kChunk) : h + 1) * batch);
    AlignedBuf<C> scratch(half.batch_scratch_size(batch));
    std::vector<const In*> ins(static_cast<size_t>(batch));
    std::vector<Out*> outs(static_cast<size_t>(batch));
    for (int64_t blk = b0; blk < e0; ++blk) {
      const int64_t nb = point_block(src, dst, m, n_out, inner, lines, batch, blk, ins, outs);
      // Lines of one outer index lie side by side (entry k of line j at ins[0] + k * inner + j).
      const bool side_by_side = inner > 1 && ins[static_cast<size_t>(nb - 1)] - ins[0] == nb - 1;
      if (nb < batch) std::fill(z.begin(), z.end(), C(0));
      if (r2c && rows_in) {
        rows_to_block(reinterpret_cast<const C*>(ins[0]), m / 2, nb, h, batch, z.data());
      } else if (r2c) {
        const int64_t pairs = take / 2;
        for (int64_t k = 0; k < pairs; ++k) {
          C* zk = z.data() + k * batch;
          if (side_by_side) {
            const In* p = ins[0] + 2 * k * inner;
            for (int64_t j = 0; j < nb; ++j) zk[j] = C(real_of(p[j]), real_of(p[inner + j]));
            continue;
          }
          for (int64_t j = 0; j < nb; ++j) {
            const In* p = ins[static_cast<size_t>(j)] + 2 * k * inner;
            zk[j] = C(real_of(p[0]), real_of(p[inner]));
          }
        }
        std::fill(z.begin() + pairs * batch, z.end(), C(0));
        if (take % 2)  // an odd count read: the last pair's even sample
          for (int64_t j = 0; j < nb; ++j)
            z[static_cast<size_t>(pairs * batch + j)] =
                C(real_of(ins[static_cast<size_t>(j)][2 * pairs * inner]), R(0));
      } else {
        c2r_gather(ins.data(), m, nb, inner, take, h, batch, spec.data());
        fft_detail::c2r_twiddle(spec.data(), h, batch, tw, !inverse, z.data());
      }
      half.run_batch(z.data(), scratch.data(), batch);
      if (rows_out) {
        block_to_rows(z.data(), nb, h, batch, reinterpret_cast<C*>(outs[0]), h, scale);
        continue;
      }
      if (r2c) {
        // The half spectrum in chunks of kChunk entries interleaved in spec (staying in the
        // first-level cache), each then out to the lines.
        for (int64_t k0 = 0; k0 <= h; k0 += kChunk) {
          const int64_t k1 = std::min(h + 1, k0 + kChunk);
          fft_detail::r2c_twiddle(z.data(), h, batch, tw, inverse, scale, k0, k1, spec.data());
          if constexpr (std::is_same_v<Out, C>) {
            if (inner == 1) {
              block_to_rows(spec.data(), nb, k1 - k0, batch, outs[0] + k0, h + 1, R(1));
              continue;
            }
          }
          for (int64_t k = k0; k < k1; ++k) {
            const C* sk = spec.data() + (k - k0) * batch;
            if (side_by_side)
              for (int64_t j = 0; j < nb; ++j) store(outs[0] + k * inner + j, sk[j], R(1));
            else
              for (int64_t j = 0; j < nb; ++j)
                store(outs[static_cast<size_t>(j)] + k * inner, sk[j], R(1));
          }
        }
      } else {
        for (int64_t k = 0; k < h; ++k) {
          const C* zk = z.data() + k * batch;
          if (side_by_side) {
            Out* o = outs[0] + 2 * k * inner;
            for (int64_t j = 0; j < nb; ++j) {
              store(o + j, C(zk[j].real(), R(0)), scale);
              store(o + inner + j, C(zk[j].imag(), R(0)), scale);
            }
            continue;
          }
          for (int64_t j = 0; j < nb; ++j) {
            store(outs[static_cast<size_t>(j)] + 2 * k * inner, C(zk[j].real(), R(0)), scale);
            store(outs[static_cast<size_t>(j)] + (2 * k + 1) * inner, C(zk[j].imag(), R(0)), scale);
          }
        }
      }
    }
  });
}

// One pass over axis `axis` of src (shape `shape`): each line of length m becomes a line of
// length n_out in dst (shape with shape[axis] = n_out), times `scale`; the first n_in_cap
// entries of a line are read (zero-padded from m).
template <class R, class In, class Out>
void pass(const In* src, Out* dst, const Shape& shape, int64_t axis, int64_t n, int64_t n_out,
          bool inverse, Line kind, int64_t n_in_cap, R scale) {
  const int64_t m = shape[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t lines = outer * inner;
  const int64_t take = std::min(m, n_in_cap);
  const bool real_even = kind != Line::C2C && n % 2 == 0 && n >= 2;
  const auto plan = real_even ? fft_plan<R>(n / 2, kind == Line::C2R) : fft_plan<R>(n, inverse);
  const auto tw = real_even ? real_twiddles<R>(n) : nullptr;
  if (real_even) {
    real_batched<R>(src, dst, m, inner, lines, n, kind == Line::R2C, inverse, *plan, tw->data(),
                    take, scale);
    return;
  }
  // Complex transforms and the odd real lengths (r2c: n_out bins kept; c2r: hermitian).
  c2c_batched<R>(src, dst, m, inner, lines, n, *plan, take, scale, n_out, kind == Line::C2R);
}

// The passes over one group of slices: src (shape, real or complex) to dst (the output's
// type), axes counted in `shape`.
template <class R, class In, class Out>
void run_passes(const In* src, Out* dst, Shape shape, const std::vector<int64_t>& axes,
                const FftAttrs& a) {
  using C = std::complex<R>;
  const size_t last = axes.size() - 1;
  // The order of the passes: r2c's real axis first, c2r's last, otherwise as given.
  std::vector<size_t> order;
  if (a.mode == FftMode::R2C) order.push_back(last);
  for (size_t i = 0; i < axes.size(); ++i)
    if (a.mode == FftMode::C2C || i != last) order.push_back(i);
  if (a.mode == FftMode::C2R) order.push_back(last);
  // The first pass reads src, the last writes dst scaled, the others go between buffers (left
  // uninitialized: every pass writes all of its output; complex<R> is an array of two R).
  std::unique_ptr<R[]> buf;
  for (size_t pi = 0; pi < order.size(); ++pi) {
    const size_t i = order[pi];
    const int64_t axis = axes[i];
    const int64_t n = a.sizes[i];
    const Line kind = a.mode == FftMode::C2C || i != last ? Line::C2C
                      : a.mode == FftMode::R2C            ? Line::R2C
                                                          : Line::C2R;
    const int64_t n_out = kind == Line::R2C ? n / 2 + 1 : n;
    const int64_t cap = kind == Line::C2R ? n / 2 + 1 : n;
    Shape next = shape;
    next[static_cast<size_t>(axis)] = n_out;
    const bool final = pi + 1 == order.size();
    std::unique_ptr<R[]> out(final ? nullptr : new R[static_cast<size_t>(2 * numel(next))]);
    auto go = [&](const auto* from) {
      if (final)
        pass<R>(from, dst, shape, axis, n, n_out, a.inverse, kind, cap, static_cast<R>(a.scale()));
      else
        pass<R>(from, reinterpret_cast<C*>(out.get()), shape, axis, n, n_out, a.inverse, kind, cap,
                R(1));
    };
    if (pi > 0)
      go(reinterpret_cast<const C*>(buf.get()));
    else
      go(src);
    buf = std::move(out);
    shape = next;
  }
}

// The dimensions before the first transformed axis are independent slices: with several
// passes, groups of slices of about kGroupBytes go through all the passes in turn, so that the
// buffers between passes stay in cache (one group of everything otherwise).
constexpr int64_t kGroupBytes = 512 << 10;

template <class R, class In, class Out>
void fftn_groups(const In* src, Out* dst, const Shape& xs, const Shape& ys, const FftAttrs& a) {
  using C = std::complex<R>;
  const int64_t lead = *std::min_element(a.axes.begin(), a.axes.end());
  int64_t outer = 1;
  for (int64_t d = 0; d < lead; ++d) outer *= xs[static_cast<size_t>(d)];
  Shape slice{1};
  for (size_t d = static_cast<size_t>(lead); d < xs.size(); ++d) slice.push_back(xs[d]);
  int64_t in_size = 1, out_size = 1, work = 1;
  for (size_t d = static_cast<size_t>(lead); d < xs.size(); ++d) {
    in_size *= xs[d];
    out_size *= ys[d];
    work *= std::max(xs[d], ys[d]);
  }
  std::vector<int64_t> axes;
  for (int64_t ax : a.axes) axes.push_back(ax - lead + 1);
  const bool several = a.axes.size() > 1;
  const int64_t per = std::max<int64_t>(1, work * static_cast<int64_t>(sizeof(C)));
  const int64_t group = several ? std::clamp<int64_t>(kGroupBytes / per, 1, outer) : outer;
  for (int64_t g0 = 0; g0 < outer; g0 += group) {
    slice[0] = std::min(group, outer - g0);
    run_passes<R>(src + g0 * in_size, dst + g0 * out_size, slice, axes, a);
  }
}

template <class R>
void fftn_typed(const KernelContext& ctx, const FftAttrs& a) {
  using C = std::complex<R>;
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  auto go = [&](const auto* src) {
    if (a.mode == FftMode::C2R)
      fftn_groups<R>(src, y.data<R>(), x.shape(), y.shape(), a);
    else
      fftn_groups<R>(src, y.data<C>(), x.shape(), y.shape(), a);
  };
  if (is_complex(x.dtype()))
    go(x.data<C>());
  else
    go(x.data<R>());
}

}  // namespace

void cpu_fftn(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const FftAttrs a = read_fft_attrs(ctx.attrs, static_cast<int64_t>(x.shape().size()), ctx.op.name);
  const DType t = x.dtype();
  if (t == DType::Float32 || t == DType::Complex64)
    fftn_typed<float>(ctx, a);
  else
    fftn_typed<double>(ctx, a);
}

}  // namespace mycel
