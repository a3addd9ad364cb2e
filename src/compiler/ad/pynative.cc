// PYNATIVE automatic differentiation (pynative.h).
#include "compiler/ad/pynative.h"

#include "compiler/ad/bprop.h"

#include <functional>
#include <string>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/compile.h"
#include "compiler/grad_spec.h"
#include "runtime/vm.h"

namespace mycel::ad {

using ir::AbsPtr;
using ir::Abstract;
using ir::Node;
using ir::Value;
using ir::ValueKind;
using Ref = OpRecorder::Ref;

// What a backward parameter is fed with: a recorded tensor, or all outputs of a
// multi-output op as a tuple (whole = true).
struct Feed {
  Ref ref;
  bool whole = false;
  bool bprop = false;  // recs_[ref.rec].bprop
};

struct KeyRec {
  const OpDef* op;
  Attrs attrs;
  std::vector<Ref> in;
};

struct BackwardEntry {
  // The key.
  std::vector<TensorMeta> params;
  std::vector<KeyRec> recs;
  std::vector<Ref> outs;
  std::string out_shape;  // the output's tuple structure
  // The compiled backward: (dout, fed...) -> (d_inputs..., d_weights...).
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<vm::Executable> exe;
  std::vector<Feed> feeds;
};

BackwardCache::BackwardCache() = default;
BackwardCache::~BackwardCache() = default;

OpRecorder::OpRecorder(std::vector<Tensor> inputs, std::vector<Tensor> weights) {
  n_in_ = inputs.size();
  n_w_ = weights.size();
  for (const Tensor& t : inputs) add_param(t);
  for (const Tensor& t : weights) add_param(t);
  record::push(this);
  active_ = true;
}

OpRecorder::~OpRecorder() { stop(); }

void OpRecorder::stop() {
  if (!active_) return;
  record::pop(this);
  active_ = false;
}

void OpRecorder::add_param(const Tensor& t) {
  MC_CHECK(t.defined(), Type, "grad: an input is not a tensor");
  Ref r{-1, static_cast<int32_t>(params_.size())};
  params_.push_back(t);
  ids_.emplace(t.impl().get(), r);  // the first registration wins (the same tensor twice)
}

Ref OpRecorder::ref_of(const Tensor& t) {
  auto it = ids_.find(t.impl().get());
  if (it != ids_.end()) return it->second;
  add_param(t);
  return Ref{-1, static_cast<int32_t>(params_.size() - 1)};
}

bool OpRecorder::depends(const Ref& r) const {
  if (r.rec < 0) return static_cast<size_t>(r.index) < n_in_ + n_w_;
  return recs_[static_cast<size_t>(r.rec)].grad;
}

bool OpRecorder::holds(const Tensor& t) const {
  auto it = ids_.find(t.impl().get());
  return it != ids_.end() && depends(it->second);
}

void OpRecorder::custom(const Value& bprop, std::span<const Tensor> in, const Tensor& out) {
  Rec r{nullptr, {}, {}, {}, bprop};
  for (const Tensor& t : in) r.in.push_back(ref_of(t));
  for (const Ref& q : r.in) r.grad = r.grad || depends(q);
  ids_[out.impl().get()] = Ref{static_cast<int32_t>(recs_.size()), 0};
  r.out.push_back(out);
  recs_.push_back(std::move(r));
}

void OpRecorder::before_write(const Tensor& x) {
  auto it = ids_.find(x.impl().get());
  if (it == ids_.end()) return;
  const Ref r = it->second;
  Tensor& held = r.rec < 0 ? params_[static_cast<size_t>(r.index)]
                           : recs_[static_cast<size_t>(r.rec)].out[static_cast<size_t>(r.index)];
  if (held.impl() == x.impl()) held = x.clone();
}

bool OpRecorder::hook(const Value& bprop, const Tensor& x) {
  Ref r = ref_of(x);
  if (r.rec < 0 && static_cast<size_t>(r.index) < n_in_ + n_w_) return false;
  // The hook's call goes right after x's producer (first for a captured tensor), so every
  // consumer of x comes after it; later records move up by one.
  const int32_t at = r.rec < 0 ? 0 : r.rec + 1;
  auto shift = [at](Ref& q) {
    if (q.rec >= at) ++q.rec;
  };
  for (Rec& rec : recs_)
    for (Ref& q : rec.in) shift(q);
  for (auto& [impl, q] : ids_) shift(q);
  const Ref hooked{at, 0};
  for (size_t k = static_cast<size_t>(at); k < recs_.size(); ++k)
    for (Ref& q : recs_[k].in)
      if (q == r) q = hooked;
  for (auto& [impl, q] : ids_)
    if (q == r) q = hooked;
  Rec h{nullptr, {}, {r}, {}, bprop};
  h.out.push_back(x);
  h.grad = r.rec < 0 ? depends(r) : recs_[static_cast<size_t>(r.rec)].grad;
  recs_.insert(recs_.begin() + at, std::move(h));
  ids_[x.impl().get()] = hooked;
  return true;
}

void OpRecorder::op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
                    std::span<const Tensor> out) {
  Rec r{&op, attrs, {}, {}, {}};
  r.in.reserve(in.size());
  for (const Tensor& t : in) r.in.push_back(ref_of(t));
  if (ir::bprop_rule(op.id) != nullptr)
    for (const Ref& q : r.in) r.grad = r.grad || depends(q);
  int32_t k = static_cast<int32_t>(recs_.size());
  // An input the op wrote without returning it (before_write kept its old value): a later
  // read captures its new value afresh.
  for (size_t i = 0; i < in.size(); ++i)
    if (writes_input(op, i)) ids_.erase(in[i].impl().get());
  for (size_t o = 0; o < out.size(); ++o) {
    r.out.push_back(out[o]);
    ids_[out[o].impl().get()] = Ref{k, static_cast<int32_t>(o)};
  }
  recs_.push_back(std::move(r));
}

