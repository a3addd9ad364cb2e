// Launchers of FFTN's own device code (fft_kernels.cu); the cuFFT calls are in fft.cc. Plain
// pointers and sizes: nvcc never sees a mycel tensor.
//
// A pass of FFTN transforms the lines of one axis: the tensor seen as [outer, m, inner] (the
// axis of length m in the middle). cuFFT transforms contiguous lines, so a pass gathers them
// into a [outer * inner, len] buffer first and scatters the result back into
// [outer, n_out, inner] (either step is skipped where the layout already is the lines').
// `dbl` selects the precision (double / complex<double>, else float / complex<float>); a
// complex element is two reals, the real part first (std::complex's and cuFFT's layout).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// dst[l, k] (l = o * inner + i, k < len) = src[o, k, i] for k < take, 0 beyond: the line
// zero-padded or truncated to len. in_complex / out_complex: the element types (a real input
// has imaginary part 0; a real output, r2c's buffer, keeps the real part). conj negates the
// imaginary part; zero_imag_at: the bins whose imaginary part is dropped (c2r's DC bin, and
// its Nyquist bin for an even length; -1 for none).
void launch_fft_gather(bool dbl, bool in_complex, bool out_complex, const void* src, void* dst,
                       int64_t outer, int64_t m, int64_t inner, int64_t take, int64_t len,
                       bool conj, int64_t zero_imag_at0, int64_t zero_imag_at1,
                       cudaStream_t stream);

// dst[o, k, i] = scale * src[l, k] (l = o * inner + i, k < n_out), conj negating the
// imaginary part; complex: both are complex, else both real.
void launch_fft_scatter(bool dbl, bool complex, const void* src, void* dst, int64_t outer,
                        int64_t n_out, int64_t inner, double scale, bool conj, cudaStream_t stream);

// x[j] = scale * x[j] for j < n (conj: the conjugate); n complex elements if complex, else
// real ones.
void launch_fft_scale(bool dbl, bool complex, void* x, int64_t n, double scale, bool conj,
                      cudaStream_t stream);

}  // namespace mycel::cuda
