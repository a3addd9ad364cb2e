// NonZero, MaskedSelect, MaskedScatter and Unique on the device (array_select.h).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/array_select.h"
#include "kernels/cuda/dispatch_bits.cuh"
#include "kernels/cuda/sort_util.cuh"

namespace mycel::cuda {

namespace {

constexpr int kThreads = 256;

// ---- NonZero / MaskedSelect / MaskedScatter ---------------------------------------------

// The flags and their exclusive sum (the output slot of each selected element).
struct SelectScratch {
  int64_t* flag;
  int64_t* pos;
  size_t temp_bytes = 0;
  void* temp;
  SelectScratch(Carve& c, int64_t n)
      : flag(c.take<int64_t>(static_cast<size_t>(n))),
        pos(c.take<int64_t>(static_cast<size_t>(n))) {
    cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, static_cast<const int64_t*>(nullptr),
                                  static_cast<int64_t*>(nullptr), n);
    temp = c.take<char>(temp_bytes);
  }
};

// flag[i] = x[i] != 0, tested as the CPU does (compute type: float for the 16-bit floats).
template <class T>
__global__ void flag_kernel(const T* x, int64_t* flag, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) flag[i] = load(x[i]) != acc_t<T>(0) ? 1 : 0;
}

__global__ void last_sum_kernel(const int64_t* flag, const int64_t* pos, int64_t n,
                                int64_t* count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = n == 0 ? 0 : pos[n - 1] + flag[n - 1];
}

// dims: x's shape (ndim entries, device memory); each nonzero element's multi-index goes to
// its row of out.
__global__ void non_zero_kernel(const int64_t* flag, const int64_t* pos, const int64_t* dims,
                                int ndim, int64_t n, int64_t* out) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    if (flag[i] == 0) continue;
    int64_t* row = out + pos[i] * ndim;
    int64_t rest = i;
    for (int k = ndim - 1; k >= 0; --k) {
      row[k] = rest % dims[k];
      rest /= dims[k];
    }
  }
}

template <class U>
__global__ void masked_select_kernel(const U* x, const int64_t* flag, const int64_t* pos, int64_t n,
                                     U* out) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    if (flag[i] != 0) out[pos[i]] = x[i];
  }
}

template <class U>
__global__ void masked_scatter_kernel(const U* x, const U* src, const int64_t* flag,
                                      const int64_t* pos, int64_t n, U* out) {
  MC_CUDA_KERNEL_LOOP(i, n) out[i] = flag[i] != 0 ? src[pos[i]] : x[i];
}

// ---- Unique -----------------------------------------------------------------------------

template <class U>
struct UniqueScratch {
  U* keys_in;
  U* keys_out;
  int32_t* ids_in;
  int32_t* order;   // positions in sorted order
  int32_t* head;    // 1 where a group starts (by rank)
  int32_t* gid;     // inclusive sum of head: 1 + the group of each rank
  uint32_t* first;  // each group's first position
  uint32_t* first_sorted;
  int32_t* g_in;  // group numbers, sorted by first position into g_out
  int32_t* g_out;
  int32_t* start;  // each group's first rank
  int32_t* slot;   // each group's output slot
  size_t temp_bytes = 0;
  void* temp;
  UniqueScratch(Carve& c, int64_t n) {
    const size_t m = static_cast<size_t>(n);
    keys_in = c.take<U>(m);
    keys_out = c.take<U>(m);
    ids_in = c.take<int32_t>(m);
    order = c.take<int32_t>(m);
    head = c.take<int32_t>(m);
    gid = c.take<int32_t>(m);
    first = c.take<uint32_t>(m);
    first_sorted = c.take<uint32_t>(m);
    g_in = c.take<int32_t>(m);
    g_out = c.take<int32_t>(m);
    start = c.take<int32_t>(m);
    slot = c.take<int32_t>(m);
    size_t a = 0, b = 0, d = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, a, static_cast<const U*>(nullptr),
                                    static_cast<U*>(nullptr), static_cast<const int32_t*>(nullptr),
                                    static_cast<int32_t*>(nullptr), n);
    cub::DeviceRadixSort::SortPairs(
        nullptr, b, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
        static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), n);
    cub::DeviceScan::InclusiveSum(nullptr, d, static_cast<const int32_t*>(nullptr),
                                  static_cast<int32_t*>(nullptr), n);
    temp_bytes = std::max(a, std::max(b, d));
    temp = c.take<char>(temp_bytes);
  }
};

template <class T>
__global__ void unique_keys_kernel(const T* x, sort_key_t<T>* keys, int32_t* ids, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    keys[i] = sort_key(x[i]);
    ids[i] = static_cast<int32_t>(i);
  }
}

