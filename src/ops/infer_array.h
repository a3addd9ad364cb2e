// Shared by the array family's rules (infer_array_*.cc) and kernels (kernels/*/array*.cc).
#pragma once

#include <span>
#include <string_view>

#include "ops/op_table.h"

namespace mycel {

// What StridedSlice reads, resolved against an input shape. One helper serves StridedSlice and
// StridedSliceGrad (rules and kernels), so the mask logic exists once.
//
// Per input dimension d: the first index read (start), the step, and the count (1 for a shrunk
// dimension; dimensions no entry names are read whole). The output lists, in order, the input
// dimension each output dimension walks, or -1 for an inserted new axis of size 1.
struct SliceSpec {
  Shape start, step, len;
  SmallVector<int64_t, 6> src;
  Shape out_shape;
};

// StridedSlice's attributes: begin/end/strides per entry and the masks (bit i: entry i).
struct SliceArgs {
  std::span<const int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
};
SliceArgs slice_args(const Attrs& attrs);  // refers to attrs' vectors

// Python slicing per entry of begin/end/strides with TensorFlow-style masks (bit i refers to
// entry i): begin_mask/end_mask ignore begin[i]/end[i]; ellipsis_mask marks the entry that
// stands for all dimensions no other entry names (one at most; implicit at the end when no bit
// is set); new_axis_mask inserts a size-1 dimension; shrink_axis_mask takes the single index
// begin[i] and drops the dimension. Out-of-range bounds clamp as in Python; a 0 stride is a
// ValueError, a shrunk index outside [-n, n) an IndexError.
SliceSpec strided_slice_spec(const Shape& in, const SliceArgs& args, std::string_view op);
inline SliceSpec strided_slice_spec(const Shape& in, const Attrs& attrs, std::string_view op) {
  return strided_slice_spec(in, slice_args(attrs), op);
}

// The element offset and strides that read `base` (with `base_strides`) as the slice's output.
struct SliceView {
  Shape strides;
  int64_t offset = 0;
};
SliceView slice_view(const SliceSpec& spec, const Shape& base_strides, int64_t base_offset);
// x's elements that the slice reads, as a view sharing x's storage.
Tensor sliced_view(const Tensor& x, const SliceSpec& spec);

// For the indexed-update ops: indices [..., K] into a tensor of shape `shape`. rows is the
// number of index tuples, slice the elements each tuple selects (prod(shape[K:])).
struct NdIndexLayout {
  int64_t rows = 1, k = 0, slice = 1;
};
NdIndexLayout nd_index_layout(const Shape& indices, const Shape& shape);

}  // namespace mycel
