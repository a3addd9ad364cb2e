// Strategy enumeration: the candidate sharding strategies of one call on a device count, for
// the strategy search (search.h).
//
// A call's loop dimensions (rules.h) come from its family's loop space under the unsplit
// strategy: which loop dimension each input dimension runs along, and so each loop
// dimension's extent. A candidate gives every loop dimension a split that divides its
// extent, the product of the splits dividing the devices; its rows are read back from the
// loop space (input dimension j of input i takes the split of the loop dimension it runs
// along, a whole dimension 1) and each is checked by the family's own rule (loop_space and
// device_matrix, and infer_layouts on the strategy's layouts), so the families' constraints
// hold without being restated here: a Reshape that would cut across a split dimension, the
// softmax axis and the normalised dimensions of a LayerNorm whole, a Conv2D's spatial
// dimensions whole, a Gather's gathered axis whole, broadcast dimensions whole.
//
// Bounds (distributed.md §4.4): the op's device matrix [repeat, splits...] has at most 3
// entries above 1 (3 mesh axes), and it must be a coarsening of the search mesh (the prime
// factors of the device count in ascending order, `search_mesh`), so that any two
// candidates' layouts lie on one mesh and redistribute into each other. Order: the split
// vectors in lexicographic order, loop dimension 0 slowest, 1 before 2: deterministic.
#pragma once

#include <vector>

#include "parallel/rules.h"

namespace mycel::parallel {

// The mesh of the search for `devices` devices: its prime factors, ascending ([2,2,2] for 8,
// [2,2,3] for 12, [1] for 1).
DeviceMesh search_mesh(int64_t devices);

// The most mesh axes (entries above 1 of the op's device matrix) a candidate uses.
inline constexpr int kMaxStrategyAxes = 3;

// The candidate strategies of `call` on `devices` devices (above); never empty: the
// unsplit strategy (all ones: every device computes the whole op) comes first. ValueError
// when even that one does not fit the call (a call the rules reject).
std::vector<Strategy> enumerate_strategies(const OpCall& call, int64_t devices);

// The unsplit strategy of `call` (all ones), checked as enumerate_strategies checks it:
// ValueError when the call's rule rejects it.
Strategy unsplit_strategy(const OpCall& call, int64_t devices);

// The refinements of `s` for the recursive search (rec_search.h): the candidates (within
// the bounds above) whose loop splits are s's with one loop dimension's split multiplied by
// `factor`, in loop-dimension order; empty when none fits.
std::vector<Strategy> refine_strategy(const OpCall& call, const Strategy& s, int64_t factor,
                                      int64_t devices);

}  // namespace mycel::parallel
