#include "lite/layout.h"

#include <vector>

#include "lite/dnnl_util.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

// How node n may lay out its float32 activations.
enum class Takes { Any, PoolLike, Same, Nchw };

Takes takes(const Graph& g, const NodeDesc& n) {
  switch (n.op) {
    case OpType::Conv2D:
      return !is_int8_node(g, n) && dnnl_can_run(g, n) ? Takes::Any : Takes::Nchw;
    case OpType::Pool:
      return is_u8(g.tensors[n.inputs[0]]) ? Takes::Nchw : Takes::PoolLike;
    case OpType::Act:
      return Takes::Same;
    case OpType::Eltwise: {
      const Dims& y = g.tensors[n.outputs[0]].shape;
      for (int t : n.inputs)
        if (g.tensors[t].constant || g.tensors[t].shape != y) return Takes::Nchw;
      return Takes::Same;
    }
    default:
      return Takes::Nchw;
  }
}

}  // namespace

void choose_layouts(Graph& g, bool bf16) {
  const size_t nt = g.tensors.size();
  std::vector<char> f(nt, 0);
  for (const NodeDesc& n : g.nodes) {
    const TensorDesc& y = g.tensors[n.outputs[0]];
    f[n.outputs[0]] = y.dtype == DType::Float32 && y.shape.size() == 4;
  }
  for (int t : g.outputs) f[t] = 0;
  std::vector<Takes> kind;
  for (const NodeDesc& n : g.nodes) kind.push_back(takes(g, n));
  for (bool changed = true; changed;) {
    changed = false;
    auto drop = [&](int t) {
      if (f[t]) f[t] = 0, changed = true;
    };
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      const NodeDesc& n = g.nodes[k];
      const int y = n.outputs[0];
      switch (kind[k]) {
        case Takes::Any:
          // A folded residual Add (lite/fuse.h) accumulates into y: its input lies as y does.
          if (n.a.sum && f[n.inputs.back()] != f[y]) drop(y), drop(n.inputs.back());
          break;
        case Takes::PoolLike:
          if (!f[n.inputs[0]]) drop(y);
          break;
        case Takes::Same: {
          bool all = f[y];
          for (int t : n.inputs) all = all && f[t];
          if (all) break;
          drop(y);
          for (int t : n.inputs) drop(t);
          break;
        }
        case Takes::Nchw:
          drop(y);
          for (int t : n.inputs) drop(t);
          break;
      }
    }
  }
  // Groups of channels-last tensors that share a layout, and whether each may be nChw16c.
  std::vector<int> root(nt);
  for (size_t t = 0; t < nt; ++t) root[t] = static_cast<int>(t);
  auto find = [&](int t) {
    while (root[t] != t) t = root[t] = root[root[t]];
    return t;
  };
  auto tie = [&](int a, int b) {
    if (f[a] && f[b]) root[find(a)] = find(b);
  };
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const NodeDesc& n = g.nodes[k];
    const int y = n.outputs[0];
    if (kind[k] == Takes::Same || kind[k] == Takes::PoolLike)
      for (int t : n.inputs) tie(t, y);
    if (n.op == OpType::Conv2D && n.a.sum) tie(n.inputs.back(), y);
  }
  std::vector<char> blocked(nt, 1), winograd(nt, 0);
  for (size_t t = 0; t < nt; ++t)
    if (f[t] && g.tensors[t].shape[1] % 16 != 0) blocked[find(static_cast<int>(t))] = 0;
  for (const NodeDesc& n : g.nodes)
    if (winograd_fits(g, n, bf16)) winograd[find(n.inputs[0])] = winograd[find(n.outputs[0])] = 1;
  for (size_t t = 0; t < nt; ++t) {
    const int r = find(static_cast<int>(t));
    g.tensors[t].layout = !f[t]                       ? Layout::Nchw
                          : blocked[r] && winograd[r] ? Layout::Blocked16
                                                      : Layout::Nhwc;
  }
}

}  // namespace mycel::lite
