// Optimised MatMul, BatchMatMul and BiasAdd.
//
// Float32 goes straight to oneDNN's dnnl_sgemm (row-major) on the caller's buffers: transposes
// are sgemm's trans flags, nothing is copied. bfloat16 runs on oneDNN's bf16 matmul primitive
// (float32 accumulation; AVX-512 BF16 and AMX where the CPU has them, about 2x float32), on
// the caller's buffers through strides, batches included; float16 (and bfloat16 where the
// primitive does not apply) is widened to float32, multiplied as float32 and rounded back.
// Float64 and the integer dtypes use the cache-blocked kernel below.
//
// Batches: when x2 is shared by every batch and x1 is not transposed, [B, M, K] x [K, N] is one
// [B*M, K] x [K, N] product. float32 batches of small matrices (< 2^16 multiply-adds each) are
// one oneDNN matmul primitive (built once per configuration, in dnnl_util's primitive cache,
// with a user-managed scratchpad), which reads the broadcast and transposed operands through
// strides: one call beats an sgemm call per matrix by 2-8x at 8^3..32^3. Otherwise each batch is
// one gemm on its (broadcast) operands: products too small to thread well, or many batches,
// run one per thread (sgemm is single-threaded inside a parallel region), a few big ones run
// one after the other, each threaded.
//
// The blocked kernel (after Goto/BLIS): threads take [96 x 512] blocks of C; for each step of
// 256 along K a block packs its panel of B into NR-wide column strips and its panel of A into
// MR-tall row strips (packing B once per 96 rows costs ~1%, and the whole product is one
// parallel region, no barriers), then runs an MR x NR micro-kernel over them: MR x 2
// accumulator vectors of NR / 2 lanes (GCC vector extensions; multiversioned so AVX-512
// machines get zmm registers). Products up to 2^14 multiply-adds skip the packing. Integers
// accumulate in uint32 (uint64 for int64) with wrap-around: the output is the exact product sum
// modulo the output width, as with a 64-bit accumulator.
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/complex.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/vec_load.h"
#include "ops/op_table.h"
#include "tensor/allocator.h"

#define MC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

namespace mycel {

namespace {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Products with fewer multiply-adds than this run one batch per thread.
constexpr int64_t kSmallGemm = int64_t{1} << 21;

// ---- scratch memory from the caching allocator -----------------------------------------

class Scratch {
 public:
  explicit Scratch(size_t nbytes) : n_(nbytes), p_(nbytes ? host_alloc(nbytes) : nullptr) {}
  ~Scratch() {
    if (p_) host_free(p_, n_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  size_t n_;
  void* p_;
};

// ---- float32: oneDNN sgemm -------------------------------------------------------------

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
           float* C) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    std::fill(C, C + M * N, 0.0f);
    return;
  }
  SerialBelow serial(M * N * K);
  dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, A, ta ? M : K, B,
                                tb ? K : N, 0.0f, C, N);
  MC_CHECK(st == dnnl_success, Runtime, "oneDNN sgemm failed with status ", static_cast<int>(st),
           " (M ", M, ", N ", N, ", K ", K, ").");
}

// ---- the blocked kernel for float64 and integers ---------------------------------------

// Integers accumulate in unsigned 32 or 64 bits (wrapping, then narrowed to T's width).
template <class T>
using gemm_acc_t = std::conditional_t<std::is_floating_point_v<T>, T,
                                      std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>;

template <class Acc, class T>
inline Acc widen(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v;
  else
    return static_cast<Acc>(static_cast<int64_t>(v));
}

template <class T, class Acc>
inline T narrow(Acc v) {
  if constexpr (std::is_floating_point_v<T>)
    return v;
  else
    return static_cast<T>(v);  // modulo 2^bits (C++20)
}

constexpr int64_t kMR = 8;
constexpr int64_t kKC = 256, kMC = 96, kNC = 512;
template <class Acc>
constexpr int64_t kNR = 128 / sizeof(Acc);  // two 64-byte vectors

