// The stack measurement behind DepthGuard (depth.h).
#include "ir/depth.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "base/error.h"

namespace mycel::ir {

namespace {

// The lowest usable address of this thread's stack (stacks grow down), found once per
// thread; 0 when unknown. For the main thread glibc derives it from RLIMIT_STACK.
uintptr_t stack_low() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    void* addr = nullptr;
    size_t size = 0;
    int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return rc == 0 ? reinterpret_cast<uintptr_t>(addr) : uintptr_t{0};
  }();
  return low;
}

std::atomic<int> g_max_call_depth{kDefaultMaxCallDepth};

}  // namespace

int max_call_depth() { return g_max_call_depth.load(std::memory_order_relaxed); }

void set_max_call_depth(int limit) {
  MC_CHECK(limit > 0, Value,
           "set_recursion_limit: the recursion limit must be a positive int, but got ", limit, ".");
  g_max_call_depth.store(limit, std::memory_order_relaxed);
}

size_t stack_left() {
  const uintptr_t low = stack_low();
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (low == 0) return SIZE_MAX;
  return here > low ? here - low : 0;
}

std::string depth_message(const std::string& what, int limit) {
  return str(what, " nested too deeply to compile (the limit is ", limit,
             " levels, fewer when the thread's stack is small); split the function into "
             "smaller ones, or use PYNATIVE mode");
}

void throw_too_deep(const std::string& what, int limit) {
  throw_error(ErrorKind::Recursion, depth_message(what, limit));
}

}  // namespace mycel::ir
