// CumSum/CumProd, Sort and TopK on the device (semantics and layout in scan_sort.h).
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>

#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/scan_sort.h"
#include "kernels/cuda/sort_util.cuh"

namespace mycel::cuda {

namespace {

constexpr int kThreads = 256;

// ---- CumSum / CumProd -------------------------------------------------------------------

// The CPU's accumulator: double for the floats, uint64 (wrapping) for integers and bool.
template <class T>
using cum_acc_t =
    std::conditional_t<std::is_floating_point_v<acc_t<T>>, double, unsigned long long>;
template <class T>
using cum_out_t = std::conditional_t<std::is_same_v<T, bool>, int64_t, T>;

// The CPU's store_as: through float for the 16-bit floats; integers keep the low bits.
template <class Out, class A>
__device__ inline Out cum_store(A v) {
  if constexpr (is_half_v<Out>)
    return cast_to<Out>(static_cast<float>(v));
  else
    return static_cast<Out>(v);
}

template <bool kProd, class T>
__global__ void cum_kernel(const T* x, cum_out_t<T>* y, int64_t R, int64_t I, int64_t lines,
                           bool exclusive, bool reverse) {
  using A = cum_acc_t<T>;
  using Out = cum_out_t<T>;
  MC_CUDA_KERNEL_LOOP(line, lines) {
    const int64_t o = line / I, i = line % I;
    const T* xl = x + o * R * I + i;
    Out* yl = y + o * R * I + i;
    A acc = kProd ? A(1) : A(0);
    for (int64_t step = 0; step < R; ++step) {
      const int64_t r = reverse ? R - 1 - step : step;
      const A v = static_cast<A>(load(xl[r * I]));
      const A next = kProd ? A(acc * v) : A(acc + v);
      yl[r * I] = cum_store<Out>(exclusive ? acc : next);
      acc = next;
    }
  }
}

// ---- sort keys (sort_util.cuh) ------------------------------------------------------

// keys[e], ids[e] of element e = line * R + r of the [lines, R] pair arrays, line = o * I + i:
// the key of x[o, r, i] (complemented for descending) and r.
template <class T>
__global__ void keys_kernel(const T* x, sort_key_t<T>* keys, int32_t* ids, int64_t R, int64_t I,
                            int64_t n, bool descending) {
  MC_CUDA_KERNEL_LOOP(e, n) {
    const int64_t line = e / R, r = e % R;
    const int64_t o = line / I, i = line % I;
    const sort_key_t<T> k = sort_key(x[(o * R + r) * I + i]);
    keys[e] = descending ? static_cast<sort_key_t<T>>(~k) : k;
    ids[e] = static_cast<int32_t>(r);
  }
}

// off[l] = l * len for l in [0, segments].
__global__ void offsets_kernel(int* off, int64_t segments, int64_t len) {
  MC_CUDA_KERNEL_LOOP(l, segments + 1) off[l] = static_cast<int>(l * len);
}

// The sorted pairs back in x's layout: vals[o, r, i] = x[o, p, i], idx[o, r, i] = p.
template <class T>
__global__ void sort_scatter_kernel(const T* x, const int32_t* ids, T* vals, int32_t* idx,
                                    int64_t R, int64_t I, int64_t n) {
  MC_CUDA_KERNEL_LOOP(e, n) {
    const int64_t line = e / R, r = e % R;
    const int64_t o = line / I, i = line % I;
    const int32_t p = ids[e];
    vals[(o * R + r) * I + i] = x[(o * R + p) * I + i];
    idx[(o * R + r) * I + i] = p;
  }
}

// TopK: the first k of each sorted row of n. pick[e] (e = row * k + j) is either the index
// in x's row directly (ids of the sorted pairs) or, unsorted, after an index sort (sel).
__global__ void first_k_kernel(const int32_t* ids, uint32_t* sel, int64_t n, int64_t k,
                               int64_t total) {
  MC_CUDA_KERNEL_LOOP(e, total) {
    const int64_t row = e / k, j = e % k;
    sel[e] = static_cast<uint32_t>(ids[row * n + j]);
  }
}

template <class T, class P>
__global__ void topk_gather_kernel(const T* x, const P* pick, int64_t pick_stride, T* vals,
                                   int32_t* idx, int64_t n, int64_t k, int64_t total) {
  MC_CUDA_KERNEL_LOOP(e, total) {
    const int64_t row = e / k, j = e % k;
    const int32_t p = static_cast<int32_t>(pick[row * pick_stride + j]);
    vals[e] = x[row * n + p];
    idx[e] = p;
  }
}

// ---- scratch ----------------------------------------------------------------------------

// The arrays of one segmented pair sort of n items in `segments` rows.
template <class U>
struct SortArrays {
  U* keys_in;
  U* keys_out;
  int32_t* ids_in;
  int32_t* ids_out;
  int* off;
  SortArrays(Carve& c, int64_t n, int64_t segments)
      : keys_in(c.take<U>(static_cast<size_t>(n))),
        keys_out(c.take<U>(static_cast<size_t>(n))),
        ids_in(c.take<int32_t>(static_cast<size_t>(n))),
        ids_out(c.take<int32_t>(static_cast<size_t>(n))),
        off(c.take<int>(static_cast<size_t>(segments + 1))) {}
};

template <class U>
size_t pairs_temp_bytes(int64_t n, int64_t segments) {
  size_t bytes = 0;
  const int* off = nullptr;
  cub::DeviceSegmentedRadixSort::SortPairs(
      nullptr, bytes, static_cast<const U*>(nullptr), static_cast<U*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), static_cast<int>(n),
      static_cast<int>(segments), off, off + 1);
  return bytes;
}

size_t keys_temp_bytes(int64_t n, int64_t segments) {
  size_t bytes = 0;
  const int* off = nullptr;
  cub::DeviceSegmentedRadixSort::SortKeys(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), static_cast<int>(n),
                                          static_cast<int>(segments), off, off + 1);
  return bytes;
}