// C[mr x nr] (+)= pa[kc x MR]^T * pb[kc x NR]: MR x 2 vector accumulators of NR / 2 lanes.
template <class T, class Acc>
[[gnu::always_inline]] inline void ukernel(int64_t kc, const Acc* __restrict pa,
                                           const Acc* __restrict pb, T* c, int64_t ldc, int64_t mr,
                                           int64_t nr, bool first) {
  using V [[gnu::vector_size(64)]] = Acc;
  constexpr int64_t NR = kNR<Acc>, H = NR / 2;
  V acc0[kMR], acc1[kMR];
  for (int64_t i = 0; i < kMR; ++i) acc0[i] = acc1[i] = V{};
  for (int64_t k = 0; k < kc; ++k) {
    V b0, b1;
    std::memcpy(&b0, pb + k * NR, sizeof(V));
    std::memcpy(&b1, pb + k * NR + H, sizeof(V));
    for (int64_t i = 0; i < kMR; ++i) {
      const Acc a = pa[k * kMR + i];
      acc0[i] += a * b0;
      acc1[i] += a * b1;
    }
  }
  for (int64_t i = 0; i < mr; ++i) {
    T* row = c + i * ldc;
    for (int64_t j = 0; j < nr; ++j) {
      Acc v = j < H ? acc0[i][j] : acc1[i][j - H];
      row[j] = first ? narrow<T, Acc>(v) : narrow<T, Acc>(widen<Acc>(row[j]) + v);
    }
  }
}

template <class T>
struct Micro;
#define MC_UKERNEL(T, NAME)                                                               \
  MC_CLONES void NAME(int64_t kc, const gemm_acc_t<T>* pa, const gemm_acc_t<T>* pb, T* c, \
                      int64_t ldc, int64_t mr, int64_t nr, bool first) {                  \
    ukernel<T, gemm_acc_t<T>>(kc, pa, pb, c, ldc, mr, nr, first);                         \
  }                                                                                       \
  template <>                                                                             \
  struct Micro<T> {                                                                       \
    static void run(int64_t kc, const gemm_acc_t<T>* pa, const gemm_acc_t<T>* pb, T* c,   \
                    int64_t ldc, int64_t mr, int64_t nr, bool first) {                    \
      NAME(kc, pa, pb, c, ldc, mr, nr, first);                                            \
    }                                                                                     \
  };
MC_UKERNEL(double, ukernel_f64)
MC_UKERNEL(int8_t, ukernel_i8)
MC_UKERNEL(uint8_t, ukernel_u8)
MC_UKERNEL(int16_t, ukernel_i16)
MC_UKERNEL(int32_t, ukernel_i32)
MC_UKERNEL(int64_t, ukernel_i64)
MC_UKERNEL(uint16_t, ukernel_u16)
MC_UKERNEL(uint32_t, ukernel_u32)
MC_UKERNEL(uint64_t, ukernel_u64)
#undef MC_UKERNEL

// op(A)[M x K] and op(B)[K x N] read through the transpose flags.
template <class T>
struct Operands {
  bool ta, tb;
  int64_t M, N, K;
  const T* A;
  const T* B;
  T a(int64_t i, int64_t k) const { return ta ? A[k * M + i] : A[i * K + k]; }
  T b(int64_t k, int64_t j) const { return tb ? B[j * K + k] : B[k * N + j]; }
};

// Rows [i0, i0 + mc) x cols [k0, k0 + kc) of op(A), as MR-tall strips, zero padded.
template <class T, class Acc>
void pack_a(const Operands<T>& op, int64_t i0, int64_t mc, int64_t k0, int64_t kc, Acc* pa) {
  for (int64_t p = 0; p * kMR < mc; ++p) {
    Acc* dst = pa + p * kc * kMR;
    for (int64_t ii = 0; ii < kMR; ++ii) {
      const int64_t i = p * kMR + ii;
      if (i >= mc) {
        for (int64_t k = 0; k < kc; ++k) dst[k * kMR + ii] = Acc(0);
      } else if (op.ta) {
        const T* src = op.A + k0 * op.M + i0 + i;
        for (int64_t k = 0; k < kc; ++k) dst[k * kMR + ii] = widen<Acc>(src[k * op.M]);
      } else {
        const T* src = op.A + (i0 + i) * op.K + k0;
        for (int64_t k = 0; k < kc; ++k) dst[k * kMR + ii] = widen<Acc>(src[k]);
      }
    }
  }
}

