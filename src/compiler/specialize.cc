// The specialiser's engine: contexts, graph calls, unions after switches, recursion and
// loops. Builtins: specialize_builtins.cc; Python's operators: specialize_operators.cc; prims:
// specialize_prims.cc; the program order of effects: specialize_effects.cc; placeholders for
// graph values: specialize_placeholders.cc; unrolled loops' deferred iterations:
// specialize_unroll.cc.
#include <algorithm>
#include <optional>
#include <unordered_set>
#include <utility>

#include "base/error.h"
#include "compiler/specialize_impl.h"
#include "ir/depth.h"

namespace mycel::ir {

namespace spec {

// Errors read like a Python traceback: the message, then the source lines from the
// outermost call to the failing node. Each enclosing call adds its line in front.
std::string with_location(const std::string& msg, const SourceSpan& sp) {
  if (!sp.valid()) return msg;
  std::string ex = span_excerpt(sp);
  if (ex.empty() || (msg + "\n").find(ex) != std::string::npos) return msg;
  ex.pop_back();  // the trailing newline
  size_t at = msg.find("\n  File \"");
  if (at == std::string::npos) return msg + "\n" + ex;
  return msg.substr(0, at) + "\n" + ex + msg.substr(at);
}

namespace {
// Whether the specialised value o never returns because every path to it raises: a raise, a
// value depending on one, or a call of a specialised graph whose output is such a value (an
// if-branch whose nested if raises). Depth-bounded: a recursion is not a raise.
bool always_raises(Node* o, int depth = 0) {
  if (o == nullptr || !o->is_cnode() || depth > 64) return false;
  auto* n = static_cast<CNode*>(o);
  if (n->is_builtin(Builtin::Raise)) return true;
  if (n->is_builtin(Builtin::Depend)) return always_raises(n->input(1), depth + 1);
  Node* f = n->input(0);
  if (!f->is_value() || !static_cast<ValueNode*>(f)->value().is(ValueKind::Graph)) return false;
  return always_raises(static_cast<ValueNode*>(f)->value().as_graph()->output(), depth + 1);
}
}  // namespace

void Specializer::fail(ErrorKind kind, const SourceSpan& sp, const std::string& msg) {
  throw_error(kind, with_location(msg, sp));
}

void Specializer::warn(const SourceSpan& sp, const std::string& msg) {
  result_.warnings.push_back(span_location(sp) + ": " + msg);
}

Node* Specializer::constant(const Value& v, const SourceSpan& sp) {
  ValueNode* n = out_.value(v, sp);
  n->set_abstract(Abstract::constant(v));
  return n;
}

Node* Specializer::bottom() {
  if (bottom_ == nullptr) bottom_ = out_.value(Value::none());  // no abstract: unknown
  return bottom_;
}

CNode* Specializer::emit(Ctx* c, std::vector<Node*> inputs, AbsPtr abs, const SourceSpan& sp) {
  CNode* n = out_.cnode(c->out, std::move(inputs), sp);
  n->set_abstract(std::move(abs));
  return n;
}

CNode* Specializer::emit_builtin(Ctx* c, Builtin b, std::vector<Node*> args, AbsPtr abs,
                                 const SourceSpan& sp) {
  args.insert(args.begin(), constant(Value::builtin(b), sp));
  return emit(c, std::move(args), std::move(abs), sp);
}

Node* Specializer::weight(const Value& param) {
  for (auto& [v, n] : weights_)
    if (v == param) return n;
  std::optional<Tensor> t = host_.weight(param);
  MC_ASSERT(t.has_value());
  Parameter* p = out_.add_param(entry_, str("w", weights_.size()));
  p->set_abstract(
      Abstract::tensor(t->dtype(), host_.weight_global_shape(param).value_or(t->shape())));
  weights_.push_back({param, p});
  return p;
}

// Placeholders for graph values (stale_graph, add_placeholder, resolve_*,
// patch_placeholders): specialize_placeholders.cc.

// ---------------------------------------------------------------- downward closures

bool Specializer::on_stack(const Ctx* p) const {
  return std::find(stack_.begin(), stack_.end(), p) != stack_.end();
}

bool Specializer::on_chain(const Ctx* p, const Ctx* c) const {
  for (const Ctx* k = c; k != nullptr; k = k->parent)
    if (k == p) return true;
  return false;
}

void Specializer::pin_to(const Ctx* p) {
  auto it = std::find(stack_.begin(), stack_.end(), p);
  MC_ASSERT(it != stack_.end(), "pin_to: the context is not live");
  for (++it; it != stack_.end(); ++it)
    if (std::find((*it)->pins.begin(), (*it)->pins.end(), p) == (*it)->pins.end())
      (*it)->pins.push_back(p);
}

Node* Specializer::closure_param(Ctx* k, const AbsPtr& a, Parameter* out, const SourceSpan& sp) {
  if (a->kind != AbsKind::Func || a->funcs.size() != 1) return nullptr;
  const FuncCandidate& cand = a->funcs[0];
  auto* pctx = static_cast<Ctx*>(const_cast<void*>(cand.context));
  if (!cand.fn.is(ValueKind::Graph) || !cand.bound.empty() || pctx == nullptr) return nullptr;
  if (!on_stack(pctx)) return nullptr;  // an escaped closure: its run-time value
  if (!on_chain(pctx, k)) pin_to(pctx);
  ValueNode* ph = out_.value(cand.fn, sp);
  ph->set_abstract(a);
  add_placeholder(ph, Placeholder{cand.fn.as_graph(), pctx, nullptr, sp, k, k->round});
  dead_params_.insert(out);
  return ph;
}

Ctx* Specializer::enclosing_ctx(FuncGraph* g, Ctx* c) {
  const auto& own = scopes_.owners(g);
  if (own.empty()) return nullptr;
  for (Ctx* k = c; k != nullptr; k = k->parent)
    if (own.count(k->src)) return k;
  MC_ASSERT(false, "graph @", g->name(), " captures variables of a graph not on the context chain");
  return nullptr;
}

// ---------------------------------------------------------------- evaluation

Node* Specializer::eval_value(const Value& v, const SourceSpan& sp, Ctx* c) {
  if (v.is(ValueKind::Graph)) {
    FuncGraph* g = v.as_graph();
    Ctx* pctx = enclosing_ctx(g, c);
    ValueNode* ph = out_.value(v, sp);
    ph->set_abstract(Abstract::func({FuncCandidate{v, {}, pctx}}));
    add_placeholder(ph, Placeholder{g, pctx, nullptr, sp, c, c->round});
    return ph;
  }
  if (v.is(ValueKind::PyObj)) {
    Value conv;
    try {
      conv = host_.convert(src_, v);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      fail(e.kind(), sp, e.message());
    }
    if (conv.is(ValueKind::PyObj)) {
      if (host_.weight(conv).has_value()) return read_weight(c, conv);
      return constant(conv, sp);
    }
    return eval_value(conv, sp, c);
  }
  return constant(v, sp);
}

Ctx* Specializer::owner_ctx(Node* n, Ctx* c) {
  Ctx* k = c;
  while (k != nullptr && k->src != n->graph()) k = k->parent;
  MC_ASSERT(k != nullptr, "free variable of graph @", n->graph()->name(),
            " outside the context chain");
  return k;
}

Node* Specializer::eval(Node* n, Ctx* c) {
  if (n->is_value()) return eval_value(static_cast<ValueNode*>(n)->value(), n->span(), c);
  Ctx* k = owner_ctx(n, c);
  auto it = k->map.find(n);
  // A tensor an update wrote reads as its latest value (updated_).
  if (it != k->map.end()) return updated_.empty() ? it->second : latest_value(c, it->second);
  MC_ASSERT(n->is_cnode(), "parameter without a value");
  eval_operands(static_cast<CNode*>(n), k);
  return eval_now(static_cast<CNode*>(n), k);
}

Node* Specializer::eval_now(CNode* n, Ctx* k) {
  Node* r = eval_cnode(n, k);
  if (r->name().empty() && !n->name().empty() && r->is_cnode()) r->set_name(n->name());
  k->map[n] = r;
  return r;
}

void Specializer::eval_operands(CNode* root, Ctx* c) {
  // An explicit stack instead of recursion: x = x + 1 repeated 50,000 times is a chain of
  // 50,000 nodes. Operands are visited in eval_cnode's order (inputs left to right, through
  // a make_kwarg to its key and value), and a call stops at its first positional argument
  // that has no value yet (bottom), as eval_cnode does.
  struct Frame {
    CNode* n;
    Ctx* k;
    size_t next = 0;
    bool kwarg = false;  // a make_kwarg: eval_cnode reads its inputs, never the node
  };
  std::vector<Frame> stack{{root, c}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.n->size()) {
      Frame done = f;
      stack.pop_back();
      if (!stack.empty() && !done.kwarg && !done.k->map.count(done.n)) {
        Node* r = eval_now(done.n, done.k);
        Frame& user = stack.back();
        size_t first = user.n->is_builtin(Builtin::UnpackCall) ? 2 : 1;
        if (is_bottom(r) && !user.kwarg && user.next > first) user.next = user.n->size();
      }
      continue;
    }
    Node* a = f.n->input(f.next++);
    if (!a->is_cnode()) continue;  // values: evaluated by their user; parameters: mapped
    Ctx* ka = owner_ctx(a, f.k);
    if (ka->map.count(a)) {
      size_t first = f.n->is_builtin(Builtin::UnpackCall) ? 2 : 1;
      if (is_bottom(ka->map[a]) && !f.kwarg && f.next > first) f.next = f.n->size();
      continue;
    }
    auto* ac = static_cast<CNode*>(a);
    stack.push_back({ac, ka, 0, ac->is_builtin(Builtin::MakeKwarg)});
  }
}

Node* Specializer::eval_cnode(CNode* n, Ctx* c) {
  const SourceSpan& sp = n->span();
  Node* callee = n->callee();
  // Calls with keyword and star arguments.
  bool star = n->is_builtin(Builtin::UnpackCall);
  size_t first = star ? 2 : 1;
  Node* fn = eval(star ? n->input(1) : callee, c);
  std::vector<Node*> args;
  KwNodes kw;
  for (size_t i = first; i < n->size(); ++i) {
    Node* a = n->input(i);
    if (a->is_cnode() && static_cast<CNode*>(a)->is_builtin(Builtin::MakeKwarg)) {
      auto* k = static_cast<CNode*>(a);
      Node* key = eval(k->input(1), c);
      MC_ASSERT(key->abstract() && key->abstract()->value &&
                key->abstract()->value->is(ValueKind::Str));
      kw.push_back({key->abstract()->value->as_str(), eval(k->input(2), c)});
      continue;
    }
    Node* v = eval(a, c);
    if (is_bottom(v)) return bottom();
    if (star) {
      const AbsPtr& ab = v->abstract();
      if (ab->kind == AbsKind::Dict) {
        for (size_t j = 0; j < ab->keys.size(); ++j) {
          if (!ab->keys[j].is(ValueKind::Str))
            fail(ErrorKind::Type, sp, "keywords must be strings");
          Node* item = getitem(c, v, constant(ab->keys[j], sp), sp);
          kw.push_back({ab->keys[j].as_str(), item});
        }
      } else {
        for (Node* e : unpack(c, v, sp)) args.push_back(e);
      }
      continue;
    }
    args.push_back(v);
  }
  if (is_bottom(fn)) return bottom();
  for (auto& [k, v] : kw)
    if (is_bottom(v)) return bottom();
  try {
    // The graph's output, evaluated by the context being specialised: a tail call.
    tail_call_ = n == c->src->output() && !stack_.empty() && stack_.back() == c;
    return call(c, fn, std::move(args), std::move(kw), sp);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) throw;
    fail(e.kind(), sp, e.message());
  }
}

