#include <algorithm>

#include "converter/passes/passes.h"

namespace mycel::converter::passes {

int readers(const lite::Graph& g, int t) {
  int n = 0;
  for (const lite::NodeDesc& node : g.nodes)
    n += static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), t));
  return n + static_cast<int>(std::count(g.outputs.begin(), g.outputs.end(), t));
}

bool is_graph_output(const lite::Graph& g, int t) {
  return std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
}

int sole_reader(const lite::Graph& g, int t) {
  if (is_graph_output(g, t) || readers(g, t) != 1) return -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (std::count(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end(), t))
      return static_cast<int>(i);
  return -1;
}

std::vector<float> values(const lite::Graph& g, int t) {
  const lite::TensorDesc& d = g.tensors[t];
  size_t n = d.nbytes() / sizeof(float);
  return std::vector<float>(d.f32(), d.f32() + n);
}

void remove_nodes(lite::Graph& g, const std::vector<char>& dead) {
  std::vector<lite::NodeDesc> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

std::vector<int> producers(const lite::Graph& g) {
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) producer[g.nodes[i].outputs[0]] = static_cast<int>(i);
  return producer;
}

void absorb(lite::Graph& g, int p, int i, std::vector<int>& producer, std::vector<char>& dead) {
  const int out = g.nodes[i].outputs[0];
  g.nodes[p].outputs[0] = out;
  producer[out] = p;
  dead[i] = 1;
}

}  // namespace mycel::converter::passes