// A group starts at rank 0, where the key changes, and at each NaN (the all-ones key of a
// float type, which no other float value has).
template <class U>
__global__ void unique_head_kernel(const U* keys, int32_t* head, int64_t n, bool nan_apart) {
  MC_CUDA_KERNEL_LOOP(r, n) {
    const U k = keys[r];
    head[r] = (r == 0 || k != keys[r - 1] || (nan_apart && k == static_cast<U>(~U(0)))) ? 1 : 0;
  }
}

__global__ void unique_count_kernel(const int32_t* gid, int64_t n, int64_t* groups) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *groups = gid[n - 1];
}

__global__ void unique_group_kernel(const int32_t* head, const int32_t* gid, const int32_t* order,
                                    uint32_t* first, int32_t* start, int32_t* g_in, int64_t n) {
  MC_CUDA_KERNEL_LOOP(r, n) {
    if (head[r] == 0) continue;
    const int32_t g = gid[r] - 1;
    first[g] = static_cast<uint32_t>(order[r]);
    start[g] = static_cast<int32_t>(r);
    g_in[g] = g;
  }
}

// slot[g] = g (sorted), or slot[g_out[s]] = s (by first position).
__global__ void unique_slot_kernel(const int32_t* g_out, int32_t* slot, int64_t groups,
                                   bool sorted) {
  MC_CUDA_KERNEL_LOOP(s, groups) {
    if (sorted)
      slot[s] = static_cast<int32_t>(s);
    else
      slot[g_out[s]] = static_cast<int32_t>(s);
  }
}

template <class T, class I>
__global__ void unique_values_kernel(const T* x, const uint32_t* first, const int32_t* start,
                                     const int32_t* slot, int64_t n, int64_t groups, T* y,
                                     I* counts) {
  MC_CUDA_KERNEL_LOOP(g, groups) {
    const int32_t s = slot[g];
    const int64_t end = g + 1 < groups ? start[g + 1] : n;
    y[s] = x[first[g]];
    counts[s] = static_cast<I>(end - start[g]);
  }
}

template <class I>
__global__ void unique_inverse_kernel(const int32_t* order, const int32_t* gid, const int32_t* slot,
                                      int64_t n, I* idx) {
  MC_CUDA_KERNEL_LOOP(r, n) idx[order[r]] = static_cast<I>(slot[gid[r] - 1]);
}

}  // namespace

size_t select_scratch_bytes(int64_t n) {
  Carve c(nullptr);
  const SelectScratch sc(c, n);  // carves, counting
  (void)sc;
  return c.used();
}

cudaError_t launch_select_count(int code, const void* x, int64_t n, int64_t* count, void* scratch,
                                size_t scratch_bytes, cudaStream_t s) {
  Carve c(scratch);
  SelectScratch sc(c, n);
  if (c.used() > scratch_bytes) return cudaErrorInvalidValue;  // not select_scratch_bytes
  cudaError_t err = cudaSuccess;
  if (n > 0) {
    dispatch_code(code, [&](auto v) {
      using T = decltype(v);
      flag_kernel<T>
          <<<grid_for(n, kThreads), kThreads, 0, s>>>(static_cast<const T*>(x), sc.flag, n);
    });
    err = cub::DeviceScan::ExclusiveSum(sc.temp, sc.temp_bytes, sc.flag, sc.pos, n, s);
    if (err != cudaSuccess) return err;
  }
  last_sum_kernel<<<1, 1, 0, s>>>(sc.flag, sc.pos, n, count);
  return cudaGetLastError();
}

void launch_non_zero_write(int64_t n, const int64_t* dims, int ndim, int64_t* out,
                           const void* scratch, cudaStream_t s) {
  if (n == 0) return;
  Carve c(const_cast<void*>(scratch));
  const SelectScratch sc(c, n);
  non_zero_kernel<<<grid_for(n, kThreads), kThreads, 0, s>>>(sc.flag, sc.pos, dims, ndim, n, out);
}

void launch_masked_select_write(int isize, const void* x, int64_t n, void* out, const void* scratch,
                                cudaStream_t s) {
  if (n == 0) return;
  Carve c(const_cast<void*>(scratch));
  const SelectScratch sc(c, n);
  dispatch_bits(isize, [&](auto v) {
    using U = decltype(v);
    masked_select_kernel<U><<<grid_for(n, kThreads), kThreads, 0, s>>>(
        static_cast<const U*>(x), sc.flag, sc.pos, n, static_cast<U*>(out));
  });
}