namespace {

// The tensors of a tensor-or-tuple value, in order, and its structure ("t", "(t,(t,t))").
void flatten(const Value& v, std::vector<Tensor>& out, std::string& shape) {
  if (v.is(ValueKind::Tensor)) {
    out.push_back(v.as_tensor());
    shape += 't';
    return;
  }
  MC_CHECK(v.is_sequence(), Type,
           "grad: the function must return a tensor or a tuple of tensors, but it returns a ",
           ir::value_kind_name(v.kind()));
  shape += '(';
  for (const Value& e : v.items()) flatten(e, out, shape);
  shape += ')';
}

bool same_attrs(const Attrs& a, const Attrs& b) { return a.items() == b.items(); }

}  // namespace

BackwardEntry* OpRecorder::find_entry(BackwardCache& cache, const std::vector<Ref>& outs,
                                      const std::string& out_shape) const {
  for (auto& c : cache.entries_) {
    if (c->params.size() != params_.size() || c->recs.size() != recs_.size() || c->outs != outs ||
        c->out_shape != out_shape)
      continue;
    bool same = true;
    for (size_t i = 0; i < params_.size() && same; ++i)
      same = c->params[i].dtype == params_[i].dtype() && c->params[i].shape == params_[i].shape();
    for (size_t k = 0; k < recs_.size() && same; ++k)
      same = c->recs[k].op == recs_[k].op && c->recs[k].in == recs_[k].in &&
             same_attrs(c->recs[k].attrs, recs_[k].attrs);
    if (same) return c.get();
  }
  return nullptr;
}

