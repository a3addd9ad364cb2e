// The batching transform of graphs (batch_graph.h; design in compiler/vmap/vmap.h).
#include "compiler/vmap/batch_graph.h"

#include <unordered_map>

#include "base/error.h"
#include "compiler/ad/k_transform.h"  // graph_const, graph_ref
#include "compiler/passes/pass_util.h"
#include "compiler/vmap/batch.h"

namespace mycel::ir {

using compiler::detail::const_value;
using compiler::detail::is_builtin_call;

// ---------------------------------------------------------------- dims

bool BDims::any() const {
  if (!seq) return batched;
  for (const BDims& e : elems)
    if (e.any()) return true;
  return false;
}

std::string BDims::key() const {
  if (!seq) return batched ? "1" : "0";
  std::string k = "(";
  for (const BDims& e : elems) k += e.key();
  return k + ")";
}

namespace {
std::string key_of(const std::vector<BDims>& in) {
  std::string k;
  for (const BDims& d : in) k += d.key() + ",";
  return k;
}
}  // namespace

BDims full_dims(const AbsPtr& a) {
  if (a && (a->kind == AbsKind::Tuple || a->kind == AbsKind::List)) {
    std::vector<BDims> el;
    for (const AbsPtr& e : a->elems) el.push_back(full_dims(e));
    return BDims::of(std::move(el));
  }
  return BDims::leaf(a && a->kind == AbsKind::Tensor);
}

BDims join(const BDims& a, const BDims& b) {
  if (!a.any()) return b;
  if (!b.any()) return a;
  if (!a.seq || !b.seq) return BDims::leaf(a.batched || b.batched);
  std::vector<BDims> el;
  for (size_t i = 0; i < a.elems.size(); ++i) el.push_back(join(a.elems[i], b.elems[i]));
  return BDims::of(std::move(el));
}

AbsPtr batched_abs(const AbsPtr& a, const BDims& d, int64_t size) {
  if (!d.any()) return a;
  if (d.seq) {
    MC_ASSERT(a->kind == AbsKind::Tuple || a->kind == AbsKind::List,
              "vmap: batch dims of a sequence on ", a->to_string());
    std::vector<AbsPtr> el;
    for (size_t i = 0; i < a->elems.size(); ++i)
      el.push_back(batched_abs(a->elems[i], d.elems[i], size));
    return a->kind == AbsKind::Tuple ? Abstract::tuple(std::move(el))
                                     : Abstract::list(std::move(el));
  }
  MC_CHECK(a->kind == AbsKind::Tensor, Value, "vmap: a Python ", a->to_string(),
           " computed from a batched tensor (float(x), x.item(), a tensor condition) can only "
           "decide an `if`; keep it a Tensor");
  Shape s{size};
  for (auto it = a->shape.begin(); it != a->shape.end(); ++it) s.push_back(*it);
  return Abstract::tensor(a->dtype, std::move(s));
}

Node* seq_item(IrBuilder& b, Node* x, size_t i) {
  if (is_builtin_call(x, Builtin::MakeTuple) || is_builtin_call(x, Builtin::MakeList))
    return static_cast<CNode*>(x)->input(i + 1);
  const AbsPtr& a = x->abstract();
  return b.builtin(Builtin::GetItem, {x, b.constant(Value::integer(static_cast<int64_t>(i)))},
                   a->elems[i]);
}

namespace {

Node* make_seq(IrBuilder& b, const AbsPtr& like, const std::vector<Node*>& items) {
  if (like->kind == AbsKind::Tuple) return b.make_tuple(items);
  std::vector<AbsPtr> el;
  for (Node* n : items) el.push_back(n->abstract());
  return b.builtin(Builtin::MakeList, items, Abstract::list(std::move(el)));
}

}  // namespace

Node* broadcast_dims(IrBuilder& b, Node* x, const AbsPtr& a, const BDims& have, const BDims& want,
                     int64_t size) {
  if (have == want || !want.any()) return x;
  if (want.seq) {
    std::vector<Node*> el;
    for (size_t i = 0; i < want.elems.size(); ++i) {
      BDims h = have.seq ? have.elems[i] : BDims::leaf(false);
      el.push_back(broadcast_dims(b, seq_item(b, x, i), a->elems[i], h, want.elems[i], size));
    }
    return make_seq(b, batched_abs(a, want, size), el);
  }
  if (have.batched) return x;
  Shape one{1}, to{size};
  for (auto it = a->shape.begin(); it != a->shape.end(); ++it) one.push_back(*it);
  for (auto it = a->shape.begin(); it != a->shape.end(); ++it) to.push_back(*it);
  return b.broadcast_to(b.reshape(x, one), to);
}

// ---------------------------------------------------------------- one graph

namespace {

// Thrown when a graph turns out to be recursive: its outermost batching starts again with
// every parameter batched (Batcher::batch).
struct Restart {
  FuncGraph* g;
};

[[noreturn]] void fail(const Node* n, const std::string& what) {
  throw Error(ErrorKind::Value,
              str("vmap: ", what, " (", span_location(n->span()), ")\n", span_excerpt(n->span())));
}

// Whether running g (or what it calls) has an effect: both branches of an `if` on a batched
// condition run.
bool has_effects(Module& m, FuncGraph* g) {
  for (FuncGraph* h : m.reachable_graphs(g))
    for (CNode* c : m.toposort(h)) {
      const Value* v = const_value(c->callee());
      if (!v) continue;
      if (v->is(ValueKind::Prim) && (v->as_prim().op->flags & kEffectFlags)) return true;
      if (v->is(ValueKind::Builtin) && (builtin_def(v->as_builtin()).flags & B_EFFECT)) return true;
    }
  return false;
}

// Whether g's only effects are raises (the failing branch of a check): no other effect, and a
// raise somewhere.
bool only_raises(Module& m, FuncGraph* g) {
  bool raises = false;
  for (FuncGraph* h : m.reachable_graphs(g))
    for (CNode* c : m.toposort(h)) {
      const Value* v = const_value(c->callee());
      if (!v) continue;
      if (v->is(ValueKind::Builtin) && v->as_builtin() == Builtin::Raise) {
        raises = true;
        continue;
      }
      if (v->is(ValueKind::Prim) && (v->as_prim().op->flags & kEffectFlags)) return false;
      if (v->is(ValueKind::Builtin) && (builtin_def(v->as_builtin()).flags & B_EFFECT))
        return false;
    }
  return raises;
}

}  // namespace

class GraphBatcher {
 public:
  GraphBatcher(Batcher& bt, FuncGraph* g, FuncGraph* ng)
      : bt_(bt), m_(bt.m_), g_(g), ng_(ng), b_(bt.m_, ng) {}

