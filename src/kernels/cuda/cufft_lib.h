// libcufft, loaded with dlopen at first use rather than linked: the library is large (about
// 300 MB), a GPU machine may lack it on its library path, and a missing linked library would
// stop the whole extension from loading. cufft.h gives the types; the few functions FFTN
// needs (kernels/cuda/fft.cc) are resolved with dlsym. Where the library (libcufft.so.12, the
// CUDA 13 one, or libcufft.so) is not found, or lacks one of them, cufft() is nullptr, one
// line on stderr says so, and FFTN runs on host copies (the CUDA dtype rule, cuda_table.cc,
// sends it there).
//
// Host code (g++).
#pragma once

#include <cufft.h>

namespace mycel::cuda {

struct CufftApi {
  decltype(&cufftCreate) create;
  decltype(&cufftDestroy) destroy;
  decltype(&cufftSetAutoAllocation) set_auto_allocation;
  decltype(&cufftMakePlanMany64) make_plan_many64;
  decltype(&cufftSetWorkArea) set_work_area;
  decltype(&cufftSetStream) set_stream;
  decltype(&cufftExecC2C) exec_c2c;
  decltype(&cufftExecZ2Z) exec_z2z;
  decltype(&cufftExecR2C) exec_r2c;
  decltype(&cufftExecD2Z) exec_d2z;
  decltype(&cufftExecC2R) exec_c2r;
  decltype(&cufftExecZ2D) exec_z2d;
};

// The functions, loaded on the first call (thread-safe); nullptr where libcufft is absent.
const CufftApi* cufft();

// Throws mycel::Error(Runtime) "cuFFT error in <what>: <status name> (<code>)" unless ok.
void check_cufft(cufftResult r, const char* what);
#define MC_CUFFT_CHECK(call) ::mycel::cuda::check_cufft((call), #call)

}  // namespace mycel::cuda
