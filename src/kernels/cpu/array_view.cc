// The eager view hook of the F_VIEW ops: their output as a view of the input, sharing storage.
// cpu_copy_view and cpu_strided_slice copy from the same views when they exist.
#include "ops/infer_array.h"
#include "ops/op_semantics.h"

namespace mycel {

namespace {

// Strides that read (shape, strides) in row-major order as `to` (same element count), or false
// when the layout cannot: each run of input dimensions that is contiguous within itself
// ("chunk") must be split into whole output dimensions.
bool reshape_strides(const Shape& shape, const Shape& strides, const Shape& to, Shape* out) {
  out->resize(to.size());
  if (numel(shape) <= 1) {
    *out = contiguous_strides(to);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(to.size()) - 1;
  int64_t chunk_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];
    bool chunk_ends =
        d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || to[view_d] == 1)) {
      (*out)[view_d] = view_numel * chunk_stride;
      view_numel *= to[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      chunk_stride = strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

Tensor reshape_view(const Tensor& x, const Shape& to) {
  Shape st;
  if (!reshape_strides(x.shape(), x.strides(), to, &st)) return Tensor();
  return Tensor::make_view(x.storage(), x.dtype(), to, st, x.offset());
}

}  // namespace

Tensor view_op(const OpDef& op, const Tensor& x, const TensorMeta& out, const Attrs& attrs) {
  switch (op.id) {
    case OpId::Reshape:
    case OpId::Flatten:
    case OpId::ExpandDims:
    case OpId::Squeeze:
      return reshape_view(x, out.shape);
    case OpId::Transpose: {
      const auto& perm = attrs.get_ints("perm");
      return x.permute(Shape(perm.begin(), perm.end()), op.name);
    }
    case OpId::BroadcastTo:
      return x.expand(out.shape, op.name);
    case OpId::StridedSlice:
      return sliced_view(x, strided_slice_spec(x.shape(), attrs, op.name));
    default:
      return Tensor();
  }
}

}  // namespace mycel
