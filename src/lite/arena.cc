#include "lite/arena.h"

#include <algorithm>
#include <numeric>

namespace mycel::lite {

ArenaPlan plan_arena(const Graph& g) {
  const int nt = static_cast<int>(g.tensors.size());
  const int end = static_cast<int>(g.nodes.size());
  std::vector<int> first(nt, -2), last(nt, -2);
  for (int t : g.inputs) first[t] = last[t] = -1;
  for (int i = 0; i < end; ++i) {
    for (int t : g.nodes[i].inputs) last[t] = std::max(last[t], i);
    for (int t : g.nodes[i].outputs) first[t] = i, last[t] = std::max(last[t], i);
  }
  for (int t : g.outputs) last[t] = end;
  std::vector<size_t> size(nt, 0);
  std::vector<int> order;
  for (int t = 0; t < nt; ++t) {
    if (g.tensors[t].constant || first[t] == -2) continue;
    size[t] = (g.tensors[t].nbytes() + 63) / 64 * 64;
    order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return size[a] > size[b]; });
  ArenaPlan plan;
  plan.offset.assign(nt, -1);
  std::vector<int> placed;
  for (int t : order) {
    // The ranges of placed tensors alive at the same time, by offset; the first gap that fits.
    std::vector<std::pair<size_t, size_t>> busy;
    for (int p : placed)
      if (first[p] <= last[t] && first[t] <= last[p])
        busy.emplace_back(static_cast<size_t>(plan.offset[p]), size[p]);
    std::sort(busy.begin(), busy.end());
    size_t at = 0;
    for (auto [off, len] : busy) {
      if (at + size[t] <= off) break;
      at = std::max(at, off + len);
    }
    plan.offset[t] = static_cast<int64_t>(at);
    plan.bytes = std::max(plan.bytes, at + size[t]);
    placed.push_back(t);
  }
  return plan;
}

}  // namespace mycel::lite