ir::FuncGraph* OpRecorder::recorded_graph(ir::Module& m, const Value& out,
                                          const std::vector<Ref>& outs, SourceMap& source) const {
  ir::FuncGraph* g = m.new_graph("pynative");
  std::vector<Node*> pnode;
  for (size_t i = 0; i < params_.size(); ++i) {
    const char* kind = i < n_in_ ? "x" : i < n_in_ + n_w_ ? "w" : "c";
    ir::Parameter* p = m.add_param(g, str(kind, i));
    p->set_abstract(Abstract::tensor(params_[i].dtype(), params_[i].shape()));
    source[p] = Feed{Ref{-1, static_cast<int32_t>(i)}};
    pnode.push_back(p);
  }
  ir::IrBuilder b(m, g);
  std::vector<std::vector<Node*>> onode(recs_.size());
  std::vector<Node*> always;  // Send/Receive calls: differentiated even when the output
                              // does not depend on them (bprop_always)
  auto node_of = [&](const Ref& r) { return r.rec < 0 ? pnode[r.index] : onode[r.rec][r.index]; };
  for (size_t k = 0; k < recs_.size(); ++k) {
    const Rec& r = recs_[k];
    Ref first{static_cast<int32_t>(k), 0};
    std::vector<Node*> in;
    for (const Ref& x : r.in) in.push_back(node_of(x));
    if (r.op == nullptr) {
      // custom_vjp(None, bprop, x...): the value is recorded, the rule is fed.
      ir::Parameter* bp = m.add_param(g, str("bprop", k));
      bp->set_abstract(Abstract::any());
      source[bp] = Feed{first, false, true};
      std::vector<Node*> args{b.constant(Value()), bp};
      args.insert(args.end(), in.begin(), in.end());
      Node* c = b.builtin(ir::Builtin::CustomVjp, args,
                          Abstract::tensor(r.out[0].dtype(), r.out[0].shape()));
      source[c] = Feed{first};
      onode[k].push_back(c);
      continue;
    }
    Node* c = b.prim(r.op->id, in, r.attrs);
    if (ir::bprop_always(r.op->id)) always.push_back(c);
    bool one = c->abstract()->kind == ir::AbsKind::Tensor;
    source[c] = Feed{first, !one};
    if (one) {
      onode[k].push_back(c);
      continue;
    }
    for (size_t o = 0; o < r.out.size(); ++o) {
      Node* gi = b.tuple_get(c, o);
      source[gi] = Feed{Ref{static_cast<int32_t>(k), static_cast<int32_t>(o)}};
      onode[k].push_back(gi);
    }
  }
  size_t pos = 0;
  std::function<Node*(const Value&)> build = [&](const Value& v) -> Node* {
    if (v.is(ValueKind::Tensor)) return node_of(outs[pos++]);
    std::vector<Node*> items;
    for (const Value& x : v.items()) items.push_back(build(x));
    return b.make_tuple(items);
  };
  Node* result = build(out);
  if (!always.empty()) {
    always.insert(always.begin(), result);
    result = b.builtin(ir::Builtin::Depend, always, result->abstract());
  }
  g->set_output(result);
  return g;
}

namespace {

// B(g) of the recorded graph g as a graph of its own: the forward values it reads become
// parameters (their feeds, in order, are appended to `feeds`), and its output keeps the
// first n_grads cotangents (the inputs' and weights'; the captured tensors' are dead code).
ir::FuncGraph* backward_graph(ir::Module& m, ir::FuncGraph* g, const SourceMap& source,
                              std::vector<Feed>& feeds, size_t n_grads) {
  ir::KTransform kt(m);
  kt.check_overwrites = false;  // the feeds are the values the ops read (before_write)
  kt.k_graph(g);
  ir::FuncGraph* bg = kt.bprop_graph(g);
  std::unordered_map<Node*, Node*> back;  // K(g) node -> g node
  for (auto& [gn, kn] : kt.forward_map(g)) back[kn] = gn;
  std::unordered_map<Node*, Node*> resolved;
  std::function<Node*(Node*)> resolve = [&](Node* x) -> Node* {
    if (x->is_value() || x->graph() == bg) return x;
    auto it = resolved.find(x);
    if (it != resolved.end()) return it->second;
    Node* gn = back.at(x);
    Node* r;
    auto s = source.find(gn);
    if (s != source.end()) {
      ir::Parameter* p = m.add_param(bg, x->name());
      p->set_abstract(x->abstract());
      feeds.push_back(s->second);
      r = p;
    } else {
      MC_ASSERT(x->is_cnode(), "pynative backward: an unrecorded forward parameter");
      auto* c = static_cast<ir::CNode*>(x);
      std::vector<Node*> in{c->callee()};
      for (size_t i = 1; i < c->size(); ++i) in.push_back(resolve(c->input(i)));
      ir::CNode* copy = m.cnode(bg, std::move(in), c->span());
      copy->set_abstract(c->abstract());
      r = copy;
    }
    resolved[x] = r;
    return r;
  };
  for (ir::CNode* c : m.toposort(bg))
    for (size_t i = 0; i < c->size(); ++i)
      if (Node* r = resolve(c->input(i)); r != c->input(i)) c->set_input(i, r);
  // make_tuple(grads...), or depend(make_tuple(...), effects...) when bprops had effects
  // (BpropArgs::effects): the grads wanted, with the same effects.
  auto* out = static_cast<ir::CNode*>(bg->output());
  auto* all = out->is_builtin(ir::Builtin::Depend) ? static_cast<ir::CNode*>(out->input(1)) : out;
  MC_ASSERT(all->is_builtin(ir::Builtin::MakeTuple), "pynative backward: output form");
  ir::IrBuilder bb(m, bg);
  std::vector<Node*> grads(all->inputs().begin() + 1,
                           all->inputs().begin() + 1 + static_cast<std::ptrdiff_t>(n_grads));
  Node* result = bb.make_tuple(grads);
  if (out != all) {
    std::vector<Node*> dep(out->inputs().begin() + 1, out->inputs().end());
    dep[0] = result;
    result = bb.builtin(ir::Builtin::Depend, dep, result->abstract());
  }
  bg->set_output(result);
  return bg;
}

}  // namespace