// Strip q (NR columns from j0 + q * NR) of rows [k0, k0 + kc) of op(B), zero padded.
template <class T, class Acc>
void pack_b_strip(const Operands<T>& op, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int64_t q,
                  Acc* pb) {
  constexpr int64_t NR = kNR<Acc>;
  Acc* dst = pb + q * kc * NR;
  const int64_t jb = q * NR, w = std::min(NR, nc - jb);
  for (int64_t k = 0; k < kc; ++k) {
    Acc* d = dst + k * NR;
    for (int64_t jj = 0; jj < w; ++jj) d[jj] = widen<Acc>(op.b(k0 + k, j0 + jb + jj));
    for (int64_t jj = w; jj < NR; ++jj) d[jj] = Acc(0);
  }
}

// Small products, no blocking: op(B) widened into a [K x N] buffer, then each row of C
// accumulates a(i, k) * B[k, :] over k (vectorised across the row).
template <class T>
[[gnu::always_inline]] inline void gemm_small(const Operands<T>& op, T* C) {
  using Acc = gemm_acc_t<T>;
  const int64_t M = op.M, N = op.N, K = op.K;
  thread_local std::vector<Acc> buf;
  buf.resize(static_cast<size_t>((K + 1) * N));
  Acc* __restrict pb = buf.data();
  Acc* __restrict acc = pb + K * N;
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < N; ++j) pb[k * N + j] = widen<Acc>(op.b(k, j));
  }
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) acc[j] = Acc(0);
    for (int64_t k = 0; k < K; ++k) {
      const Acc a = widen<Acc>(op.a(i, k));
      const Acc* b = pb + k * N;
      for (int64_t j = 0; j < N; ++j) acc[j] += a * b[j];
    }
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = narrow<T, Acc>(acc[j]);
  }
}

template <class T>
struct Small;
#define MC_SMALL(T, NAME)                                                    \
  MC_CLONES void NAME(const Operands<T>& op, T* C) { gemm_small<T>(op, C); } \
  template <>                                                                \
  struct Small<T> {                                                          \
    static void run(const Operands<T>& op, T* C) { NAME(op, C); }            \
  };
MC_SMALL(double, small_f64)
MC_SMALL(int8_t, small_i8)
MC_SMALL(uint8_t, small_u8)
MC_SMALL(int16_t, small_i16)
MC_SMALL(int32_t, small_i32)
MC_SMALL(int64_t, small_i64)
MC_SMALL(uint16_t, small_u16)
MC_SMALL(uint32_t, small_u32)
MC_SMALL(uint64_t, small_u64)
#undef MC_SMALL

// Products up to this many multiply-adds take gemm_small.
constexpr int64_t kSmallDirect = int64_t{1} << 14;

template <class T>
void gemm_blocked(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C) {
  using Acc = gemm_acc_t<T>;
  constexpr int64_t NR = kNR<Acc>;
  if (M == 0 || N == 0) return;
  const Operands<T> op{ta, tb, M, N, K, A, B};
  if (M * N * K <= kSmallDirect) {
    Small<T>::run(op, C);
    return;
  }
  // One parallel region: tasks are [mc x nc] blocks of C; each packs its own panels of B
  // (kc x nc) and A (mc x kc) for every kc step, so the threads never wait on each other.
  const int64_t ntm = ceil_div(M, kMC), ntn = ceil_div(N, kNC);
  const int64_t task_work = std::min(kMC, M) * std::min(kNC, N) * K;
  parallel_for(0, ntm * ntn, std::max<int64_t>(1, 65536 / task_work), [&](int64_t b, int64_t e) {
    Scratch abuf(static_cast<size_t>(kMC * std::min(kKC, K)) * sizeof(Acc));
    Scratch bbuf(static_cast<size_t>(std::min(kKC, K) * ceil_div(std::min(kNC, N), NR) * NR) *
                 sizeof(Acc));
    Acc* pa = abuf.as<Acc>();
    Acc* pb = bbuf.as<Acc>();
    for (int64_t t = b; t < e; ++t) {
      const int64_t i0 = (t / ntn) * kMC, mc = std::min(kMC, M - i0);
      const int64_t jc = (t % ntn) * kNC, nc = std::min(kNC, N - jc);
      for (int64_t pc = 0; pc < K; pc += kKC) {
        const int64_t kc = std::min(kKC, K - pc);
        for (int64_t q = 0; q * NR < nc; ++q) pack_b_strip(op, pc, kc, jc, nc, q, pb);
        pack_a(op, i0, mc, pc, kc, pa);
        for (int64_t j = 0; j < nc; j += NR) {
          const int64_t nr = std::min(NR, nc - j);
          for (int64_t i = 0; i < mc; i += kMR) {
            Micro<T>::run(kc, pa + (i / kMR) * kc * kMR, pb + (j / NR) * kc * NR,
                          C + (i0 + i) * N + jc + j, N, std::min(kMR, mc - i), nr, pc == 0);
          }
        }
      }
    }
  });
}

