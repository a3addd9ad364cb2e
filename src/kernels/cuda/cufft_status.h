// Whether FFTN's CUDA kernel has cuFFT (kernels/cuda/cufft_lib.h loads libcufft with dlopen at
// first use; without it FFTN runs on host copies). Asking loads it, once. A header free of
// CUDA's, for the bindings (mycel._mycel._cufft_available) and the CPU tests.
#pragma once

namespace mycel::cuda {

bool cufft_available();

}  // namespace mycel::cuda
