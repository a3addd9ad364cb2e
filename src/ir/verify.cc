// verify (ir/anf.h): checks the invariants every pass keeps over the graphs reachable from
// the root, using a Manager for scoping (parent chains and free variables). A violation
// is a bug of whatever built the IR, so it throws a RuntimeError whose message starts with
// "IR verify failed:" and names the graph, the node and the rule.
#include <string>
#include <unordered_set>
#include <vector>

#include "base/error.h"
#include "ir/anf.h"
#include "ir/manager.h"

namespace mycel::ir {

namespace {

bool never_returns(Node* n, int depth = 0) {
  if (!n->is_cnode() || depth > 16) return false;
  auto* c = static_cast<CNode*>(n);
  if (c->is_builtin(Builtin::Raise)) return true;
  if (c->is_builtin(Builtin::Depend)) return never_returns(c->input(1), depth + 1);
  FuncGraph* g = c->called_graph();
  return g != nullptr && g->output() != nullptr && !g->output()->abstract() &&
         g->output()->is_cnode() && never_returns(g->output(), depth + 1);
}

std::string node_desc(const Node* n) {
  if (n == nullptr) return "<null>";
  if (n->is_value()) return static_cast<const ValueNode*>(n)->value().to_string();
  std::string s = "%" + (n->name().empty() ? std::to_string(n->id()) : n->name());
  if (n->is_cnode()) {
    const auto* c = static_cast<const CNode*>(n);
    if (c->size() > 0 && c->input(0) != nullptr) {
      const Node* f = c->input(0);
      std::string callee;
      if (f->is_value()) {
        const Value& v = static_cast<const ValueNode*>(f)->value();
        callee = v.is(ValueKind::Prim) ? std::string(v.as_prim().op->name) : v.to_string();
      } else {
        callee = "%" + (f->name().empty() ? std::to_string(f->id()) : f->name());
      }
      s += " (" + callee + ")";
    }
  }
  return s;
}

std::string graph_desc(const FuncGraph* g) { return g == nullptr ? "<none>" : "@" + g->name(); }

[[noreturn]] void fail(const FuncGraph* g, const Node* n, const std::string& rule) {
  std::string where = "graph " + graph_desc(g);
  if (n != nullptr) where += ", node " + node_desc(n);
  MC_THROW(Runtime, "IR verify failed: ", where, ": ", rule);
}

class Verifier {
 public:
  Verifier(FuncGraph* root, VerifyOptions opts)
      : root_(root), opts_(opts), mng_(*root->module(), root) {}

  void run() {
    Module* m = root_->module();
    const std::vector<FuncGraph*>& graphs = mng_.graphs();
    std::unordered_set<FuncGraph*> in_set(graphs.begin(), graphs.end());
    for (FuncGraph* g : graphs) {
      if (g->module() != m) fail(g, nullptr, "the graph belongs to another module");
      if (g->output() == nullptr) fail(g, nullptr, "the output is not set");
      for (Parameter* p : g->params())
        if (p->graph() != g) fail(g, p, "a parameter of another graph is in the parameter list");
      if (opts_.specialized)
        for (Parameter* p : g->params())
          if (!p->abstract()) fail(g, p, "the parameter has no abstract");
    }
    // Scoping: a graph is nested in its parent only if the parent (or a graph nested in
    // it) refers to it; free variables otherwise name a graph that merely owns them.
    for (FuncGraph* g : graphs) {
      FuncGraph* p = mng_.parent(g);
      if (p != nullptr && in_set.count(p) && !reaches(p, g)) bad_link_.insert(g);
    }
    // Every node reachable from the outputs; CNodes checked with their inputs.
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (FuncGraph* g : graphs) {
      check_operand(g, nullptr, 0, g->output(), in_set);
      stack.push_back(g->output());
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      // Only what never returns has no abstract: raise, a call of a graph that always
      // raises, and depend() on one.
      if (opts_.specialized && !n->abstract() && !never_returns(n))
        fail(n->graph(), n, n->is_value() ? "the constant has no abstract" : "no abstract");
      if (n->is_value()) {
        check_value(static_cast<ValueNode*>(n)->value(), n, m);
        continue;
      }
      if (!n->is_cnode()) continue;
      auto* c = static_cast<CNode*>(n);
      if (c->size() == 0) fail(c->graph(), c, "the CNode has no callee");
      for (size_t i = 0; i < c->size(); ++i) {
        check_operand(c->graph(), c, i, c->input(i), in_set);
        stack.push_back(c->input(i));
      }
      if (opts_.specialized) check_specialized(c);
    }
    check_acyclic(graphs);
    // Parent chains end (mutual captures would make two graphs enclose each other).
    for (FuncGraph* g : graphs) {
      std::unordered_set<FuncGraph*> chain{g};
      for (FuncGraph* p = mng_.parent(g); p != nullptr; p = mng_.parent(p))
        if (!chain.insert(p).second)
          fail(g, nullptr,
               "its free variables make it enclose itself (through " + graph_desc(p) + ")");
    }
    for (FuncGraph* g : graphs) {
      for (Node* x : mng_.free_vars(g)) {
        if (opts_.lifted)
          fail(g, nullptr,
               "free variable " + node_desc(x) + " of graph " + graph_desc(x->graph()) +
                   " after lambda lifting");
        // The module's entry encloses every graph it reaches: a free variable of it names
        // a node no running graph computes (a graph that merely refers to one such
        // closure counts as its parent, so the checks below would accept it).
        if (g == root_ && root_ == m->entry())
          fail(g, nullptr,
               "the entry graph has the free variable " + node_desc(x) + ", a node of graph " +
                   graph_desc(x->graph()));
        if (!in_set.count(x->graph()) && g == root_) continue;  // verifying a nested graph
        if (!encloses(x->graph(), g))
          fail(g, nullptr,
               "free variable " + node_desc(x) + " is a node of graph " + graph_desc(x->graph()) +
                   ", which does not enclose " + graph_desc(g));
      }
    }
  }

