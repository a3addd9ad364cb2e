#include "parallel/layout.h"

#include <algorithm>

#include "base/error.h"

namespace mycel::parallel {

TensorLayout::TensorLayout(DeviceMesh mesh, Shape shape, TensorMap map, Axes partial)
    : mesh_(std::move(mesh)),
      shape_(std::move(shape)),
      map_(std::move(map)),
      partial_(std::move(partial)) {
  std::sort(partial_.begin(), partial_.end());
  MC_CHECK(map_.size() == shape_.size(), Value, "TensorLayout: the tensor map has ", map_.size(),
           " entries for a tensor of shape ", shape_str(shape_));
  std::string what = "TensorLayout (tensor of shape " + shape_str(shape_) + ")";
  mesh_.check_axes(partial_, what + " partial axes");
  for (size_t d = 0; d < map_.size(); ++d) {
    mesh_.check_axes(map_[d], what + " dimension " + std::to_string(d));
    for (int a : map_[d]) {
      MC_CHECK(!is_partial(a), Value, what, ": mesh axis ", mesh_.axis_name(a),
               " cannot both split dimension ", d, " and hold partial sums");
    }
  }
  Axes all;
  for (const Axes& axes : map_) all.insert(all.end(), axes.begin(), axes.end());
  mesh_.check_axes(all, what + " tensor map (a mesh axis may split one dimension only)");
  for (size_t d = 0; d < shape_.size(); ++d) {
    MC_CHECK(shape_[d] >= 0, Value, "TensorLayout: the shape ", shape_str(shape_),
             " has a negative dimension");
    int64_t k = mesh_.group_size(map_[d]);
    MC_CHECK(shape_[d] % k == 0, Value, "TensorLayout: dimension ", d, " of shape ",
             shape_str(shape_), " (", shape_[d], ") cannot be split evenly into ", k,
             " parts by mesh axes ", mesh_.axes_str(map_[d]), " of ", mesh_.to_string());
  }
}

bool TensorLayout::is_partial(int axis) const {
  return std::binary_search(partial_.begin(), partial_.end(), axis);
}

int TensorLayout::dim_of(int axis) const {
  for (size_t d = 0; d < map_.size(); ++d) {
    if (std::find(map_[d].begin(), map_[d].end(), axis) != map_[d].end()) {
      return static_cast<int>(d);
    }
  }
  return -1;
}

Shape TensorLayout::slice_shape() const {
  Shape s(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d) s[d] = shape_[d] / splits(static_cast<int>(d));
  return s;
}

int64_t TensorLayout::slice_numel() const {
  int64_t n = 1;
  for (int64_t d : slice_shape()) n *= d;
  return n;
}

Shape TensorLayout::slice_offsets(int64_t rank) const {
  Shape s = slice_shape();
  Shape off(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d) off[d] = mesh_.group_index(rank, map_[d]) * s[d];
  return off;
}

std::string TensorLayout::to_string() const {
  std::string s = "shape " + shape_str(shape_) + " map [";
  for (size_t d = 0; d < map_.size(); ++d) {
    if (d) s += ',';
    s += mesh_.axes_str(map_[d]);
  }
  s += "]";
  if (!partial_.empty()) s += " partial " + mesh_.axes_str(partial_);
  return s + " on " + mesh_.to_string();
}

}  // namespace mycel::parallel
