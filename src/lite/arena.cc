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
  // A convolution with a folded Add whose input s it reads last writes into the buffer of s:
  // its output joins the group of s (one buffer living from the group's first write to its
  // last read). Chains (each residual block's output the next one's shortcut) share one.
  std::vector<int> root(nt);
  std::iota(root.begin(), root.end(), 0);
  for (int i = 0; i < end; ++i) {
    const NodeDesc& n = g.nodes[i];
    if (n.op != OpType::Conv2D || !n.a.sum) continue;
    const int s = n.inputs.back(), z = n.outputs[0];
    // Not when the convolution reads s as its x too (y = conv(s) + s): it would overwrite it.
    if (std::find(n.inputs.begin(), n.inputs.end() - 1, s) != n.inputs.end() - 1) continue;
    if (g.tensors[s].constant || first[s] < 0 || last[s] != i ||
        g.tensors[s].layout != g.tensors[z].layout ||
        g.tensors[s].nbytes() != g.tensors[z].nbytes())
      continue;
    root[z] = root[s];
    last[root[s]] = std::max(last[root[s]], last[z]);
  }
  std::vector<size_t> size(nt, 0);
  std::vector<int> order;
  for (int t = 0; t < nt; ++t) {
    if (g.tensors[t].constant || first[t] == -2 || root[t] != t) continue;
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
  for (int t = 0; t < nt; ++t) plan.offset[t] = plan.offset[root[t]];
  return plan;
}

}  // namespace mycel::lite