 private:
  // Whether h is a strict ancestor of g in the parent chain.
  bool encloses(FuncGraph* h, FuncGraph* g) {
    size_t limit = mng_.graphs().size() + 1;  // chains may still be cyclic here
    for (FuncGraph* c = g; mng_.parent(c) != nullptr && limit-- > 0; c = mng_.parent(c)) {
      if (bad_link_.count(c)) return false;
      if (mng_.parent(c) == h) return true;
    }
    return false;
  }

  // Whether `from` refers to `to` through graph constants, directly or not.
  bool reaches(FuncGraph* from, FuncGraph* to) {
    std::unordered_set<FuncGraph*> seen;
    std::vector<FuncGraph*> work{from};
    while (!work.empty()) {
      FuncGraph* g = work.back();
      work.pop_back();
      for (FuncGraph* h : mng_.graphs_used(g)) {
        if (h == to) return true;
        if (seen.insert(h).second) work.push_back(h);
      }
    }
    return false;
  }

  // An input of `user` (or g's output when user is null).
  void check_operand(FuncGraph* g, CNode* user, size_t i, Node* x,
                     const std::unordered_set<FuncGraph*>& in_set) {
    std::string what = user == nullptr ? "the output" : "input " + std::to_string(i);
    if (x == nullptr) fail(g, user, what + " is null");
    if (x->is_value()) return;
    FuncGraph* h = x->graph();
    if (x->is_param()) {
      bool listed = false;
      for (Parameter* p : h->params()) listed = listed || p == x;
      if (!listed)
        fail(g, user,
             what + " is " + node_desc(x) + ", which is not a parameter of " + graph_desc(h) +
                 " (removed?)");
    }
    if (h == g) return;
    if (!in_set.count(h) && g == root_) return;  // a free variable of a nested root
    if (!encloses(h, g))
      fail(g, user,
           what + " is a node of graph " + graph_desc(h) + ", which does not enclose " +
               graph_desc(g));
  }

  void check_value(const Value& v, Node* n, Module* m) {
    switch (v.kind()) {
      case ValueKind::Graph:
        if (v.as_graph()->module() != m)
          fail(nullptr, n, "names graph " + graph_desc(v.as_graph()) + " of another module");
        return;
      case ValueKind::Closure:
        check_value(v.as_closure().fn, n, m);
        for (const Value& a : v.as_closure().args) check_value(a, n, m);
        return;
      case ValueKind::Tuple:
      case ValueKind::List:
        for (const Value& a : v.items()) check_value(a, n, m);
        return;
      default:
        return;
    }
  }

