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

namespace {
// In a capture (global mode) cudaMalloc is an unsafe call that would invalidate it: this
// thread's mode is relaxed around the call. Safe here: the allocation is not part of the
// captured work, and the pool keeps the block as long as the graph that bakes its address.
struct RelaxedCapture {
  explicit RelaxedCapture(bool on) : on_(on) {
    if (on_) MC_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_));
  }
  ~RelaxedCapture() {
    if (on_) cudaThreadExchangeStreamCaptureMode(&mode_);  // back to the thread's mode
  }
  bool on_;
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// Device `index` current for cudaMalloc/cudaFree, the caller's device current again after:
// the device backend caches each thread's current device (cuda_device.cc's use_device), so
// the allocator must not leave another one current behind its back.
struct OnDevice {
  explicit OnDevice(int index) {
    if (cudaGetDevice(&prev_) != cudaSuccess) {
      cudaGetLastError();
      prev_ = -1;
    }
    if (prev_ != index) check(cudaSetDevice(index), "cudaSetDevice");
    index_ = index;
  }
  ~OnDevice() {
    if (prev_ >= 0 && prev_ != index_) cudaSetDevice(prev_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;
  int prev_ = -1, index_ = -1;
};
}  // namespace

void* DeviceAllocator::allocate(size_t nbytes) {
  size_t n = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  FreeLists& lists = active_ >= 0 ? pools_[active_].free : free_;
  auto it = lists.find(n);
  void* p = nullptr;
  if (it != lists.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.cached -= static_cast<int64_t>(n);
  } else {
    RelaxedCapture relaxed(active_ >= 0);
    OnDevice on(index_);
    cudaError_t err = cudaMalloc(&p, n);
    if (err == cudaErrorMemoryAllocation && active_ < 0) {
      cudaGetLastError();  // clear it, give the cache back and try once more
      free_cached_locked();
      err = cudaMalloc(&p, n);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      MC_THROW(Runtime, "out of memory on GPU:", index_, ": tried to allocate ", nbytes, " bytes; ",
               stats_.in_use, " bytes in use by tensors, ", free_b, " of ", total_b,
               " bytes free on the device.");
    }
    check(err, "cudaMalloc");
    if (active_ >= 0) pool_of_[p] = active_;
  }
  stats_.in_use += static_cast<int64_t>(n);
  if (stats_.in_use > stats_.peak_in_use) stats_.peak_in_use = stats_.in_use;
  return p;
}

void DeviceAllocator::release(void* p, size_t nbytes) {
  size_t n = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto owner = pool_of_.empty() ? pool_of_.end() : pool_of_.find(p);
  if (owner != pool_of_.end())
    pools_[owner->second].free[n].push_back(p);
  else
    free_[n].push_back(p);
  stats_.in_use -= static_cast<int64_t>(n);
  stats_.cached += static_cast<int64_t>(n);
}

void DeviceAllocator::free_cached_locked() {
  OnDevice on(index_);
  cudaDeviceSynchronize();  // blocks may still be read by queued kernels
  for (auto& [n, blocks] : free_) {
    for (void* p : blocks) cudaFree(p);
    stats_.cached -= static_cast<int64_t>(n * blocks.size());
    blocks.clear();
  }
  free_.clear();
}

int DeviceAllocator::begin_pool() {
  std::lock_guard<std::mutex> lock(mu_);
  MC_ASSERT(active_ < 0, "GPU:", index_, ": a capture pool is already active");
  active_ = next_pool_++;
  pools_[active_];
  return active_;
}

void DeviceAllocator::end_pool() {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = -1;
}

void DeviceAllocator::release_pool(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_ == id) active_ = -1;
  auto it = pools_.find(id);
  if (it == pools_.end()) return;
  // The free blocks join the ordinary cache (work on the one stream is ordered after the
  // graph's last replay); the blocks in use become ordinary blocks.
  for (auto& [n, blocks] : it->second.free) {
    auto& to = free_[n];
    to.insert(to.end(), blocks.begin(), blocks.end());
  }
  for (auto b = pool_of_.begin(); b != pool_of_.end();) {
    if (b->second == id)
      b = pool_of_.erase(b);
    else
      ++b;
  }
  pools_.erase(it);
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
