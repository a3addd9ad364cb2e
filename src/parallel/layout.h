// TensorLayout: how a tensor lies on a DeviceMesh (MindSpore's tensor layout: device matrix
// plus tensor map, with GSPMD's explicit partial-sum state).
//
//   map[d]   the mesh axes that split tensor dimension d, the first the most significant:
//            the dimension is cut into group_size(map[d]) equal blocks, and the device whose
//            group index along map[d] is k (mesh.h, group order) holds block k. Empty: the
//            dimension is whole on every device.
//   partial  mesh axes along which the value is a pending sum: the devices of a group along
//            them each hold an addend, and the sum over the group is the slice (what a MatMul
//            split on its reduced dimension leaves until an AllReduce or ReduceScatter).
//
// A mesh axis that neither splits a dimension nor is partial replicates: the devices of a
// group along it hold the same slice. Every device's slice has the same shape; its offsets in
// the global tensor follow from its coordinates.
#pragma once

#include <string>
#include <vector>

#include "parallel/mesh.h"

namespace mycel::parallel {

using TensorMap = std::vector<Axes>;

class TensorLayout {
 public:
  // Throws ValueError when map has not one entry per dimension of shape, a dimension is
  // negative, a mesh axis is out of range or used twice (by two dimensions, twice in one, or
  // both splitting and partial), or a dimension is not divisible by the devices splitting it.
  // `partial` is kept sorted.
  TensorLayout(DeviceMesh mesh, Shape shape, TensorMap map, Axes partial = {});

  const DeviceMesh& mesh() const { return mesh_; }
  const Shape& shape() const { return shape_; }
  const TensorMap& map() const { return map_; }
  const Axes& partial() const { return partial_; }
  int ndim() const { return static_cast<int>(shape_.size()); }

  bool is_partial(int axis) const;
  // The dimension that mesh axis `axis` splits, or -1.
  int dim_of(int axis) const;
  // The number of blocks dimension d is cut into.
  int64_t splits(int d) const { return mesh_.group_size(map_[static_cast<size_t>(d)]); }

  // The shape of every device's slice, its number of elements, and where the slice of device
  // `rank` starts in the global tensor.
  Shape slice_shape() const;
  int64_t slice_numel() const;
  Shape slice_offsets(int64_t rank) const;

  // Same mesh, shape, map and partial axes.
  bool operator==(const TensorLayout& o) const {
    return mesh_ == o.mesh_ && shape_ == o.shape_ && map_ == o.map_ && partial_ == o.partial_;
  }
  // "shape [8,16] map [(dp),()] partial (mp) on mesh [2,4] (dp,mp)".
  std::string to_string() const;

 private:
  DeviceMesh mesh_;
  Shape shape_;
  TensorMap map_;
  Axes partial_;
};

}  // namespace mycel::parallel
