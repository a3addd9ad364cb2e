// The one shared thread pool. mycel's kernels and oneDNN's both run on the OpenMP runtime
// (Debian's libdnnl is built with DNNL_RUNTIME_OMP), so there is a single set of worker
// threads and no oversubscription between our loops and oneDNN's primitives.
//
// parallel_for(begin, end, grain, fn) calls fn(b, e) on disjoint chunks that cover
// [begin, end). It runs inline, on the calling thread, when the range is smaller than two
// grains, when only one thread is configured, or when called from inside a parallel region,
// so tiny eager ops never pay for waking the pool.
#pragma once

#include <cstdint>
#include <functional>

namespace mycel {

int num_threads();
void set_num_threads(int n);
bool in_parallel_region();

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);
}

template <class F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end <= begin) return;
  if (end - begin < 2 * grain || num_threads() == 1 || in_parallel_region()) {
    fn(begin, end);
    return;
  }
  detail::parallel_run(begin, end, grain, fn);
}

}  // namespace mycel