  BDims run(const std::vector<BDims>& in, bool force_out) {
    MC_ASSERT(g_->effects.empty(), "vmap: @", g_->name(), " has effects outside depend()");
    for (size_t i = 0; i < g_->params().size(); ++i) {
      Parameter* p = g_->param(i);
      Parameter* q = m_.add_param(ng_, p->name(), p->span());
      q->set_abstract(batched_abs(p->abstract(), in[i], bt_.size_));
      val_[p] = {q, in[i]};
    }
    for (CNode* n : m_.toposort(g_)) visit(n);
    Val out = get(g_->output());
    BDims od = out.d;
    if (force_out) {
      od = full_dims(g_->output()->abstract());
      out.n = broadcast_dims(b_, out.n, g_->output()->abstract(), out.d, od, bt_.size_);
    }
    ng_->set_output(out.n);
    return od;
  }

 private:
  struct Val {
    Node* n;
    BDims d;
  };

  Val get(Node* x) {
    if (x->is_value()) return {x, BDims::leaf(false)};
    auto it = val_.find(x);
    if (it != val_.end()) return it->second;
    if (is_builtin_call(x, Builtin::Switch)) {  // a switch between graphs, not only called
      auto* n = static_cast<CNode*>(x);
      if (get(n->input(1)).d.any())
        fail(n,
             "a function chosen by a condition that depends on the batched inputs can only "
             "be called where it is chosen");
      return copy_plain(n);
    }
    MC_ASSERT(false, "vmap: %", x->name(), " used in @", g_->name(),
              " is not in scope (the IR must be lifted)");
  }

