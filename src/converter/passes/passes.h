// The converter's passes over a lite graph, run in this order by converter::optimize. Each
// file states its rewrite first. Every pass keeps the graph valid (lite::validate) with its
// shapes inferred, and keeps the names of the graph's inputs and outputs.
#pragma once

#include <vector>

#include "lite/graph.h"

namespace mycel::converter::passes {

// Nodes whose inputs are all constants become constants (run once by the runtime's kernels).
void fold_constants(lite::Graph& g);
// MatMul by a constant 2-d matrix -> FullyConnected; a following BiasAdd (or Add of a [N]
// constant) becomes its (or a Conv2D's) bias.
void fuse_bias(lite::Graph& g);
// Conv2D / FullyConnected followed by an inference BatchNorm: the normalisation folded into
// the weights and bias.
void fold_batchnorm(lite::Graph& g);
// Conv2D / FullyConnected / Eltwise followed by ReLU, ReLU6, Sigmoid or Tanh: fused.
void fuse_activation(lite::Graph& g);
// Identity transposes removed; consecutive transposes composed into one (or none).
void eliminate_transposes(lite::Graph& g);
// Shape inference and pruning: infers every shape again, drops nodes whose outputs nothing
// uses and tensors no node or graph names, renumbering the rest.
void infer_and_prune(lite::Graph& g);

// Helpers the passes share (pass_util.cc).
// How many node inputs read tensor t (graph outputs count as readers too).
int readers(const lite::Graph& g, int t);
bool is_graph_output(const lite::Graph& g, int t);
// The one node reading t, when exactly one node does and t is not a graph output; else -1.
int sole_reader(const lite::Graph& g, int t);
// The float32 values of a constant tensor.
std::vector<float> values(const lite::Graph& g, int t);
// Removes the nodes marked in `dead` (their outputs become unused).
void remove_nodes(lite::Graph& g, const std::vector<char>& dead);
// The index of the node writing each tensor (-1 for inputs and constants).
std::vector<int> producers(const lite::Graph& g);
// The rewrite every fusion ends with: node `p` takes over the output of node `i` (which
// folded into it and is marked dead), so the graph's names and readers stay.
void absorb(lite::Graph& g, int p, int i, std::vector<int>& producer, std::vector<char>& dead);

}  // namespace mycel::converter::passes
