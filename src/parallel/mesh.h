// DeviceMesh: the devices of a parallel job arranged as a matrix (MindSpore's device matrix).
//
// A mesh of shape {2, 4} holds 8 devices; its axis 0 (size 2) might be named "dp" and its
// axis 1 (size 4) "mp". Axes are counted from the left here (0 is the outermost); MindSpore's
// Python tensor maps count them from the right, which the Python front end converts. The
// device at row-major position i of the matrix is rank_list[i] (by default rank i), so
// coordinates and ranks convert both ways.
//
// A collective of a sharded program runs over the groups of a list of mesh axes: the devices
// that share their coordinates on every other axis. Within a group, devices are ordered by
// their coordinates on the listed axes read as a mixed-radix number, the first listed axis
// the most significant ("group order"); every collective of src/parallel concatenates and
// scatters in that order, which is also how TensorLayout numbers the blocks of a split
// dimension (layout.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mycel::parallel {

using Shape = std::vector<int64_t>;
// Mesh axes, counted from the left; where order matters, the first is the most significant.
using Axes = std::vector<int>;

// "[2,4]": a shape or coordinates, for messages.
std::string shape_str(const Shape& s);

class DeviceMesh {
 public:
  // Ranks: by default 0 .. size-1. Throws ValueError when a size is below 1 or there are
  // more than 2^20 devices, when names are given but not one per axis, or one is empty,
  // "None" or repeated, and when ranks are given but not one distinct non-negative rank per
  // device.
  explicit DeviceMesh(Shape shape, std::vector<std::string> names = {},
                      std::optional<std::vector<int64_t>> ranks = std::nullopt);

  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return static_cast<int64_t>(ranks_->list.size()); }  // devices
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<int64_t>& ranks() const { return ranks_->list; }

  // Axis `axis` by name ("mp") when named, else "axis 1": for messages and plans.
  std::string axis_name(int axis) const;
  // The axes by name: "(dp,mp)".
  std::string axes_str(const Axes& axes) const;
  // The axis called `name`; ValueError when there is none.
  int axis(const std::string& name) const;

  // The device at row-major position `index` of the matrix, and back; ValueError for a rank
  // that is not in the mesh.
  int64_t rank_at(int64_t index) const { return ranks_->list[static_cast<size_t>(index)]; }
  int64_t index_of(int64_t rank) const;
  Shape coords(int64_t rank) const;
  int64_t rank_of(const Shape& coords) const;  // ValueError when out of the matrix

  // Checks that `axes` are distinct axes of this mesh (ValueError naming `what`).
  void check_axes(const Axes& axes, const std::string& what) const;
  // The number of devices in a group along `axes` (1 for none).
  int64_t group_size(const Axes& axes) const;
  // The position of `rank` in its group along `axes` (group order, above).
  int64_t group_index(int64_t rank, const Axes& axes) const;
  // The group along `axes` that contains `rank`, in group order.
  std::vector<int64_t> group(int64_t rank, const Axes& axes) const;
  // Every group along `axes`, each in group order, the groups ordered by their first device.
  std::vector<std::vector<int64_t>> groups(const Axes& axes) const;

  // Same matrix and ranks (names are labels only).
  bool operator==(const DeviceMesh& o) const {
    return shape_ == o.shape_ && (ranks_ == o.ranks_ || ranks_->list == o.ranks_->list);
  }
  // "mesh [2,4] (dp,mp)".
  std::string to_string() const;

 private:
  int64_t index_of_coords(const Shape& c) const;

  Shape shape_;
  std::vector<std::string> names_;
  // The rank list and its index (rank -> position in the matrix), shared by the copies: a
  // layout holds its mesh by value, and the search copies layouts of 1,024-device meshes.
  struct Ranks {
    std::vector<int64_t> list;
    std::unordered_map<int64_t, int64_t> index;
  };
  std::shared_ptr<const Ranks> ranks_;
};

}  // namespace mycel::parallel
