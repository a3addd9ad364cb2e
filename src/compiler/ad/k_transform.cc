// The K transform (k_transform.h); the cotangent abstracts and the normalisation of calls
// it relies on are in cotangents.cc.
#include "compiler/ad/k_transform.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/passes/pass_util.h"

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"
#include "compiler/ad/ir_builder.h"
#include "ir/manager.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir {

namespace {

using compiler::detail::const_value;
using compiler::detail::is_builtin_call;

}  // namespace

// ---------------------------------------------------------------- K

AbsPtr KTransform::k_abs(const AbsPtr& a) {
  if (!a) return a;
  if (a->kind == AbsKind::Func) {
    std::vector<FuncCandidate> cands = a->funcs;
    bool any = false;
    // Only graphs of this module: an abstract may still name the front end's graph a
    // specialised one came from (a switch between closures), which is never run.
    for (FuncCandidate& f : cands)
      if (f.fn.is(ValueKind::Graph) && f.fn.as_graph()->module() == &m_) {
        f.fn = Value::graph(k_graph(f.fn.as_graph()));
        any = true;
      }
    return any ? Abstract::func(std::move(cands)) : a;
  }
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List) {
    std::vector<AbsPtr> el;
    bool changed = false;
    for (const AbsPtr& e : a->elems) {
      el.push_back(k_abs(e));
      changed = changed || el.back() != e;
    }
    if (!changed) return a;
    return a->kind == AbsKind::Tuple ? Abstract::tuple(std::move(el))
                                     : Abstract::list(std::move(el));
  }
  return a;
}

namespace {

// One graph's transform: the forward copy into K_g, then the adjoints into B_g.
class KGraph {
 public:
  KGraph(Module& m, FuncGraph* g, FuncGraph* kg, KTransform& k) : m_(m), g_(g), kg_(kg), k_(k) {}

  const std::unordered_map<Node*, Node*>& forward_map() const { return fwd_; }
  FuncGraph* bprop_graph() const { return bg_; }

