// Small helpers shared by the passes (compiler/passes.h): the manager a pass works with and
// the node predicates several passes need. Internal to src/compiler/passes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/anf.h"
#include "ir/manager.h"

namespace mycel::compiler::detail {

// The module's attached manager, or one attached for the lifetime of this object.
class PassManager {
 public:
  PassManager(ir::Module& m, ir::FuncGraph* root) {
    if (m.manager() != nullptr) {
      mng_ = m.manager();
    } else {
      own_ = std::make_unique<ir::Manager>(m, root);
      mng_ = own_.get();
    }
  }
  ir::Manager* operator->() const { return mng_; }
  ir::Manager& operator*() const { return *mng_; }

 private:
  std::unique_ptr<ir::Manager> own_;
  ir::Manager* mng_ = nullptr;
};

// The constant a node holds, or null.
inline const ir::Value* const_value(const ir::Node* n) {
  return n->is_value() ? &static_cast<const ir::ValueNode*>(n)->value() : nullptr;
}

inline bool is_builtin_call(const ir::Node* n, ir::Builtin b) {
  return n->is_cnode() && static_cast<const ir::CNode*>(n)->is_builtin(b);
}

// The CNode n as a call of `op` (any attributes), or null.
inline ir::CNode* as_prim_call(ir::Node* n, OpId op) {
  if (!n->is_cnode()) return nullptr;
  auto* c = static_cast<ir::CNode*>(n);
  const ir::PrimData* p = c->prim();
  return p != nullptr && p->op->id == op ? c : nullptr;
}

// A constant integer (or bool) held by n.
inline std::optional<int64_t> const_int(const ir::Node* n) {
  const ir::Value* v = const_value(n);
  if (v == nullptr || !(v->is(ir::ValueKind::Int) || v->is(ir::ValueKind::Bool)))
    return std::nullopt;
  return v->as_int();
}

// The tensor whose storage n stands for: depend(x, ...) is x, and an update's result is the
// variable it wrote (F_UPDATE: output i is input i, written in place -- Assign(w, v) is w's
// storage, and so is getitem i of a multi-output update's result), and getitem i of a
// make_tuple/make_list is its element i (an optimizer reads its parameters so: the write
// goes into that element's storage). A write through any node of one storage changes what
// every other node of it reads.
const ir::Node* storage_root(const ir::Node* n);
// The storages (storage_root) that ops among `nodes` write in place (OpDef::writes).
std::unordered_set<const ir::Node*> written_storages(const std::vector<ir::CNode*>& nodes);

// Nodes with effects beyond their result: never merged, dropped or run at compile time.
inline bool is_effectful_callee(const ir::Value& v) {
  if (v.is(ir::ValueKind::Prim)) return (v.as_prim().op->flags & kEffectFlags) != 0;
  if (v.is(ir::ValueKind::Builtin)) return ir::builtin_has(v.as_builtin(), ir::B_EFFECT);
  return v.is(ir::ValueKind::PyObj);
}

// Every CNode reachable from root's output, across graphs: through inputs (free variables
// included: a node of g that only a graph nested in g uses is found too) and through graph
// constants. Inputs come before their users. `graphs` lists the graphs found, root first.
struct Walk {
  std::vector<ir::FuncGraph*> graphs;
  std::vector<ir::CNode*> nodes;
};
Walk walk(ir::FuncGraph* root);

// Replacements applied during one walk in topological order, without a Manager query per
// edit: a pass visits each node, first rewires its inputs to the replacements recorded so
// far (update_inputs), then may record a replacement for the node itself. finish() rewires
// the graph outputs; the pass then invalidates the manager once. Linear in the IR size.
class Rewriter {
 public:
  void replace(ir::Node* old, ir::Node* repl) {
    if (old != repl) repl_[old] = repl;
  }
  ir::Node* resolve(ir::Node* n) const {
    for (auto it = repl_.find(n); it != repl_.end(); it = repl_.find(n)) n = it->second;
    return n;
  }
  void update_inputs(ir::CNode* c) const {
    if (repl_.empty()) return;
    for (size_t i = 0; i < c->size(); ++i)
      if (ir::Node* r = resolve(c->input(i)); r != c->input(i)) c->set_input(i, r);
  }
  // Rewires outputs; returns whether anything was replaced at all.
  bool finish(const std::vector<ir::FuncGraph*>& graphs) const {
    for (ir::FuncGraph* g : graphs)
      if (ir::Node* r = resolve(g->output()); r != g->output()) g->set_output(r);
    return !repl_.empty();
  }

 private:
  std::unordered_map<ir::Node*, ir::Node*> repl_;
};

// A pass of one rewriting walk from the root: `run(visit)` visits every CNode in topological
// order, its inputs first rewired to the replacements recorded so far (rw.replace); `visit(c)`
// records replacements and returns whether it edited c in place. run() rewires the outputs,
// invalidates the manager when anything changed and returns whether it did.
struct RewritePass {
  RewritePass(ir::Module& m, ir::FuncGraph* root) : mng(m, root), w(walk(root)) {}
  template <class Visit>
  bool run(Visit&& visit) {
    bool edited = false;
    for (ir::CNode* c : w.nodes) {
      rw.update_inputs(c);
      edited = visit(c) || edited;
    }
    bool changed = rw.finish(w.graphs) || edited;
    if (changed) mng->invalidate();
    return changed;
  }
  PassManager mng;
  Walk w;
  Rewriter rw;
};

// g's users of each node a pass outlines: (user, input index) pairs, as Manager::users gives.
using UserMap = std::unordered_map<const ir::CNode*, std::vector<std::pair<ir::CNode*, int>>>;

// Moves `nodes` (CNodes of g, inputs before users) into a new graph `name` (no_inline: a
// kernel, graph_kernel.cc and matmul_epilogue.cc) whose parameters x0, x1, ... are their
// inputs from outside, in order of first use, and calls it in g: the call replaces `results`
// (members of `nodes`) for their users outside `nodes` (from `users`) and as g's output; one
// result is the call itself, several are getitems of the tuple the graph returns.
void outline(ir::Module& m, ir::FuncGraph* g, const std::vector<ir::CNode*>& nodes,
             const std::vector<ir::CNode*>& results, const std::string& name, const UserMap& users);

}  // namespace mycel::compiler::detail
