// Redistribution: the moves that take a tensor from one layout to another on the same mesh
// (MindSpore's split / all-to-all / all-gather loop, with GSPMD's partial sums resolved by
// ReduceScatter or AllReduce).
//
// Each move runs over the groups of its mesh axes (mesh.h: the devices sharing every other
// coordinate, ordered by their coordinates on `axes`, the first listed most significant); g
// is the size of such a group. Its effect on the layout (layout.h), d = `dim`:
//
//   Split(d, axes)          local: each device keeps block (its group index) of g equal
//                           blocks of its slice along d; map[d] gains `axes` at its end.
//   AllGather(d, axes)      each device gets its group's slices joined along d in group order;
//                           `axes` must be the end of map[d], which loses them.
//   AllToAll(d, c, axes)    each device cuts its slice into g blocks along d and sends block j
//                           to the group's j-th device, which joins what it receives along c
//                           in group order: map[c] loses `axes` (its end), map[d] gains them.
//   AllReduce(axes)         each device gets its group's sum: `axes` stop being partial.
//   ReduceScatter(d, axes)  the group's sum, cut into g blocks along d, block j to the j-th
//                           device: `axes` stop being partial, map[d] gains them at its end.
//   Partial(axes)           local: the first device of each group keeps its slice, the others
//                           hold zeros, so the group's sum is the slice: `axes` become partial.
//
// Cost: the bytes each device sends in the move by the ring (bandwidth-optimal) algorithms,
// with s the bytes of the device's slice before the move:
//   Split, Partial: 0;  AllGather: (g-1)·s;  AllToAll: (g-1)/g·s;  ReduceScatter: (g-1)/g·s;
//   AllReduce: 2·(g-1)/g·s  (a reduce-scatter, then an all-gather of the reduced blocks).
// The later cost model turns bytes into seconds per mesh axis (latency and bandwidth).
#pragma once

#include <string>
#include <vector>

#include "parallel/layout.h"

namespace mycel::parallel {

enum class MoveKind { Split, AllGather, AllToAll, AllReduce, ReduceScatter, Partial };

// "Split", "AllGather", ... (the names of the Python tuples too).
const char* move_name(MoveKind k);

struct Move {
  MoveKind kind;
  Axes axes;            // the mesh axes of its groups, in group order
  int dim = -1;         // Split, ReduceScatter, AllToAll: the dimension cut; AllGather: joined
  int concat_dim = -1;  // AllToAll: the dimension joined
  double bytes = 0;     // sent per device (the cost, above)

  bool operator==(const Move& o) const {
    return kind == o.kind && axes == o.axes && dim == o.dim && concat_dim == o.concat_dim;
  }
  // "AllToAll(dim 0, concat 1, axes (mp)) 1024 B".
  std::string to_string(const DeviceMesh& mesh) const;
};

// The layout after `m`, which must apply to `l` as the table above says (ValueError naming
// the move and the layout otherwise), with m.bytes left as given.
TensorLayout apply_move(const TensorLayout& l, const Move& m);
// The cost of `m` applied to `l` (the formula above), for elements of `elem_bytes` bytes.
double move_bytes(const TensorLayout& l, const Move& m, int64_t elem_bytes);

// The moves from `from` to `to` (same mesh and shape, else ValueError), their bytes filled
// in for elements of `elem_bytes` bytes. Greedy, cheapest kind first
// (a move that shrinks the slices before one that sends them):
//   1. Split by free axes that `to` splits a dimension by next;
//   2. ReduceScatter partial axes that `to` splits a dimension by next;
//   3. AllToAll an axis that ends a dimension it must leave onto a dimension that `to`
//      splits by it next (several axes at once when they line up);
//   4. AllReduce the partial axes that `to` uses nowhere;
//   5. AllGather the end of a dimension that is split by more than `to` splits it by: all
//      its trailing axes that `to` puts on no other dimension, else its last axis (which
//      may then move by AllToAll once the dimension it goes to is ready);
//   6. Partial, last, for the axes partial in `to` only.
// Partial axes that `to` splits a dimension by but that no ReduceScatter can take yet either
// wait (an AllGather may come first, then the ReduceScatter sends more) or are AllReduced at
// step 4 and split later; both plans are made and the one of fewer bytes kept (the first on a
// tie). The tests check on random pairs that the plan kept never costs more than the plain
// route (AllReduce the partial axes, AllGather every dimension whole, Split, Partial).
// A dimension takes new axes only once its map is a prefix of its map in `to`, so every move
// brings the layout closer. Each mesh axis is touched at most twice (once to leave its place
// in `from`, once to reach its place in `to`, a ReduceScatter or AllToAll doing both), so a
// plan has at most 2 × mesh.ndim() moves; equal layouts give an empty plan.
std::vector<Move> plan_redistribution(const TensorLayout& from, const TensorLayout& to,
                                      int64_t elem_bytes = 4);

// The sum of the plan's bytes.
double plan_bytes(const std::vector<Move>& plan);

}  // namespace mycel::parallel
