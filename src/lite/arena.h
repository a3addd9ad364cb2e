// The activation arena of a lite graph: one buffer for every non-constant tensor, planned
// once per set of shapes. A tensor lives from the node that writes it (graph inputs: from the
// start) to the last node that reads it (graph outputs: to the end); tensors whose lives
// overlap get disjoint 64-byte-aligned ranges, placed largest first at the lowest offset that
// fits (greedy by size, as TFLite's arena planner).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lite/graph.h"

namespace mycel::lite {

struct ArenaPlan {
  std::vector<int64_t> offset;  // bytes, per tensor; -1 for constants and unused tensors
  size_t bytes = 0;             // the arena's size
};

ArenaPlan plan_arena(const Graph& g);

}  // namespace mycel::lite
