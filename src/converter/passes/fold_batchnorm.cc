// Rewrite: y = BatchNorm(Conv2D(x, w[, b]), gamma, beta, mean, var) with every parameter
// constant, and the convolution's output read by the BatchNorm alone, becomes
// y = Conv2D(x, w * s, (b - mean) * s + beta) with s = gamma / sqrt(var + eps) per output
// channel; the same for FullyConnected (w [N, K]: a row per channel). New constants are made,
// so weights shared with other nodes stay as they were.
#include <cmath>

#include "converter/passes/passes.h"

namespace mycel::converter::passes {

void fold_batchnorm(lite::Graph& g) {
  std::vector<int> producer = producers(g);
  std::vector<char> dead(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const lite::NodeDesc& bn = g.nodes[i];
    if (bn.op != lite::OpType::BatchNorm) continue;
    const int x = bn.inputs[0], p = producer[x];
    if (p < 0 || sole_reader(g, x) != static_cast<int>(i)) continue;
    lite::NodeDesc& conv = g.nodes[p];
    if (conv.op != lite::OpType::Conv2D && conv.op != lite::OpType::FullyConnected) continue;
    if (conv.a.act != lite::Act::None) continue;
    bool consts = true;
    for (size_t k = 1; k < conv.inputs.size(); ++k)
      consts = consts && g.tensors[conv.inputs[k]].constant;
    for (size_t k = 1; k < 5; ++k) consts = consts && g.tensors[bn.inputs[k]].constant;
    if (!consts) continue;
    std::vector<float> gamma = values(g, bn.inputs[1]), beta = values(g, bn.inputs[2]),
                       mean = values(g, bn.inputs[3]), var = values(g, bn.inputs[4]);
    const int wt = conv.inputs[1];
    std::vector<float> w = values(g, wt);
    const size_t channels = gamma.size(), row = w.size() / channels;
    std::vector<float> b =
        conv.inputs.size() == 3 ? values(g, conv.inputs[2]) : std::vector<float>(channels, 0.f);
    for (size_t c = 0; c < channels; ++c) {
      const float s = gamma[c] / std::sqrt(var[c] + bn.a.epsilon);
      for (size_t j = 0; j < row; ++j) w[c * row + j] *= s;
      b[c] = (b[c] - mean[c]) * s + beta[c];
    }
    const lite::Dims wshape = g.tensors[wt].shape;
    const std::string name = g.tensors[wt].name;
    const int nw = g.add_constant(name + "/bn_folded", wshape, std::move(w));
    const int nb =
        g.add_constant(name + "/bn_bias", {static_cast<int64_t>(channels)}, std::move(b));
    conv.inputs.resize(3);
    conv.inputs[1] = nw;
    conv.inputs[2] = nb;
    absorb(g, p, static_cast<int>(i), producer, dead);
  }
  remove_nodes(g, dead);
}

}  // namespace mycel::converter::passes