Node* Specializer::call(Ctx* c, Node* fn, std::vector<Node*> args, KwNodes kw,
                        const SourceSpan& sp) {
  const bool tail = std::exchange(tail_call_, false);
  for (Node* a : args)
    if (is_bottom(a)) return bottom();
  const AbsPtr& fa = fn->abstract();
  if (fa->kind == AbsKind::Func && fa->funcs.size() > 1) {
    if (!kw.empty())
      fail(ErrorKind::Type, sp, "keyword arguments to a function chosen at run time");
    return call_union(c, fn, std::move(args), sp);
  }
  if (fa->kind == AbsKind::Func && !fn->is_value() && fa->value &&
      fa->value->is(ValueKind::Closure) && fa->value->as_closure().fn.is(ValueKind::Graph))
    // A constant closure (a bound method) that came through a call (a helper returning
    // self.method): call the constant, as where it was made; its node may hold a graph of the
    // source module, which never runs.
    return call(c, constant(*fa->value, sp), std::move(args), std::move(kw), sp);
  if (fa->kind == AbsKind::Func) {
    const FuncCandidate& cand = fa->funcs[0];
    std::vector<Node*> all;
    if (!cand.bound.empty()) {
      if (fn->is_cnode() && static_cast<CNode*>(fn)->is_builtin(Builtin::Partial)) {
        auto* p = static_cast<CNode*>(fn);
        for (size_t i = 2; i < p->size(); ++i) all.push_back(p->input(i));
      } else if (fn->is_value() && static_cast<ValueNode*>(fn)->value().is(ValueKind::Closure)) {
        for (const Value& b : static_cast<ValueNode*>(fn)->value().as_closure().args)
          all.push_back(constant(b, sp));
      } else if (!cand.fn.is(ValueKind::Graph)) {
        // A builtin bound to constants and returned by a call (GradOperation(...)(f)): the
        // bound values are known, so bind them again here.
        for (const AbsPtr& b : cand.bound) {
          if (!b->value)
            fail(ErrorKind::Type, sp,
                 str("calling ", cand.fn.to_string(),
                     " returned by a function with arguments known only at run time"));
          all.push_back(constant(*b->value, sp));
        }
      } else {
        // A closure known only by its abstract (a switch resolved to one candidate): call
        // the run-time value.
        std::vector<AbsPtr> abs = cand.bound;
        for (Node* a : args) abs.push_back(a->abstract());
        pass_state(c, args, &abs, sp);
        Ctx* k = context_for(cand.fn.as_graph(), static_cast<Ctx*>(const_cast<void*>(cand.context)),
                             abs, false, sp);
        resolve_placeholder(cand.fn.as_graph(), k->parent, k->out, sp, true);
        args.insert(args.begin(), fn);
        CNode* r = emit(c, std::move(args), k->ret, sp);
        after_call(c, k, r);
        return r;
      }
    }
    if (cand.fn.is(ValueKind::Graph)) {
      Ctx* pctx = static_cast<Ctx*>(const_cast<void*>(cand.context));
      bool visible = pctx == nullptr || on_chain(pctx, c);
      if (!visible && on_stack(pctx)) {
        // A closure passed down from a frame that is still live: call its specialisation
        // for these arguments directly (see closure_param).
        pin_to(pctx);
        visible = true;
      }
      if (!visible) {
        // A closure made in another graph's frame (returned by a call): its captured values
        // travel with the run-time value, so call that value. Its arguments are bound to its
        // signature first (*args packed, defaults, keywords), as for any call.
        if (cand.bound.empty()) {
          args = bind_args(cand.fn.as_graph(), std::move(args), std::move(kw), c, sp);
          kw.clear();
          for (Node* a : args)
            if (is_bottom(a)) return bottom();
        }
        if (!kw.empty())
          fail(ErrorKind::Type, sp, "keyword arguments to a closure returned by a call");
        std::vector<AbsPtr> abs = cand.bound;
        for (Node* a : args) abs.push_back(a->abstract());
        pass_state(c, args, &abs, sp);
        Ctx* k = context_for(cand.fn.as_graph(), pctx, abs, false, sp);
        resolve_placeholder(cand.fn.as_graph(), pctx, k->out, sp, false);
        args.insert(args.begin(), fn);
        CNode* r = emit(c, std::move(args), k->ret, sp);
        after_call(c, k, r);
        return r;
      }
    }
    all.insert(all.end(), args.begin(), args.end());
    switch (cand.fn.kind()) {
      case ValueKind::Graph:
        return call_graph(c, cand.fn.as_graph(), static_cast<Ctx*>(const_cast<void*>(cand.context)),
                          std::move(all), std::move(kw), sp, tail);
      case ValueKind::Prim:
        return prim_call(c, cand.fn.as_prim(), std::move(all), std::move(kw), sp);
      case ValueKind::Builtin:
        return builtin(c, cand.fn.as_builtin(), std::move(all), std::move(kw), sp);
      default:
        break;
    }
    MC_ASSERT(false, "bad function candidate ", cand.fn.to_string());
  }
  if (fa->kind == AbsKind::Const && fa->value && fa->value->is(ValueKind::PyObj))
    return call_host(c, fn, std::move(args), std::move(kw), sp);
  // A value the JIT fallback computes in Python at run time (a library function's or an
  // unknown class's result): name what made it, since its type is known only then.
  if (fn->is_cnode() && static_cast<CNode*>(fn)->is_builtin(Builtin::PyExecute)) {
    const AbsPtr& h = static_cast<CNode*>(fn)->input(1)->abstract();
    if (h && h->value && h->value->is(ValueKind::PyObj))
      fail(ErrorKind::Type, sp,
           str("'", fa->to_string(), "' object is not callable: the callee is the result of ",
               h->value->as_host()->repr(),
               "(...), which runs in the Python interpreter at run time (JIT fallback), so graph "
               "code cannot call it; call it outside the graph, or use an operation graph mode "
               "supports"));
  }
  fail(ErrorKind::Type, sp, str("'", fa->to_string(), "' object is not callable"));
}

