#include "tensor/allocator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/error.h"

namespace mycel {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kMaxCached = size_t(1) << 31;  // past this, freed blocks go back to the OS
constexpr size_t kMaxLocalBlock = size_t(1) << 20;
constexpr int64_t kMaxLocalBytes = int64_t(8) << 20;  // per thread
constexpr int kLocalClasses = 8 + (20 - 9 + 1) * 4;

// Rounds up to a size class: multiples of 64 below 512 bytes, then four classes per power of
// two.
size_t size_class(size_t n) {
  if (n <= 512) return std::max<size_t>(kAlign, (n + kAlign - 1) & ~(kAlign - 1));
  size_t p = std::bit_floor(n);
  size_t step = p / 4;
  return (n + step - 1) / step * step;
}

// Index of a rounded class size <= kMaxLocalBlock in the thread-local bins.
int local_index(size_t cls) {
  if (cls <= 512) return static_cast<int>(cls / kAlign) - 1;
  size_t p = std::bit_floor(cls);
  int k = static_cast<int>(cls / (p / 4)) - 4;
  return 8 + (std::countr_zero(p) - 9) * 4 + k;
}

std::atomic<int64_t> g_in_use{0}, g_peak{0}, g_cached{0};

void note_alloc(int64_t n) {
  int64_t now = g_in_use.fetch_add(n, std::memory_order_relaxed) + n;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// Blocks of all sizes, shared by all threads.
struct GlobalCache {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free;
};

GlobalCache& global() {
  static GlobalCache* c = new GlobalCache();  // never destroyed: tensors may outlive statics
  return *c;
}

void global_put(size_t cls, void* p) {
  if (g_cached.load(std::memory_order_relaxed) + static_cast<int64_t>(cls) >
      static_cast<int64_t>(kMaxCached)) {
    std::free(p);
    return;
  }
  std::lock_guard<std::mutex> lock(global().mu);
  global().free[cls].push_back(p);
  g_cached.fetch_add(static_cast<int64_t>(cls), std::memory_order_relaxed);
}

void* global_take(size_t cls) {
  std::lock_guard<std::mutex> lock(global().mu);
  auto it = global().free.find(cls);
  if (it == global().free.end() || it->second.empty()) return nullptr;
  void* p = it->second.back();
  it->second.pop_back();
  g_cached.fetch_sub(static_cast<int64_t>(cls), std::memory_order_relaxed);
  return p;
}

// Small blocks freed by a thread stay with it, without locking; a thread's leftovers go to the
// global cache when it exits.
struct LocalCache {
  std::array<std::vector<void*>, kLocalClasses> bins;
  int64_t bytes = 0;
  bool alive = true;

  ~LocalCache() {
    flush();
    alive = false;
  }
  void flush() {
    for (int i = 0; i < kLocalClasses; ++i) {
      size_t cls = class_size(i);
      for (void* p : bins[i]) {
        g_cached.fetch_sub(static_cast<int64_t>(cls), std::memory_order_relaxed);
        global_put(cls, p);
      }
      bins[i].clear();
    }
    bytes = 0;
  }
  static size_t class_size(int i) {
    if (i < 8) return static_cast<size_t>(i + 1) * kAlign;
    int j = i - 8;
    size_t p = size_t(1) << (9 + j / 4);
    return p + (p / 4) * static_cast<size_t>(j % 4);
  }
};

thread_local LocalCache t_local;

}  // namespace

void* host_alloc(size_t nbytes) {
  size_t cls = size_class(nbytes);
  void* p = nullptr;
  if (cls <= kMaxLocalBlock && t_local.alive) {
    auto& bin = t_local.bins[local_index(cls)];
    if (!bin.empty()) {
      p = bin.back();
      bin.pop_back();
      t_local.bytes -= static_cast<int64_t>(cls);
      g_cached.fetch_sub(static_cast<int64_t>(cls), std::memory_order_relaxed);
    }
  }
  if (!p) p = global_take(cls);
  if (!p) {
    p = std::aligned_alloc(kAlign, cls);
    if (!p) {
      empty_cache();
      p = std::aligned_alloc(kAlign, cls);
    }
    MC_CHECK(p != nullptr, Runtime, "out of memory: cannot allocate ", nbytes, " bytes");
  }
  note_alloc(static_cast<int64_t>(cls));
  return p;
}

void host_free(void* p, size_t nbytes) {
  if (!p) return;
  size_t cls = size_class(nbytes);
  g_in_use.fetch_sub(static_cast<int64_t>(cls), std::memory_order_relaxed);
  if (cls <= kMaxLocalBlock && t_local.alive &&
      t_local.bytes + static_cast<int64_t>(cls) <= kMaxLocalBytes) {
    t_local.bins[local_index(cls)].push_back(p);
    t_local.bytes += static_cast<int64_t>(cls);
    g_cached.fetch_add(static_cast<int64_t>(cls), std::memory_order_relaxed);
    return;
  }
  global_put(cls, p);
}

AllocatorStats allocator_stats() { return {g_in_use.load(), g_peak.load(), g_cached.load()}; }

void reset_peak_memory() { g_peak.store(g_in_use.load()); }

void empty_cache() {
  if (t_local.alive) t_local.flush();
  std::lock_guard<std::mutex> lock(global().mu);
  for (auto& [cls, blocks] : global().free) {
    for (void* p : blocks) std::free(p);
    g_cached.fetch_sub(static_cast<int64_t>(cls * blocks.size()), std::memory_order_relaxed);
    blocks.clear();
  }
}

}  // namespace mycel