  void check_specialized(CNode* c) {
    FuncGraph* g = c->graph();
    Node* f = c->input(0);
    if (!f->is_value()) return;
    const Value& v = static_cast<ValueNode*>(f)->value();
    if (v.is(ValueKind::Builtin)) {
      Builtin b = v.as_builtin();
      // len of a tuple computed at run time (a cotangent of a closure's captures: the K
      // transform's rule of cot_pad, a bprop differentiated a third time) is made after
      // specialisation; the executor runs it (fold makes it a constant once it can).
      const AbsPtr* la = b == Builtin::Len && c->size() == 2 ? &c->input(1)->abstract() : nullptr;
      const bool runtime_len =
          la != nullptr && *la && ((*la)->kind == AbsKind::Any || (*la)->kind == AbsKind::Tuple);
      if (builtin_has(b, B_FRONT) && !runtime_len)
        fail(g, c,
             std::string("builtin ") + builtin_name(b) + " must be resolved by specialisation");
      if (builtin_has(b, B_OPERATOR) || b == Builtin::GetItem) {
        size_t last = b == Builtin::GetItem ? 1 : c->size() - 1;
        for (size_t i = 1; i <= last && i < c->size(); ++i) {
          const AbsPtr& a = c->input(i)->abstract();
          if (a && a->is_tensor())
            fail(g, c,
                 std::string("builtin ") + builtin_name(b) + " applied to a tensor (input " +
                     std::to_string(i) + ": " + a->to_string() + ")");
        }
      }
      return;
    }
    if (!v.is(ValueKind::Prim)) return;
    const PrimData& p = v.as_prim();
    const OpDef& op = *p.op;
    size_t nargs = c->size() - 1;
    if (op.num_inputs != kVariadic && nargs != static_cast<size_t>(op.num_inputs))
      fail(g, c,
           std::string(op.name) + " takes " + std::to_string(op.num_inputs) +
               " tensor inputs, the call passes " + std::to_string(nargs));
    if (op.num_inputs == kVariadic && nargs == 0)
      fail(g, c, std::string(op.name) + " is called without inputs");
    for (size_t i = 1; i < c->size(); ++i) {
      const AbsPtr& a = c->input(i)->abstract();
      if (a && !a->is_tensor())
        fail(g, c,
             "input " + std::to_string(i) + " of " + op.name + " is not a tensor (" +
                 a->to_string() + ")");
    }
    try {
      check_attrs(op, p.attrs);
    } catch (const Error& e) {
      fail(g, c, std::string("attributes: ") + e.what());
    }
    for (const AttrSpec& s : op.attrs) {
      if (!p.attrs.has(s.name))
        fail(g, c, std::string("attribute '") + s.name + "' of " + op.name + " is missing");
      if (std::holds_alternative<std::monostate>(p.attrs.get(s.name)))
        fail(g, c, std::string("attribute '") + s.name + "' of " + op.name + " has no value");
    }
  }

  // No CNode depends on itself (through any chain of inputs, free variables included).
  void check_acyclic(const std::vector<FuncGraph*>& graphs) {
    std::unordered_set<Node*> done, open;
    std::vector<std::pair<CNode*, size_t>> stack;
    for (FuncGraph* g : graphs) {
      Node* r = g->output();
      if (!r->is_cnode() || done.count(r)) continue;
      stack.push_back({static_cast<CNode*>(r), 0});
      open.insert(r);
      while (!stack.empty()) {
        CNode* c = stack.back().first;
        size_t i = stack.back().second++;
        if (i < c->size()) {
          Node* in = c->input(i);
          if (!in->is_cnode() || done.count(in)) continue;
          if (open.count(in)) fail(in->graph(), in, "the node depends on itself (a cycle)");
          open.insert(in);
          stack.push_back({static_cast<CNode*>(in), 0});
          continue;
        }
        open.erase(c);
        done.insert(c);
        stack.pop_back();
      }
    }
  }

  FuncGraph* root_;
  VerifyOptions opts_;
  Manager mng_;
  std::unordered_set<FuncGraph*> bad_link_;  // graphs their parent does not refer to
};

}  // namespace

void verify(FuncGraph* root, VerifyOptions opts) {
  MC_CHECK(root != nullptr, Runtime, "IR verify failed: no graph");
  Verifier(root, opts).run();
}

}  // namespace mycel::ir