  void run() {
    MC_ASSERT(g_->effects.empty(), "K: @", g_->name(), " has effects outside depend()");
    for (Parameter* p : g_->params()) {
      Parameter* q = m_.add_param(kg_, p->name(), p->span());
      q->set_abstract(p->abstract());
      fwd_[p] = q;
    }
    order_ = m_.toposort(g_);
    for (CNode* n : order_) forward(n);
    Node* out = fwd_of(g_->output());
    if (!g_->output()->abstract()) {  // never returns (every path raises)
      kg_->set_output(out);
      return;
    }
    bg_ = m_.new_graph("B_" + g_->name(), g_->span());
    backward();
    if (k_.check_overwrites) {
      check_overwritten();
      check_unfollowed_writes();
    }
    Node* bref = graph_ref(m_, bg_);
    CNode* r = m_.call_builtin(kg_, Builtin::MakeTuple, {out, bref}, g_->output()->span());
    r->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::MakeTuple)));
    r->set_abstract(Abstract::tuple({out->abstract(), bref->abstract()}));
    kg_->set_output(r);
  }

 private:
  // ------------------------------------------------------------ forward

  Node* fwd_of(Node* x) {
    if (const Value* v = const_value(x)) {
      if (v->is(ValueKind::Graph)) return graph_ref(m_, k_.k_graph(v->as_graph()), x->span());
      if (v->is(ValueKind::Closure) && v->as_closure().fn.is(ValueKind::Graph)) {
        Value kv = Value::closure(Value::graph(k_.k_graph(v->as_closure().fn.as_graph())),
                                  v->as_closure().args);
        ValueNode* n = m_.value(kv, x->span());
        n->set_abstract(Abstract::constant(kv));
        return n;
      }
      return x;
    }
    auto it = fwd_.find(x);
    if (it != fwd_.end()) return it->second;
    // Closures are copied when first used: a custom_vjp's function is not differentiated.
    if (is_builtin_call(x, Builtin::Partial) && x->graph() == g_) {
      Node* c = copy(static_cast<CNode*>(x), k_.k_abs(x->abstract()));
      fwd_[x] = c;
      return c;
    }
    MC_ASSERT(false, "K: %", x->name(), " of @", x->graph() ? x->graph()->name() : "?",
              " used in @", g_->name(), " is not in scope (the IR must be lifted)");
  }

  // A function value as it is, not differentiated (custom_vjp's f and bprop): a graph
  // constant, or partial(@g, c...) with c from K_g.
  Node* original_fn(Node* f) {
    if (f->is_value()) return f;
    if (!is_builtin_call(f, Builtin::Partial)) return fwd_of(f);  // a parameter (PYNATIVE's rule)
    auto* p = static_cast<CNode*>(f);
    std::vector<Node*> in{p->callee(), p->input(1)};
    for (size_t i = 2; i < p->size(); ++i) in.push_back(fwd_of(p->input(i)));
    CNode* c = m_.cnode(kg_, std::move(in), p->span());
    c->set_abstract(p->abstract());
    return c;
  }

  CNode* copy(CNode* n, AbsPtr abs) {
    std::vector<Node*> in{n->callee()};
    for (size_t i = 1; i < n->size(); ++i) in.push_back(fwd_of(n->input(i)));
    CNode* c = m_.cnode(kg_, std::move(in), n->span());
    c->set_abstract(std::move(abs));
    c->set_name(n->name());
    return c;
  }

  void forward(CNode* n) {
    Node* callee = n->callee();
    const Value* cv = const_value(callee);
    if (cv && cv->is(ValueKind::Builtin) && cv->as_builtin() == Builtin::Partial) return;  // lazy
    if (cv && cv->is(ValueKind::Builtin) && cv->as_builtin() == Builtin::CustomVjp) {
      std::vector<Node*> in{original_fn(n->input(1))};
      for (size_t i = 3; i < n->size(); ++i) in.push_back(fwd_of(n->input(i)));
      CNode* out = m_.cnode(kg_, std::move(in), n->span());
      out->set_abstract(n->abstract());
      fwd_[n] = out;
      bprop_[n] = original_fn(n->input(2));
      return;
    }
    if (cv && (cv->is(ValueKind::Prim) || cv->is(ValueKind::Builtin))) {
      MC_ASSERT(!(cv->is(ValueKind::Builtin) && cv->as_builtin() == Builtin::Vjp),
                "K: a vjp inside the graph being differentiated (expand the inner one first)");
      fwd_[n] = copy(n, cv->is(ValueKind::Prim) ? n->abstract() : k_.k_abs(n->abstract()));
      return;
    }
    // A call of a graph (direct or chosen at run time): (out, bp) = K_f(args).
    std::vector<Node*> in{fwd_of(callee)};
    for (size_t i = 1; i < n->size(); ++i) in.push_back(fwd_of(n->input(i)));
    CNode* t = m_.cnode(kg_, std::move(in), n->span());
    if (!n->abstract()) {
      fwd_[n] = t;
      return;
    }
    AbsPtr out_abs = k_.k_abs(n->abstract());
    AbsPtr bp_abs = Abstract::func({FuncCandidate{Value::builtin(Builtin::Vjp), {}, nullptr}});
    t->set_abstract(Abstract::tuple({out_abs, bp_abs}));
    IrBuilder b(m_, kg_);
    Node* out = b.tuple_get(t, 0);
    out->set_name(n->name());
    fwd_[n] = out;
    bprop_[n] = b.tuple_get(t, 1);
  }

  // ------------------------------------------------------------ backward

  static bool is_none(const Node* d) {
    const AbsPtr& a = d->abstract();
    return a && a->kind == AbsKind::Scalar && a->stype == ValueKind::None;
  }

  Node* add(IrBuilder& b, Node* x, Node* y) {
    if (x == nullptr || is_none(x)) return y;
    if (y == nullptr || is_none(y)) return x;
    const AbsPtr& a = x->abstract();
    if (a->kind == AbsKind::Any || y->abstract()->kind == AbsKind::Any)
      return b.builtin(Builtin::CotAdd, {x, y}, Abstract::any());
    if (a->kind == AbsKind::Tensor) return b.add(x, y);
    if (a->kind == AbsKind::Tuple) {
      std::vector<Node*> el;
      for (size_t i = 0; i < a->elems.size(); ++i)
        el.push_back(add(b, cot_item(b, x, i), cot_item(b, y, i)));
      return b.make_tuple(el);
    }
    return x;
  }

  void contrib(IrBuilder& b, Node* x, Node* d) {
    if (d == nullptr || is_none(d) || x->is_value()) return;
    if (!carries_cot(x->abstract())) return;
    Node*& a = adj_[x];
    a = add(b, a, d);
  }

  // PyTorch's rule for in-place writes: the backward must not read a value (a tensor
  // computed here) that an op writes in place later in the forward, as it would read the
  // written one. An op of the backward (but ZerosLike/OnesLike, which read only the shape)
  // reading the forward copy of such a tensor -- or of any node of its storage the write does
  // not come before (a depend of it, an earlier update's result: detail::storage_root) -- is a
  // TypeError naming the write and the forward op that read the value. (A write whose later
  // readers read the update, compiler/ad/bprop.h, is fine.) A storage that is a parameter of g
  // (an input of the differentiated function, a weight) counts only when g's output reads the
  // write's value (through data, not a depend's ordering input): otherwise the backward does
  // not wait for the write and order_updates runs its reads of the parameter before it (the
  // old value, as PYNATIVE's recording keeps it).
  void check_overwritten() {
    struct Overwritten {
      CNode* write;
      const Node* value;  // the forward node whose value the write overwrites
    };
    std::unordered_map<const Node*, Overwritten> written;  // forward copy -> ...
    const std::unordered_set<const Node*> output_reads = data_cone(g_->output());
    for (CNode* n : order_) {
      const Value* cv = const_value(n->callee());
      if (!cv || !cv->is(ValueKind::Prim)) continue;
      const OpDef& op = *cv->as_prim().op;
      if ((op.flags & F_INPLACE) == 0) continue;
      for (size_t i = 1; i < n->size(); ++i) {
        if (!writes_input(op, i - 1)) continue;
        Node* x = strip_depends(n->input(i));
        const Node* root = compiler::detail::storage_root(x);
        if (x->graph() != g_ || root->graph() != g_ ||
            !(root->is_cnode() || (root->is_param() && output_reads.count(n) != 0)))
          continue;
        written.emplace(fwd_of(x), Overwritten{n, x});
        const std::unordered_set<const Node*> after = reached_from(n);
        if (root->is_param())
          written.emplace(fwd_of(const_cast<Node*>(root)), Overwritten{n, root});
        for (CNode* y : order_)
          if (y != n && after.count(y) == 0 && compiler::detail::storage_root(y) == root)
            written.emplace(fwd_of(y), Overwritten{n, y});
      }
    }
    if (written.empty()) return;
    for (FuncGraph* h : m_.reachable_graphs(bg_)) {
      if (h == kg_) continue;
      for (CNode* c : m_.toposort(h)) {
        const Value* cv = const_value(c->callee());
        if (!cv || !cv->is(ValueKind::Prim)) continue;
        OpId id = cv->as_prim().op->id;
        if (id == OpId::ZerosLike || id == OpId::OnesLike) continue;
        for (size_t i = 1; i < c->size(); ++i) {
          auto w = written.find(c->input(i));
          if (w != written.end()) overwritten(w->second.write, w->second.value);
        }
      }
    }
  }

  // The nodes of g_ that depend on n (through data or a depend's order).
  std::unordered_set<const Node*> reached_from(const CNode* n) const {
    std::unordered_map<const Node*, std::vector<const CNode*>> users;
    for (const CNode* c : order_)
      for (size_t i = 1; i < c->size(); ++i) users[c->input(i)].push_back(c);
    std::unordered_set<const Node*> seen;
    std::vector<const Node*> todo{n};
    while (!todo.empty()) {
      const Node* y = todo.back();
      todo.pop_back();
      for (const CNode* u : users[y])
        if (seen.insert(u).second) todo.push_back(u);
    }
    return seen;
  }

  // The error of check_overwritten: the write, and the forward op (not a depend or a write)
  // that took the value the backward needs (the last before the write: its rule reads it).
  [[noreturn]] void overwritten(CNode* u, const Node* value) const {
    const CNode* reader = nullptr;
    for (const CNode* c : order_) {
      if (c == u) break;
      if (c->is_builtin(Builtin::Depend) || !c->span().valid()) continue;
      const PrimData* p = c->prim();
      if (p != nullptr && (p->op->flags & F_INPLACE) != 0) continue;
      for (size_t i = 1; i < c->size(); ++i)
        if (c->input(i) == value) reader = c;
    }
    throw Error(
        ErrorKind::Type,
        str("the gradient needs a value that '", const_value(u->callee())->as_prim().op->name,
            "' overwrites in place afterwards (", span_location(u->span()),
            "); write into a copy, or compute a new tensor (y = y + v) instead\n",
            span_excerpt(u->span()),
            reader == nullptr
                ? std::string()
                : str("the value was read before the write by:\n", span_excerpt(reader->span()))));
  }

  // The nodes of g whose values `out` is computed from: every input, but of depend(x, ...)
  // only x.
  std::unordered_set<const Node*> data_cone(Node* out) const {
    std::unordered_set<const Node*> seen;
    std::vector<Node*> stack{out};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!n->is_cnode() || n->graph() != g_ || !seen.insert(n).second) continue;
      auto* c = static_cast<CNode*>(n);
      const size_t end =
          c->is_builtin(Builtin::Depend) ? std::min<size_t>(c->size(), 2) : c->size();
      for (size_t i = 1; i < end; ++i) stack.push_back(c->input(i));
    }
    return seen;
  }

  static Node* strip_depends(Node* x) {
    while (x->is_cnode() && static_cast<CNode*>(x)->is_builtin(Builtin::Depend))
      x = static_cast<CNode*>(x)->input(1);
    return x;
  }

  // The graphs a call may run: a graph constant, or the two of a switch.
  static std::vector<FuncGraph*> callees(const CNode* c) {
    std::vector<FuncGraph*> out;
    Node* f = c->callee();
    if (FuncGraph* h = graph_const(f)) {
      out.push_back(h);
    } else if (is_builtin_call(f, Builtin::Switch)) {
      const auto* sw = static_cast<const CNode*>(f);
      for (size_t k = 2; k < sw->size(); ++k)
        if (FuncGraph* h = graph_const(sw->input(k))) out.push_back(h);
    }
    return out;
  }

  // The op that writes input i of call n in place: n itself (an F_INPLACE prim writing it),
  // or an op of a graph n calls that writes the parameter input i is bound to, followed
  // through calls (a graph already on `stack` counts as not writing). Null: none.
  CNode* writer_of(CNode* n, size_t i, std::vector<FuncGraph*>& stack) {
    const Value* cv = const_value(n->callee());
    if (cv && cv->is(ValueKind::Prim)) return writes_input(*cv->as_prim().op, i - 1) ? n : nullptr;
    if (cv && !cv->is(ValueKind::Graph)) return nullptr;
    for (FuncGraph* h : callees(n)) {
      if (i - 1 >= h->params().size() || std::find(stack.begin(), stack.end(), h) != stack.end())
        continue;
      stack.push_back(h);
      Node* p = h->param(i - 1);
      CNode* w = nullptr;
      std::vector<CNode*> order = m_.toposort(h);
      for (CNode* c : order) {
        for (size_t k = 1; k < c->size() && w == nullptr; ++k)
          if (strip_depends(c->input(k)) == p) w = writer_of(c, k, stack);
        if (w != nullptr) {
          // The callee itself may read the parameter after the write (the rest of the
          // function after an `if` is part of each branch).
          if (CNode* r = read_after(order, c, p)) unfollowed(w, n, r);
          break;
        }
      }
      stack.pop_back();
      if (w != nullptr) return w;
    }
    return nullptr;
  }

  // A tensor computed here or a parameter (an input, a weight), written in place by a graph
  // it is passed to and read after the write through depend(x, ...) rather than through the
  // write's result: the gradient of those reads would bypass the write (a function chosen at
  // run time; follow_writes follows the writes of this graph, Specializer::updated_ those
  // whose result is at hand). A TypeError naming the write. AssignAdd of a constant is
  // exempt: the gradient through it is the variable's own (a counter).
  void check_unfollowed_writes() {
    std::vector<FuncGraph*> stack;
    for (CNode* n : order_)
      for (size_t i = 1; i < n->size(); ++i) {
        Node* x = strip_depends(n->input(i));
        if (!(x->is_cnode() || x->is_param()) || x->graph() != g_ || !carries_cot(x->abstract()))
          continue;
        CNode* w = writer_of(n, i, stack);
        if (w == nullptr || (const_value(w->callee())->as_prim().op->id == OpId::AssignAdd &&
                             w->size() == 3 && w->input(2)->is_value()))
          continue;
        if (CNode* r = read_after(order_, n, x)) unfollowed(w, n, r);
      }
    check_closure_writes();
  }

  // A call of a function value made at run time (`f = upd if c else noop; f(y, x)`: neither
  // a graph nor a switch of graphs) is not followed into by writer_of. When a graph it may
  // run (one its function value is made from, or one those reach) writes one of its
  // parameters (a capture or an argument), each tensor of g_ the call passes or its closure
  // captures counts as written by it (an over-approximation: such a read is then a
  // TypeError, never a silently missed write).
  void check_closure_writes() {
    for (CNode* n : order_) {
      Node* f = n->callee();
      if (f->is_value() || is_builtin_call(f, Builtin::Switch)) continue;
      std::vector<Node*> tensors;
      std::vector<FuncGraph*> graphs;
      passed_values(n, tensors, graphs);
      CNode* w = nullptr;
      for (size_t k = 0; k < graphs.size() && w == nullptr; ++k) w = param_write(graphs[k]);
      if (w == nullptr) continue;
      for (Node* x : tensors)
        if (CNode* r = read_after(order_, n, x)) unfollowed(w, n, r);
    }
  }

  // An Assign, or an AssignAdd of a computed value, in a graph reachable from h that writes a
  // parameter of its graph; null: none.
  CNode* param_write(FuncGraph* h) const {
    for (FuncGraph* k : m_.reachable_graphs(h))
      for (CNode* c : m_.toposort(k)) {
        const PrimData* p = c->prim();
        if (p == nullptr || c->size() != 3 ||
            !(p->op->id == OpId::Assign ||
              (p->op->id == OpId::AssignAdd && !c->input(2)->is_value())))
          continue;
        if (compiler::detail::storage_root(c->input(1))->is_param()) return c;
      }
    return nullptr;
  }

  // The tensors of g_ (carrying a cotangent) that call n passes or its function value
  // captures, and the graphs that value is made from: through partial's bound values, a
  // switch's branches, the callee and arguments of calls that make the function, tuples and
  // depends' first inputs.
  void passed_values(CNode* n, std::vector<Node*>& tensors, std::vector<FuncGraph*>& graphs) const {
    std::vector<Node*> todo(n->inputs().begin(), n->inputs().end());
    std::unordered_set<Node*> seen;
    while (!todo.empty()) {
      Node* y = todo.back();
      todo.pop_back();
      if (!seen.insert(y).second) continue;
      if (const Value* v = const_value(y)) {
        if (v->is(ValueKind::Graph) && v->as_graph()->module() == &m_)
          graphs.push_back(v->as_graph());
        continue;
      }
      if (y->graph() != g_) continue;
      const AbsPtr& a = y->abstract();
      if (a && a->kind == AbsKind::Tensor) {
        if (carries_cot(a)) tensors.push_back(strip_depends(y));
        continue;
      }
      if (!y->is_cnode()) continue;
      auto* c = static_cast<CNode*>(y);
      if (c->prim() != nullptr) continue;
      const size_t from = is_builtin_call(c, Builtin::Switch) ? 2 : 0;
      const size_t to = c->is_builtin(Builtin::Depend) ? std::min<size_t>(c->size(), 2) : c->size();
      for (size_t i = from; i < to; ++i) todo.push_back(c->input(i));
    }
  }

  // A depend among the nodes of `order` after n (depending on it) that reads x: the tensor
  // as n wrote it, without n's result (null: none).
  static CNode* read_after(const std::vector<CNode*>& order, CNode* n, Node* x) {
    std::unordered_map<Node*, std::vector<CNode*>> users;
    for (CNode* c : order)
      for (size_t i = 1; i < c->size(); ++i) users[c->input(i)].push_back(c);
    std::unordered_set<Node*> seen{n};
    std::vector<Node*> todo{n};
    while (!todo.empty()) {
      Node* y = todo.back();
      todo.pop_back();
      for (CNode* u : users[y]) {
        if (!seen.insert(u).second) continue;
        todo.push_back(u);
        if (u->is_builtin(Builtin::Depend) && strip_depends(u) == x) return u;
      }
    }
    return nullptr;
  }

  // The error: the write, the call that made it (when another), the read after it.
  [[noreturn]] static void unfollowed(CNode* w, CNode* call, CNode* read) {
    throw Error(
        ErrorKind::Type,
        str("the gradient cannot follow the in-place write of '",
            const_value(w->callee())->as_prim().op->name, "' (", span_location(w->span()),
            ") into a tensor of the differentiated function (computed, an input or a weight) "
            "read after it: graph mode follows such a write only where its result is at "
            "hand (not inside a function chosen at run time); compute a new tensor "
            "(y = y + v) instead\n",
            span_excerpt(w->span()), w == call ? "" : span_excerpt(call->span()),
            "read after the write:\n", span_excerpt(read->span())));
  }

  [[noreturn]] void unsupported(CNode* n, const std::string& what) {
    throw Error(ErrorKind::Type, str("cannot differentiate ", what, " (", span_location(n->span()),
                                     ")\n", span_excerpt(n->span())));
  }

  void backward() {
    IrBuilder b(m_, bg_);
    Parameter* dout = m_.add_param(bg_, "dout", g_->span());
    dout->set_abstract(cot_abs(g_->output()->abstract()));
    contrib(b, g_->output(), dout);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      CNode* n = *it;
      auto a = adj_.find(n);
      const Value* cv = const_value(n->callee());
      if (a == adj_.end() || a->second == nullptr) {
        if (!cv || !cv->is(ValueKind::Prim) || !bprop_always(cv->as_prim().op->id)) continue;
        prim_rule(b, n, cv->as_prim(), zero_cot(b, cot_abs(n->abstract()), fwd_of(n)));
        continue;
      }
      Node* d = a->second;
      if (cv && cv->is(ValueKind::Prim)) {
        prim_rule(b, n, cv->as_prim(), d);
      } else if (cv && cv->is(ValueKind::Builtin)) {
        builtin_rule(b, n, cv->as_builtin(), d);
      } else {
        call_rule(b, n, d);
      }
    }
    std::vector<Node*> grads;
    for (Parameter* p : g_->params()) {
      auto a = adj_.find(p);
      grads.push_back(a != adj_.end() && a->second
                          ? a->second
                          : zero_cot(b, cot_abs(p->abstract()), fwd_of(p)));
    }
    Node* out = b.make_tuple(grads);
    if (!effects_.empty()) {
      std::vector<Node*> dep = {out};
      dep.insert(dep.end(), effects_.begin(), effects_.end());
      out = b.builtin(Builtin::Depend, dep, out->abstract());
    }
    bg_->set_output(out);
  }

  void prim_rule(IrBuilder& b, CNode* n, const PrimData& p, Node* d) {
    BpropFn rule = bprop_rule(p.op->id);
    if (rule == nullptr) {
      MC_ASSERT(p.op->grad == Grad::NODIFF, "K: ", p.op->name, " has no bprop rule");
      return;
    }
    std::vector<Node*> in;
    for (size_t i = 1; i < n->size(); ++i) in.push_back(fwd_of(n->input(i)));
    BpropArgs args{b, in, fwd_of(n), d, p.attrs, &effects_};
    std::vector<Node*> conj_in;  // complex inputs of a dout * f'(x) rule: see bprop.h
    if (bprop_conjugates(p.op->id) && is_complex_node(args.out)) {
      for (Node* x : in) conj_in.push_back(is_complex_node(x) ? b.prim(OpId::Conj, {x}) : x);
      args.in = conj_in;
      args.out = b.prim(OpId::Conj, {args.out});
    }
    std::vector<Node*> g = rule(args);
    MC_ASSERT(g.size() == in.size(), "K: the rule of ", p.op->name, " returned ", g.size(),
              " cotangents for ", in.size(), " inputs");
    for (size_t i = 0; i < g.size(); ++i) contrib(b, n->input(i + 1), in_dtype(b, g[i], in[i]));
  }

  static bool is_complex_node(const Node* x) {
    const AbsPtr& xa = x->abstract();
    return xa && xa->kind == AbsKind::Tensor && is_complex(xa->dtype);
  }

  // A rule's cotangent for an integer input may come out as floats (a rule's scalar factor,
  // a float operand): the cotangent of an input has the input's dtype.
  static Node* in_dtype(IrBuilder& b, Node* g, Node* x) {
    if (g == nullptr || is_none(g)) return g;
    const AbsPtr& ga = g->abstract();
    const AbsPtr& xa = x->abstract();
    if (!ga || !xa || ga->kind != AbsKind::Tensor || xa->kind != AbsKind::Tensor) return g;
    if (ga->dtype == xa->dtype || !has_cotangent(xa->dtype)) return g;
    return b.cast(g, xa->dtype);
  }

  // ------------------------------------------------------------ builtin rules

  // The rule of each builtin, named in the `ad` column of ir/builtins.def: given the forward
  // node n and its cotangent d, each contributes the cotangents of n's inputs.
  using Rule = void (KGraph::*)(IrBuilder& b, CNode* n, Node* d);
  static const Rule kRules[];

  void builtin_rule(IrBuilder& b, CNode* n, Builtin op, Node* d) {
    (this->*kRules[static_cast<size_t>(op)])(b, n, d);
  }

  // No gradient: stop_gradient, scalar arithmetic and conversions, print, raise, the host.
  void ad_none(IrBuilder&, CNode*, Node*) {}

  void ad_make_seq(IrBuilder& b, CNode* n, Node* d) {
    for (size_t i = 1; i < n->size(); ++i)
      contrib(b, n->input(i), cot_item(b, d, i - 1, cot_abs(n->input(i)->abstract())));
  }

  void ad_make_dict(IrBuilder& b, CNode* n, Node* d) {
    for (size_t i = 2; i < n->size(); i += 2)
      contrib(b, n->input(i), cot_item(b, d, i / 2 - 1, cot_abs(n->input(i)->abstract())));
  }

  void ad_getitem(IrBuilder& b, CNode* n, Node* d) {
    Node* t = n->input(1);
    const AbsPtr& ta = t->abstract();
    if (!carries_cot(ta)) return;
    if (ta->kind == AbsKind::Any) {
      // A tuple whose length is known at run time (a bprop's result, differentiated again):
      // d at that index, zeros shaped like the forward value elsewhere.
      contrib(b, t, b.builtin(Builtin::CotSparse, {fwd_of(t), n->input(2), d}, Abstract::any()));
      return;
    }
    MC_ASSERT(ta->kind == AbsKind::Tuple || ta->kind == AbsKind::List || ta->kind == AbsKind::Dict,
              "K: getitem of ", ta->to_string());
    const Value* key = const_value(n->input(2));
    if (key == nullptr) {
      // An index known at run time (a loop counter): d at that index, zeros elsewhere.
      contrib(b, t,
              b.builtin(Builtin::CotSparse, {fwd_of(t), fwd_of(n->input(2)), d}, Abstract::any()));
      return;
    }
    size_t idx = 0;
    if (ta->kind == AbsKind::Dict) {
      while (idx < ta->keys.size() && !(ta->keys[idx] == *key)) ++idx;
      MC_ASSERT(idx < ta->keys.size(), "K: getitem of a missing dict key");
    } else {
      int64_t i = key->as_int();
      if (i < 0) i += static_cast<int64_t>(ta->elems.size());
      idx = static_cast<size_t>(i);
    }
    std::vector<Node*> el;
    for (size_t j = 0; j < ta->elems.size(); ++j)
      el.push_back(
          j == idx ? d
                   : zero_cot(b, cot_abs(ta->elems[j]),
                              ta->kind == AbsKind::Tuple ? b.tuple_get(fwd_of(t), j) : nullptr));
    contrib(b, t, b.make_tuple(el));
  }

  void ad_depend(IrBuilder& b, CNode* n, Node* d) { contrib(b, n->input(1), d); }

  // dx... = bprop(x..., out, dout)
  void ad_custom_vjp(IrBuilder& b, CNode* n, Node* d) {
    FuncGraph* bg = nullptr;
    std::vector<Node*> caps;
    AbsPtr r;
    if (as_closure(n->input(2), &bg, &caps)) {
      r = bg->output()->abstract();
      if (r->kind == AbsKind::List) r = Abstract::tuple(r->elems);
    } else {  // a host callable: trusted to return one cotangent per input
      std::vector<AbsPtr> el;
      for (size_t i = 3; i < n->size(); ++i) el.push_back(cot_abs(n->input(i)->abstract()));
      r = Abstract::tuple(std::move(el));
    }
    std::vector<Node*> in{bprop_.at(n)};
    for (size_t i = 3; i < n->size(); ++i) in.push_back(fwd_of(n->input(i)));
    in.push_back(fwd_of(n));
    in.push_back(d);
    CNode* dd = m_.cnode(bg_, std::move(in), n->span());
    dd->set_abstract(r);
    for (size_t i = 3; i < n->size(); ++i) contrib(b, n->input(i), cot_item(b, dd, i - 3));
  }

  void ad_switch(IrBuilder& b, CNode* n, Node* d) {
    Node* c = fwd_of(n->input(1));
    for (int k = 0; k < 2; ++k) {
      Node* x = n->input(2 + k);
      if (x->is_value() || !carries_cot(x->abstract())) continue;
      Node* z = zero_cot(b, cot_abs(x->abstract()), fwd_of(x));
      Node* r = b.builtin(Builtin::Switch, {c, k == 0 ? d : z, k == 0 ? z : d}, d->abstract());
      contrib(b, x, r);
    }
  }

  // The cotangent builtins themselves (a bprop differentiated again):
  void ad_cot_add(IrBuilder& b, CNode* n, Node* d) {  // linear
    contrib(b, n->input(1), d);
    contrib(b, n->input(2), d);
  }

  void ad_cot_get(IrBuilder& b, CNode* n, Node* d) {  // d_env[i] (or the zero template)
    contrib(b, n->input(1),
            b.builtin(Builtin::CotSparse, {fwd_of(n->input(1)), n->input(2), d}, Abstract::any()));
  }

  void ad_cot_sparse(IrBuilder& b, CNode* n, Node* d) {  // the i-th element; zeros elsewhere
    Node* x = n->input(3);
    if (x->is_value() || !carries_cot(x->abstract())) return;
    AbsPtr xa = cot_abs(x->abstract());
    contrib(b, x, b.builtin(Builtin::CotGet, {d, n->input(2), zero_cot(b, xa)}, xa));
  }

  void ad_cot_pad(IrBuilder& b, CNode* n, Node* d) {  // the leading elements
    // A tuple's length: a constant when its abstract says it, else read at run time.
    auto len = [&](Node* t) -> Node* {
      Node* x = fwd_of(t);
      const AbsPtr& a = x->abstract();
      if (a && a->kind == AbsKind::Tuple)
        return b.constant(Value::integer(static_cast<int64_t>(a->elems.size())));
      return b.builtin(Builtin::Len, {x}, Abstract::scalar(ValueKind::Int));
    };
    Node* pad = b.builtin(Builtin::Sub, {len(n->input(1)), len(n->input(2))},
                          Abstract::scalar(ValueKind::Int));
    contrib(b, n->input(2), b.builtin(Builtin::TupleHead, {d, pad}, Abstract::any()));
  }

  void ad_tuple_head(IrBuilder& b, CNode* n, Node* d) {  // t without its tail: pad it back
    contrib(b, n->input(1), b.builtin(Builtin::CotPad, {fwd_of(n->input(1)), d}, Abstract::any()));
  }

  void ad_setitem(IrBuilder& b, CNode* n, Node* d) {  // functional seq[i] = v on a tuple/list
    Node* seq = n->input(1);
    const Value* key = const_value(n->input(2));
    const AbsPtr& sa = seq->abstract();
    if (key == nullptr || !(sa->kind == AbsKind::Tuple || sa->kind == AbsKind::List))
      unsupported(n, "item assignment with an index known only at run time");
    int64_t i = key->as_int();
    if (i < 0) i += static_cast<int64_t>(sa->elems.size());
    std::vector<Node*> el;
    for (size_t j = 0; j < sa->elems.size(); ++j)
      el.push_back(j == static_cast<size_t>(i) ? zero_cot(b, cot_abs(sa->elems[j]))
                                               : cot_item(b, d, j, cot_abs(sa->elems[j])));
    contrib(b, seq, b.make_tuple(el));
    contrib(b, n->input(3),
            cot_item(b, d, static_cast<size_t>(i), cot_abs(n->input(3)->abstract())));
  }

  // A closure's cotangent is one per captured value (or None): route them.
  void ad_partial(IrBuilder& b, CNode* n, Node* d) {
    for (size_t i = 2; i < n->size(); ++i) {
      Node* c = n->input(i);
      if (c->is_value() || !carries_cot(c->abstract())) continue;
      AbsPtr ca = cot_abs(c->abstract());
      Node* g = b.builtin(
          Builtin::CotGet,
          {d, b.constant(Value::integer(static_cast<int64_t>(i - 2))), zero_cot(b, ca)}, ca);
      contrib(b, c, g);
    }
  }

  // Whether f is a graph constant, or a switch between graph constants, taking nargs
  // arguments (a call of it gives one cotangent per argument, no captures).
  static bool static_graph_call(Node* f, size_t nargs) {
    if (FuncGraph* h = graph_const(f)) return h->params().size() == nargs;
    if (!is_builtin_call(f, Builtin::Switch)) return false;
    auto* sw = static_cast<CNode*>(f);
    for (size_t k = 2; k < sw->size(); ++k)
      if (!static_graph_call(sw->input(k), nargs)) return false;
    return true;
  }

  void call_rule(IrBuilder& b, CNode* n, Node* d) {
    auto bp = bprop_.find(n);
    if (bp == bprop_.end()) return;
    size_t nargs = n->size() - 1;
    // A direct call, or one of graphs chosen at run time (a switch between graph constants,
    // which normalize_calls makes of every branch): one cotangent per argument. Decided on
    // the callee node, not on its abstract: a function value's abstract names the graph the
    // specialiser made, which inlining may have copied and lifting given captures since (a
    // pullback of ops.vjp read from a tuple is partial(@vjp_fn, residuals) at run time,
    // while its abstract still names vjp_fn without them): taken for a capture-free graph,
    // the closure's cotangent, and with it the gradient through its captures, was dropped.
    bool static_callee = static_graph_call(n->callee(), nargs);
    if (static_callee) {
      // A direct call: one cotangent per argument.
      std::vector<AbsPtr> cots;
      for (size_t i = 1; i < n->size(); ++i) cots.push_back(cot_abs(n->input(i)->abstract()));
      CNode* dd = m_.cnode(bg_, {bp->second, d}, n->span());
      dd->set_abstract(Abstract::tuple(std::move(cots)));
      for (size_t i = 1; i < n->size(); ++i) contrib(b, n->input(i), cot_item(b, dd, i - 1));
      return;
    }
    // A function value: its bprop gives one cotangent per parameter of the graph it runs,
    // the captured values first (how many is known at run time): those go to the function
    // value, the last nargs to the arguments.
    CNode* dd = m_.cnode(bg_, {bp->second, d}, n->span());
    dd->set_abstract(Abstract::any());
    contrib(
        b, n->callee(),
        b.builtin(Builtin::TupleHead, {dd, b.constant(Value::integer(static_cast<int64_t>(nargs)))},
                  Abstract::any()));
    for (size_t i = 0; i < nargs; ++i) {
      Node* x = n->input(i + 1);
      if (x->is_value() || !carries_cot(x->abstract())) continue;
      Node* g = b.builtin(
          Builtin::GetItem,
          {dd, b.constant(Value::integer(static_cast<int64_t>(i) - static_cast<int64_t>(nargs)))},
          cot_abs(x->abstract()));
      contrib(b, x, g);
    }
  }

  Module& m_;
  FuncGraph* g_;
  FuncGraph* kg_;
  FuncGraph* bg_ = nullptr;
  KTransform& k_;
  std::vector<CNode*> order_;
  std::vector<Node*> effects_;            // the rules' effects (BpropArgs::effects), in their order
  std::unordered_map<Node*, Node*> fwd_;  // g's nodes -> K_g's
  std::unordered_map<Node*, Node*> bprop_;  // g's calls -> their bprop in K_g
  std::unordered_map<Node*, Node*> adj_;    // g's nodes -> their cotangent in B_g
};

const KGraph::Rule KGraph::kRules[] = {
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) &KGraph::ad,
#include "ir/builtins.def"
#undef BUILTIN
};

}  // namespace

FuncGraph* KTransform::k_graph(FuncGraph* g) {
  auto it = done_.find(g);
  if (it != done_.end()) return it->second;
  FuncGraph* kg = m_.new_graph("K_" + g->name(), g->span());
  kg->is_loop = g->is_loop;
  kg->no_inline = g->no_inline;
  done_[g] = kg;
  KGraph run(m_, g, kg, *this);
  run.run();
  fwd_[g] = run.forward_map();
  bprop_[g] = run.bprop_graph();
  return kg;
}

}  // namespace mycel::ir