std::vector<Node*> Specializer::bind_args(FuncGraph* g, std::vector<Node*> args, KwNodes kw, Ctx* c,
                                          const SourceSpan& sp) {
  const Signature& s = g->signature();
  size_t np = g->params().size();
  std::vector<Node*> bound(np, nullptr);
  size_t npos = np;  // positional-capable parameters
  if (s.kwonly_begin >= 0) npos = static_cast<size_t>(s.kwonly_begin);
  if (s.vararg >= 0) npos = std::min(npos, static_cast<size_t>(s.vararg));
  if (s.kwarg >= 0) npos = std::min(npos, static_cast<size_t>(s.kwarg));
  auto pname = [&](size_t i) {
    return i < s.names.size() && !s.names[i].empty() ? s.names[i] : g->param(i)->name();
  };
  std::string fname = g->name();
  // The entry's caller (mycel.jit, a GRAPH-mode Cell) passes keyword-only parameters
  // positionally, after the positional ones and the *args items (api.py's _positional).
  const bool entry = entry_call_;
  entry_call_ = false;
  // A **kwargs parameter's dict comes last of all (a dict abstract; other callers of an
  // entry pass none).
  Node* entry_kwargs = nullptr;
  if (entry && s.kwarg >= 0 && !args.empty() && args.back()->abstract() &&
      args.back()->abstract()->kind == AbsKind::Dict) {
    entry_kwargs = args.back();
    args.pop_back();
  }
  if (entry && s.kwonly_begin >= 0) {
    size_t kw_end = s.kwarg >= 0 ? static_cast<size_t>(s.kwarg) : np;
    size_t nkw = kw_end - static_cast<size_t>(s.kwonly_begin);
    if (args.size() >= nkw && (s.vararg >= 0 || args.size() >= npos + nkw)) {
      for (size_t i = 0; i < nkw; ++i)
        bound[static_cast<size_t>(s.kwonly_begin) + i] = args[args.size() - nkw + i];
      args.resize(args.size() - nkw);
    }
  }
  size_t k = 0;
  for (; k < args.size() && k < npos; ++k) bound[k] = args[k];
  if (k < args.size()) {
    if (s.vararg < 0)
      fail(ErrorKind::Type, sp,
           str(fname, "() takes ", npos, " positional argument", npos == 1 ? "" : "s", " but ",
               args.size(), " were given"));
    std::vector<Node*> rest(args.begin() + static_cast<std::ptrdiff_t>(k), args.end());
    bound[static_cast<size_t>(s.vararg)] = make_seq(c, false, rest, sp);
  } else if (s.vararg >= 0) {
    bound[static_cast<size_t>(s.vararg)] = make_seq(c, false, {}, sp);
  }
  std::vector<Value> extra_keys;
  std::vector<Node*> extra_vals;
  for (auto& [name, v] : kw) {
    size_t i = 0;
    while (i < np &&
           !(pname(i) == name && static_cast<int>(i) != s.vararg && static_cast<int>(i) != s.kwarg))
      ++i;
    if (i == np) {
      if (s.kwarg < 0)
        fail(ErrorKind::Type, sp, str(fname, "() got an unexpected keyword argument '", name, "'"));
      extra_keys.push_back(Value::string(name));
      extra_vals.push_back(v);
      continue;
    }
    if (bound[i] != nullptr)
      fail(ErrorKind::Type, sp, str(fname, "() got multiple values for argument '", name, "'"));
    bound[i] = v;
  }
  if (entry_kwargs != nullptr) {
    bound[static_cast<size_t>(s.kwarg)] = entry_kwargs;
  } else if (s.kwarg >= 0) {
    std::vector<Node*> kv;
    for (size_t i = 0; i < extra_keys.size(); ++i) {
      kv.push_back(constant(extra_keys[i], sp));
      kv.push_back(extra_vals[i]);
    }
    bound[static_cast<size_t>(s.kwarg)] = builtin(c, Builtin::MakeDict, kv, {}, sp);
  }
  std::vector<std::string> missing[2];  // positional, keyword-only (Python's two messages)
  for (size_t i = 0; i < np; ++i) {
    if (bound[i] != nullptr) continue;
    if (i < s.defaults.size() && s.defaults[i].has_value()) {
      Value d = *s.defaults[i];
      if (d.is(ValueKind::PyObj)) d = host_.convert(src_, d);
      bound[i] = constant(d, sp);
      continue;
    }
    missing[s.kwonly_begin >= 0 && static_cast<int>(i) >= s.kwonly_begin ? 1 : 0].push_back(
        pname(i));
  }
  for (int kind = 0; kind < 2; ++kind) {
    const std::vector<std::string>& m = missing[kind];
    if (m.empty()) continue;
    std::string names;  // 'a', 'b' and 'c'
    for (size_t j = 0; j < m.size(); ++j) {
      if (j > 0) names.append(j + 1 < m.size() ? ", " : m.size() > 2 ? ", and " : " and ");
      names.append(str("'", m[j], "'"));
    }
    fail(
        ErrorKind::Type, sp,
        str(fname, "() missing ", m.size(), " required ", kind == 0 ? "positional" : "keyword-only",
            " argument", m.size() == 1 ? "" : "s", ": ", names));
  }
  return bound;
}

