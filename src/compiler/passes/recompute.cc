// recompute: forward values of recomputed cells are computed again in the backward instead
// of kept (MindSpore's Cell.recompute / Primitive.recompute).
//
//   graph @K(%x, %w) {                      graph @K(%x, %w) {
//     %h = MatMul(%x, %w) {recompute}          %h = MatMul(%x, %w) {recompute}
//     %y = Tanh(%h) {recompute}                %y = Tanh(%h) {recompute}
//     ...                                      ...
//     graph @B(%dout) {                 ->     graph @B(%dout) {
//       %g = ...(%dout)                          %g = ...(%dout)
//       %d = TanhGrad(%y, %g)                    %x' = depend(%x, %g)
//     }                                          %h' = MatMul(%x', %w)
//   }                                            %y' = Tanh(%h')
//                                                %d = TanhGrad(%y', %g)
//                                              }
//                                            }
//
// Run right after expand_vjp, on lifted IR: the only free variables are then those of the
// bprop graphs it made, which read the forward values their rules need. A free variable that
// carries the recompute mark (ops/op_table.h's kRecomputeAttr, set by the specialiser inside a
// Cell under recompute() and by Primitive.recompute()) and is not kept is copied into the
// graph that reads it, with the marked values it is computed from, back to kept values
// (unmarked nodes, parameters, the outputs of a recomputed Cell, which are kept unless
// output_recompute). The forward values then die after their last forward use.
//
// When the copies run: each connected group of copies waits, through depend on its inputs,
// for the backward values its first users need (those that depend on the bprop's
// parameters), so a cell's activations are recomputed when its backward starts, not all at
// the start of the backward. A wait never follows a user of the same group (no cycle); none
// found: the bprop's parameter. The depend also keeps cse from merging a copy with its
// original. Ops that draw random numbers, write or communicate are never marked: their
// outputs are kept, so a recomputed dropout sees the same mask.
//
// Pre: lifted, specialised IR just after expand_vjp. Post: the same values; marked forward
// values reach the bprop graphs only through their copies.
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

// kRecomputeAttr of a node: its prim's, a getitem's source's; nullopt when unmarked.
std::optional<int64_t> mark_of(const Node* n) {
  if (!n->is_cnode()) return std::nullopt;
  const auto* c = static_cast<const CNode*>(n);
  if (c->is_builtin(Builtin::GetItem) && c->size() == 3 && c->input(2)->is_value())
    return mark_of(c->input(1));
  const PrimData* p = c->prim();
  if (p == nullptr || !p->attrs.has(kRecomputeAttr)) return std::nullopt;
  const AttrValue& v = p->attrs.get(kRecomputeAttr);
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? -1 : 0;
  return std::get<int64_t>(v);
}

class Recompute {
 public:
  Recompute(Module& m, Manager& mng) : m_(m), mng_(mng) {}

  // Copies into g the recomputed values its nodes read from other graphs.
  bool run(FuncGraph* g) {
    std::vector<CNode*> nodes = m_.toposort(g);
    std::vector<Node*> wanted;  // free variables to recompute, first use first
    std::unordered_set<Node*> seen;
    for (CNode* c : nodes)
      for (Node* in : c->inputs())
        if (in->is_cnode() && in->graph() != g && seen.insert(in).second && recomputed(in))
          wanted.push_back(in);
    if (wanted.empty()) return false;
    for (const std::vector<CNode*>& group : groups(wanted)) copy_group(g, group);
    return true;
  }

 private:
  // Whether n is recomputed rather than kept.
  bool recomputed(Node* n) {
    auto it = recomputed_.find(n);
    if (it != recomputed_.end()) return it->second;
    std::optional<int64_t> mk = mark_of(n);
    bool r = mk && *mk != 0;
    if (r && *mk > 0) {  // a recomputed Cell's value: kept when it leaves the cell
      for (const auto& [u, i] : mng_.users(n)) {
        if (u->graph() != n->graph()) continue;  // a bprop reading it
        std::optional<int64_t> um = mark_of(u);
        bool same_kind = um && *um > 0;
        if (!same_kind || ((*um >> 1) != (*mk >> 1) && (*mk & 1) == 0)) r = false;
      }
    }
    recomputed_[n] = r;
    return r;
  }