  Val set(CNode* n, Node* x, BDims d) {
    if (x != n) x->set_name(n->name());
    return val_[n] = {x, std::move(d)};
  }

  // n with its inputs mapped and nothing batched in its result.
  Val copy_plain(CNode* n) {
    std::vector<Node*> in{n->callee()};
    for (size_t i = 1; i < n->size(); ++i) in.push_back(get(n->input(i)).n);
    CNode* c = m_.cnode(ng_, std::move(in), n->span());
    c->set_abstract(n->abstract());
    return set(n, c, BDims::leaf(false));
  }

  // n with its inputs mapped, its result batched as d.
  Val copy_as(CNode* n, BDims d) {
    std::vector<Node*> in{n->callee()};
    for (size_t i = 1; i < n->size(); ++i) in.push_back(get(n->input(i)).n);
    CNode* c = m_.cnode(ng_, std::move(in), n->span());
    c->set_abstract(batched_abs(n->abstract(), d, bt_.size_));
    return set(n, c, std::move(d));
  }

  bool any_batched(CNode* n, size_t from = 1) {
    for (size_t i = from; i < n->size(); ++i)
      if (get(n->input(i)).d.any()) return true;
    return false;
  }

  void visit(CNode* n) {
    const Value* cv = const_value(n->callee());
    if (cv && cv->is(ValueKind::Prim)) return prim(n, cv->as_prim());
    if (cv && cv->is(ValueKind::Builtin)) return builtin(n, cv->as_builtin());
    call(n);
  }

  // ------------------------------------------------------------ prims

  void prim(CNode* n, const PrimData& p) {
    if (!any_batched(n)) {
      copy_plain(n);
      return;
    }
    BatchFn rule = batch_rule(p.op->id);
    if (rule == nullptr) {
      const char* why = no_batch_reason(p.op->id);
      fail(n, str("cannot batch '", p.op->name, "'", why ? str(": ", why) : std::string(), ""));
    }
    std::vector<Node*> in;
    std::vector<bool> batched;
    for (size_t i = 1; i < n->size(); ++i) {
      Val v = get(n->input(i));
      in.push_back(v.n);
      batched.push_back(v.d.batched);
    }
    IrBuilder b(m_, ng_, n->span());
    BatchArgs args{b, *p.op, in, batched, bt_.size_, p.attrs};
    Node* y = rule(args);
    const AbsPtr& a = n->abstract();
    BDims d = BDims::leaf(true);
    if (a->kind == AbsKind::Tuple) d = full_dims(a);
    AbsPtr want = batched_abs(a, d, bt_.size_);
    MC_ASSERT(*y->abstract() == *want, "vmap: the batching rule of ", p.op->name, " made ",
              y->abstract()->to_string(), " for ", want->to_string());
    set(n, y, d);
  }

  // ------------------------------------------------------------ builtins

  void builtin(CNode* n, Builtin op) {
    switch (op) {
      case Builtin::MakeTuple:
      case Builtin::MakeList: {
        std::vector<BDims> el;
        for (size_t i = 1; i < n->size(); ++i) el.push_back(get(n->input(i)).d);
        BDims d = BDims::of(std::move(el));
        copy_as(n, d.any() ? d : BDims::leaf(false));
        return;
      }
      case Builtin::GetItem: {
        Val t = get(n->input(1));
        if (!t.d.any()) {
          copy_plain(n);
          return;
        }
        const Value* k = const_value(n->input(2));
        const AbsPtr& ta = n->input(1)->abstract();
        if (k == nullptr || !(ta->kind == AbsKind::Tuple || ta->kind == AbsKind::List))
          fail(n,
               "indexing a sequence of batched values by an index known only at run time "
               "is not supported");
        int64_t i = k->as_int();
        if (i < 0) i += static_cast<int64_t>(ta->elems.size());
        copy_as(n, t.d.elems[static_cast<size_t>(i)]);
        return;
      }
      case Builtin::Depend:
      case Builtin::StopGradient:
        copy_as(n, get(n->input(1)).d);
        return;
      case Builtin::TensorToScalar:
      case Builtin::Truth:
      case Builtin::Not:
        condition(n, op);
        return;
      case Builtin::Switch:
        switch_value(n);
        return;
      default:
        if (any_batched(n))
          fail(n, str("'", builtin_name(op), "' of a batched value is not supported"));
        copy_plain(n);
    }
  }

