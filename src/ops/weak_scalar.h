// Weak Python scalars: a number given where an op takes a tensor (P.Add()(x, 1),
// P.Gather()(x, 1, 0)) becomes a 0-d tensor of the dtype this rule gives. One rule for both
// modes: python/py_ops.cc (PYNATIVE primitive calls) and compiler/specialize_prims.cc (graph
// code) both ask it which tensor's dtype a scalar follows.
//
//   - an index input (Gather's indices, GatherD's index, UnsortedSegmentSum's segment ids)
//     follows no tensor: an int is int64 (the scalar's own default), as in MindSpore, even
//     where the data input is floating (it would be a float32 index: a TypeError);
//   - any other input follows the op's first tensor input, joined with the scalar's kind
//     (promote_with_scalar: a float with an int32 tensor is float32, an int with a float16
//     tensor is float16); with no tensor input, the scalar's default dtype.
#pragma once

#include <cstddef>

#include "ops/op_table.h"

namespace mycel {

// Whether a Python scalar given as input i of op takes the first tensor input's dtype (as
// above); false: the scalar's own default dtype.
inline bool weak_scalar_follows_tensor(const OpDef& op, size_t i) {
  switch (op.id) {
    case OpId::Gather:
    case OpId::GatherD:
    case OpId::UnsortedSegmentSum:
      return i != 1;
    default:
      return true;
  }
}

}  // namespace mycel
