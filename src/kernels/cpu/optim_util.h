// Helpers shared by the CPU kernels of the state-update family (kernels/cpu/optim*.cc).
#pragma once

#include "base/parallel.h"
#include "ops/op_table.h"

namespace mycel::optim_cpu {

// Elements per parallel chunk of an update pass.
inline constexpr int64_t kGrain = 16384;

// The value of the scalar (one-element) input i.
inline double scalar(const KernelContext& ctx, size_t i) { return ctx.in[i].element_as_double(0); }

// fn(begin, end) over [0, n) in parallel chunks.
template <class F>
void for_chunks(int64_t n, const F& fn) {
  parallel_for(0, n, kGrain, fn);
}

}  // namespace mycel::optim_cpu