Node* Specializer::call_graph(Ctx* c, FuncGraph* g, Ctx* pctx, std::vector<Node*> args, KwNodes kw,
                              const SourceSpan& sp, bool tail) {
  std::vector<Node*> bound = bind_args(g, std::move(args), std::move(kw), c, sp);
  std::vector<AbsPtr> abs;
  for (Node* a : bound) {
    if (is_bottom(a)) return bottom();
    abs.push_back(a->abstract());
  }
  pass_state(c, bound, &abs, sp);
  Ctx* k = context_for(g, pctx, std::move(abs), /*dynamic=*/false, sp, tail);
  resolve_placeholder(g, pctx, k->out, sp, false);
  bound.insert(bound.begin(), out_.value(Value::graph(k->out), sp));
  bound[0]->set_abstract(Abstract::func({FuncCandidate{Value::graph(k->out), {}, nullptr}}));
  CNode* r = emit(c, std::move(bound), k->ret, sp);
  if (awaiting(k)) {
    // A deferred iteration, or a context waiting on one (see "Unrolled loops"): r's result
    // comes when it settles; only a tail call gets such a context (context_for).
    MC_ASSERT(tail, "a call of '", g->name(), "' waits on a deferred loop iteration");
    k->ret_nodes.push_back(r);
    tail_calls_[r] = k;
    return r;
  }
  after_call(c, k, r);
  return r;
}

