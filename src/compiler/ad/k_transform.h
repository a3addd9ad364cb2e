// The K transform of one graph (design in compiler/ad/ad.h):
//
//   graph @g(%p...) { ... return %y }
//     ->
//   graph @K_g(%p...) { <g's forward, calls of graphs h replaced by K_h> return (%y, @B_g) }
//   graph @B_g(%dout) { <adjoints, from %dout back to the parameters> return (%d_p...) }
//
// B_g is nested in K_g (it reads K_g's forward values as free variables); lift turns it into
// partial(@B_g, saved...). Calls are differentiated in three forms:
//   - prim calls, with the op's bprop rule (compiler/ad/bprop.h);
//   - direct calls @h(args): (out, bp) = @K_h(args), and bp(d) gives one cotangent per arg;
//   - calls of a function value f(args) (a closure passed around, a bprop returned by a
//     K graph, a switch between graphs): (out, bp) = K(f)(args); bp(d) gives one cotangent
//     per parameter of the graph that ran, its captured values first: the last len(args)
//     go to the arguments, the rest (tuple_head) is the cotangent of the function value,
//     which partial(@h, c...) routes to c (cot_get). That structure is known only at run
//     time (two closures of a switch capture different values), so it is None or a tuple
//     and adds with cot_add. This is what differentiates a bprop again: grad of grad
//     through loops and recursion.
// normalize_calls() first turns calls of closures into direct calls where it can
// (partial(@h, c...)(x) becomes @h(c..., x); a switch between closures passes both capture
// lists as arguments), which the optimiser can then inline.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/anf.h"

namespace mycel::ir {

// The graph a node holds as a constant (@g), else nullptr.
FuncGraph* graph_const(const Node* n);
// A value node of graph g in m, typed as the function it is.
ValueNode* graph_ref(Module& m, FuncGraph* g, SourceSpan sp = {});

// The closure a function value stands for: @g (no captures) or partial(@g, caps...); false
// for anything else. The target of a vjp or vmap is one (expand_vjp, expand_vmap).
bool as_closure(Node* f, FuncGraph** g, std::vector<Node*>* caps);

// Rewrites calls of closures in the graphs reachable from g into direct calls (see above).
// Pre and post: lifted, specialised IR. Returns whether it changed anything.
bool normalize_calls(Module& m, FuncGraph* g);

// In the graphs reachable from g, a node ordered after an Assign or AssignAdd of a storage
// in its graph that reads that storage (depend(x, state...), a call taking x) reads the
// write's result (the same value; the gradient then flows through the write): see
// follow_writes.cc. Pre and post: lifted, specialised IR. Returns whether it changed
// anything.
bool follow_writes(Module& m, FuncGraph* g);

class KTransform {
 public:
  explicit KTransform(Module& m) : m_(m) {}
  // K(g), made once per graph (recursion: K_g calls K_g). g must be normalised, lifted and
  // free of vjp.
  FuncGraph* k_graph(FuncGraph* g);
  // g's nodes (parameters and CNodes) -> their copies in K(g), once k_graph(g) returned.
  const std::unordered_map<Node*, Node*>& forward_map(FuncGraph* g) const { return fwd_.at(g); }
  // B(g): the bprop graph nested in K(g) (null when g never returns).
  FuncGraph* bprop_graph(FuncGraph* g) const { return bprop_.at(g); }
  // An abstract with every graph among its function candidates replaced by its K.
  AbsPtr k_abs(const AbsPtr& a);
  // Whether a backward reading a value that an op of the forward overwrites in place later
  // is an error (GRAPH mode: it would read the new value). PYNATIVE's recording keeps the old
  // values (OpRecorder::before_write) and turns it off.
  bool check_overwrites = true;

 private:
  Module& m_;
  std::unordered_map<FuncGraph*, FuncGraph*> done_;
  std::unordered_map<FuncGraph*, std::unordered_map<Node*, Node*>> fwd_;
  std::unordered_map<FuncGraph*, FuncGraph*> bprop_;
};

}  // namespace mycel::ir
