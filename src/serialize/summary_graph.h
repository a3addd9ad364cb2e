// The graph of a summary (mycel.train.summary, SummaryCollector's collect_graph): a compiled
// graph as the GraphProto of src/serialize/summary.proto (MindSpore's anf_ir GraphProto field
// numbers), which MindInsight draws. Unlike a MINDIR file it is a picture, not a program: any
// graph serialises (a JIT fallback or a summary operator's host call is a node like another),
// and nothing is read back.
#pragma once

#include <string>
#include <vector>

#include "ir/anf.h"

namespace mycel::serialize {

struct SummaryGraphSpec {
  ir::FuncGraph* entry = nullptr;
  size_t num_inputs = 0;                  // the entry's first parameters: the inputs
  std::vector<std::string> weight_names;  // then one parameter per weight
  std::string name;                       // the graph's name
};

// The serialized GraphProto. Nodes are the CNodes of every graph reachable from the entry,
// each graph's in topological order (output, then effects); a node's op_type is its op's
// name, its builtin's ("print", "py_execute", "switch", ...) or "graph:<name>" for a call of
// a graph; its scope is the graph it belongs to (empty for the entry). Parameters of other
// graphs and constants are named inputs too (parameters / const_vals).
std::string summary_graph(const SummaryGraphSpec& spec);

}  // namespace mycel::serialize