  // A condition computed from a batched tensor, one per example, kept as a [B] tensor:
  // tensor_to_scalar reshapes it, truth compares it with 0, not negates it.
  void condition(CNode* n, Builtin op) {
    Val x = get(n->input(1));
    if (!x.d.any()) {
      copy_plain(n);
      return;
    }
    IrBuilder b(m_, ng_, n->span());
    Node* t = b.reshape(x.n, {bt_.size_});
    if (op != Builtin::TensorToScalar && IrBuilder::dtype_of(t) != DType::Bool)
      t = b.prim(OpId::NotEqual, {t, b.scalar_like(0.0, t)});
    if (op == Builtin::Not) t = b.prim(OpId::LogicalNot, {t});
    set(n, t, BDims::leaf(true));
  }

  // switch(c, x, y) as a value (its calls are call_switch): an unbatched c picks one of the
  // two (broadcast alike); a batched one selects per example.
  void switch_value(CNode* n) {
    // Between graphs: made where it is called (call_switch), or when used otherwise (get).
    if (graph_const(n->input(2)) && graph_const(n->input(3))) return;
    Val c = get(n->input(1));
    Val x = get(n->input(2)), y = get(n->input(3));
    BDims d = join(x.d, y.d);
    IrBuilder b(m_, ng_, n->span());
    const AbsPtr& xa = n->input(2)->abstract();
    Node* xn = broadcast_dims(b, x.n, xa, x.d, d, bt_.size_);
    Node* yn = broadcast_dims(b, y.n, n->input(3)->abstract(), y.d, d, bt_.size_);
    if (!c.d.any()) {
      set(n, b.builtin(Builtin::Switch, {c.n, xn, yn}, batched_abs(n->abstract(), d, bt_.size_)),
          d);
      return;
    }
    set(n, select(n, c.n, xn, yn, n->abstract(), d), d);
  }

  // Per example: x where c, else y (both batched as d, of per-example abstract a).
  Node* select(CNode* at, Node* c, Node* x, Node* y, const AbsPtr& a, const BDims& d) {
    IrBuilder b(m_, ng_, at->span());
    if (d.seq) {
      std::vector<Node*> el;
      for (size_t i = 0; i < d.elems.size(); ++i)
        el.push_back(select(at, c, seq_item(b, x, i), seq_item(b, y, i), a->elems[i], d.elems[i]));
      return make_seq(b, batched_abs(a, d, bt_.size_), el);
    }
    if (a->kind != AbsKind::Tensor) {
      if (a->value) return x;  // the same constant either way
      fail(at, str("an `if` whose condition depends on the batched inputs must give tensors, "
                   "but one of its results is ",
                   a->to_string()));
    }
    MC_ASSERT(d.batched, "vmap: select of unbatched tensors");
    Shape cs(a->shape.size() + 1, 1);
    cs[0] = bt_.size_;
    return b.select(b.reshape(c, cs), x, y);
  }

  // ------------------------------------------------------------ calls

