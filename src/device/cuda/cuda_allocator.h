// The caching device allocator of one GPU (see cuda_device.h). Blocks are rounded up to
// 512 bytes below 1 MiB and to four size classes per power of two above, and kept in
// per-class free lists after release; one compute stream per device makes reuse without a
// sync safe. Thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "tensor/allocator.h"

namespace mycel::cuda {

class DeviceAllocator {
 public:
  explicit DeviceAllocator(int index) : index_(index) {}
  void* allocate(size_t nbytes);  // Runtime error when the device is out of memory
  void release(void* p, size_t nbytes);
  void empty_cache();
  AllocatorStats stats();
  void reset_peak();
  static size_t round_size(size_t nbytes);

 private:
  void free_cached_locked();

  int index_;
  std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // rounded size -> blocks
  AllocatorStats stats_;
};

}  // namespace mycel::cuda
