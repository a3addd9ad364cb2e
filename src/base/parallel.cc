#include "base/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

namespace mycel {

namespace {
std::atomic<int> g_threads{0};
}

int num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = std::max(1, omp_get_max_threads());
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) {
  n = std::max(1, n);
  g_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
}

bool in_parallel_region() { return omp_in_parallel() != 0; }

SerialBelow::SerialBelow(int64_t work) {
  if (work >= kSerialWork || in_parallel_region()) return;
  int n = omp_get_max_threads();
  if (n <= 1) return;
  saved_ = n;
  omp_set_num_threads(1);
}

SerialBelow::~SerialBelow() {
  if (saved_ > 0) omp_set_num_threads(saved_);
}

void detail::parallel_run(int64_t begin, int64_t end, int64_t grain,
                          const std::function<void(int64_t, int64_t)>& fn) {
  int64_t range = end - begin;
  int64_t chunks = std::min<int64_t>(num_threads(), (range + grain - 1) / grain);
  // An exception must not leave an OpenMP region (that terminates the process): catch the
  // first one and rethrow it on the calling thread.
  std::exception_ptr error;
  std::mutex mu;
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t b = begin + range * c / chunks;
    int64_t e = begin + range * (c + 1) / chunks;
    try {
      if (b < e) fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace mycel
