// The array family's indexing kernels on the device (launchers and contracts in
// array_index.h; semantics of kernels/cpu/array_index.cc and array_concat.cc's Range).
// One thread per output (or update) element; scatters with atomics, whose order makes float
// sums differ from the CPU's sequential ones in the last bits only.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/array_index.h"
#include "kernels/cuda/dispatch_bits.cuh"

namespace mycel::cuda {

namespace {

constexpr int kThreads = 256;

template <class F>
void dispatch_idx(bool idx64, F&& f) {
  if (idx64)
    f(int64_t{});
  else
    f(int32_t{});
}

// Records a bad index (any one of them when several threads find one).
__device__ inline void flag_index(int64_t* err, int op, int64_t v) {
  volatile int64_t* e = err;
  e[1] = v;
  e[0] = 1 + op;
}

// ---- moves ----------------------------------------------------------------------------

template <class U, class Ix>
__global__ void gather_kernel(const U* p, const Ix* ix, U* out, int64_t outer, int64_t n,
                              int64_t k, int64_t inner, int64_t total, int64_t* err, int op) {
  MC_CUDA_KERNEL_LOOP(e, total) {
    const int64_t r = e / inner, q = e % inner;
    const int64_t b = r / (outer * k), rem = r % (outer * k), oi = rem / k, ki = rem % k;
    int64_t i = static_cast<int64_t>(ix[b * k + ki]);
    if (i < -n || i >= n) {
      if (q == 0) flag_index(err, op, i);
      out[e] = U(0);
      continue;
    }
    if (i < 0) i += n;
    out[e] = p[((b * outer + oi) * n + i) * inner + q];
  }
}

// The data offset of index element e (without the index along d.dim), and its index, or
// false (flagged) when out of range.
template <class Ix>
__device__ inline bool dim_offset(const DimIndexDesc& d, const Ix* ix, int64_t e, int64_t* off,
                                  int64_t* err, int op) {
  int64_t rest = e, o = 0;
  for (int a = d.ndim - 1; a >= 0; --a) {
    const int64_t c = rest % d.shape[a];
    rest /= d.shape[a];
    if (a != d.dim) o += c * d.xstride[a];
  }
  int64_t i = static_cast<int64_t>(ix[e]);
  if (i < -d.n || i >= d.n) {
    flag_index(err, op, i);
    return false;
  }
  if (i < 0) i += d.n;
  *off = o + i * d.xstride[d.dim];
  return true;
}

template <class U, class Ix>
__global__ void gather_d_kernel(const U* x, const Ix* ix, U* out, DimIndexDesc d, int64_t count,
                                int64_t* err, int op) {
  MC_CUDA_KERNEL_LOOP(e, count) {
    int64_t off;
    out[e] = dim_offset(d, ix, e, &off, err, op) ? x[off] : U(0);
  }
}

__global__ void scatter_update_owner(const int64_t* offs, unsigned long long* owner, int64_t rows,
                                     int64_t cols) {
  MC_CUDA_KERNEL_LOOP(m, rows) {
    if (offs[m] >= 0) atomicMax(owner + offs[m] / cols, static_cast<unsigned long long>(m + 1));
  }
}

template <class U>
__global__ void scatter_update_kernel(const int64_t* offs, const U* up, U* out,
                                      const unsigned long long* owner, int64_t rows,
                                      int64_t cols) {
  MC_CUDA_KERNEL_LOOP(e, rows * cols) {
    const int64_t m = e / cols, c = e % cols;
    const int64_t off = offs[m];
    if (off >= 0 && owner[off / cols] == static_cast<unsigned long long>(m + 1))
      out[off + c] = up[e];
  }
}

template <class U, class Ix>
__global__ void one_hot_kernel(const Ix* ix, U* out, int64_t depth, int64_t inner, int64_t total,
                               U on, U off) {
  MC_CUDA_KERNEL_LOOP(e, total) {
    const int64_t ii = e % inner, t = e / inner, dd = t % depth, oi = t / depth;
    out[e] = static_cast<int64_t>(ix[oi * inner + ii]) == dd ? on : off;
  }
}

template <class Ix>
__global__ void nd_offsets_kernel(const Ix* ix, int64_t* offs, NdDesc d, int64_t rows,
                                  int64_t* err, int op) {
  MC_CUDA_KERNEL_LOOP(m, rows) {
    int64_t off = 0;
    for (int k = 0; k < d.k; ++k) {
      const int64_t v = static_cast<int64_t>(ix[m * d.k + k]);
      if (v < 0 || v >= d.shape[k]) {
        flag_index(err, op, v);
        off = -1;
        break;
      }
      off += v * d.stride[k];
    }
    offs[m] = off;
  }
}

// ---- sums -----------------------------------------------------------------------------

// The accumulator of a sum of T (array_index.h).
template <class T>
using sum_acc_t = std::conditional_t<
    std::is_floating_point_v<acc_t<T>>, acc_t<T>,
    std::conditional_t<sizeof(T) == 8, unsigned long long, int>>;

template <class T>
__device__ inline void acc_add(sum_acc_t<T>* p, T v) {
  using A = sum_acc_t<T>;
  if constexpr (std::is_same_v<T, bool>)
    atomicOr(p, v ? 1 : 0);
  else
    atomicAdd(p, static_cast<A>(load(v)));
}

template <class T>
__global__ void finish_kernel(const sum_acc_t<T>* acc, T* out, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) out[i] = cast_to<T>(acc[i]);
}

template <class T, class Ix>
__global__ void gather_d_grad_kernel(const Ix* ix, const T* dout, sum_acc_t<T>* acc,
                                     DimIndexDesc d, int64_t count, int64_t* err, int op) {
  MC_CUDA_KERNEL_LOOP(e, count) {
    int64_t off;
    if (dim_offset(d, ix, e, &off, err, op)) acc_add(acc + off, dout[e]);
  }
}

template <class T, class Ix>
__global__ void segment_sum_kernel(const T* x, const Ix* ids, sum_acc_t<T>* acc, int64_t rows,
                                   int64_t cols, int64_t segs) {
  MC_CUDA_KERNEL_LOOP(e, rows * cols) {
    const int64_t m = e / cols, c = e % cols;
    const int64_t s = static_cast<int64_t>(ids[m]);
    if (s >= 0 && s < segs) acc_add(acc + s * cols + c, x[e]);
  }
}

template <class T>
__global__ void scatter_add_kernel(const int64_t* offs, const T* up, sum_acc_t<T>* acc,
                                   int64_t rows, int64_t cols) {
  MC_CUDA_KERNEL_LOOP(e, rows * cols) {
    const int64_t off = offs[e / cols];
    if (off >= 0) acc_add(acc + off + e % cols, up[e]);
  }
}

template <class T>
__global__ void range_kernel(T* out, int64_t n, double start, double delta) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    const double v = __dadd_rn(start, __dmul_rn(static_cast<double>(i), delta));  // no FMA
    if constexpr (is_half_v<T>)
      out[i] = cast_to<T>(static_cast<float>(v));
    else
      out[i] = static_cast<T>(v);
  }
}

}  // namespace