  // The recomputed nodes the wanted values are computed from, as groups connected through
  // their inputs, each in topological order.
  std::vector<std::vector<CNode*>> groups(const std::vector<Node*>& wanted) {
    std::vector<CNode*> order;  // every node to copy, inputs first
    std::unordered_map<Node*, Node*> root;
    std::function<Node*(Node*)> find = [&](Node* n) {
      while (root[n] != n) n = root[n] = root[root[n]];
      return n;
    };
    std::unordered_set<Node*> done;
    for (Node* w : wanted) {
      // Depth first, iteratively: a node after the recomputed nodes it reads.
      std::vector<std::pair<CNode*, size_t>> stack{{static_cast<CNode*>(w), 0}};
      if (!done.insert(w).second) continue;
      root[w] = w;
      while (!stack.empty()) {
        CNode* c = stack.back().first;
        size_t i = stack.back().second++;
        if (i == c->size()) {
          order.push_back(c);
          stack.pop_back();
          continue;
        }
        Node* in = c->input(i);
        if (!in->is_cnode() || in->graph() != c->graph() || !recomputed(in)) continue;
        if (done.insert(in).second) {
          root[in] = in;
          stack.push_back({static_cast<CNode*>(in), 0});
        }
        root[find(in)] = find(c);
      }
    }
    std::vector<std::vector<CNode*>> out;
    std::unordered_map<Node*, size_t> index;
    for (CNode* c : order) {
      auto [it, fresh] = index.emplace(find(c), out.size());
      if (fresh) out.emplace_back();
      out[it->second].push_back(c);
    }
    return out;
  }

  void copy_group(FuncGraph* g, const std::vector<CNode*>& group) {
    std::unordered_set<Node*> members(group.begin(), group.end());
    std::vector<CNode*> nodes = m_.toposort(g);
    std::vector<Node*> wait = waits(g, nodes, members);
    std::unordered_map<Node*, Node*> copy;
    auto input_of = [&](Node* in) -> Node* {
      if (auto it = copy.find(in); it != copy.end()) return it->second;
      if (in->is_value() || wait.empty()) return in;
      std::vector<Node*> args{in};
      args.insert(args.end(), wait.begin(), wait.end());
      CNode* dep = m_.call_builtin(g, Builtin::Depend, std::move(args), in->span());
      dep->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Depend)));
      dep->set_abstract(in->abstract());
      return copy[in] = dep;
    };
    for (CNode* c : group) {
      std::vector<Node*> inputs{c->callee()};
      for (size_t i = 1; i < c->size(); ++i) inputs.push_back(input_of(c->input(i)));
      CNode* r = m_.cnode(g, std::move(inputs), c->span());
      r->set_abstract(c->abstract());
      r->set_name(c->name());
      copy[c] = r;
    }
    for (CNode* u : nodes)
      for (size_t i = 0; i < u->size(); ++i)
        if (members.count(u->input(i))) u->set_input(i, copy.at(u->input(i)));
    if (members.count(g->output())) g->set_output(copy.at(g->output()));
  }

  // The nodes of g the copies of `members` wait for: the backward values (those depending on
  // g's parameters) that their first users in g read, none of them after such a user.
  std::vector<Node*> waits(FuncGraph* g, const std::vector<CNode*>& nodes,
                           const std::unordered_set<Node*>& members) {
    std::unordered_set<Node*> backward(g->params().begin(), g->params().end());
    std::unordered_set<Node*> after;  // users of the members and what depends on them
    std::unordered_map<Node*, std::vector<CNode*>> users;
    for (CNode* c : nodes) {
      bool uses = false, late = false, back = false;
      for (Node* in : c->inputs()) {
        uses |= members.count(in) > 0;
        late |= after.count(in) > 0;
        back |= backward.count(in) > 0;
        users[in].push_back(c);
      }
      if (uses || late) after.insert(c);
      if (back) backward.insert(c);
    }
    std::vector<Node*> out;
    std::unordered_set<Node*> taken, visited;
    std::vector<CNode*> todo;
    for (CNode* c : nodes)
      for (Node* in : c->inputs())
        if (members.count(in)) todo.push_back(c);
    // From each user forward until nodes that read backward values: those values.
    while (!todo.empty()) {
      CNode* c = todo.back();
      todo.pop_back();
      if (!visited.insert(c).second) continue;
      bool found = false;
      for (Node* in : c->inputs())
        if (backward.count(in) && !after.count(in)) {
          found = true;
          if (taken.insert(in).second) out.push_back(in);
        }
      if (found || backward.count(c)) continue;
      for (CNode* u : users[c]) todo.push_back(u);
    }
    if (out.empty() && !g->params().empty()) out.push_back(g->param(0));
    return out;
  }

  Module& m_;
  Manager& mng_;
  std::unordered_map<Node*, bool> recomputed_;
};

}  // namespace

bool recompute(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  std::vector<FuncGraph*> graphs = mng->graphs();
  Recompute r(m, *mng);
  bool changed = false;
  for (FuncGraph* g : graphs) changed = r.run(g) || changed;
  if (changed) mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