void launch_masked_scatter_write(int isize, const void* x, const void* src, int64_t n, void* out,
                                 const void* scratch, cudaStream_t s) {
  if (n == 0) return;
  Carve c(const_cast<void*>(scratch));
  const SelectScratch sc(c, n);
  dispatch_bits(isize, [&](auto v) {
    using U = decltype(v);
    masked_scatter_kernel<U><<<grid_for(n, kThreads), kThreads, 0, s>>>(
        static_cast<const U*>(x), static_cast<const U*>(src), sc.flag, sc.pos, n,
        static_cast<U*>(out));
  });
}

size_t unique_scratch_bytes(int code, int64_t n) {
  size_t bytes = 0;
  dispatch_code(code, [&](auto v) {
    Carve c(nullptr);
    const UniqueScratch<sort_key_t<decltype(v)>> sc(c, n);  // carves, counting
    (void)sc;
    bytes = c.used();
  });
  return bytes;
}

cudaError_t launch_unique_count(int code, const void* x, int64_t n, int64_t* groups, void* scratch,
                                size_t scratch_bytes, cudaStream_t s) {
  cudaError_t err = cudaSuccess;
  if (n == 0) return cudaErrorInvalidValue;  // the caller handles empty x
  dispatch_code(code, [&](auto v) {
    using T = decltype(v);
    using U = sort_key_t<T>;
    Carve c(scratch);
    UniqueScratch<U> sc(c, n);
    if (c.used() > scratch_bytes) {  // not sized by unique_scratch_bytes
      err = cudaErrorInvalidValue;
      return;
    }
    const unsigned g = grid_for(n, kThreads);
    unique_keys_kernel<T>
        <<<g, kThreads, 0, s>>>(static_cast<const T*>(x), sc.keys_in, sc.ids_in, n);
    err =
        cub::DeviceRadixSort::SortPairs(sc.temp, sc.temp_bytes, sc.keys_in, sc.keys_out, sc.ids_in,
                                        sc.order, n, 0, static_cast<int>(8 * sizeof(U)), s);
    if (err != cudaSuccess) return;
    unique_head_kernel<U><<<g, kThreads, 0, s>>>(sc.keys_out, sc.head, n, code >= kFloat16);
    err = cub::DeviceScan::InclusiveSum(sc.temp, sc.temp_bytes, sc.head, sc.gid, n, s);
    if (err != cudaSuccess) return;
    unique_count_kernel<<<1, 1, 0, s>>>(sc.gid, n, groups);
    err = cudaGetLastError();
  });
  return err;
}

cudaError_t launch_unique_write(int code, const void* x, int64_t n, int64_t groups, bool sorted,
                                bool idx64, void* y, void* idx, void* counts, void* scratch,
                                size_t scratch_bytes, cudaStream_t s) {
  cudaError_t err = cudaSuccess;
  if (n == 0) return err;
  dispatch_code(code, [&](auto v) {
    using T = decltype(v);
    Carve c(scratch);
    UniqueScratch<sort_key_t<T>> sc(c, n);
    if (c.used() > scratch_bytes) {
      err = cudaErrorInvalidValue;
      return;
    }
    const unsigned g = grid_for(n, kThreads), gk = grid_for(groups, kThreads);
    unique_group_kernel<<<g, kThreads, 0, s>>>(sc.head, sc.gid, sc.order, sc.first, sc.start,
                                               sc.g_in, n);
    if (!sorted) {
      // Distinct first positions: the sort only orders the groups by them. Its scratch was
      // sized for n items; groups <= n, checked rather than assumed.
      size_t need = 0;
      err = cub::DeviceRadixSort::SortPairs(nullptr, need, sc.first, sc.first_sorted, sc.g_in,
                                            sc.g_out, groups, 0, 32, s);
      if (err == cudaSuccess && need > sc.temp_bytes) err = cudaErrorInvalidValue;
      if (err != cudaSuccess) return;
      err = cub::DeviceRadixSort::SortPairs(sc.temp, sc.temp_bytes, sc.first, sc.first_sorted,
                                            sc.g_in, sc.g_out, groups, 0, 32, s);
      if (err != cudaSuccess) return;
    }
    unique_slot_kernel<<<gk, kThreads, 0, s>>>(sc.g_out, sc.slot, groups, sorted);
    const T* xp = static_cast<const T*>(x);
    auto finish = [&](auto itag) {
      using I = decltype(itag);
      unique_values_kernel<T, I><<<gk, kThreads, 0, s>>>(
          xp, sc.first, sc.start, sc.slot, n, groups, static_cast<T*>(y), static_cast<I*>(counts));
      unique_inverse_kernel<I>
          <<<g, kThreads, 0, s>>>(sc.order, sc.gid, sc.slot, n, static_cast<I*>(idx));
    };
    if (idx64)
      finish(int64_t{});
    else
      finish(int32_t{});
    err = cudaGetLastError();
  });
  return err;
}

}  // namespace mycel::cuda