// Sort's scratch: the pairs, and CUB's temporary storage for sorting them.
template <class U>
struct SortScratch {
  SortArrays<U> a;
  size_t temp_bytes;  // not const: CUB takes it by reference
  void* temp;
  SortScratch(Carve& c, int64_t n, int64_t segments)
      : a(c, n, segments),
        temp_bytes(pairs_temp_bytes<U>(n, segments)),
        temp(c.take<char>(temp_bytes)) {}
};

// TopK's scratch: the pairs of the row sort, the k indices of each row before and after the
// index sort (unsorted TopK), and CUB's temporary storage for the larger of the two sorts.
template <class U>
struct TopkScratch {
  SortArrays<U> a;
  uint32_t* sel_in;
  uint32_t* sel_out;
  size_t temp_bytes;
  void* temp;
  TopkScratch(Carve& c, int64_t rows, int64_t n, int64_t k)
      : a(c, rows * n, rows),
        sel_in(c.take<uint32_t>(static_cast<size_t>(rows * k))),
        sel_out(c.take<uint32_t>(static_cast<size_t>(rows * k))),
        temp_bytes(std::max(pairs_temp_bytes<U>(rows * n, rows), keys_temp_bytes(rows * k, rows))),
        temp(c.take<char>(temp_bytes)) {}
};

// Sorts the (key, id) pairs of `segments` rows of len each, stably by key; the sorted ids
// end in a.ids_out. The keys and ids are already in a.keys_in / a.ids_in.
template <class U>
cudaError_t sort_pairs(SortArrays<U>& a, int64_t segments, int64_t len, void* temp,
                       size_t temp_bytes, cudaStream_t s) {
  const int64_t n = segments * len;
  offsets_kernel<<<grid_for(segments + 1, kThreads), kThreads, 0, s>>>(a.off, segments, len);
  return cub::DeviceSegmentedRadixSort::SortPairs(
      temp, temp_bytes, a.keys_in, a.keys_out, a.ids_in, a.ids_out, static_cast<int>(n),
      static_cast<int>(segments), a.off, a.off + 1, 0, static_cast<int>(8 * sizeof(U)), s);
}

}  // namespace

void launch_cum(bool prod, int code, const void* x, void* y, int64_t O, int64_t R, int64_t I,
                bool exclusive, bool reverse, cudaStream_t s) {
  const int64_t lines = O * I;
  if (lines == 0 || R == 0) return;
  dispatch_code(code, [&](auto v) {
    using T = decltype(v);
    const T* xp = static_cast<const T*>(x);
    cum_out_t<T>* yp = static_cast<cum_out_t<T>*>(y);
    if (prod)
      cum_kernel<true, T>
          <<<grid_for(lines, kThreads), kThreads, 0, s>>>(xp, yp, R, I, lines, exclusive, reverse);
    else
      cum_kernel<false, T>
          <<<grid_for(lines, kThreads), kThreads, 0, s>>>(xp, yp, R, I, lines, exclusive, reverse);
  });
}