void launch_gather(int isize, const void* params, const void* idx, bool idx64, void* out,
                   int64_t batch, int64_t outer, int64_t n, int64_t k, int64_t inner,
                   int64_t* err, int op, cudaStream_t s) {
  const int64_t total = batch * outer * k * inner;
  if (total == 0) return;
  dispatch_bits(isize, [&](auto u) {
    using U = decltype(u);
    dispatch_idx(idx64, [&](auto iv) {
      using Ix = decltype(iv);
      gather_kernel<U, Ix><<<grid_for(total), kThreads, 0, s>>>(
          static_cast<const U*>(params), static_cast<const Ix*>(idx), static_cast<U*>(out), outer,
          n, k, inner, total, err, op);
    });
  });
}

void launch_gather_d(int isize, const void* x, const void* idx, bool idx64, void* out,
                     const DimIndexDesc& d, int64_t count, int64_t* err, int op, cudaStream_t s) {
  if (count == 0) return;
  dispatch_bits(isize, [&](auto u) {
    using U = decltype(u);
    dispatch_idx(idx64, [&](auto iv) {
      using Ix = decltype(iv);
      gather_d_kernel<U, Ix><<<grid_for(count), kThreads, 0, s>>>(
          static_cast<const U*>(x), static_cast<const Ix*>(idx), static_cast<U*>(out), d, count,
          err, op);
    });
  });
}

