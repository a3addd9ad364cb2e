#include "parallel/rec_search.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace mycel::parallel {

namespace {

class Partition {
 public:
  Partition(const RecGraph& g, RecCosts& costs)
      : g_(g), costs_(costs), cur_(g.ops, 0), near_(g.ops) {
    for (size_t e = 0; e < g.edges.size(); ++e) {
      near_[g.edges[e].first].push_back(e);
      if (g.edges[e].second != g.edges[e].first) near_[g.edges[e].second].push_back(e);
    }
  }

  std::vector<int> run(const Shape& factors) {
    for (int64_t f : factors) {
      if (f > 1) level(f);
    }
    return cur_;
  }

 private:
  // One level: every op keeps its candidate or refines it by f.
  void level(int64_t f) {
    std::vector<size_t> order(g_.ops);
    std::iota(order.begin(), order.end(), size_t{0});
    std::vector<double> weight(g_.ops);
    for (size_t v = 0; v < g_.ops; ++v) weight[v] = costs_.own(v, cur_[v]);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    // The options of each op at this level: its candidate, then its refinements.
    std::vector<std::vector<int>> options(g_.ops);
    for (size_t v : order) {
      options[v].push_back(cur_[v]);
      if (g_.fixed[v]) continue;
      std::vector<int> finer = costs_.refine(v, cur_[v], f);
      if (g_.refine_only && !finer.empty()) options[v].clear();
      options[v].insert(options[v].end(), finer.begin(), finer.end());
    }
    // The level's dynamic programming over the options, then the sweeps.
    std::vector<size_t> counts(g_.ops);
    for (size_t v = 0; v < g_.ops; ++v) counts[v] = options[v].size();
    std::vector<int> pick = viterbi(
        g_, counts, [&](size_t v, size_t s) { return costs_.own(v, options[v][s]); },
        [&](size_t e, size_t t, size_t s) {
          return costs_.edge(e, options[g_.edges[e].first][t], options[g_.edges[e].second][s]);
        });
    for (size_t v = 0; v < g_.ops; ++v) cur_[v] = options[v][static_cast<size_t>(pick[v])];
    for (int sweep = 0; sweep < kRecSweeps; ++sweep) {
      bool changed = false;
      for (size_t v : order) changed = decide(v, options[v]) || changed;
      if (!changed) break;
    }
  }

  // Op v takes its cheapest option given its neighbours' current candidates; whether it
  // changed.
  bool decide(size_t v, const std::vector<int>& options) {
    if (options.size() == 1) {
      const bool changed = options[0] != cur_[v];
      cur_[v] = options[0];
      return changed;
    }
    double least = std::numeric_limits<double>::infinity();
    int best = cur_[v];
    for (int s : options) {
      double c = costs_.own(v, s);
      for (size_t e : near_[v]) {
        const auto [u, w] = g_.edges[e];
        if (u == v && w == v) {
          c += costs_.edge(e, s, s);
        } else if (u == v) {
          c += costs_.edge(e, s, cur_[w]);
        } else {
          c += costs_.edge(e, cur_[u], s);
        }
      }
      if (c < least) {
        least = c;
        best = s;
      }
    }
    const bool changed = best != cur_[v];
    cur_[v] = best;
    return changed;
  }

  const RecGraph& g_;
  RecCosts& costs_;
  std::vector<int> cur_;                   // per op: its candidate
  std::vector<std::vector<size_t>> near_;  // per op: the edges at it
};

}  // namespace

std::vector<int> recursive_partition(const RecGraph& g, RecCosts& costs, const Shape& factors) {
  return Partition(g, costs).run(factors);
}

}  // namespace mycel::parallel
