// Python binding of the parallel layer (parallel/layout.h, parallel/redistribution.h), used by
// mycel.parallel.layout (Layout and its helpers). A mesh travels as (device_matrix,
// alias_name, rank_list) and a layout as its tensor map, one list of mesh axes per dimension
// (axes counted from the left, as in C++; the Python Layout converts MindSpore's right-counted
// tensor map), plus its partial axes. Bad input raises the C++ ValueErrors.
//
//   _C._check_device_mesh(device_matrix, alias_name, rank_list or None) -> None
//   _C._layout_slice(shape, device_matrix, alias_name, rank_list, tensor_map, partial, rank)
//       -> (offsets, slice_shape)
//   _C._plan_redistribution(shape, device_matrix, alias_name, rank_list, from_map,
//       from_partial, to_map, to_partial, elem_bytes)
//       -> [(kind, axis names, dims, bytes), ...]  dims: () for AllReduce and Partial,
//          (dim,) for Split, AllGather and ReduceScatter, (split_dim, concat_dim) for AllToAll
//   _C._collective_algorithms(kind, group, bytes, alpha, beta) -> [(name, seconds), ...]
//       the cost model's algorithms of a collective (parallel/cost_model.h): kind is
//       "AllReduce", "AllGather", "ReduceScatter", "AllToAll" or "Broadcast"; bytes per device
//       before it (bench/simgrid_bench.py compares them with SimGrid)
#include <pybind11/stl.h>

#include "base/error.h"
#include "parallel/cost_model.h"
#include "parallel/redistribution.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using parallel::Axes;
using parallel::DeviceMesh;
using parallel::Shape;
using parallel::TensorLayout;
using parallel::TensorMap;
using Names = std::vector<std::string>;

pyb::tuple names_of(const DeviceMesh& mesh, const Axes& axes) {
  pyb::tuple t(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) t[i] = pyb::str(mesh.axis_name(axes[i]));
  return t;
}

}  // namespace

void bind_parallel(pyb::module_& m) {
  m.def(
      "_check_device_mesh",
      [](const Shape& dm, const Names& names, const std::optional<Shape>& ranks) {
        DeviceMesh(dm, names, ranks);
      },
      "Raises ValueError when the device matrix, names or ranks do not make a mesh.");
  m.def(
      "_layout_slice",
      [](const Shape& shape, const Shape& dm, const Names& names, const Shape& ranks,
         const TensorMap& map, const Axes& partial, int64_t rank) {
        TensorLayout l(DeviceMesh(dm, names, ranks), shape, map, partial);
        return pyb::make_tuple(pyb::tuple(pyb::cast(l.slice_offsets(rank))),
                               pyb::tuple(pyb::cast(l.slice_shape())));
      },
      "(offsets, slice_shape) of the block that `rank` holds.");
  m.def(
      "_plan_redistribution",
      [](const Shape& shape, const Shape& dm, const Names& names, const Shape& ranks,
         const TensorMap& from_map, const Axes& from_partial, const TensorMap& to_map,
         const Axes& to_partial, int64_t elem_bytes) {
        DeviceMesh mesh(dm, names, ranks);
        TensorLayout from(mesh, shape, from_map, from_partial);
        TensorLayout to(mesh, shape, to_map, to_partial);
        pyb::list out;
        for (const parallel::Move& mv : parallel::plan_redistribution(from, to, elem_bytes)) {
          pyb::tuple dims = mv.concat_dim >= 0 ? pyb::make_tuple(mv.dim, mv.concat_dim)
                            : mv.dim >= 0      ? pyb::make_tuple(mv.dim)
                                               : pyb::tuple();
          out.append(pyb::make_tuple(pyb::str(parallel::move_name(mv.kind)),
                                     names_of(mesh, mv.axes), dims, mv.bytes));
        }
        return out;
      },
      "The moves from one layout to another, as (kind, axis names, dims, bytes) tuples.");
  m.def(
      "_collective_algorithms",
      [](const std::string& kind, int64_t group, double bytes, double alpha, double beta) {
        parallel::CostProfile prof;
        prof.alpha = alpha;
        prof.beta = beta;
        MC_CHECK(group >= 1 && bytes >= 0 && alpha > 0 && beta > 0, Value,
                 "_collective_algorithms: a group of at least 1 device, bytes not negative and "
                 "a positive alpha and beta, but got group ",
                 group, ", bytes ", bytes, ", alpha ", alpha, ", beta ", beta);
        std::vector<parallel::AlgorithmCost> algs;
        if (kind == "Broadcast") {
          algs = parallel::broadcast_algorithms(group, bytes, prof);
        } else {
          const parallel::MoveKind k = kind == "AllReduce"       ? parallel::MoveKind::AllReduce
                                       : kind == "AllGather"     ? parallel::MoveKind::AllGather
                                       : kind == "ReduceScatter" ? parallel::MoveKind::ReduceScatter
                                       : kind == "AllToAll"      ? parallel::MoveKind::AllToAll
                                                                 : parallel::MoveKind::Split;
          MC_CHECK(k != parallel::MoveKind::Split, Value,
                   "_collective_algorithms: kind must be AllReduce, AllGather, ReduceScatter, "
                   "AllToAll or Broadcast, but got '",
                   kind, "'");
          algs = parallel::algorithm_seconds(k, group, bytes, prof);
        }
        pyb::list out;
        for (const parallel::AlgorithmCost& a : algs)
          out.append(pyb::make_tuple(pyb::str(a.name), a.seconds));
        return out;
      },
      "The cost model's algorithms of a collective, as (name, seconds) tuples.");
}

}  // namespace mycel::py