std::unique_ptr<BackwardEntry> OpRecorder::compile_entry(const Value& out,
                                                         const std::vector<Ref>& outs,
                                                         const std::string& out_shape) const {
  auto e = std::make_unique<BackwardEntry>();
  for (const Tensor& t : params_) e->params.push_back({t.dtype(), t.shape()});
  for (const Rec& r : recs_) e->recs.push_back({r.op, r.attrs, r.in});
  e->outs = outs;
  e->out_shape = out_shape;
  e->module = std::make_unique<ir::Module>();
  ir::Module& m = *e->module;
  SourceMap source;
  ir::FuncGraph* g = recorded_graph(m, out, outs, source);
  ir::FuncGraph* bg = backward_graph(m, g, source, e->feeds, n_in_ + n_w_);
  m.set_entry(bg);
  e->exe = compiler::compile_graph(m, bg, compiler::CompileOptions::from_env(),
                                   str("a PYNATIVE backward graph (", recs_.size(), " ops)"));
  return e;
}

Value OpRecorder::run_entry(const BackwardEntry& e, const Value& sens, vm::RuntimeHost* host,
                            vm::ResultObserver* observer) const {
  std::vector<Value> args;
  args.reserve(e.feeds.size() + 1);
  args.push_back(sens);
  for (const Feed& f : e.feeds) {
    if (f.bprop) {
      args.push_back(recs_[static_cast<size_t>(f.ref.rec)].bprop);
    } else if (f.ref.rec < 0) {
      args.push_back(Value::tensor(params_[static_cast<size_t>(f.ref.index)]));
    } else if (f.whole) {
      std::vector<Value> items;
      for (const Tensor& t : recs_[static_cast<size_t>(f.ref.rec)].out)
        items.push_back(Value::tensor(t));
      args.push_back(Value::tuple(std::move(items)));
    } else {
      args.push_back(Value::tensor(
          recs_[static_cast<size_t>(f.ref.rec)].out[static_cast<size_t>(f.ref.index)]));
    }
  }
  return e.exe->run(args, host, nullptr, observer);
}

std::vector<Value> OpRecorder::backward(BackwardCache& cache, const Value& out, const Value& sens,
                                        vm::RuntimeHost* host, vm::ResultObserver* observer) {
  MC_CHECK(!active_, Internal, "OpRecorder::backward before stop()");
  std::vector<Tensor> outs;
  std::string out_shape;
  flatten(out, outs, out_shape);
  compiler::check_grad_sens(ir::broaden(Abstract::constant(out)),
                            ir::broaden(Abstract::constant(sens)));
  std::vector<Ref> out_refs;
  for (const Tensor& t : outs) out_refs.push_back(ref_of(t));
  BackwardEntry* e = find_entry(cache, out_refs, out_shape);
  if (e == nullptr) {
    cache.entries_.push_back(compile_entry(out, out_refs, out_shape));
    e = cache.entries_.back().get();
  }
  Value r = run_entry(*e, sens, host, observer);
  MC_ASSERT(r.is(ValueKind::Tuple) && r.items().size() == n_in_ + n_w_,
            "pynative backward: result form");
  return r.items();
}

}  // namespace mycel::ad