// ---- batches ---------------------------------------------------------------------------

// Element offsets of each batch's x1 and x2 matrices, broadcast dims reading offset 0.
struct Batches {
  int64_t count = 1;
  std::vector<int64_t> off_a, off_b;
  bool b_shared = true;  // every batch reads the same x2
  bool a_full = true;    // x1 has every batch dim unbroadcast
};

Batches plan_batches(const Shape& a, const Shape& b, const Shape& y) {
  const size_t nb = y.size() - 2;
  Batches p;
  for (size_t i = 0; i < nb; ++i) p.count *= y[i];
  p.off_a.assign(static_cast<size_t>(p.count), 0);
  p.off_b.assign(static_cast<size_t>(p.count), 0);
  auto strides = [&](const Shape& s, bool* all_bcast, bool* full) {
    std::vector<int64_t> st(nb, 0);
    int64_t acc = s[s.size() - 1] * s[s.size() - 2];
    for (size_t i = nb; i-- > 0;) {
      const size_t src = i + s.size() - 2;
      if (src < nb) {
        *full &= y[i] == 1;
        continue;
      }
      const int64_t d = s[src - nb];
      if (d != 1) st[i] = acc;
      *all_bcast &= d == 1 || y[i] == 1;
      *full &= d == y[i];
      acc *= d;
    }
    return st;
  };
  bool a_bcast = true, b_full = true;
  std::vector<int64_t> sa = strides(a, &a_bcast, &p.a_full);
  std::vector<int64_t> sb = strides(b, &p.b_shared, &b_full);
  for (int64_t t = 0; t < p.count; ++t) {
    int64_t rest = t, oa = 0, ob = 0;
    for (size_t i = nb; i-- > 0;) {
      const int64_t idx = rest % y[i];
      rest /= y[i];
      oa += idx * sa[i];
      ob += idx * sb[i];
    }
    p.off_a[static_cast<size_t>(t)] = oa;
    p.off_b[static_cast<size_t>(t)] = ob;
  }
  return p;
}

// Runs gemm(A_t, B_t, C_t) for every batch with the strategy of the header comment.
template <class T, class Gemm>
void run_batches(const KernelContext& ctx, const T* A, const T* B, T* C, const Gemm& gemm) {
  const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  const Shape& ys = ctx.out[0].shape();
  const Shape& as = ctx.in[0].shape();
  const int64_t M = ys[ys.size() - 2], N = ys[ys.size() - 1];
  const int64_t K = as[as.size() - (ta ? 2 : 1)];
  if (ys.size() == 2) {
    gemm(ta, tb, M, N, K, A, B, C);
    return;
  }
  const Batches p = plan_batches(as, ctx.in[1].shape(), ys);
  if (p.count == 0 || M == 0 || N == 0) return;
  if (p.b_shared && p.a_full && !ta) {
    gemm(false, tb, p.count * M, N, K, A, B + p.off_b[0], C);
    return;
  }
  auto one = [&](int64_t t) {
    gemm(ta, tb, M, N, K, A + p.off_a[static_cast<size_t>(t)], B + p.off_b[static_cast<size_t>(t)],
         C + t * M * N);
  };
  const int64_t work = std::max<int64_t>(1, M * N * std::max<int64_t>(K, 1));
  if (work < kSmallGemm || p.count >= 4 * num_threads()) {
    parallel_for(0, p.count, std::max<int64_t>(1, kSmallGemm / 8 / work),
                 [&](int64_t b, int64_t e) {
                   for (int64_t t = b; t < e; ++t) one(t);
                 });
  } else {
    for (int64_t t = 0; t < p.count; ++t) one(t);
  }
}

