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
//   2. For the tensor items, a Gather. A bool mask, which must come first and be the only
//      tensor item, masks the leading axes, which are flattened into one and gathered at
//      the positions of its true entries. Integer tensors (numpy's advanced indices, with
//      the ints among them) index the axes their whole slices became, together: their
//      shapes broadcast to one index shape B, which takes the place of the indexed axes
//      when the advanced indices stand next to each other in the index, and comes first
//      otherwise (numpy's rule: x[0, :, t] is B + x.shape[1:2]). One tensor whose B goes in
//      place is a Gather along its axis; otherwise the indexed axes are transposed to the
//      front and flattened into one, which is gathered at the linear positions
//      sum_i index_i * stride_i (each index_i first passed through a Gather of
//      arange(size_i), which bounds-checks it and makes it non-negative), and B is moved
//      back in place after (`back_perm`).
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
  // Step 2: which Gather, for the tensor items.
  enum class Gather : uint8_t { None, Index, Mask } gather = Gather::None;
  size_t item = 0;        // Mask: the mask's item
  int64_t axis = 0;       // Index: where B goes in the result (unless `front`)
  int64_t mask_rank = 0;  // Mask: the leading axes it masks (flattened into axis 0)
  // Index: the integer tensor items in index order, the axes of the sliced result they
  // index (ascending), those axes' sizes, and B (the broadcast of their shapes).
  SmallVector<size_t, 4> items;
  SmallVector<int64_t, 4> axes, sizes;
  Shape index_shape;
  bool front = false;  // the advanced indices are not next to each other: B comes first
  // Index through the flattened axes (not one Gather along `axis`): the sliced result's
  // transpose that brings the indexed axes first (empty: none needed), its shape with them
  // flattened into one, each index's stride in it, and the transpose of the gathered
  // B + rest that puts B at `axis` (empty: none needed).
  bool flat = false;
  Shape perm, flat_shape, flat_strides, back_perm;

  SliceArgs slice_args() const;
  Attrs slice_attrs() const;  // StridedSlice's, complete
};

// The plan of x[items] for x of shape `x`.
IndexPlan lower_index(const Shape& x, std::span<const IndexItem> items);

}  // namespace mycel
