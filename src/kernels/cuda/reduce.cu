// ReduceSum/Mean/Max/Min/Prod and Argmax/Argmin on the device (launchers in reduce.h).
//
// The semantics are those of the CPU kernels (kernels/cpu/reduce.cc):
//   - Sum and Prod accumulate floats (16-bit ones included) in double, integers and bools in
//     uint64 with wrap-around (equal to the exact result modulo the output width); Sum/Prod of
//     Bool give Int64; Mean divides the double sum by the count, then rounds through the
//     compute type (float for 16-bit floats) to the dtype;
//   - Max and Min compare in the compute type and propagate NaN (a NaN anywhere gives NaN);
//   - an empty reduction gives the identity (Sum 0, Prod 1, Mean 0/0 = NaN); infer rejects
//     empty Max/Min;
//   - Argmax/Argmin give the first index of the extreme, or of the first NaN.
// Only the order of the float additions differs from the CPU (in double, far below float32
// resolution; a float64 sum may differ in its last bits).
//
// Geometry: long rows get a block each (optionally G blocks per row whose partials are
// combined by a second pass when there are few rows), a shared-memory tree combining the
// threads' accumulators; many short rows get a thread each.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/reduce.h"

namespace mycel::cuda {

namespace {

constexpr int kThreads = 256;  // a power of two: the tree halves it

template <int K, class T>
struct RTypes {
  static constexpr bool kArith = K == kReduceSum || K == kReduceProd;
  using C = acc_t<T>;
  using A = std::conditional_t<kArith,
                               std::conditional_t<std::is_floating_point_v<C>, double,
                                                  unsigned long long>,
                               C>;
  using Out = std::conditional_t<kArith && std::is_same_v<T, bool>, int64_t, T>;
};

template <int K, class A>
__device__ inline A combine(A a, A v) {
  if constexpr (K == kReduceSum)
    return a + v;
  else if constexpr (K == kReduceProd)
    return a * v;
  else if constexpr (K == kReduceMax)
    return (v > a || v != v) ? v : a;
  else
    return (v < a || v != v) ? v : a;
}

template <int K, class A>
__device__ inline A identity() {
  if constexpr (K == kReduceSum)
    return A(0);
  else if constexpr (K == kReduceProd)
    return A(1);
  else if constexpr (std::is_floating_point_v<A>)
    return K == kReduceMax ? -std::numeric_limits<A>::infinity()
                           : std::numeric_limits<A>::infinity();
  else
    return K == kReduceMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

template <class A, class T>
__device__ inline A load_acc(T v) {
  return static_cast<A>(load(v));
}

template <class A, class Out>
__device__ inline Out finalize(A a, double count, bool mean) {
  if constexpr (std::is_same_v<A, double>) {
    const double v = mean ? a / count : a;
    if constexpr (is_half_v<Out>)
      return cast_to<Out>(static_cast<float>(v));
    else
      return static_cast<Out>(v);
  } else if constexpr (std::is_same_v<A, unsigned long long>) {
    return static_cast<Out>(static_cast<long long>(a));
  } else if constexpr (is_half_v<Out>) {
    return cast_to<Out>(a);  // a float max/min of 16-bit values: exact
  } else {
    return static_cast<Out>(a);
  }
}

// Block b of O*G: row o = b / G, its part g = b % G, rows [g*chunk, min(R, (g+1)*chunk)).
// kFinal: y is the output (finalised); else y is the partial accumulators [O, G].
template <int K, class T, class A, class Out, bool kFinal>
__global__ void reduce_rows(const T* x, Out* y, Strided<1> kept, Strided<1> red, int64_t O,
                            int64_t R, int64_t G, int64_t chunk, double count, bool mean) {
  __shared__ A sh[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t b = blockIdx.x; b < O * G; b += gridDim.x) {
    const int64_t o = b / G, g = b % G;
    int64_t base[1];
    kept.offsets(o, base);
    const int64_t r0 = g * chunk;
    const int64_t r1 = r0 + chunk < R ? r0 + chunk : R;
    A acc = identity<K, A>();
    for (int64_t r = r0 + tid; r < r1; r += kThreads) {
      int64_t off[1];
      red.offsets(r, off);
      acc = combine<K, A>(acc, load_acc<A>(x[base[0] + off[0]]));
    }
    sh[tid] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (tid < s) sh[tid] = combine<K, A>(sh[tid], sh[tid + s]);
      __syncthreads();
    }
    if (tid == 0) {
      if constexpr (kFinal)
        y[o] = finalize<A, Out>(sh[0], count, mean);
      else
        y[b] = sh[0];
    }
    __syncthreads();  // sh is reused by the next row
  }
}

// A thread per output row.
template <int K, class T, class A, class Out>
__global__ void reduce_per_thread(const T* x, Out* y, Strided<1> kept, Strided<1> red, int64_t O,
                                  int64_t R, double count, bool mean) {
  MC_CUDA_KERNEL_LOOP(o, O) {
    int64_t base[1];
    kept.offsets(o, base);
    A acc = identity<K, A>();
    for (int64_t r = 0; r < R; ++r) {
      int64_t off[1];
      red.offsets(r, off);
      acc = combine<K, A>(acc, load_acc<A>(x[base[0] + off[0]]));
    }
    y[o] = finalize<A, Out>(acc, count, mean);
  }
}

struct Plan {
  bool per_thread;
  int64_t G, chunk;
};

Plan plan(int64_t O, int64_t R) {
  Plan p{false, 1, R};
  if (R <= 16 || (O >= 1024 && R <= 256)) {
    p.per_thread = true;
    return p;
  }
  if (O < 1024) {
    int64_t g = (R + 16383) / 16384;  // parts of at least 16K elements
    const int64_t cap = 1024 / O > 1 ? 1024 / O : 1;
    p.G = g < cap ? g : cap;
    if (p.G < 1) p.G = 1;
    p.chunk = (R + p.G - 1) / p.G;
  }
  return p;
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(n < 65535LL * 16 ? (n > 0 ? n : 1) : 65535LL * 16);
}

template <int K, class T>
void run_reduce(bool mean, const T* x, void* yv, const Strided<1>& kept, const Strided<1>& red,
                int64_t O, int64_t R, void* scratch, cudaStream_t s) {
  using A = typename RTypes<K, T>::A;
  using Out = typename RTypes<K, T>::Out;
  Out* y = static_cast<Out*>(yv);
  const double count = static_cast<double>(R);
  const Plan p = plan(O, R);
  if (p.per_thread) {
    reduce_per_thread<K, T, A, Out><<<grid_for(O), kThreads, 0, s>>>(x, y, kept, red, O, R, count,
                                                                     mean);
    return;
  }
  if (p.G == 1) {
    reduce_rows<K, T, A, Out, true>
        <<<blocks_for(O), kThreads, 0, s>>>(x, y, kept, red, O, R, 1, R, count, mean);
    return;
  }
  A* part = static_cast<A*>(scratch);
  reduce_rows<K, T, A, A, false>
      <<<blocks_for(O * p.G), kThreads, 0, s>>>(x, part, kept, red, O, R, p.G, p.chunk, count, mean);
  // Second pass: part viewed as [O, G], reduced over G.
  Strided<1> k2, r2;
  k2.ndim = 1;
  k2.size[0] = O;
  k2.stride[0][0] = p.G;
  r2.ndim = 1;
  r2.size[0] = p.G;
  r2.stride[0][0] = 1;
  reduce_rows<K, A, A, Out, true>
      <<<blocks_for(O), kThreads, 0, s>>>(part, y, k2, r2, O, p.G, 1, p.G, count, mean);
}

// ---- Argmax / Argmin ----------------------------------------------------------------------

// Whether (v, i) replaces the best so far (bv, bi): a NaN wins (the first NaN), then the
// extreme, then the lower index on ties; bi < 0 means none yet.
template <class C>
__device__ inline bool takes(C v, int64_t i, C bv, int64_t bi, bool is_max) {
  if (bi < 0) return true;
  const bool vn = v != v, bn = bv != bv;
  if (bn) return vn && i < bi;
  if (vn) return true;
  if (is_max ? v > bv : v < bv) return true;
  return v == bv && i < bi;
}

template <class T, class Idx>
__global__ void arg_per_thread(const T* x, Idx* y, int64_t O, int64_t R, int64_t I,
                               bool is_max) {
  using C = acc_t<T>;
  MC_CUDA_KERNEL_LOOP(t, O * I) {
    const int64_t o = t / I, i = t % I;
    const T* p = x + o * R * I + i;
    C best = load(p[0]);
    int64_t bi = 0;
    for (int64_t r = 1; r < R; ++r) {
      const C v = load(p[r * I]);
      if (takes(v, r, best, bi, is_max)) {
        best = v;
        bi = r;
      }
    }
    y[t] = static_cast<Idx>(bi);
  }
}

template <class T, class Idx>
__global__ void arg_rows(const T* x, Idx* y, int64_t O, int64_t R, int64_t I, bool is_max) {
  using C = acc_t<T>;
  __shared__ C sv[kThreads];
  __shared__ int64_t si[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t t = blockIdx.x; t < O * I; t += gridDim.x) {
    const int64_t o = t / I, i = t % I;
    const T* p = x + o * R * I + i;
    C best = C(0);
    int64_t bi = -1;
    for (int64_t r = tid; r < R; r += kThreads) {
      const C v = load(p[r * I]);
      if (takes(v, r, best, bi, is_max)) {
        best = v;
        bi = r;
      }
    }
    sv[tid] = best;
    si[tid] = bi;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (tid < s && si[tid + s] >= 0 && takes(sv[tid + s], si[tid + s], sv[tid], si[tid], is_max)) {
        sv[tid] = sv[tid + s];
        si[tid] = si[tid + s];
      }
      __syncthreads();
    }
    if (tid == 0) y[t] = static_cast<Idx>(si[0]);
    __syncthreads();
  }
}

}  // namespace