// ---- oneDNN's matmul primitive: float32 batches of small matrices, all of bfloat16 ------

// Batches whose products have fewer multiply-adds than this go to the matmul primitive: one
// call for all of them beats one sgemm call each (2-8x at 8^3..32^3, single-threaded).
constexpr int64_t kPrimitiveGemm = int64_t{1} << 16;
constexpr size_t kPrimitiveMaxBatchDims = 4;

using dnn_t = dnnl::memory::data_type;

// The logical [batch..., rows, cols] view of a stored operand of shape s (its last two dims
// swapped when `trans`), batch dims padded to nb with leading 1s.
dnnl::memory::desc operand_desc(const Shape& s, bool trans, size_t nb, dnn_t type) {
  const Shape st = contiguous_strides(s);
  const size_t r = s.size();
  dnnl::memory::dims dims(nb + 2, 1), strides(nb + 2, 0);
  for (size_t i = 0; i < nb; ++i) {
    const size_t src = i + r - 2;  // index into s when >= nb
    if (src >= nb) {
      dims[i] = s[src - nb];
      strides[i] = st[src - nb];
    } else {
      strides[i] = numel(s);
    }
  }
  dims[nb] = s[r - (trans ? 1 : 2)];
  dims[nb + 1] = s[r - (trans ? 2 : 1)];
  strides[nb] = trans ? 1 : s[r - 1];
  strides[nb + 1] = trans ? s[r - 1] : 1;
  return dnnl::memory::desc(dims, type, strides);
}

// The primitive for one configuration (null when oneDNN cannot run it), cached in
// dnnl_util's primitive cache like the convolutions: building one costs more than running a
// small batch. Keyed by every shape and flag it depends on, the dtype and the thread count.
struct BatchedMatmul {
  dnnl_util::Prim prim;
  dnnl::memory::desc a, b, y;
};

std::shared_ptr<BatchedMatmul> make_batched(const Shape& as, const Shape& bs, const Shape& ys,
                                            bool ta, bool tb, dnn_t type) {
  auto p = std::make_shared<BatchedMatmul>();
  const size_t nb = ys.size() - 2;
  try {
    p->a = operand_desc(as, ta, nb, type);
    p->b = operand_desc(bs, tb, nb, type);
    const Shape yst = contiguous_strides(ys);
    p->y = dnnl::memory::desc(dnnl::memory::dims(ys.begin(), ys.end()), type,
                              dnnl::memory::dims(yst.begin(), yst.end()));
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b, p->y), dnnl_util::attr(),
                                    dnnl_util::engine());
    p->prim = dnnl_util::make_prim<dnnl::matmul>(pd);
  } catch (const dnnl::error&) {
    p->prim = dnnl_util::Prim();
  }
  return p;
}

dnnl_util::Key batched_key(const Shape& as, const Shape& bs, const Shape& ys, bool ta, bool tb,
                           dnn_t type) {
  dnnl_util::Key key{dnnl_util::kTagMatmul,
                     static_cast<int64_t>(type),
                     ta,
                     tb,
                     omp_get_max_threads(),
                     static_cast<int64_t>(as.size()),
                     static_cast<int64_t>(bs.size())};
  for (const Shape* s : {&as, &bs, &ys}) key.insert(key.end(), s->begin(), s->end());
  return key;
}

