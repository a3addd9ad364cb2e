// dce: dead code elimination across graph boundaries. Nodes not reachable from a graph's
// output are never printed or run, so what is left to remove is what a call keeps alive:
//
//   1. Unused parameters. For a graph g other than the root (and the module entry) that is
//      referenced only as the callee of direct calls `@g(args)`, a parameter that nothing
//      uses (the same parameter passed back at its own position to a call of g, as a loop
//      does with a value it never reads, does not count) is removed, with the matching
//      argument of every call site:
//        graph @f(%x, %y) { return Neg(%x) }   @f(%a, %b)
//          ->  graph @f(%x) { return Neg(%x) }   @f(%a)
//   2. Unused tuple outputs. For such a g returning make_tuple(...) that nothing else uses,
//      when every use of every call is getitem(call, constant i): elements no call reads
//      become None (their computation is then dead); the tuple abstracts follow:
//        graph @f(%x) { return make_tuple(Exp(%x), Neg(%x)) }   getitem(@f(%a), 0)
//          ->  graph @f(%x) { return make_tuple(Exp(%x), None) }
//
// (Within one graph, getitem(make_tuple(a, b), 0) -> a is fold's rewrite; what it leaves
// unused is unreachable.) Both repeat until nothing changes (removing an argument can make
// a caller's parameter unused). Pre: specialised IR, before lift. Post: the same program;
// signatures of changed graphs lose the removed parameters.
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

using UseList = std::vector<std::pair<CNode*, size_t>>;

struct Analysis {
  std::vector<FuncGraph*> graphs;
  std::unordered_map<Node*, UseList> users;                   // over live nodes
  std::unordered_set<Node*> outputs;                          // graph outputs
  std::unordered_map<FuncGraph*, std::vector<CNode*>> calls;  // direct call sites
  std::unordered_set<FuncGraph*> escaping;  // referenced other than as a direct callee
};

void collect_graphs(const Value& v, std::unordered_set<FuncGraph*>& out) {
  if (v.is(ValueKind::Graph)) out.insert(v.as_graph());
  if (v.is(ValueKind::Closure)) {
    collect_graphs(v.as_closure().fn, out);
    for (const Value& a : v.as_closure().args) collect_graphs(a, out);
  }
  if (v.is_sequence())
    for (const Value& a : v.items()) collect_graphs(a, out);
  if (v.is(ValueKind::Dict))
    for (const Value& a : v.as_dict().values) collect_graphs(a, out);
}

Analysis analyse(FuncGraph* root) {
  Analysis a;
  detail::Walk w = detail::walk(root);
  a.graphs = w.graphs;
  auto escape = [&](Node* n) {
    if (const Value* v = detail::const_value(n)) {
      std::unordered_set<FuncGraph*> gs;
      collect_graphs(*v, gs);
      a.escaping.insert(gs.begin(), gs.end());
    }
  };
  for (FuncGraph* g : a.graphs) {
    a.outputs.insert(g->output());
    escape(g->output());
  }
  for (CNode* c : w.nodes) {
    for (size_t i = 0; i < c->size(); ++i) {
      a.users[c->input(i)].push_back({c, i});
      if (i > 0) escape(c->input(i));
    }
    const Value* callee = detail::const_value(c->callee());
    if (callee == nullptr) continue;
    if (callee->is(ValueKind::Graph))
      a.calls[callee->as_graph()].push_back(c);
    else
      escape(c->callee());
  }
  return a;
}

// g may have its signature changed: only direct calls with one argument per parameter.
bool private_graph(const Analysis& a, Module& m, FuncGraph* root, FuncGraph* g) {
  if (g == root || g == m.entry() || a.escaping.count(g)) return false;
  auto it = a.calls.find(g);
  if (it == a.calls.end()) return false;
  for (CNode* c : it->second)
    if (c->size() - 1 != g->params().size()) return false;
  return true;
}

