// Host memory for tensors. The caching allocator keeps freed blocks in size classes (four per
// power of two, so at most 25% slack) and hands them out again, so the steady state of a
// training loop makes no system allocations. Blocks are 64-byte aligned for AVX-512.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mycel {

struct AllocatorStats {
  int64_t in_use = 0;       // bytes handed out and not yet returned
  int64_t peak_in_use = 0;  // high-water mark of in_use since the last reset
  int64_t cached = 0;       // bytes held in free lists
};

void* host_alloc(size_t nbytes);
void host_free(void* p, size_t nbytes);  // nbytes as passed to host_alloc
AllocatorStats allocator_stats();
void reset_peak_memory();
// Returns cached blocks to the system: the global cache and the calling thread's own (other
// threads keep up to 8 MiB of small blocks each until they exit).
void empty_cache();

}  // namespace mycel