// Runs the whole product (every batch) as one primitive on operands of `type`; false (nothing
// written) when oneDNN has no implementation for it.
bool run_primitive(const KernelContext& ctx, dnn_t type, const void* A, const void* B, void* C) {
  const Shape& as = ctx.in[0].shape();
  const Shape& bs = ctx.in[1].shape();
  const Shape& ys = ctx.out[0].shape();
  const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  int64_t work = as[as.size() - (ta ? 2 : 1)];
  for (int64_t d : ys) work *= d;
  SerialBelow serial(work);
  std::shared_ptr<BatchedMatmul> p =
      dnnl_util::cached<BatchedMatmul>(batched_key(as, bs, ys, ta, tb, type),
                                       [&] { return make_batched(as, bs, ys, ta, tb, type); });
  if (!p->prim) return false;
  dnnl::engine& eng = dnnl_util::engine();
  dnnl::stream& s = dnnl_util::stream();
  dnnl::memory am(p->a, eng, const_cast<void*>(A)), bm(p->b, eng, const_cast<void*>(B));
  dnnl::memory ym(p->y, eng, C);
  std::vector<dnnl_util::Scratch> keep;
  p->prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, ym}}, &keep);
  s.wait();
  return true;
}

// float32 batches of small products as one primitive; false (nothing written) when it does not
// apply.
bool batched_primitive(const KernelContext& ctx, const float* A, const float* B, float* C) {
  const Shape& as = ctx.in[0].shape();
  const Shape& ys = ctx.out[0].shape();
  const size_t nb = ys.size() - 2;
  const int64_t M = ys[nb], N = ys[nb + 1];
  const int64_t K = as[as.size() - (ctx.attrs.get_bool("transpose_a") ? 2 : 1)];
  int64_t count = 1;
  for (size_t i = 0; i < nb; ++i) count *= ys[i];
  if (nb == 0 || nb > kPrimitiveMaxBatchDims || K == 0 || M * N * K >= kPrimitiveGemm ||
      count < 2) {
    return false;
  }
  return run_primitive(ctx, dnn_t::f32, A, B, C);
}

// bfloat16 products on oneDNN's bf16 matmul (AVX-512 BF16 / AMX, float32 accumulation, the
// result rounded once): about twice float32's speed. False when it does not apply (K = 0,
// more batch dims than the primitive takes, no implementation).
bool bf16_primitive(const KernelContext& ctx) {
  const Shape& as = ctx.in[0].shape();
  const size_t nb = ctx.out[0].ndim() - 2;
  const int64_t K = as[as.size() - (ctx.attrs.get_bool("transpose_a") ? 2 : 1)];
  if (K == 0 || nb > kPrimitiveMaxBatchDims) return false;
  return run_primitive(ctx, dnn_t::bf16, ctx.in[0].raw_data(), ctx.in[1].raw_data(),
                       ctx.out[0].raw_data());
}

// ---- BiasAdd ---------------------------------------------------------------------------

// bfloat16: one pass in registers (widen, add the float bias, round to nearest even) in
// vectorised clones; rows [r0, r1) of `len` elements, with the bias running along a row
// (I == 1: rows of the C channels) or one bias value per row (rows of I elements).
MC_EW_CLONES void bias_rows_bf16(const bfloat16* x, const float* bias, bfloat16* y, int64_t r0,
                                 int64_t r1, int64_t len, int64_t C, bool along) {
  for (int64_t r = r0; r < r1; ++r) {
    const bfloat16* xr = x + r * len;
    bfloat16* yr = y + r * len;
    if (along) {
      for (int64_t k = 0; k < len; ++k) yr[k] = bfloat16(static_cast<float>(xr[k]) + bias[k]);
    } else {
      const float bv = bias[r % C];
      for (int64_t k = 0; k < len; ++k) yr[k] = bfloat16(static_cast<float>(xr[k]) + bv);
    }
  }
}

void bias_add_bf16(const bfloat16* x, const bfloat16* b, bfloat16* y, int64_t O, int64_t C,
                   int64_t I) {
  std::vector<float> bias(static_cast<size_t>(C));
  ew::bf16_to_f32(b, 1, bias.data(), C);
  const int64_t rows = I == 1 ? O : O * C, len = I == 1 ? C : I;
  parallel_for(
      0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(len, 1)),
      [&](int64_t lo, int64_t hi) { bias_rows_bf16(x, bias.data(), y, lo, hi, len, C, I == 1); });
}