size_t sort_scratch_bytes(int code, int64_t O, int64_t R, int64_t I) {
  const int64_t segments = O * I, n = segments * R;
  size_t bytes = 0;
  dispatch_code(code, [&](auto v) {
    Carve c(nullptr);
    const SortScratch<sort_key_t<decltype(v)>> sc(c, n, segments);  // carves, counting
    (void)sc;
    bytes = c.used();
  });
  return bytes;
}

cudaError_t launch_sort(int code, const void* x, void* vals, int32_t* idx, int64_t O, int64_t R,
                        int64_t I, bool descending, void* scratch, size_t scratch_bytes,
                        cudaStream_t s) {
  const int64_t segments = O * I, n = segments * R;
  cudaError_t err = cudaSuccess;
  if (n == 0) return err;
  dispatch_code(code, [&](auto v) {
    using T = decltype(v);
    Carve c(scratch);
    SortScratch<sort_key_t<T>> sc(c, n, segments);
    if (c.used() > scratch_bytes) {  // not sized by sort_scratch_bytes
      err = cudaErrorInvalidValue;
      return;
    }
    const T* xp = static_cast<const T*>(x);
    keys_kernel<T><<<grid_for(n, kThreads), kThreads, 0, s>>>(xp, sc.a.keys_in, sc.a.ids_in, R, I,
                                                              n, descending);
    err = sort_pairs(sc.a, segments, R, sc.temp, sc.temp_bytes, s);
    if (err != cudaSuccess) return;
    sort_scatter_kernel<T><<<grid_for(n, kThreads), kThreads, 0, s>>>(
        xp, sc.a.ids_out, static_cast<T*>(vals), idx, R, I, n);
  });
  return err;
}

size_t topk_scratch_bytes(int code, int64_t rows, int64_t n, int64_t k) {
  size_t bytes = 0;
  dispatch_code(code, [&](auto v) {
    Carve c(nullptr);
    const TopkScratch<sort_key_t<decltype(v)>> sc(c, rows, n, k);  // carves, counting
    (void)sc;
    bytes = c.used();
  });
  return bytes;
}

cudaError_t launch_topk(int code, const void* x, void* vals, int32_t* idx, int64_t rows, int64_t n,
                        int64_t k, bool sorted, void* scratch, size_t scratch_bytes,
                        cudaStream_t s) {
  const int64_t total = rows * k;
  cudaError_t err = cudaSuccess;
  if (total == 0) return err;
  dispatch_code(code, [&](auto v) {
    using T = decltype(v);
    Carve c(scratch);
    TopkScratch<sort_key_t<T>> sc(c, rows, n, k);
    if (c.used() > scratch_bytes) {  // not sized by topk_scratch_bytes
      err = cudaErrorInvalidValue;
      return;
    }
    const T* xp = static_cast<const T*>(x);
    T* vp = static_cast<T*>(vals);
    const unsigned g = grid_for(total, kThreads);
    // Descending keys; the stable sort keeps equal values in ascending index order.
    keys_kernel<T><<<grid_for(rows * n, kThreads), kThreads, 0, s>>>(xp, sc.a.keys_in, sc.a.ids_in,
                                                                     n, 1, rows * n, true);
    err = sort_pairs(sc.a, rows, n, sc.temp, sc.temp_bytes, s);
    if (err != cudaSuccess) return;
    if (sorted) {
      topk_gather_kernel<T, int32_t>
          <<<g, kThreads, 0, s>>>(xp, sc.a.ids_out, n, vp, idx, n, k, total);
      return;
    }
    // In index order: sort each row's k indices (the offsets array reused for k per row).
    first_k_kernel<<<g, kThreads, 0, s>>>(sc.a.ids_out, sc.sel_in, n, k, total);
    offsets_kernel<<<grid_for(rows + 1, kThreads), kThreads, 0, s>>>(sc.a.off, rows, k);
    err = cub::DeviceSegmentedRadixSort::SortKeys(sc.temp, sc.temp_bytes, sc.sel_in, sc.sel_out,
                                                  static_cast<int>(total), static_cast<int>(rows),
                                                  sc.a.off, sc.a.off + 1, 0, 32, s);
    if (err != cudaSuccess) return;
    topk_gather_kernel<T, uint32_t><<<g, kThreads, 0, s>>>(xp, sc.sel_out, k, vp, idx, n, k, total);
  });
  return err;
}

}  // namespace mycel::cuda