namespace {

// Two branches end by calling the code after the `if` with their values of its variables:
// the excerpts of those values (each branch's) whose types differ, for a join error. Empty
// when the outputs are not such calls.
std::string differing_values(const Node* a, const Node* b) {
  if (a == nullptr || b == nullptr || !a->is_cnode() || !b->is_cnode()) return "";
  const auto* ca = static_cast<const CNode*>(a);
  const auto* cb = static_cast<const CNode*>(b);
  if (ca->size() != cb->size()) return "";
  std::string out;
  for (size_t i = 1; i < ca->size(); ++i) {
    const AbsPtr& x = ca->input(i)->abstract();
    const AbsPtr& y = cb->input(i)->abstract();
    if (!x || !y || join(x, y)) continue;
    out += span_excerpt(ca->input(i)->span()) + span_excerpt(cb->input(i)->span());
  }
  return out;
}

}  // namespace

Node* Specializer::call_union(Ctx* c, Node* fn, std::vector<Node*> args, const SourceSpan& sp) {
  AbsPtr ret;
  SourceSpan ret_at;  // where the first branch's value is made (its return)
  const FuncGraph* ret_graph = nullptr;
  bool any_bottom = false;
  std::vector<Node*> state;  // c's token, when c has a state: the last argument
  pass_state(c, state, nullptr, sp);
  std::vector<Ctx*> called;
  for (const FuncCandidate& cand : fn->abstract()->funcs) {
    if (!cand.fn.is(ValueKind::Graph))
      fail(ErrorKind::Type, sp,
           str("graph mode can choose between functions at run time only when they are Python "
               "functions, but one choice is ",
               cand.fn.to_string()));
    std::vector<AbsPtr> abs = cand.bound;
    for (Node* a : args) abs.push_back(a->abstract());
    FuncGraph* g = cand.fn.as_graph();
    Ctx* pctx = static_cast<Ctx*>(const_cast<void*>(cand.context));
    const Signature& s = g->signature();
    if (abs.size() != g->params().size() || s.vararg >= 0 || s.kwarg >= 0)
      fail(ErrorKind::Type, sp,
           str(g->name(), "() takes ", g->params().size(), " arguments but ", abs.size(),
               " were given"));
    for (Node* t : state) abs.push_back(t->abstract());
    Ctx* k = context_for(g, pctx, abs, true, sp);
    called.push_back(k);
    note_runtime_closure(cand, k->out);
    // The placeholders this switch chose between, else (the value came from elsewhere)
    // every placeholder of that graph and context.
    if (!resolve_through(fn, g, pctx, k->out, sp, 0))
      resolve_placeholder(g, pctx, k->out, sp, true);
    if (!k->ret) {
      any_bottom = true;
      continue;
    }
    if (!ret) {
      ret = k->ret;
      ret_at = k->out->output() ? k->out->output()->span() : SourceSpan{};
      ret_graph = k->out;
      continue;
    }
    AbsPtr j = join(ret, k->ret);
    if (!j) {
      // MindSpore's words first (programs and tests look for them), then the condition's line
      // (fail adds it), then where each branch's value is made (its return, or the values it
      // passes on to the code after the `if` that differ: `a = Tensor(...)` / `a = 0`).
      SourceSpan at = k->out->output() ? k->out->output()->span() : SourceSpan{};
      std::string returns = span_excerpt(ret_at) + span_excerpt(at) +
                            differing_values(ret_graph->output(), k->out->output());
      if (!returns.empty()) returns.pop_back();
      fail(ErrorKind::Type, sp,
           str("Cannot join the return values of different branches, perhaps you need to make "
               "them equal: the branches of this condition give different types: ",
               ret->to_string(), " and ", k->ret->to_string(),
               "; graph mode needs both branches to agree in dtype and shape",
               returns.empty() ? "" : "\n", returns));
    }
    ret = j;
  }
  (void)any_bottom;
  args.insert(args.begin(), fn);
  args.insert(args.end(), state.begin(), state.end());
  CNode* r = emit(c, std::move(args), ret, sp);
  for (Ctx* k : called) after_call(c, k, r);
  return r;
}

