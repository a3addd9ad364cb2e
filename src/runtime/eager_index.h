// PYNATIVE x[index] and x[index] = v: an index plan (ops/indexing.h) run on tensors. The
// Python binding (python/py_tensor.cc) only turns the index's Python objects into items.
//
// Reading: step 1 is a view of x (the StridedSlice run through run_op while a grad recording
// is active, so that the recording sees it, else the view made directly); step 2 runs Gather.
// Writing goes through views of x: the sliced view is written whole, or for tensor items
// row by row (each position of the broadcast integer indices or each true entry of the
// mask), the value broadcast against the result reading would give.
#pragma once

#include <span>

#include "ops/indexing.h"

namespace mycel {

// `indices` are the index's tensor items, in order (none when the plan has no Gather).
Tensor index_get(const Tensor& x, const IndexPlan& p, std::span<const Tensor> indices);
void index_set(const Tensor& x, const IndexPlan& p, std::span<const Tensor> indices,
               const Tensor& value);

}  // namespace mycel
