#include "device/cuda/cuda_allocator.h"

#include <cuda_runtime.h>

#include <bit>

#include "base/error.h"
#include "device/cuda/cuda_device.h"

namespace mycel::cuda {

size_t DeviceAllocator::round_size(size_t n) {
  if (n <= (1u << 20)) return (n + 511) & ~size_t{511};
  // Four classes per power of two: at most 25% slack.
  size_t p = std::bit_floor(n);
  size_t q = p / 4;
  return (n + q - 1) / q * q;
}

void* DeviceAllocator::allocate(size_t nbytes) {
  size_t n = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(n);
  void* p = nullptr;
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.cached -= static_cast<int64_t>(n);
  } else {
    MC_CUDA_CHECK(cudaSetDevice(index_));
    cudaError_t err = cudaMalloc(&p, n);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it, give the cache back and try once more
      free_cached_locked();
      err = cudaMalloc(&p, n);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      MC_THROW(Runtime, "out of memory on GPU:", index_, ": tried to allocate ", nbytes,
               " bytes; ", stats_.in_use, " bytes in use by tensors, ", free_b, " of ",
               total_b, " bytes free on the device.");
    }
    check(err, "cudaMalloc");
  }
  stats_.in_use += static_cast<int64_t>(n);
  if (stats_.in_use > stats_.peak_in_use) stats_.peak_in_use = stats_.in_use;
  return p;
}

void DeviceAllocator::release(void* p, size_t nbytes) {
  size_t n = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  free_[n].push_back(p);
  stats_.in_use -= static_cast<int64_t>(n);
  stats_.cached += static_cast<int64_t>(n);
}

void DeviceAllocator::free_cached_locked() {
  cudaSetDevice(index_);
  cudaDeviceSynchronize();  // blocks may still be read by queued kernels
  for (auto& [n, blocks] : free_) {
    for (void* p : blocks) cudaFree(p);
    stats_.cached -= static_cast<int64_t>(n * blocks.size());
    blocks.clear();
  }
  free_.clear();
}

void DeviceAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  free_cached_locked();
}

AllocatorStats DeviceAllocator::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void DeviceAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_in_use = stats_.in_use;
}

}  // namespace mycel::cuda
