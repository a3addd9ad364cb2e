#include "lite/fuse.h"

#include <vector>

#include "lite/dnnl_util.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

bool f32_activation(const TensorDesc& d) { return !d.constant && d.dtype == DType::Float32; }

// Whether node n is a convolution that may take an Add: run by oneDNN in float32, without a
// fused activation or an Add already.
bool foldable_conv(const Graph& g, const NodeDesc& n) {
  return n.op == OpType::Conv2D && n.a.act == Act::None && !n.a.sum && !is_int8_node(g, n) &&
         f32_activation(g.tensors[n.inputs[0]]) && g.tensors[n.inputs[1]].dtype == DType::Float32 &&
         dnnl_can_run(g, n);
}

}  // namespace

void fold_residual_adds(Graph& g) {
  const size_t nt = g.tensors.size();
  std::vector<int> writer(nt, -1), readers(nt, 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int t : g.nodes[i].inputs) ++readers[t];
    writer[g.nodes[i].outputs[0]] = static_cast<int>(i);
  }
  for (int t : g.outputs) ++readers[t];
  std::vector<char> dropped(g.nodes.size(), 0);
  for (size_t j = 0; j < g.nodes.size(); ++j) {
    const NodeDesc& add = g.nodes[j];
    if (add.op != OpType::Eltwise || add.a.elt != EltKind::Add) continue;
    const int z = add.outputs[0];
    const Dims& shape = g.tensors[z].shape;
    if (shape.size() != 4 || !f32_activation(g.tensors[z])) continue;
    bool same = true;
    for (int t : add.inputs)
      same = same && f32_activation(g.tensors[t]) && g.tensors[t].shape == shape;
    if (!same) continue;
    // The later convolution of the two inputs whose result only the Add reads.
    int conv = -1, side = -1;
    for (int k = 0; k < 2; ++k) {
      const int y = add.inputs[k], c = writer[y];
      if (c < 0 || dropped[c] || readers[y] != 1 || !foldable_conv(g, g.nodes[c])) continue;
      const int s = add.inputs[1 - k];
      if (s == y || writer[s] >= c) continue;  // s must exist when the convolution runs
      if (c > conv) conv = c, side = k;
    }
    if (conv < 0) continue;
    NodeDesc& c = g.nodes[conv];
    c.inputs.push_back(add.inputs[1 - side]);
    c.outputs[0] = z;
    c.a.sum = true;
    c.a.act = add.a.act;
    c.name += "+" + add.name;
    writer[z] = conv;
    dropped[j] = 1;
  }
  std::vector<NodeDesc> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dropped[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

}  // namespace mycel::lite