  void call(CNode* n) {
    Node* callee = n->callee();
    std::vector<Val> args;
    for (size_t i = 1; i < n->size(); ++i) args.push_back(get(n->input(i)));
    if (FuncGraph* h = graph_const(callee)) {
      Batcher::Batched r = bt_.batch(h, dims(args));
      set(n, emit_call(n, graph_ref(m_, r.g), args, r.params, r.out), r.out);
      return;
    }
    if (is_builtin_call(callee, Builtin::Switch)) {
      auto* sw = static_cast<CNode*>(callee);
      FuncGraph* a = graph_const(sw->input(2));
      FuncGraph* b = graph_const(sw->input(3));
      if (a && b) return call_switch(n, sw, a, b, args);
    }
    bool any = get(callee).d.any();
    for (const Val& v : args) any = any || v.d.any();
    if (any)
      fail(n,
           "calling a function value (a closure passed around or returned) with batched "
           "arguments is not supported; call the function directly");
    copy_plain(n);
  }

  std::vector<BDims> dims(const std::vector<Val>& args) {
    std::vector<BDims> d;
    for (const Val& v : args) d.push_back(v.d);
    return d;
  }

  Node* emit_call(CNode* n, Node* fn, const std::vector<Val>& args, const std::vector<BDims>& want,
                  const BDims& out) {
    IrBuilder b(m_, ng_, n->span());
    std::vector<Node*> in{fn};
    for (size_t i = 0; i < args.size(); ++i)
      in.push_back(
          broadcast_dims(b, args[i].n, n->input(i + 1)->abstract(), args[i].d, want[i], bt_.size_));
    CNode* c = m_.cnode(ng_, std::move(in), n->span());
    c->set_abstract(batched_abs(n->abstract(), out, bt_.size_));
    return c;
  }

  // switch(c, @A, @B)(args): with c unbatched, both branches batched alike (a branch whose
  // result is batched less is wrapped to broadcast it); with c batched, both run and Select
  // picks per example.
  void call_switch(CNode* n, CNode* sw, FuncGraph* a, FuncGraph* b, const std::vector<Val>& args) {
    Val c = get(sw->input(1));
    std::vector<BDims> in = dims(args);
    Batcher::Batched ra = bt_.batch(a, in), rb = bt_.batch(b, in);
    if (ra.params != rb.params) {  // a recursive branch takes everything batched
      std::vector<BDims> both;
      for (size_t i = 0; i < in.size(); ++i) both.push_back(join(ra.params[i], rb.params[i]));
      ra = bt_.batch(a, both);
      rb = bt_.batch(b, both);
    }
    Node* cond = c.n;
    const bool check_a = c.d.any() && only_raises(m_, a) && !has_effects(m_, b);
    const bool check_b = c.d.any() && !check_a && only_raises(m_, b) && !has_effects(m_, a);
    if (check_a || check_b) {
      // A check (one branch only raises, the other has no effects): it raises when any
      // example's check fails, else every example takes the other branch; so the condition
      // is reduced over the batch (any for a raising true branch, all for a raising false
      // one) and the switch runs once, both branches batched alike.
      cond = reduced_condition(n, c.n, check_a);
    } else if (c.d.any()) {
      if (loops(a) || loops(b))
        fail(n,
             "a loop whose condition depends on the batched inputs is not supported; "
             "bound it with a condition that does not depend on them");
      if (has_effects(m_, a) || has_effects(m_, b))
        fail(n,
             "an `if` whose condition depends on the batched inputs runs both branches, so "
             "its branches may not have effects (print, assignments, random ops)");
      BDims d = join(ra.out, rb.out);
      IrBuilder bb(m_, ng_, n->span());
      Node* xa = broadcast_dims(bb, emit_call(n, graph_ref(m_, ra.g), args, ra.params, ra.out),
                                n->abstract(), ra.out, d, bt_.size_);
      Node* xb = broadcast_dims(bb, emit_call(n, graph_ref(m_, rb.g), args, rb.params, rb.out),
                                n->abstract(), rb.out, d, bt_.size_);
      set(n, select(n, c.n, xa, xb, n->abstract(), d), d);
      return;
    }
    BDims d = join(ra.out, rb.out);
    FuncGraph* ga = widened(ra, a, d);
    FuncGraph* gb = widened(rb, b, d);
    CNode* s = m_.call_builtin(ng_, Builtin::Switch, {cond, graph_ref(m_, ga), graph_ref(m_, gb)},
                               sw->span());
    s->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Switch)));
    s->set_abstract(Abstract::func({FuncCandidate{Value::graph(ga), {}, nullptr},
                                    FuncCandidate{Value::graph(gb), {}, nullptr}}));
    set(n, emit_call(n, s, args, ra.params, d), d);
  }

  // The batched condition c ([B] bool) as one bool: whether any example's holds (any) or
  // every example's (not any).
  Node* reduced_condition(CNode* at, Node* c, bool any) {
    IrBuilder b(m_, ng_, at->span());
    Node* k = b.reduce_sum(b.cast(c, DType::Int32), {0}, false);
    Node* t = any ? b.prim(OpId::Greater, {k, b.scalar_like(0.0, k)})
                  : b.prim(OpId::Equal, {k, b.scalar_like(static_cast<double>(bt_.size_), k)});
    return b.builtin(Builtin::TensorToScalar, {t}, Abstract::scalar(ValueKind::Bool));
  }

  // Whether running g may come back to a graph being batched (g is part of a loop).
  bool loops(FuncGraph* g) {
    for (FuncGraph* h : m_.reachable_graphs(g))
      if (bt_.active(h) || bt_.recursive_.count(h)) return true;
    return false;
  }

  // V(g) whose result is broadcast to d (a wrapper graph when it is batched less).
  FuncGraph* widened(const Batcher::Batched& r, FuncGraph* g, const BDims& d) {
    if (r.out == d) return r.g;
    FuncGraph* w = m_.new_graph(r.g->name() + "_wide", g->span());
    std::vector<Node*> in{graph_ref(m_, r.g)};
    for (Parameter* p : r.g->params()) {
      Parameter* q = m_.add_param(w, p->name(), p->span());
      q->set_abstract(p->abstract());
      in.push_back(q);
    }
    CNode* c = m_.cnode(w, std::move(in), g->span());
    c->set_abstract(r.g->output()->abstract());
    IrBuilder b(m_, w, g->span());
    w->set_output(broadcast_dims(b, c, g->output()->abstract(), r.out, d, bt_.size_));
    return w;
  }

  Batcher& bt_;
  Module& m_;
  FuncGraph* g_;
  FuncGraph* ng_;
  IrBuilder b_;
  std::unordered_map<Node*, Val> val_;
};

