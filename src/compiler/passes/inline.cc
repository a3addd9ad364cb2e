// inline_graphs: a direct call of a graph constant is replaced by a copy of the callee's
// body (ir::inline_call), when
//
//   - the callee is a ValueNode graph, not the root, not marked no_inline, and not
//     recursive (it cannot reach itself through graph references);
//   - the call passes exactly one argument per parameter;
//   - every free variable of the callee is visible in the caller (owned by the caller or
//     by a graph enclosing it);
//   - policy: the callee is referenced once in the module (a branch of a resolved switch,
//     a helper used once) or is small: at most kMaxInlineNodes CNodes in what inlining
//     copies, its own and its nested graphs', counted when the call is inlined (after the
//     calls inside the callee were, which grow it).
//
//   %r = @f(%a, %b)          with  graph @f(%x, %y) { %t = Mul(%x, %y)  return %t }
//     ->
//   %t' = Mul(%a, %b)        and every use of %r uses %t'
//
// Calls inside callees are visited first (the graphs in reverse reachability order), so one
// run flattens chains of small helpers. Pre: specialised IR. Post: the same program; graphs
// no longer referenced are simply unreachable.
//
// Moving instead of copying: a callee whose only reference in the module is this call
// (no other call, no graph or closure constant naming it, no copy of the call made earlier
// in the run) has its statements moved into the caller (Module::merge_graph, O(1)), its
// parameters' uses rewired to the arguments: the program is the one a copy would give, the
// original being unreachable afterwards either way. Callees before callers means a graph
// has already received the bodies of its own callees when its caller inlines it, so
// copying it copied them again: a chain of n single-use graphs (an unrolled loop, the
// joins after n resolved ifs, the optimizer's loop over the parameters) copied O(n^2)
// nodes, and the walks before each copy (nested_graphs, refreshing the copied graphs)
// visited as many; ResNet-50's training step spent 10.7 s of its 11 s compile here.
// Copies are left for graphs used more than once, which the size bound keeps small. A moved
// callee's library nodes take the user's call span (ir/source_files.h) from a per-graph list
// of them, not from a walk of the callee, which visited again every statement moved into it.
// Cost left: before a copy, nested_graphs(callee) runs a Manager over every graph the callee
// reaches, so copying the shared joins of n sequential run-time ifs is still O(n^2).
//
// Why the size counts nested graphs and is measured late: the code after an `if` is a join
// graph called from both branches, and the branches of the next `if` are nested in it
// (they read its parameters). With n sequential ifs, a bound on the join's own nodes let
// every join be copied into both branches of the if before it, its nested branches (which
// already held copies of the next join) with it: 2^n copies. Counting what is copied, as it
// is when copied, keeps a callee used more than once shared once it holds more than
// kMaxInlineNodes: a join holding an if stays a called graph (as in MindSpore and XLA),
// small straight-line joins are still copied, and the IR stays linear in the program.
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"
#include "ir/clone.h"
#include "ir/source_files.h"
#include "ir/walk.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr size_t kMaxInlineNodes = 32;

// Whether `x`, a node of some graph, is in scope in `g`: owned by g or an enclosing graph.
bool visible_in(Manager& mng, Node* x, FuncGraph* g) {
  for (FuncGraph* p = g; p != nullptr; p = mng.parent(p))
    if (x->graph() == p) return true;
  return false;
}

}  // namespace

