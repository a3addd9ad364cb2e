// FFTN's gather, scatter and scale kernels (see fft_kernels.h): one thread per destination
// element, grid-stride loops.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/fft_kernels.h"

namespace mycel::cuda {

namespace {

// A complex number as two reals (std::complex<R>'s and cuFFT's layout).
template <class R>
struct alignas(2 * sizeof(R)) Cx {
  R re, im;
};

template <class R>
__device__ inline Cx<R> read(const R* p, int64_t j) {
  return {p[j], R(0)};
}
template <class R>
__device__ inline Cx<R> read(const Cx<R>* p, int64_t j) {
  return p[j];
}
template <class R>
__device__ inline void write(R* p, int64_t j, Cx<R> v) {
  p[j] = v.re;
}
template <class R>
__device__ inline void write(Cx<R>* p, int64_t j, Cx<R> v) {
  p[j] = v;
}

template <class R, class In, class Out>
__global__ void gather_kernel(const In* src, Out* dst, int64_t total, int64_t m, int64_t inner,
                              int64_t take, int64_t len, bool conj, int64_t z0, int64_t z1) {
  MC_CUDA_KERNEL_LOOP(j, total) {
    const int64_t k = j % len, l = j / len;
    const int64_t o = l / inner, i = l % inner;
    Cx<R> v{R(0), R(0)};
    if (k < take) v = read(src, (o * m + k) * inner + i);
    if (conj) v.im = -v.im;
    if (k == z0 || k == z1) v.im = R(0);
    write(dst, j, v);
  }
}

template <class R, class T>
__global__ void scatter_kernel(const T* src, T* dst, int64_t total, int64_t n_out, int64_t inner,
                               R scale, bool conj) {
  MC_CUDA_KERNEL_LOOP(j, total) {  // j indexes dst [outer, n_out, inner]
    const int64_t i = j % inner, k = (j / inner) % n_out, o = j / (inner * n_out);
    Cx<R> v = read(src, (o * inner + i) * n_out + k);
    v.re *= scale;
    v.im = conj ? -v.im * scale : v.im * scale;
    write(dst, j, v);
  }
}

template <class R, class T>
__global__ void scale_kernel(T* x, int64_t n, R scale, bool conj) {
  MC_CUDA_KERNEL_LOOP(j, n) {
    Cx<R> v = read(static_cast<const T*>(x), j);
    v.re *= scale;
    v.im = conj ? -v.im * scale : v.im * scale;
    write(x, j, v);
  }
}

template <class R, class In, class Out>
void gather_typed(const void* src, void* dst, int64_t outer, int64_t m, int64_t inner, int64_t take,
                  int64_t len, bool conj, int64_t z0, int64_t z1, cudaStream_t s) {
  const int64_t total = outer * inner * len;
  gather_kernel<R><<<grid_for(total), 256, 0, s>>>(static_cast<const In*>(src),
                                                   static_cast<Out*>(dst), total, m, inner, take,
                                                   len, conj, z0, z1);
}

template <class R>
void gather_precision(bool in_complex, bool out_complex, const void* src, void* dst, int64_t outer,
                      int64_t m, int64_t inner, int64_t take, int64_t len, bool conj, int64_t z0,
                      int64_t z1, cudaStream_t s) {
  if (in_complex && out_complex)
    gather_typed<R, Cx<R>, Cx<R>>(src, dst, outer, m, inner, take, len, conj, z0, z1, s);
  else if (in_complex)
    gather_typed<R, Cx<R>, R>(src, dst, outer, m, inner, take, len, conj, z0, z1, s);
  else if (out_complex)
    gather_typed<R, R, Cx<R>>(src, dst, outer, m, inner, take, len, conj, z0, z1, s);
  else
    gather_typed<R, R, R>(src, dst, outer, m, inner, take, len, conj, z0, z1, s);
}

template <class R>
void scatter_precision(bool complex, const void* src, void* dst, int64_t outer, int64_t n_out,
                       int64_t inner, double scale, bool conj, cudaStream_t s) {
  const int64_t total = outer * n_out * inner;
  if (complex)
    scatter_kernel<R><<<grid_for(total), 256, 0, s>>>(static_cast<const Cx<R>*>(src),
                                                      static_cast<Cx<R>*>(dst), total, n_out, inner,
                                                      static_cast<R>(scale), conj);
  else
    scatter_kernel<R><<<grid_for(total), 256, 0, s>>>(static_cast<const R*>(src),
                                                      static_cast<R*>(dst), total, n_out, inner,
                                                      static_cast<R>(scale), conj);
}

template <class R>
void scale_precision(bool complex, void* x, int64_t n, double scale, bool conj, cudaStream_t s) {
  if (complex)
    scale_kernel<R>
        <<<grid_for(n), 256, 0, s>>>(static_cast<Cx<R>*>(x), n, static_cast<R>(scale), conj);
  else
    scale_kernel<R><<<grid_for(n), 256, 0, s>>>(static_cast<R*>(x), n, static_cast<R>(scale), conj);
}

}  // namespace

void launch_fft_gather(bool dbl, bool in_complex, bool out_complex, const void* src, void* dst,
                       int64_t outer, int64_t m, int64_t inner, int64_t take, int64_t len,
                       bool conj, int64_t zero_imag_at0, int64_t zero_imag_at1,
                       cudaStream_t stream) {
  if (outer * inner * len == 0) return;
  if (dbl)
    gather_precision<double>(in_complex, out_complex, src, dst, outer, m, inner, take, len, conj,
                             zero_imag_at0, zero_imag_at1, stream);
  else
    gather_precision<float>(in_complex, out_complex, src, dst, outer, m, inner, take, len, conj,
                            zero_imag_at0, zero_imag_at1, stream);
}

void launch_fft_scatter(bool dbl, bool complex, const void* src, void* dst, int64_t outer,
                        int64_t n_out, int64_t inner, double scale, bool conj,
                        cudaStream_t stream) {
  if (outer * n_out * inner == 0) return;
  if (dbl)
    scatter_precision<double>(complex, src, dst, outer, n_out, inner, scale, conj, stream);
  else
    scatter_precision<float>(complex, src, dst, outer, n_out, inner, scale, conj, stream);
}

void launch_fft_scale(bool dbl, bool complex, void* x, int64_t n, double scale, bool conj,
                      cudaStream_t stream) {
  if (n == 0) return;
  if (dbl)
    scale_precision<double>(complex, x, n, scale, conj, stream);
  else
    scale_precision<float>(complex, x, n, scale, conj, stream);
}

}  // namespace mycel::cuda
