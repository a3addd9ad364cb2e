// Python's x[index] on a tensor, lowered to ops once for both modes: PYNATIVE runs the plan
// on tensors (runtime/eager_index.h, from Tensor.__getitem__/__setitem__), GRAPH emits it as
// nodes (compiler/specialize_prims.cc, Specializer::tensor_index). The front ends only say
// what each item is; the rules, the axes and the user errors are here.
//
// An index is a sequence of items (a lone item is a sequence of one). Its plan is at most
// two ops:
//   1. StridedSlice of x with one entry per item: an int shrinks its axis, a slice slices it
//      (a None bound is a begin/end mask bit), None and a bool insert an axis (new_axis),
//      `...` stands for the axes no item names (ellipsis), and the tensor item is a whole
//      slice of the axes it indexes (one for an integer tensor, its rank for a bool mask).
//      There is no StridedSlice when no item is an int, slice, None or bool (x[t], x[...]).
//   2. For the one tensor item an index may hold, a Gather: an integer tensor gathers along
//      the axis its whole slice became (numpy's result: the index's dims in place of that
//      axis); a bool mask, which must come first, masks the leading axes, which are
//      flattened into one and gathered at the positions of its true entries.
// False inserts an axis of size 0 (numpy): the front end slices it to 0 after step 1
// (`empty_axes`). Errors are numpy's IndexErrors, the same in both modes.
#pragma once

#include <span>
#include <string_view>

#include "ops/attrs.h"
#include "ops/infer_array.h"

namespace mycel {

struct IndexItem {
  enum class Kind : uint8_t { Int, Slice, NewAxis, Ellipsis, Bool, Tensor };
  Kind kind = Kind::NewAxis;
  int64_t value = 0;  // Int: the index; Bool: 0 or 1
  // Int: the index as written when it does not fit in int64 (it is then out of bounds).
  std::string_view text;
  int64_t start = 0, stop = 0, step = 1;  // Slice; a bound without has_* is None
  bool has_start = false, has_stop = false;
  DType dtype = DType::Int64;  // Tensor: the index's dtype (Bool: a mask) and shape
  Shape shape;
};

struct IndexPlan {
  // Step 1 (when `slice`): StridedSlice's attributes and what it reads (spec.out_shape is
  // the sliced shape).
  bool slice = false;
  Shape begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  SliceSpec spec;
  // Axes of the sliced result that a False makes of size 0.
  SmallVector<int64_t, 6> empty_axes;
  // Step 2: which Gather, for the item at `item`.
  enum class Gather : uint8_t { None, Index, Mask } gather = Gather::None;
  size_t item = 0;
  int64_t axis = 0;       // Index: the axis of the sliced result it gathers along
  int64_t mask_rank = 0;  // Mask: the leading axes it masks (flattened into axis 0)

  SliceArgs slice_args() const;
  Attrs slice_attrs() const;  // StridedSlice's, complete
};

// The plan of x[items] for x of shape `x`.
IndexPlan lower_index(const Shape& x, std::span<const IndexItem> items);

}  // namespace mycel
