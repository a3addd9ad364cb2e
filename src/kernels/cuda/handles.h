// Per-device library handles for the CUDA kernels of the linalg and nn families, and the
// checks that turn cuBLAS/cuDNN statuses into mycel errors.
//
//   - one cuBLASLt handle and one cuDNN handle per device, created on first use (creating
//     one costs milliseconds and allocates device memory) and never destroyed (CUDA may be
//     torn down at exit); cudnn(index) also binds the handle to the device's compute stream,
//     so every cuDNN call through it is queued in stream order;
//   - run_on_host(ctx): the dispatcher's fallback (the CPU kernel on host copies, results
//     copied back) for the few cases a CUDA kernel does not cover (a dtype or configuration
//     the library cannot run); it waits for the device, so it is for rare cases only.
//
// Host code (g++): includes the library headers, never seen by nvcc.
#pragma once

#include <cublasLt.h>
#include <cudnn.h>

#include "ops/op_table.h"

namespace mycel::cuda {

// Throw mycel::Error(Runtime) "<library> error in <what>: <status string>" unless ok.
void check_cublas(cublasStatus_t st, const char* what);
void check_cudnn(cudnnStatus_t st, const char* what);
#define MC_CUBLAS_CHECK(call) ::mycel::cuda::check_cublas((call), #call)
#define MC_CUDNN_CHECK(call) ::mycel::cuda::check_cudnn((call), #call)

// The handles of device `index` (that device made current on the calling thread).
cublasLtHandle_t cublaslt(int index);
cudnnHandle_t cudnn(int index);  // bound to stream(index)

// The op's CPU kernel on host copies of ctx's inputs; outputs (and F_INPLACE inputs) copied
// back to the device.
void run_on_host(const KernelContext& ctx);

}  // namespace mycel::cuda