template <class T>
void bias_add(const T* x, const T* b, T* y, int64_t O, int64_t C, int64_t I) {
  using Cm = compute_t<T>;
  if constexpr (std::is_same_v<T, bfloat16>) {
    bias_add_bf16(x, b, y, O, C, I);
    return;
  }
  if (I == 1) {
    parallel_for(0, O, std::max<int64_t>(1, 32768 / std::max<int64_t>(C, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t o = lo; o < hi; ++o) {
                     const T* xr = x + o * C;
                     T* yr = y + o * C;
                     for (int64_t c = 0; c < C; ++c)
                       yr[c] = T(static_cast<Cm>(cpu::load_as<Cm>(xr[c]) + cpu::load_as<Cm>(b[c])));
                   }
                 });
    return;
  }
  parallel_for(0, O * C, std::max<int64_t>(1, 32768 / I), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const Cm bv = cpu::load_as<Cm>(b[r % C]);
      const T* xr = x + r * I;
      T* yr = y + r * I;
      for (int64_t i = 0; i < I; ++i) yr[i] = T(static_cast<Cm>(cpu::load_as<Cm>(xr[i]) + bv));
    }
  });
}

// x + b over complex64/complex128 (the layout of bias_add).
template <class T>
void bias_add_complex(const T* x, const T* b, T* y, int64_t O, int64_t C, int64_t I) {
  parallel_for(0, O * C, std::max<int64_t>(1, 16384 / std::max<int64_t>(I, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   const T bv = b[r % C];
                   for (int64_t i = 0; i < I; ++i) y[r * I + i] = x[r * I + i] + bv;
                 }
               });
}

}  // namespace

void cpu_matmul(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const DType dt = y.dtype();
  if (dt == DType::BFloat16 && bf16_primitive(ctx)) return;
  if (dt == DType::Float32 || dt == DType::Float16 || dt == DType::BFloat16) {
    const Tensor a = ctx.in[0].cast(DType::Float32), b = ctx.in[1].cast(DType::Float32);
    const Tensor c = dt == DType::Float32 ? y : Tensor::empty(y.shape(), DType::Float32);
    if (!batched_primitive(ctx, a.data<float>(), b.data<float>(), c.data<float>())) {
      run_batches(ctx, a.data<float>(), b.data<float>(), c.data<float>(), sgemm);
    }
    if (dt != DType::Float32) y.copy_from(c);
    return;
  }
  if (is_complex(dt)) {
    dispatch_complex(dt, ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_batches(ctx, ctx.in[0].data<T>(), ctx.in[1].data<T>(), y.data<T>(),
                  [](bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B,
                     T* C) { complex_gemm(ta, tb, M, N, K, A, B, C); });
    });
    return;
  }
  dispatch_number(dt, ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
      run_batches(ctx, ctx.in[0].data<T>(), ctx.in[1].data<T>(), y.data<T>(),
                  [](bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B,
                     T* C) { gemm_blocked<T>(ta, tb, M, N, K, A, B, C); });
    } else {
      MC_ASSERT(false, "unexpected dtype ", dt);
    }
  });
}

void cpu_bias_add(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t nd = x.ndim();
  const bool last = ctx.attrs.get_str("data_format") == "NHWC";
  const int64_t cdim = last ? nd - 1 : 1;
  int64_t O = 1, I = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < cdim)
      O *= x.dim(d);
    else if (d > cdim)
      I *= x.dim(d);
  }
  if (y.numel() == 0) return;
  if (is_complex(x.dtype())) {
    dispatch_complex(x.dtype(), ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      bias_add_complex(x.data<T>(), ctx.in[1].data<T>(), y.data<T>(), O, x.dim(cdim), I);
    });
    return;
  }
  dispatch_number(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bias_add(x.data<T>(), ctx.in[1].data<T>(), y.data<T>(), O, x.dim(cdim), I);
  });
}

}  // namespace mycel
