// Copying graphs: what inlining, specialisation (one copy of a graph per signature) and
// automatic differentiation build on.
//
// Scoping decides what is copied. A graph h is nested in g when h's free variables reach
// into g, directly or through graphs nested in h (the Manager's parent/children relation).
// Copying g copies g and everything nested in it, since those graphs capture g's nodes and
// must capture the copies; graphs that g merely calls (top-level functions, g itself when
// it recurses, outer graphs) are shared, not copied.
//
// Copies keep name hints, source spans, abstracts (function candidates naming a copied
// graph are renamed to the copy), graph flags and signatures. ValueNodes are shared unless
// they name a copied graph, in which case the copy gets a new ValueNode naming the copied
// graph. New graphs and nodes go into the same module. Nothing is edited in the original,
// and an attached Manager is not told: the copy is not reachable until the caller wires it
// in (through Manager::replace or set_edge, which mark the analyses stale).
#pragma once

#include <unordered_map>

#include "ir/anf.h"

namespace mycel::ir {

// Copies g and every graph nested in it; g's own free variables keep pointing at the
// original outer nodes. Returns the copy of g. When `map` is given it receives
// old -> new for every copied parameter and CNode (and for ValueNodes naming copied
// graphs).
FuncGraph* clone_graph(FuncGraph* g, std::unordered_map<Node*, Node*>* map = nullptr);

// Inlines a direct graph call: `call` is CNode{ValueNode(@callee), args...} in `caller`,
// with as many arguments as the callee has parameters. Copies the callee's statements into
// `caller` with its parameters replaced by the arguments (graphs nested in the callee are
// copied, their free variables now naming the copies in the caller) and returns the node
// standing for the call's result: the caller then replaces `call` with it (for example
// through Manager::replace). The callee's free variables keep pointing at their outer
// nodes, so the caller must be the callee's parent or nested in it (or the callee must
// have none). The callee itself is left unchanged.
Node* inline_call(FuncGraph* caller, CNode* call);
// The same, with the callee's nested graphs given (nested_graphs(callee), computed by a
// caller that also needs them).
Node* inline_call(FuncGraph* caller, CNode* call, const std::vector<FuncGraph*>& nested);

// g's nested graphs (children, transitively), breadth first: what inline_call and
// clone_graph copy along with g.
std::vector<FuncGraph*> nested_graphs(FuncGraph* g);

}  // namespace mycel::ir