namespace {
// Whether `out` is a tuple that holds `n` as an element (its output keeps n alive).
bool holds_directly(Node* out, Node* n) {
  if (!out->is_cnode()) return false;
  auto* c = static_cast<CNode*>(out);
  if (!c->is_builtin(Builtin::MakeTuple)) return false;
  for (size_t i = 1; i < c->inputs().size(); ++i)
    if (c->input(i) == n) return true;
  return false;
}

// A tuple or list whose elements join into no one type (cells, functions, tensors of
// several shapes): a broadened index could not pick from it.
bool mixed(const AbsPtr& a) {
  if (!a || (a->kind != AbsKind::Tuple && a->kind != AbsKind::List) || a->elems.empty())
    return false;
  AbsPtr all = broaden(a->elems[0]);
  for (size_t j = 1; j < a->elems.size() && all; ++j) all = join(all, broaden(a->elems[j]));
  return !all;
}
}  // namespace

// Broadened, the loop's arguments must have stopped changing type (a tuple that grows never
// settles), and neither they nor the values the loop reads from enclosing graphs (the
// sequence of `for x in seq`) may be mixed sequences. A loop that has not settled keeps
// unrolling, bounded by the compile-time call depth.
bool Specializer::settled(FuncGraph* g, Ctx* pctx, const std::vector<AbsPtr>& prev,
                          const std::vector<AbsPtr>& cur) {
  if (prev.size() != cur.size()) return false;
  for (size_t i = 0; i < cur.size(); ++i)
    if (!abs_equal(broaden(prev[i]), broaden(cur[i])) || mixed(cur[i])) return false;
  // g's region and those of the graphs it refers to (the loop's body reads the sequence).
  std::vector<FuncGraph*> graphs{g};
  for (CNode* c : scopes_.region(g))
    for (Node* n : c->inputs())
      if (n->is_value() && static_cast<ValueNode*>(n)->value().is(ValueKind::Graph))
        graphs.push_back(static_cast<ValueNode*>(n)->value().as_graph());
  for (FuncGraph* h : graphs) {
    for (CNode* c : scopes_.region(h)) {
      for (Node* n : c->inputs()) {
        if (n->graph() == nullptr || n->graph() == h || n->graph() == g) continue;
        for (Ctx* k = pctx; k != nullptr; k = k->parent) {
          if (k->src != n->graph()) continue;
          auto it = k->map.find(n);
          if (it != k->map.end() && mixed(it->second->abstract())) return false;
          break;
        }
      }
    }
  }
  return true;
}

