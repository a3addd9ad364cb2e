#include "compiler/passes/pass_util.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "ir/walk.h"

namespace mycel::compiler::detail {

using namespace ir;

const Node* storage_root(const Node* n) {
  for (;;) {
    if (!n->is_cnode()) return n;
    auto* c = static_cast<const CNode*>(n);
    if (c->is_builtin(Builtin::Depend) && c->size() > 1) {
      n = c->input(1);
      continue;
    }
    size_t i = 0;  // the output of the update that n is
    if (c->is_builtin(Builtin::GetItem) && c->size() == 3) {
      std::optional<int64_t> k = const_int(c->input(2));
      if (!k || *k < 0 || !c->input(1)->is_cnode()) return n;
      i = static_cast<size_t>(*k);
      c = static_cast<const CNode*>(c->input(1));
      if (c->is_builtin(Builtin::MakeTuple) || c->is_builtin(Builtin::MakeList)) {
        if (i + 1 >= c->size()) return n;
        n = c->input(i + 1);  // an element of a tuple built here is that tensor
        continue;
      }
      const PrimData* p = c->prim();
      if (p == nullptr || p->op->num_outputs <= 1) return n;
    }
    const PrimData* p = c->prim();
    if (p == nullptr || (p->op->flags & F_UPDATE) == 0 || p->op->num_outputs < 1 ||
        i >= static_cast<size_t>(p->op->num_outputs) || i + 1 >= c->size() ||
        (p->op->num_outputs > 1 && n == c))
      return n;
    n = c->input(i + 1);
  }
}

std::unordered_set<const Node*> written_storages(const std::vector<CNode*>& nodes) {
  std::unordered_set<const Node*> out;
  for (const CNode* c : nodes) {
    const PrimData* p = c->prim();
    if (p == nullptr || p->op->writes == 0) continue;
    for (size_t i = 1; i < c->size(); ++i)
      if (writes_input(*p->op, i - 1)) out.insert(storage_root(c->input(i)));
  }
  return out;
}

Walk walk(FuncGraph* root) {
  Walk w;
  std::unordered_set<FuncGraph*> graph_seen{root};
  std::unordered_set<Node*> done;
  std::vector<FuncGraph*> found;
  w.graphs.push_back(root);
  // Iterative post-order DFS; a node is emitted after all its inputs.
  std::vector<std::pair<Node*, size_t>> stack;
  for (size_t k = 0; k < w.graphs.size(); ++k) {
    stack.push_back({w.graphs[k]->output(), 0});
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i == 0 && done.count(n)) {
        stack.pop_back();
        continue;
      }
      if (n->is_value()) {
        done.insert(n);
        found.clear();
        graphs_in(static_cast<ValueNode*>(n)->value(), found);
        for (FuncGraph* g : found)
          if (graph_seen.insert(g).second) w.graphs.push_back(g);
        stack.pop_back();
        continue;
      }
      if (!n->is_cnode()) {
        done.insert(n);
        stack.pop_back();
        continue;
      }
      auto* c = static_cast<CNode*>(n);
      if (i < c->size()) {
        Node* in = c->input(i++);
        if (!done.count(in)) stack.push_back({in, 0});
        continue;
      }
      done.insert(c);
      w.nodes.push_back(c);
      stack.pop_back();
    }
  }
  return w;
}

void outline(Module& m, FuncGraph* g, const std::vector<CNode*>& nodes,
             const std::vector<CNode*>& results, const std::string& name, const UserMap& users) {
  std::unordered_set<const Node*> members(nodes.begin(), nodes.end());
  std::vector<Node*> inputs;
  for (CNode* c : nodes)
    for (size_t j = 1; j < c->size(); ++j) {
      Node* x = c->input(j);
      if (!members.count(x) && std::find(inputs.begin(), inputs.end(), x) == inputs.end())
        inputs.push_back(x);
    }
  FuncGraph* k = m.new_graph(name, g->span());
  k->no_inline = true;
  std::unordered_map<const Node*, Node*> map;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string pname("x");  // (appended: GCC 12 warns falsely on "x" + to_string)
    pname += std::to_string(i);
    Parameter* p = m.add_param(k, pname);
    p->set_abstract(inputs[i]->abstract());
    k->signature().names.push_back(p->name());
    k->signature().defaults.emplace_back();
    map[inputs[i]] = p;
  }
  for (CNode* c : nodes) {
    std::vector<Node*> in{c->input(0)};
    for (size_t j = 1; j < c->size(); ++j) in.push_back(map.at(c->input(j)));
    CNode* copy = m.cnode(k, std::move(in), c->span());
    copy->set_abstract(c->abstract());
    copy->set_name(c->name());
    map[c] = copy;
  }
  if (results.size() == 1) {
    k->set_output(map.at(results[0]));
  } else {
    std::vector<Node*> outs;
    std::vector<AbsPtr> result_abs;
    for (CNode* r : results) {
      outs.push_back(map.at(r));
      result_abs.push_back(r->abstract());
    }
    CNode* t = m.call_builtin(k, Builtin::MakeTuple, outs);
    t->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::MakeTuple)));
    t->set_abstract(Abstract::tuple(result_abs));
    k->set_output(t);
  }
  Node* callee = m.value(Value::graph(k), g->span());
  callee->set_abstract(Abstract::func({FuncCandidate{Value::graph(k), {}, nullptr}}));
  std::vector<Node*> args{callee};
  args.insert(args.end(), inputs.begin(), inputs.end());
  CNode* call = m.cnode(g, std::move(args), nodes.back()->span());
  call->set_abstract(k->output()->abstract());
  for (size_t i = 0; i < results.size(); ++i) {
    Node* repl = call;
    if (results.size() > 1) {
      Node* idx = m.value(Value::integer(static_cast<int64_t>(i)));
      idx->set_abstract(Abstract::constant(Value::integer(static_cast<int64_t>(i))));
      CNode* get = m.call_builtin(g, Builtin::GetItem, {call, idx}, results[i]->span());
      get->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::GetItem)));
      get->set_abstract(results[i]->abstract());
      repl = get;
    }
    auto it = users.find(results[i]);
    if (it != users.end())
      for (const auto& [user, j] : it->second)
        if (!members.count(user)) user->set_input(static_cast<size_t>(j), repl);
    if (g->output() == results[i]) g->set_output(repl);
  }
}

}  // namespace mycel::compiler::detail
