// The caching device allocator of one GPU (see cuda_device.h). Blocks are rounded up to
// 512 bytes below 1 MiB and to four size classes per power of two above, and kept in
// per-class free lists after release; one compute stream per device makes reuse without a
// sync safe. Thread-safe.
//
// Capture pools (tensor/capture.h): while a pool is active (begin_pool .. end_pool, one at a
// time per device), allocations come from it: its own free blocks, else cudaMalloc (no
// emptying of the cache: that would synchronise), and a block of the pool goes back to the
// pool's free lists when released, so work outside the captured graph never gets a block
// whose address the graph has baked in. release_pool (the graph is gone) moves the pool's
// free blocks to the ordinary cache, and its blocks still in use become ordinary blocks.
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

  int begin_pool();  // a new pool, active until end_pool; returns its id
  void end_pool();   // later allocations come from the ordinary cache again
  void release_pool(int id);

 private:
  void free_cached_locked();

  struct Pool {
    std::map<size_t, std::vector<void*>> free;
  };
  using FreeLists = std::map<size_t, std::vector<void*>>;

  int index_;
  std::mutex mu_;
  FreeLists free_;  // rounded size -> blocks
  std::map<int, Pool> pools_;
  std::map<void*, int> pool_of_;  // block -> id of the pool that owns it
  int active_ = -1;               // the pool allocations come from, or -1
  int next_pool_ = 0;
  AllocatorStats stats_;
};

}  // namespace mycel::cuda