Ctx* Specializer::context_for(FuncGraph* g, Ctx* pctx, std::vector<AbsPtr> args, bool dynamic,
                              const SourceSpan& sp, bool tail) {
  // Loops and recursion: re-entering a graph that is still being specialised, through a
  // condition known only at run time (or after kMaxUnroll constant iterations), broadens
  // the arguments so that the contexts meet in a fixed point instead of unrolling forever.
  // A loop that neither settles nor ends within the unrolling limits.
  // The loop (or function) by its name and where it is: the user's file:line.
  const std::string what =
      str(g->is_loop ? "the loop '" : "'", g->name(), "' at ", span_location(g->span()));
  auto unsettled = [&](int iterations) {
    fail(ErrorKind::Recursion, sp,
         str("compiling ", what, ": after ", iterations, " iterations (the unrolling limit is ",
             kMaxUnrolledLoop,
             ") this loop (or recursion) still changes the type of a value it carries on every "
             "iteration (a tuple or list that grows, a shape that changes) or reads a sequence "
             "of mixed types (cells, functions) by its index, so it can be neither unrolled "
             "further nor compiled as a loop; carry a tensor of fixed shape instead (fill a "
             "preallocated tensor, or stack chunks of fewer items), split the sequence, or use "
             "PYNATIVE mode"));
  };
  // A call known only at run time counts between this entry and an earlier one of g; one
  // below g's outermost entry does not (a loop unrolled inside the branch of a run-time `if`
  // is still unrolled).
  bool dyn_between = dynamic, dyn_reentry = false;
  Ctx* prev = nullptr;  // the innermost entry of g: the previous iteration
  size_t prev_at = 0;   // its position on the stack
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i]->src == g && stack_[i]->parent == pctx) {
      if (!prev) {
        prev = stack_[i];
        prev_at = i;
      }
      if (dyn_between) {
        dyn_reentry = true;
        break;
      }
    }
    if (stack_dynamic_[i]) dyn_between = true;
  }
  // Entries of g before this one (earlier iterations may have returned: deferred ones).
  const int count = prev == nullptr ? 0 : prev->iter + 1;
  // A constant-trip loop's next iteration may be deferred (see "Unrolled loops").
  const bool can_wait =
      tail && !dynamic && !dyn_reentry && g->is_loop && prev != nullptr && tail_chain(prev_at + 1);
  // A constant-trip loop broadened after kMaxUnroll iterations is a trial: if its broadened
  // body cannot be specialised, the loop unrolls on from the exact arguments (see below).
  std::vector<AbsPtr> exact;
  bool trial = false;
  if (count > 0 && dyn_reentry) {
    for (AbsPtr& a : args) a = broaden_arg(a);  // a sparse tensor's shape stays constant
  } else if (count >= kMaxUnroll && unroll_only_.count(g) == 0 &&
             settled(g, pctx, prev->args, args)) {
    exact = args;
    trial = true;
    for (AbsPtr& a : args) a = broaden_arg(a);
  } else if (count >= kMaxUnrolledLoop && unroll_only_.count(g) == 0) {
    unsettled(count);
  } else if (count > kMaxUnrolledLoop) {
    // (A loop's header is entered once more than its body runs, for the exit test: a loop
    // of kMaxUnrolledLoop iterations still unrolls.)
    auto why = unroll_only_.find(g);
    fail(ErrorKind::Recursion, sp,
         str("compiling ", what, ": this loop runs more than ", kMaxUnrolledLoop,
             " iterations (the unrolling limit) and cannot be compiled as a loop either: its "
             "body needs a value the loop carries (its counter) as a compile-time constant (a "
             "shape, an index into a tuple, an argument of a Python helper), and with that "
             "value known only at run time it fails with:\n",
             why->second,
             "\nmake the body compute with the counter as a tensor, run fewer iterations per "
             "loop, or use PYNATIVE mode"));
  }
  for (auto& k : ctxs_) {
    if (k->src != g || k->parent != pctx || k->args.size() != args.size() ||
        k->recompute != recompute_scope_)
      continue;
    bool same = true;
    for (size_t i = 0; i < args.size() && same; ++i) same = abs_equal(k->args[i], args[i]);
    if (!same) continue;
    if (k->stale) continue;
    bool pinned = true;  // every context it captures from is live (downward closures)
    for (const Ctx* p : k->pins) pinned = pinned && on_stack(p);
    if (!pinned) continue;
    // A deferred iteration, or one waiting on one, has no result yet: only a call that can
    // wait reuses it.
    if (awaiting(k.get())) {
      if (!can_wait) continue;
      return k.get();
    }
    if (k->active) {
      k->used_provisional = true;
      ++provisional_reads_;
      return k.get();
    }
    if (k->done) {
      if (k->tainted) ++provisional_reads_;  // its result waits on a recursion too
      return k.get();
    }
  }
  // Each nested call recurses on the C stack (specialising the callee inside its caller).
  const int max_depth = max_call_depth();
  if (static_cast<int>(stack_.size()) >= max_depth || stack_left() < kStackReserve) {
    int entries = 0;  // of g on the stack (a loop's body nests in its last iteration's)
    const Ctx* unrolling = nullptr;  // a loop that needs its counter as a constant
    for (const Ctx* k : stack_) {
      entries += k->src == g;
      if (unrolling == nullptr && unroll_only_.count(k->src) != 0) unrolling = k;
    }
    // A new type each time: no fixed point.
    if (entries >= kMaxUnroll && unrolling == nullptr) unsettled(entries);
    fail(ErrorKind::Recursion, sp,
         str("compiling '", g->name(), "' nests calls too deeply (the limit is ", max_depth,
             " nested calls at compile time, fewer when the thread's stack is small)",
             unrolling == nullptr
                 ? std::string()
                 : str(": the loop '", unrolling->src->name(), "' at ",
                       span_location(unrolling->src->span()),
                       " needs its counter as a compile-time constant, so it is unrolled"),
             "; make the recursion depend on a tensor, use PYNATIVE mode, or raise the "
             "limit with mycel.set_context(max_call_depth=N)"));
  }
  auto owned = std::make_unique<Ctx>();
  Ctx* k = owned.get();
  k->src = g;
  k->parent = pctx;
  k->args = std::move(args);
  k->seq = next_seq_++;
  k->recompute = recompute_scope_;
  k->iter = count;
  ctxs_.push_back(std::move(owned));
  if (can_wait && !trial) {
    defer(k, prev);
    return k;
  }
  stack_.push_back(k);
  stack_dynamic_.push_back(dynamic);
  stack_tail_.push_back(tail);
  auto pop = [&] {
    stack_.pop_back();
    stack_dynamic_.pop_back();
    stack_tail_.pop_back();
    k->active = false;
  };
  const size_t warnings_before = result_.warnings.size();
  try {
    run_ctx(k);
  } catch (const Error& e) {
    pop();
    if (!trial || e.kind() == ErrorKind::Internal) throw;
    return unroll_on(k, std::move(exact), dynamic, sp, e, warnings_before, tail);
  } catch (...) {
    pop();
    throw;
  }
  pop();
  run_queue(k);  // the iterations of a loop k began, deferred while it ran
  return k;
}

Ctx* Specializer::unroll_on(Ctx* failed, std::vector<AbsPtr> exact, bool dynamic,
                            const SourceSpan& sp, const Error& e, size_t warnings_before,
                            bool tail) {
  // The trial's contexts (the broadened loop's and those made inside it) are dropped, as a
  // recursion's earlier rounds are; its graphs stay unreachable in out_, and its JIT
  // fallback warnings go (the unrolled body computes those values on constants).
  for (auto& x : ctxs_)
    if (x->seq >= failed->seq && !x->active) x->stale = true;
  result_.warnings.resize(warnings_before);
  // Remembered for the source graph, not this context: the same loop met again (in the next
  // iteration of an enclosing unrolled loop) unrolls at once, so nested loops make one trial
  // each, not one per enclosing iteration.
  unroll_only_.emplace(failed->src, e.message());
  return context_for(failed->src, failed->parent, std::move(exact), dynamic, sp, tail);
}

