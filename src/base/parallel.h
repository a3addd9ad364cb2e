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

// Runs the oneDNN calls in its scope on one thread when their work (multiply-adds) is below
// kSerialWork. oneDNN threads every primitive and sgemm call over all OpenMP threads; with
// OMP_WAIT_POLICY=PASSIVE (mycel's default) each call then wakes a sleeping worker, which costs
// about 30 us on a 2-core machine: more than splitting a small product saves. Measured there
// (LeNet's layers, 1 vs 2 threads): conv 1->6 5x5 on 32x32 at batch 1 16 vs 43 us, batch 8
// 84 vs 77 us; Dense 400->120 at batch 1 7 vs 20 us, batch 32 44 vs 42 us. oneDNN reads the
// calling thread's OpenMP thread count, so primitives built inside the scope are built for
// one thread (the conv cache keys on that count).
inline constexpr int64_t kSerialWork = int64_t{1} << 20;
class SerialBelow {
 public:
  explicit SerialBelow(int64_t work);
  ~SerialBelow();
  SerialBelow(const SerialBelow&) = delete;
  SerialBelow& operator=(const SerialBelow&) = delete;

 private:
  int saved_ = 0;  // the thread count to restore, or 0
};

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