size_t reduce_scratch_bytes(int, int, int64_t O, int64_t R) {
  const Plan p = plan(O, R);
  if (p.per_thread || p.G == 1) return 0;
  return static_cast<size_t>(O * p.G) * 8;  // every accumulator type is at most 8 bytes
}

void launch_reduce(int kind, bool mean, int code, const void* x, void* y, const Strided<1>& kept,
                   const Strided<1>& red, int64_t O, int64_t R, void* scratch,
                   cudaStream_t stream) {
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    const T* xs = static_cast<const T*>(x);
    switch (kind) {
      case kReduceSum:
        run_reduce<kReduceSum, T>(mean, xs, y, kept, red, O, R, scratch, stream);
        break;
      case kReduceProd:
        run_reduce<kReduceProd, T>(false, xs, y, kept, red, O, R, scratch, stream);
        break;
      case kReduceMax:
        run_reduce<kReduceMax, T>(false, xs, y, kept, red, O, R, scratch, stream);
        break;
      default:
        run_reduce<kReduceMin, T>(false, xs, y, kept, red, O, R, scratch, stream);
        break;
    }
  });
}

void launch_arg_reduce(bool is_max, int code, const void* x, void* y, bool idx64, int64_t O,
                       int64_t R, int64_t I, cudaStream_t stream) {
  const int64_t n = O * I;
  const bool rows = R >= 1024 && n < 2048;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    const T* xs = static_cast<const T*>(x);
    auto run = [&](auto* out) {
      using Idx = std::remove_pointer_t<decltype(out)>;
      if (rows)
        arg_rows<T, Idx><<<blocks_for(n), kThreads, 0, stream>>>(xs, out, O, R, I, is_max);
      else
        arg_per_thread<T, Idx><<<grid_for(n), kThreads, 0, stream>>>(xs, out, O, R, I, is_max);
    };
    if (idx64)
      run(static_cast<int64_t*>(y));
    else
      run(static_cast<int32_t*>(y));
  });
}

}  // namespace mycel::cuda