// ---------------------------------------------------------------- the batcher

bool Batcher::active(FuncGraph* g) const {
  for (const auto& [k, v] : active_)
    if (k.first == g) return true;
  return false;
}

Batcher::Batched Batcher::batch(FuncGraph* g, const std::vector<BDims>& want) {
  std::vector<BDims> in = want;
  const bool rec = recursive_.count(g) > 0;
  if (rec)
    for (size_t i = 0; i < in.size(); ++i) in[i] = full_dims(g->param(i)->abstract());
  auto key = std::make_pair(g, key_of(in));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  if (auto it = active_.find(key); it != active_.end() && rec) return it->second;
  if (active(g)) {  // g calls itself: batch it all, parameters and result
    recursive_.insert(g);
    throw Restart{g};
  }
  bool any = false;
  for (const BDims& d : in) any = any || d.any();
  FuncGraph* ng = any ? m_.new_graph("V_" + g->name(), g->span()) : nullptr;
  if (!any) return done_[key] = Batched{g, in, BDims::leaf(false)};
  ng->is_loop = g->is_loop;
  ng->no_inline = g->no_inline;
  Batched r{ng, in, rec ? full_dims(g->output()->abstract()) : BDims::leaf(false)};
  active_[key] = r;
  try {
    GraphBatcher run(*this, g, ng);
    r.out = run.run(in, rec);
  } catch (const Restart& s) {
    active_.erase(key);
    if (s.g != g || rec) throw;
    return batch(g, want);
  } catch (...) {
    active_.erase(key);
    throw;
  }
  active_.erase(key);
  return done_[key] = r;
}

}  // namespace mycel::ir