bool param_used(const Analysis& a, FuncGraph* g, size_t index) {
  Parameter* p = g->param(index);
  if (a.outputs.count(p)) return true;
  auto it = a.users.find(p);
  if (it == a.users.end()) return false;
  for (auto [c, i] : it->second)
    if (!(c->called_graph() == g && i == index + 1)) return true;
  return false;
}

void shift_index(int& idx, size_t removed) {
  if (idx < 0) return;
  if (static_cast<size_t>(idx) == removed)
    idx = -1;
  else if (static_cast<size_t>(idx) > removed)
    --idx;
}

bool remove_unused_params(Module& m, FuncGraph* root, const Analysis& a) {
  bool changed = false;
  for (FuncGraph* g : a.graphs) {
    if (!private_graph(a, m, root, g)) continue;
    std::vector<bool> used(g->params().size());
    for (size_t i = 0; i < used.size(); ++i) used[i] = param_used(a, g, i);
    for (size_t i = used.size(); i-- > 0;) {
      if (used[i]) continue;
      g->remove_param(i);
      Signature& sig = g->signature();
      shift_index(sig.vararg, i);
      shift_index(sig.kwarg, i);
      shift_index(sig.kwonly_begin, i);
      for (CNode* c : a.calls.at(g)) {
        std::vector<Node*> in = c->inputs();
        in.erase(in.begin() + static_cast<std::ptrdiff_t>(i + 1));
        c->set_inputs(std::move(in));
      }
      changed = true;
    }
  }
  return changed;
}

bool drop_unused_outputs(Module& m, FuncGraph* root, const Analysis& a) {
  bool changed = false;
  for (FuncGraph* g : a.graphs) {
    if (!private_graph(a, m, root, g) || !detail::is_builtin_call(g->output(), Builtin::MakeTuple))
      continue;
    auto* tuple = static_cast<CNode*>(g->output());
    if (tuple->graph() != g || a.users.count(tuple)) continue;
    size_t n = tuple->size() - 1;
    std::vector<bool> read(n, false);
    bool all_getitem = true;
    for (CNode* call : a.calls.at(g)) {
      if (a.outputs.count(call)) all_getitem = false;
      auto it = a.users.find(call);
      if (it == a.users.end()) continue;
      for (auto [u, i] : it->second) {
        std::optional<int64_t> k = u->is_builtin(Builtin::GetItem) && i == 1
                                       ? detail::const_int(u->input(2))
                                       : std::nullopt;
        if (k && *k < 0) *k += static_cast<int64_t>(n);
        if (!k || *k < 0 || *k >= static_cast<int64_t>(n)) {
          all_getitem = false;
          break;
        }
        read[static_cast<size_t>(*k)] = true;
      }
    }
    if (!all_getitem) continue;
    std::vector<AbsPtr> elems;
    bool any = false;
    for (size_t k = 0; k < n; ++k) {
      Node* e = tuple->input(k + 1);
      const Value* v = detail::const_value(e);
      if (!read[k] && !(v != nullptr && v->is_none())) {
        ValueNode* none = m.value(Value::none(), e->span());
        none->set_abstract(Abstract::constant(Value::none()));
        tuple->set_input(k + 1, none);
        e = none;
        any = true;
      }
      elems.push_back(e->abstract());
    }
    if (!any) continue;
    AbsPtr abs = Abstract::tuple(std::move(elems));
    tuple->set_abstract(abs);
    for (CNode* call : a.calls.at(g)) call->set_abstract(abs);
    changed = true;
  }
  return changed;
}

}  // namespace

bool dce(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  bool changed = false;
  for (;;) {
    Analysis a = analyse(root);
    bool round = remove_unused_params(m, root, a);
    if (!round) round = drop_unused_outputs(m, root, a);
    if (!round) break;
    mng->invalidate();
    changed = true;
  }
  return changed;
}

}  // namespace mycel::compiler
