// SimMesh: every device of a mesh simulated in one process, each with its own buffer, so
// redistribution plans (redistribution.h) can be run and checked without a cluster.
//
// A buffer is the device's local tensor, row-major, all of one shape (local_shape()). run()
// executes a move the way the real collective acts on each of its groups (mesh.h: the
// devices sharing every other coordinate, in group order): an AllGather joins its members'
// buffers along the dimension in group order, an AllToAll sends block j of every member to
// member j, and so on, as the move table of redistribution.h says. The simulation knows only
// the mesh and the moves, not the layouts: whether the buffers end up right is for
// check_holds() to say, from the layout's own slice formula (layout.h).
//
// Values are doubles; the tests use small integers, so sums are exact in any order.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "parallel/layout.h"
#include "parallel/redistribution.h"

namespace mycel::parallel {

class SimMesh {
 public:
  // The buffers of a tensor laid out as `l`, from `full` (the global tensor, row-major, of
  // l.shape()): each device gets its slice. Along l's partial axes, the devices of a group
  // get random integer addends (from `rng`) that sum to their slice.
  static SimMesh scatter(const TensorLayout& l, const std::vector<double>& full,
                         std::mt19937_64& rng);

  // Buffers computed elsewhere (a parallel rule's per-device results), one per device in
  // matrix order, each of `local` elements' shape; ValueError when the counts disagree.
  static SimMesh from_buffers(DeviceMesh mesh, Shape local,
                              std::vector<std::vector<double>> buffers);

  const DeviceMesh& mesh() const { return mesh_; }
  const Shape& local_shape() const { return shape_; }
  const std::vector<double>& buffer(int64_t rank) const {
    return buffers_[static_cast<size_t>(mesh_.index_of(rank))];
  }

  // Runs one move, or a plan, on every device. ValueError when a dimension is out of range
  // or a block count does not divide it.
  void run(const Move& m);
  void run(const std::vector<Move>& plan) {
    for (const Move& m : plan) run(m);
  }

 private:
  SimMesh(DeviceMesh mesh, Shape shape, std::vector<std::vector<double>> buffers)
      : mesh_(std::move(mesh)), shape_(std::move(shape)), buffers_(std::move(buffers)) {}

  DeviceMesh mesh_;
  Shape shape_;
  std::vector<std::vector<double>> buffers_;  // by position in the device matrix
};

// The block of the global tensor `full` (row-major, of l.shape()) that device `rank` holds
// under `l` (slice_offsets and slice_shape).
std::vector<double> slice_of(const TensorLayout& l, const std::vector<double>& full, int64_t rank);

// "" when every device of `sim` holds its slice of `full` under `l` exactly (along partial
// axes: the sum over each group is the slice); else the first difference, described.
std::string check_holds(const SimMesh& sim, const TensorLayout& l, const std::vector<double>& full);

}  // namespace mycel::parallel
