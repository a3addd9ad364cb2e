// The IR's walks, one of each (ir/anf.h's Module::toposort and reachable_graphs, the printer,
// the Manager, the MINDIR exporter and the executor's schedule use them; the passes use
// graphs_in, and pass_util keeps its own post-order walk across graphs):
//
//   graphs_in(v)      the graphs a constant refers to (closures, tuples, lists, dicts)
//   toposort(g, ...)  g's statements from given roots (its output, its effects, ...), each
//                     after its inputs; optionally a depend()'s effects before its value
//   walk_graphs(...)  every node reachable from a growing list of graphs, depth first,
//                     finding the graphs their constants refer to
//
// All are iterative (explicit stacks), so a graph of any length walks in constant C stack.
#pragma once

#include <span>
#include <unordered_set>
#include <vector>

#include "ir/anf.h"

namespace mycel::ir {

// Appends the graphs `v` refers to, in order (duplicates kept): a graph, and those inside
// closures (function and bound arguments), tuples, lists and dict values.
void graphs_in(const Value& v, std::vector<FuncGraph*>& out);

// In which order toposort visits a depend(x, effects...)'s inputs.
enum class DependOrder : uint8_t {
  Inputs,        // in input order: x, then the effects
  EffectsFirst,  // the effects, then x (the executor: x's value is read after they ran)
};

// The CNodes of g reachable from `roots` without leaving g, each after its inputs (visited in
// input order; see DependOrder), each once. Roots and inputs that are not CNodes of g
// (parameters, constants, free variables) are skipped, as are null ones; so is a root already
// emitted. Callers choose the roots: Module::toposort the output; the exporter the output,
// then the effects; the executor the effects, then the output; the printer the output, then
// the nodes nested graphs use.
std::vector<CNode*> toposort(FuncGraph* g, std::span<Node* const> roots,
                             DependOrder order = DependOrder::Inputs);

// Depth first over every node reachable from the outputs of `graphs`, taken in turn: inputs
// in order, each node once. `graphs` grows as the walk goes: a graph a visited constant refers
// to (graphs_in) is appended when first found. With `cross`, inputs are followed into other
// graphs (free variables: so a node of g that only a graph nested in g uses is visited);
// without, a graph's walk stays inside it (its CNodes, the parameters and constants they
// use). `on_graph(g)` is called as g's walk starts (graphs without an output are skipped),
// `on_node(n)` as n is reached, before its inputs.
template <class OnGraph, class OnNode>
void walk_graphs(std::vector<FuncGraph*>& graphs, bool cross, OnGraph&& on_graph,
                 OnNode&& on_node) {
  std::unordered_set<FuncGraph*> known(graphs.begin(), graphs.end());
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  std::vector<FuncGraph*> found;
  for (size_t k = 0; k < graphs.size(); ++k) {
    FuncGraph* g = graphs[k];
    if (g->output() == nullptr) continue;
    on_graph(g);
    stack.push_back(g->output());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (n == nullptr || (!cross && n->is_cnode() && n->graph() != g)) continue;
      if (!seen.insert(n).second) continue;
      on_node(n);
      if (n->is_value()) {
        found.clear();
        graphs_in(static_cast<ValueNode*>(n)->value(), found);
        for (FuncGraph* f : found)
          if (known.insert(f).second) graphs.push_back(f);
      } else if (n->is_cnode()) {
        auto* c = static_cast<CNode*>(n);
        for (size_t i = c->size(); i-- > 0;) stack.push_back(c->input(i));
      }
    }
  }
}

}  // namespace mycel::ir
