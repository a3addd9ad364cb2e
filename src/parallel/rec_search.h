// The recursive search of automatic parallelism (search_mode="recursive_programming";
// MindSpore's rec_core): a heuristic for graphs too large for dynamic programming, on the
// same model and cost model (search.h, cost_model.h).
//
// Why: dynamic programming costs every pair of candidates of every edge, and a call's
// candidates grow with the device count (hundreds at 1,024 devices), so a network of many
// blocks at many devices takes long to plan. The recursive search never enumerates: it
// partitions the devices one prime factor at a time, as rec_core halves them.
//
// How: the devices' prime factors in ascending order (search_mesh) are the *levels*; every op
// starts unsplit (or on its user strategy, which stays). At each level, every searched op
// may multiply the split of one of its loop dimensions by the level's factor (the
// admissible refinements of its strategy, strategies.h) or keep its strategy (more devices
// repeat it). The level's choice among these few options is dynamic programming's Viterbi
// (`viterbi` below, the one search.cc's dynamic_programming runs over all candidates: exact
// on chains and trees); then, since a value read several times (fan-out) is costed only
// approximately there, sweeps re-decide each op (in order of decreasing own cost, ties in
// program order) as the option of least own cost plus its edges to its neighbours' current
// options, until none changes (at most kRecSweeps). A level costs (options² × edges), at
// most (loop dimensions + 1)² per edge, so the search is linear in the ops and logarithmic
// in the devices. Ties go to the earlier option (keeping first, then the loop dimensions in
// order): plans are deterministic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "parallel/mesh.h"

namespace mycel::parallel {

// The model the recursive search reads: the searched ops, the edges between them and the
// costs (search.cc answers them). Candidates are numbered per op; candidate 0 is the op's
// start (unsplit, or the user's strategy).
class RecCosts {
 public:
  // The candidates refining op v's candidate c by `factor` (their numbers, new ones added).
  virtual std::vector<int> refine(size_t v, int c, int64_t factor) = 0;
  // own(v, c) of search.h, seconds (memory weighted in).
  virtual double own(size_t v, int c) const = 0;
  // edge(u, t, v, s) of search.h for edge e, seconds.
  virtual double edge(size_t e, int t, int s) = 0;

 protected:
  ~RecCosts() = default;
};

struct RecGraph {
  size_t ops = 0;
  std::vector<std::pair<size_t, size_t>> edges;  // (producer, consumer)
  std::vector<bool> fixed;                       // per op: the user's strategy, kept
  // set_algo_parameters(fully_use_devices=True): an op that can refine must (no keeping).
  bool refine_only = false;
};

// Dynamic programming over the ops in topological order (their numbering; every edge runs
// from a lower to a higher op): best(v, s) = own(v, s) + Σ over v's in-edges e = (u → v) of
// min_t [best(u, t) + edge(e, t, s)], where best(u, t) counts only at u's first reader (the
// first edge leaving u; at a later reader (fan-out) only the edge); backtracked from the ops
// no edge leaves, each other op taking the option its first reader was best with. Ties go to
// the earlier option. `options[v]` is the number of op v's options; returns the chosen one
// of each op.
template <class Own, class EdgeCost>
std::vector<int> viterbi(const RecGraph& g, const std::vector<size_t>& options, Own own,
                         EdgeCost edge) {
  const size_t n = g.ops;
  std::vector<int> first_reader(n, -1);
  std::vector<std::vector<size_t>> in_edges(n);
  for (size_t e = 0; e < g.edges.size(); ++e) {
    auto [u, v] = g.edges[e];
    if (first_reader[u] < 0) first_reader[u] = static_cast<int>(e);
    in_edges[v].push_back(e);
  }
  std::vector<std::vector<double>> best(n);
  // arg[e][s]: the option of edge e's producer that its consumer's option s is best with.
  std::vector<std::vector<size_t>> arg(g.edges.size());
  for (size_t v = 0; v < n; ++v) {
    best[v].resize(options[v]);
    for (size_t e : in_edges[v]) arg[e].assign(options[v], 0);
    for (size_t s = 0; s < options[v]; ++s) {
      double total = own(v, s);
      for (size_t e : in_edges[v]) {
        const size_t u = g.edges[e].first;
        const bool first = first_reader[u] == static_cast<int>(e);
        double least = std::numeric_limits<double>::infinity();
        for (size_t t = 0; t < options[u]; ++t) {
          double c = edge(e, t, s) + (first ? best[u][t] : 0);
          if (c < least) {
            least = c;
            arg[e][s] = t;
          }
        }
        total += least;
      }
      best[v][s] = total;
    }
  }
  std::vector<int> choice(n, -1);
  for (size_t v = n; v-- > 0;) {
    if (const int e = first_reader[v]; e >= 0) {
      const auto w = static_cast<size_t>(choice[g.edges[static_cast<size_t>(e)].second]);
      choice[v] = static_cast<int>(arg[static_cast<size_t>(e)][w]);
    } else {
      choice[v] =
          static_cast<int>(std::min_element(best[v].begin(), best[v].end()) - best[v].begin());
    }
  }
  return choice;
}

// At most this many sweeps per level after the first decisions.
inline constexpr int kRecSweeps = 4;

// The chosen candidate of every op, the levels being `factors` (search_mesh's axes).
std::vector<int> recursive_partition(const RecGraph& g, RecCosts& costs, const Shape& factors);

}  // namespace mycel::parallel
