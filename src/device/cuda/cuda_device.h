// The CUDA device behind tensor/device.h's DeviceBackend (MindSpore's "GPU").
//
//   - one compute stream per device (non-blocking): every kernel and copy is queued on it,
//     so work is ordered without host synchronisation; the host waits only in copy_d2h,
//     synchronize() and item()/asnumpy() (which go through copy_d2h), after which the
//     after-sync hook reports errors the device recorded (set_after_sync);
//   - a caching allocator per device (cuda_allocator.cc): freed blocks go back to size-class
//     free lists and are reused by later work on the same stream without a sync (stream
//     order makes that safe); cudaMalloc only on a miss, and on out-of-memory the cache is
//     emptied and the allocation retried once;
//   - host->device copies through pinned staging buffers (cudaMemcpyAsync from pageable
//     memory is synchronous and slow); device->host copies into pinned staging, then memcpy.
//
// Everything here is host code compiled by the C++ compiler against the CUDA runtime API;
// device code lives in .cu files beside it and in kernels/cuda/. Errors become
// mycel::Error(Runtime) naming the call and CUDA's message.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "device/cuda/strided_desc.h"  // grid_for, Strided
#include "tensor/device.h"

namespace mycel::cuda {

// The backend object (created on first call; never destroyed: CUDA may already be torn
// down at exit). Its device_count() is 0 when there is no driver or no GPU.
DeviceBackend& cuda_backend();

// Throws mycel::Error(Runtime) "CUDA error in <what>: <cudaGetErrorString>" unless ok.
void check(cudaError_t err, const char* what);
#define MC_CUDA_CHECK(call) ::mycel::cuda::check((call), #call)
// After a kernel launch: reports a launch error (bad configuration) at once.
#define MC_CUDA_LAUNCH_CHECK() ::mycel::cuda::check(cudaGetLastError(), "kernel launch")

// The compute stream of device `index` (makes that device current on the calling thread).
cudaStream_t stream(int index);

// A check run each time the host has waited for device `index` (copy_d2h, synchronize), once
// the work queued before has finished: the layer above installs one (kernels/cuda's
// install_cuda: the index errors its kernels recorded on the device, array_index.h), which
// may throw. Layering keeps that state above this one; nullptr (the default) for none.
using AfterSyncHook = void (*)(int index);
void set_after_sync(AfterSyncHook hook);

// Scratch memory on a device from the caching allocator, released (to the cache) when it
// goes out of scope; safe to release while kernels using it are still queued on stream().
class Buffer {
 public:
  Buffer(int index, size_t nbytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  int index_;
  size_t n_;
  void* p_;
};

}  // namespace mycel::cuda