bool inline_graphs(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  detail::Walk w = detail::walk(root);

  // How often each graph is referenced (as a callee or as a value) by live nodes.
  std::unordered_map<FuncGraph*, int> refs;
  auto count = [&](Node* n) {
    if (const Value* v = detail::const_value(n); v != nullptr && v->is(ValueKind::Graph))
      ++refs[v->as_graph()];
  };
  for (CNode* c : w.nodes)
    for (Node* in : c->inputs()) count(in);
  for (FuncGraph* g : w.graphs) count(g->output());
  // Every mention of each graph by a constant (graphs_in: closures, tuples, ...) in the live
  // IR, effects included: a graph mentioned once, by its call, may be moved.
  std::unordered_map<FuncGraph*, int> mentions;
  std::vector<FuncGraph*> found;
  auto mention = [&](Node* n) {
    if (const Value* v = n == nullptr ? nullptr : detail::const_value(n)) {
      found.clear();
      graphs_in(*v, found);
      for (FuncGraph* g : found) ++mentions[g];
    }
  };
  for (CNode* c : w.nodes)
    for (Node* in : c->inputs()) mention(in);
  std::unordered_set<Node*> effect_roots;  // a call kept as an effect is not rewired
  for (FuncGraph* g : w.graphs) {
    mention(g->output());
    for (Node* e : g->effects) {
      mention(e);
      effect_roots.insert(e);
    }
  }

  // Every decision is taken on the unedited IR (the analyses are not recomputed per edit),
  // except the size, which grows as the callee's own calls are inlined: `grown` counts the
  // CNodes this run copied into each graph (with the graphs nested in those copies).
  std::unordered_map<FuncGraph*, std::vector<CNode*>> body;
  for (CNode* c : w.nodes) body[c->graph()].push_back(c);
  std::unordered_map<FuncGraph*, size_t> grown;
  auto copy_size = [&](FuncGraph* g) {  // what inline_call copies: g and its nested graphs
    size_t n = 0;
    std::vector<FuncGraph*> work{g};
    std::unordered_set<FuncGraph*> seen{g};
    for (size_t k = 0; k < work.size(); ++k) {
      n += body[work[k]].size() + grown[work[k]];
      for (FuncGraph* h : mng->children(work[k]))
        if (seen.insert(h).second) work.push_back(h);
    }
    return n;
  };
  std::unordered_map<FuncGraph*, bool> inlinable;
  auto can_inline = [&](FuncGraph* g) {
    auto it = inlinable.find(g);
    if (it != inlinable.end()) return it->second;
    bool ok = g != root && !g->no_inline && !mng->is_recursive(g) &&
              (refs[g] == 1 || copy_size(g) <= kMaxInlineNodes);
    inlinable[g] = ok;
    return ok;
  };
  std::unordered_set<CNode*> todo;
  for (CNode* c : w.nodes) {
    FuncGraph* g = c->called_graph();
    if (g == nullptr || !can_inline(g) || c->size() - 1 != g->params().size()) continue;
    bool scoped = true;
    for (Node* x : mng->free_vars(g)) scoped = scoped && visible_in(*mng, x, c->graph());
    if (scoped) todo.insert(c);
  }
  if (todo.empty()) return false;

  // Callees before callers (reverse discovery order), so chains flatten in one run; within
  // a graph in topological order, each call's arguments already rewired.
  detail::Rewriter rw;
  bool replaced = false;
  // Graphs some inline_call copied this run: a call in one of them may have been copied
  // with it, so its callee is no longer referenced once only.
  std::unordered_set<FuncGraph*> copied_from;
  // What inline_call copies (the callee and its nested graphs) rewired to this run's
  // replacements first: a copy must not revive a node already inlined away (a call whose
  // result a nested graph reads as a free variable would then run twice). Only the copied
  // graphs' nodes: graphs they merely refer to are not copied, and a walk through them
  // would visit a whole chain of unrolled loop iterations for every call in it.
  // Returns whether it rewired anything (if not, the IR is as it was).
  auto refresh = [&](FuncGraph* callee, const std::vector<FuncGraph*>& nested) {
    if (!replaced) return false;
    bool changed = false;
    std::unordered_set<FuncGraph*> copied(nested.begin(), nested.end());
    copied.insert(callee);
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (FuncGraph* g : copied) {
      if (Node* r = rw.resolve(g->output()); r != g->output()) {
        g->set_output(r);
        changed = true;
      }
      stack.push_back(g->output());
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!n->is_cnode() || !copied.count(n->graph()) || !seen.insert(n).second) continue;
      auto* c = static_cast<CNode*>(n);
      for (Node* in : c->inputs()) changed = changed || rw.resolve(in) != in;
      rw.update_inputs(c);
      for (Node* in : c->inputs()) stack.push_back(in);
    }
    return changed;
  };
  // Applies the replacements to every node reachable from g (across graphs, following them).
  // A moved callee's parameters are replaced lazily, so until then a walk that stops at
  // them (the Manager's, in nested_graphs) misses the nodes behind: a graph whose free
  // variables are read there would not be seen as nested in what captures them.
  auto rewire_from = [&](FuncGraph* start) {
    std::unordered_set<FuncGraph*> graph_seen{start};
    std::vector<FuncGraph*> graphs{start};
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (size_t k = 0; k < graphs.size(); ++k) {
      if (graphs[k]->output() == nullptr) continue;
      graphs[k]->set_output(rw.resolve(graphs[k]->output()));
      stack.push_back(graphs[k]->output());
      while (!stack.empty()) {
        Node* n = stack.back();
        stack.pop_back();
        if (!seen.insert(n).second) continue;
        if (const Value* v = detail::const_value(n)) {
          found.clear();
          graphs_in(*v, found);
          for (FuncGraph* g : found)
            if (graph_seen.insert(g).second) graphs.push_back(g);
        } else if (n->is_cnode()) {
          auto* c = static_cast<CNode*>(n);
          rw.update_inputs(c);
          for (Node* in : c->inputs()) stack.push_back(in);
        }
      }
    }
  };
  auto names_graph = [&](Node* n) {
    const Value* v = n == nullptr ? nullptr : detail::const_value(n);
    if (v == nullptr) return false;
    found.clear();
    graphs_in(*v, found);
    return !found.empty();
  };
  // Whether g's statements or its output name a graph (what makes nested_graphs run its
  // Manager). The output counts: a graph returning a closure (`return @d`, with @d reading
  // one of g's nodes) has no statement naming @d, and @d may read g's node only through a
  // parameter replaced lazily (a callee moved into @d): unrewired, @d is not seen as
  // nested in g and a copy of g returns the original @d, reading the original's node.
  auto refers_to_graphs = [&](FuncGraph* g) {
    if (names_graph(g->output())) return true;
    for (CNode* n : m.toposort(g))
      for (Node* in : n->inputs())
        if (names_graph(in)) return true;
    return false;
  };
  // Library-spanned CNodes each graph holds (its own, and those moved into it), for
  // respan_moved; `lib_unknown`: graphs a library call's copy went into (inline_call leaves
  // the copies' library spans), whose library nodes only a walk finds.
  std::unordered_map<FuncGraph*, std::vector<CNode*>> lib_nodes;
  for (CNode* c : w.nodes)
    if (is_library_span(c->span())) lib_nodes[c->graph()].push_back(c);
  std::unordered_set<FuncGraph*> lib_unknown;
  auto user_call = [](CNode* c) { return c->span().valid() && !is_library_span(c->span()); };
  // Before moving `callee` into the graph of `call`: its library nodes name a user's call
  // (inlined_span), or wait in the caller's list for one. Only library nodes change, so
  // these lists replace a walk of the callee per move, which in a chain of n moved graphs
  // (an unrolled loop) walked every statement moved into it before: O(n^2) visits.
  auto respan_moved = [&](FuncGraph* callee, CNode* call) {
    FuncGraph* caller = call->graph();
    std::vector<CNode*>& mine = lib_nodes[callee];
    if (user_call(call)) {
      if (lib_unknown.count(callee))
        for (CNode* n : m.toposort(callee)) n->set_span(inlined_span(n->span(), call->span()));
      for (CNode* n : mine) n->set_span(inlined_span(n->span(), call->span()));
      mine.clear();
      return;
    }
    if (lib_unknown.count(callee)) lib_unknown.insert(caller);
    std::vector<CNode*>& theirs = lib_nodes[caller];  // (the smaller list appended)
    if (theirs.size() < mine.size()) theirs.swap(mine);
    theirs.insert(theirs.end(), mine.begin(), mine.end());
    mine.clear();
  };
  std::unordered_set<FuncGraph*> received;  // graphs a callee was moved into
  for (auto it = w.graphs.rbegin(); it != w.graphs.rend(); ++it) {
    for (CNode* c : body[*it]) {
      rw.update_inputs(c);
      if (!todo.count(c)) continue;
      FuncGraph* callee = c->called_graph();
      size_t size = copy_size(callee);
      // Inlining the callee's own calls may have grown it past the bound.
      if (refs[callee] != 1 && size > kMaxInlineNodes) continue;
      if (mentions[callee] == 1 && !copied_from.count(*it) && !effect_roots.count(c) &&
          (*it)->owner() == *it && callee->owner() == callee) {
        // Moved: the callee's nodes become the caller's (see the header); those of library
        // code name the user's call (ir/source_files.h).
        respan_moved(callee, c);
        m.merge_graph(callee, c->graph());
        // The callee's own uses of its parameters are rewired lazily; those of its nested
        // graphs (closures reading a parameter as a free variable) now: a copy of the
        // caller made later in this run would otherwise copy closures reading a parameter
        // of a graph that no longer runs (nested jvps whose levels share a function).
        for (size_t i = 0; i < callee->params().size(); ++i) {
          Parameter* p = callee->param(i);
          rw.replace(p, c->input(i + 1));
          for (auto [user, k] : mng->users(p))
            if (user->graph() != callee) user->set_input(static_cast<size_t>(k), c->input(i + 1));
        }
        rw.replace(c, callee->output());
        received.insert(*it);
        grown[*it] += size;
        replaced = true;
        continue;
      }
      // Rewiring may change which graphs are nested in the callee (a replacement can
      // refer to other graphs than the node it replaces): again until they settle. When
      // nothing was rewired the IR is unchanged, and so are they (each nested_graphs runs a
      // Manager over every graph the callee reaches: see the header's cost note).
      if (!received.empty() && (received.count(callee) || refers_to_graphs(callee)))
        rewire_from(callee);
      std::vector<FuncGraph*> nested = nested_graphs(callee);
      while (refresh(callee, nested)) {
        std::vector<FuncGraph*> now = nested_graphs(callee);
        if (now == nested) break;
        nested = std::move(now);
      }
      copied_from.insert(callee);
      copied_from.insert(nested.begin(), nested.end());
      if (!user_call(c)) lib_unknown.insert(c->graph());
      rw.replace(c, inline_call(c->graph(), c, nested));
      grown[c->graph()] += size;
      replaced = true;
    }
    (*it)->set_output(rw.resolve((*it)->output()));  // before a caller copies this graph
  }
  // Uses from other graphs (free variables), from the copies and from moved nodes, which are
  // reached only through a replaced call or parameter: the walk follows the replacements.
  rewire_from(root);
  m.settle_merges();
  mng->invalidate();
  return true;
}

}  // namespace mycel::compiler