size_t accum_size(int code) {
  size_t n = 0;
  dispatch_code(code, [&](auto tv) { n = sizeof(sum_acc_t<decltype(tv)>); });
  return n;
}

void finish_accum(int code, const void* acc, void* out, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    finish_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const sum_acc_t<T>*>(acc),
                                                      static_cast<T*>(out), n);
  });
}

void launch_gather_d_grad(int code, const void* idx, bool idx64, const void* dout, void* acc,
                          const DimIndexDesc& d, int64_t count, int64_t* err, int op,
                          cudaStream_t s) {
  if (count == 0) return;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    dispatch_idx(idx64, [&](auto iv) {
      using Ix = decltype(iv);
      gather_d_grad_kernel<T, Ix><<<grid_for(count), kThreads, 0, s>>>(
          static_cast<const Ix*>(idx), static_cast<const T*>(dout),
          static_cast<sum_acc_t<T>*>(acc), d, count, err, op);
    });
  });
}

void launch_segment_sum(int code, const void* x, const void* ids, bool idx64, void* acc,
                        int64_t rows, int64_t cols, int64_t segs, cudaStream_t s) {
  if (rows * cols == 0) return;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    dispatch_idx(idx64, [&](auto iv) {
      using Ix = decltype(iv);
      segment_sum_kernel<T, Ix><<<grid_for(rows * cols), kThreads, 0, s>>>(
          static_cast<const T*>(x), static_cast<const Ix*>(ids), static_cast<sum_acc_t<T>*>(acc),
          rows, cols, segs);
    });
  });
}

void launch_nd_offsets(const void* idx, bool idx64, int64_t* offs, const NdDesc& d, int64_t rows,
                       int64_t* err, int op, cudaStream_t s) {
  if (rows == 0) return;
  dispatch_idx(idx64, [&](auto iv) {
    using Ix = decltype(iv);
    nd_offsets_kernel<Ix><<<grid_for(rows), kThreads, 0, s>>>(static_cast<const Ix*>(idx), offs,
                                                              d, rows, err, op);
  });
}

void launch_scatter_add(int code, const int64_t* offs, const void* updates, void* acc,
                        int64_t rows, int64_t cols, cudaStream_t s) {
  if (rows * cols == 0) return;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    scatter_add_kernel<T><<<grid_for(rows * cols), kThreads, 0, s>>>(
        offs, static_cast<const T*>(updates), static_cast<sum_acc_t<T>*>(acc), rows, cols);
  });
}

void launch_scatter_update(int isize, const int64_t* offs, const void* updates, void* out,
                           unsigned long long* owner, int64_t rows, int64_t cols,
                           cudaStream_t s) {
  if (rows * cols == 0) return;
  dispatch_bits(isize, [&](auto u) {
    using U = decltype(u);
    scatter_update_owner<<<grid_for(rows), kThreads, 0, s>>>(offs, owner, rows, cols);
    scatter_update_kernel<U><<<grid_for(rows * cols), kThreads, 0, s>>>(
        offs, static_cast<const U*>(updates), static_cast<U*>(out), owner, rows, cols);
  });
}

void launch_one_hot(int isize, int idx_code, const void* idx, void* out, int64_t outer,
                    int64_t depth, int64_t inner, uint64_t on, uint64_t off, cudaStream_t s) {
  const int64_t total = outer * depth * inner;
  if (total == 0) return;
  dispatch_bits(isize, [&](auto u) {
    using U = decltype(u);
    auto run = [&](auto iv) {
      using Ix = decltype(iv);
      one_hot_kernel<U, Ix><<<grid_for(total), kThreads, 0, s>>>(
          static_cast<const Ix*>(idx), static_cast<U*>(out), depth, inner, total,
          static_cast<U>(on), static_cast<U>(off));
    };
    switch (idx_code) {
      case kInt8: run(int8_t{}); break;
      case kUInt8: run(uint8_t{}); break;
      case kInt16: run(int16_t{}); break;
      case kInt32: run(int32_t{}); break;
      default: run(int64_t{}); break;
    }
  });
}

void launch_range(int code, void* out, int64_t n, double start, double delta, cudaStream_t s) {
  if (n == 0) return;
  dispatch_code(code, [&](auto tv) {
    using T = decltype(tv);
    if constexpr (!std::is_same_v<T, bool>) {
      range_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(out), n, start, delta);
    }
  });
}

}  // namespace mycel::cuda
