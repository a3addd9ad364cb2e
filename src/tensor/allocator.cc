#include "tensor/allocator.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "base/error.h"

namespace mycel {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kMaxCached = size_t(1) << 31;  // past this, freed blocks go back to the OS

// Rounds up to a size class: multiples of 64 below 512 bytes, then four classes per power of
// two.
size_t size_class(size_t n) {
  if (n <= 512) return std::max<size_t>(kAlign, (n + kAlign - 1) & ~(kAlign - 1));
  size_t p = std::bit_floor(n);
  size_t step = p / 4;
  return (n + step - 1) / step * step;
}

struct Cache {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free;
  AllocatorStats stats;
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: tensors may outlive static destructors
  return *c;
}

}  // namespace

void* host_alloc(size_t nbytes) {
  size_t cls = size_class(nbytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free.find(cls);
    if (it != c.free.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.stats.cached -= static_cast<int64_t>(cls);
      c.stats.in_use += static_cast<int64_t>(cls);
      c.stats.peak_in_use = std::max(c.stats.peak_in_use, c.stats.in_use);
      return p;
    }
  }
  void* p = std::aligned_alloc(kAlign, cls);
  if (!p) {
    empty_cache();
    p = std::aligned_alloc(kAlign, cls);
  }
  MC_CHECK(p != nullptr, Runtime, "out of memory: cannot allocate ", nbytes, " bytes");
  std::lock_guard<std::mutex> lock(c.mu);
  c.stats.in_use += static_cast<int64_t>(cls);
  c.stats.peak_in_use = std::max(c.stats.peak_in_use, c.stats.in_use);
  return p;
}

void host_free(void* p, size_t nbytes) {
  if (!p) return;
  size_t cls = size_class(nbytes);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.stats.in_use -= static_cast<int64_t>(cls);
  if (c.stats.cached + static_cast<int64_t>(cls) > static_cast<int64_t>(kMaxCached)) {
    std::free(p);
    return;
  }
  c.free[cls].push_back(p);
  c.stats.cached += static_cast<int64_t>(cls);
}

AllocatorStats allocator_stats() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().stats;
}

void reset_peak_memory() {
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().stats.peak_in_use = cache().stats.in_use;
}

void empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& [cls, blocks] : c.free) {
    for (void* p : blocks) std::free(p);
    blocks.clear();
  }
  c.stats.cached = 0;
}

}  // namespace mycel