void Specializer::run_ctx(Ctx* k) {
  FuncGraph* g = k->src;
  uint64_t reads_before = provisional_reads_;
  if (k->out == nullptr) {  // (a deferred iteration's was made when it was deferred)
    k->out = out_.new_graph(g->name());
    ctx_of_out_[k->out] = k;
    k->out->is_loop = g->is_loop;
  }
  Ctx* waits = nullptr;  // the output is a tail call whose result is not known yet
  for (int round = 0;; ++round) {
    // (Re)build the graph from scratch: contexts created by an earlier round may have seen
    // a provisional result, so they are dropped.
    k->round = round;
    if (round > 0)
      for (auto& x : ctxs_)
        if (x->seq > k->seq && !x->active) x->stale = true;
    k->map.clear();
    std::vector<Parameter*> params;
    k->out->set_params({});
    for (size_t i = 0; i < g->params().size(); ++i) {
      Parameter* p = out_.add_param(k->out, g->param(i)->name(), g->param(i)->span());
      p->set_abstract(k->args[i]);
      const AbsPtr& a = k->args[i];
      if (a->value && !a->value->is(ValueKind::Tensor)) {
        k->map[g->param(i)] = constant(*a->value, g->param(i)->span());
        if (source_graph(*a->value) != nullptr) dead_params_.insert(p);
      } else if (Node* f = closure_param(k, a, p, g->param(i)->span()))
        k->map[g->param(i)] = f;
      else
        k->map[g->param(i)] = p;
    }
    // A caller with a state passes its token last: reads and effects here run after it.
    k->state = k->token = nullptr;
    k->effects = false;
    if (k->args.size() > g->params().size()) {
      Parameter* u = out_.add_param(k->out, "u", g->span());
      u->set_abstract(k->args.back());
      k->state = k->token = u;
    }
    k->active = true;
    k->used_provisional = false;
    Node* o;
    try {
      // Python evaluates a region's statements in order: so does the walk, so that reads of
      // Parameters and effects see the state at their place in the source.
      for (CNode* n : source_order(g)) eval(n, k);
      // Expression statements (print(x), f(x)) run before the output; depend() keeps them.
      std::vector<Node*> effects;
      for (Node* e : g->effects) {
        Node* r = eval(e, k);
        if (r->is_cnode()) effects.push_back(r);
      }
      o = eval(g->output(), k);
      auto tc = o->abstract() ? tail_calls_.end() : tail_calls_.find(o);
      waits = tc == tail_calls_.end() ? nullptr : tc->second;
      // A returned tensor that an update wrote: its new value (see updated_).
      if (k->state != nullptr && o->abstract() && o->abstract()->kind == AbsKind::Tensor)
        o = latest_value(k, o);
      // The last effect is kept by the output too (MindSpore's auto-monad returns its
      // state): an update whose value only an unread tuple element holds (f()[0] of an f
      // returning (assign(a, x), assign(b, y))) would otherwise be dropped with it.
      if (k->state && k->state != k->token && k->state->is_cnode() && k->state != o &&
          !holds_directly(o, k->state) &&
          std::find(effects.begin(), effects.end(), k->state) == effects.end())
        effects.push_back(k->state);
      if (!effects.empty()) {
        effects.insert(effects.begin(), o);
        o = emit_builtin(k, Builtin::Depend, effects, o->abstract(), g->output()->span());
        if (waits != nullptr) waits->ret_nodes.push_back(o);
      }
    } catch (...) {
      k->active = false;
      throw;
    }
    k->active = false;
    k->out->set_output(o);
    AbsPtr ret = o->abstract();
    bool again = k->used_provisional && !abs_equal(ret, k->ret) && round < 4;
    k->ret = ret;
    if (!again) break;
  }
  if (waits != nullptr) {  // its result comes with the deferred iteration's (settle)
    await_tail(k, waits);
    k->done = true;
    return;
  }
  // No result: legitimately while a recursion it reached is still being solved (a later
  // round recomputes it), or when every path raises.
  bool raises = always_raises(k->out->output());
  k->tainted = !k->ret && provisional_reads_ != reads_before;
  if (!k->ret && provisional_reads_ == reads_before && !raises)
    fail(ErrorKind::Runtime, g->span(),
         str("'", g->name(),
             "' never returns: every path recurses, an endless loop (is a base case missing?)"));
  k->done = true;
}

Specialized Specializer::run(const Value& fn_in, const std::vector<AbsPtr>& args) {
  entry_ = out_.new_graph("entry");
  out_.set_entry(entry_);
  auto root = std::make_unique<Ctx>();
  root->out = entry_;
  root->active = true;
  std::vector<Node*> arg_nodes;
  for (size_t i = 0; i < args.size(); ++i) {
    Parameter* p = out_.add_param(entry_, str("arg", i));
    p->set_abstract(args[i]);
    if (args[i]->value && !args[i]->value->is(ValueKind::Tensor))
      arg_nodes.push_back(constant(*args[i]->value));
    else
      arg_nodes.push_back(p);
  }
  Value fn = fn_in;
  Node* fnode;
  if (fn.is(ValueKind::Graph)) {
    ValueNode* tmp = src_.value(fn);
    fnode = eval(tmp, root.get());
  } else {
    fnode = constant(fn);
  }
  entry_call_ = true;
  Node* o = call(root.get(), fnode, arg_nodes, {}, SourceSpan{});
  if (is_bottom(o))
    fail(ErrorKind::Runtime, {},
         "the function never returns: every path recurses endlessly (an endless loop) or raises");
  // A function value that is no graph (a grad or vmap function called from Python) leaves
  // its effects as the root's state, not in o: the output keeps them, as a graph's does.
  Ctx* rc = root.get();
  if (rc->state && rc->state != rc->token && rc->state->is_cnode() && rc->state != o &&
      !holds_directly(o, rc->state))
    o = emit_builtin(rc, Builtin::Depend, {o, rc->state}, o->abstract(), SourceSpan{});
  entry_->set_output(o);
  patch_placeholders();
  result_.entry = entry_;
  result_.output = o->abstract();
  for (auto& [v, n] : weights_) result_.weights.push_back(v);
  return std::move(result_);
}

}  // namespace spec

Specialized specialize(Module& src, Module& out, Host& host, const Value& fn,
                       const std::vector<AbsPtr>& args) {
  spec::Specializer s(src, out, host);
  return s.run(fn, args);
}

}  // namespace mycel::ir
