// PYNATIVE automatic differentiation (pynative.h).
#include "compiler/ad/pynative.h"

#include <functional>
#include <string>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/compile.h"
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

void OpRecorder::custom(const Value& bprop, std::span<const Tensor> in, const Tensor& out) {
  Rec r{nullptr, {}, {}, {}, bprop};
  for (const Tensor& t : in) r.in.push_back(ref_of(t));
  ids_[out.impl().get()] = Ref{static_cast<int32_t>(recs_.size()), 0};
  r.out.push_back(out);
  recs_.push_back(std::move(r));
}

void OpRecorder::op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
                    std::span<const Tensor> out) {
  Rec r{&op, attrs, {}, {}, {}};
  r.in.reserve(in.size());
  for (const Tensor& t : in) r.in.push_back(ref_of(t));
  int32_t k = static_cast<int32_t>(recs_.size());
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

std::vector<Value> OpRecorder::backward(BackwardCache& cache, const Value& out, const Value& sens,
                                        vm::RuntimeHost* host) {
  MC_CHECK(!active_, Internal, "OpRecorder::backward before stop()");
  std::vector<Tensor> outs;
  std::string out_shape;
  flatten(out, outs, out_shape);
  std::vector<Ref> out_refs;
  for (const Tensor& t : outs) out_refs.push_back(ref_of(t));
  std::vector<Tensor> sens_t;
  std::string sens_shape;
  flatten(sens, sens_t, sens_shape);
  MC_CHECK(sens_shape == out_shape, Type, "grad: the sensitivity's structure ", sens_shape,
           " does not match the output's ", out_shape);
  for (size_t i = 0; i < outs.size(); ++i)
    MC_CHECK(sens_t[i].dtype() == outs[i].dtype() && sens_t[i].shape() == outs[i].shape(), Type,
             "grad: the sensitivity ", i, " is ",
             Abstract::tensor(sens_t[i].dtype(), sens_t[i].shape())->to_string(),
             " but the output is ",
             Abstract::tensor(outs[i].dtype(), outs[i].shape())->to_string());

  // Look the op sequence up.
  BackwardEntry* e = nullptr;
  for (auto& c : cache.entries_) {
    if (c->params.size() != params_.size() || c->recs.size() != recs_.size() ||
        c->outs != out_refs || c->out_shape != out_shape)
      continue;
    bool same = true;
    for (size_t i = 0; i < params_.size() && same; ++i)
      same = c->params[i].dtype == params_[i].dtype() && c->params[i].shape == params_[i].shape();
    for (size_t k = 0; k < recs_.size() && same; ++k)
      same = c->recs[k].op == recs_[k].op && c->recs[k].in == recs_[k].in &&
             same_attrs(c->recs[k].attrs, recs_[k].attrs);
    if (same) {
      e = c.get();
      break;
    }
  }
  if (e == nullptr) {
    auto ne = std::make_unique<BackwardEntry>();
    for (const Tensor& t : params_) ne->params.push_back({t.dtype(), t.shape()});
    for (const Rec& r : recs_) ne->recs.push_back({r.op, r.attrs, r.in});
    ne->outs = out_refs;
    ne->out_shape = out_shape;
    ne->module = std::make_unique<ir::Module>();
    ir::Module& m = *ne->module;

    // g: the recorded ops.
    ir::FuncGraph* g = m.new_graph("pynative");
    std::unordered_map<Node*, Feed> source;
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
    auto node_of = [&](const Ref& r) { return r.rec < 0 ? pnode[r.index] : onode[r.rec][r.index]; };
    for (size_t k = 0; k < recs_.size(); ++k) {
      const Rec& r = recs_[k];
      std::vector<Node*> in;
      for (const Ref& x : r.in) in.push_back(node_of(x));
      if (r.op == nullptr) {
        // custom_vjp(None, bprop, x...): the value is recorded, the rule is fed.
        ir::Parameter* bp = m.add_param(g, str("bprop", k));
        bp->set_abstract(Abstract::any());
        source[bp] = Feed{Ref{static_cast<int32_t>(k), 0}, false, true};
        std::vector<Node*> args{b.constant(Value()), bp};
        args.insert(args.end(), in.begin(), in.end());
        Node* c = b.builtin(ir::Builtin::CustomVjp, args,
                            Abstract::tensor(r.out[0].dtype(), r.out[0].shape()));
        source[c] = Feed{Ref{static_cast<int32_t>(k), 0}};
        onode[k].push_back(c);
        continue;
      }
      Node* c = b.prim(r.op->id, in, r.attrs);
      if (c->abstract()->kind == ir::AbsKind::Tensor) {
        source[c] = Feed{Ref{static_cast<int32_t>(k), 0}};
        onode[k].push_back(c);
      } else {
        source[c] = Feed{Ref{static_cast<int32_t>(k), 0}, true};
        for (size_t o = 0; o < r.out.size(); ++o) {
          Node* gi = b.tuple_get(c, o);
          source[gi] = Feed{Ref{static_cast<int32_t>(k), static_cast<int32_t>(o)}};
          onode[k].push_back(gi);
        }
      }
    }
    size_t pos = 0;
    std::function<Node*(const Value&)> build = [&](const Value& v) -> Node* {
      if (v.is(ValueKind::Tensor)) return node_of(out_refs[pos++]);
      std::vector<Node*> items;
      for (const Value& x : v.items()) items.push_back(build(x));
      return b.make_tuple(items);
    };
    g->set_output(build(out));

    // K(g); B(g) becomes the entry, fed with the recorded forward values.
    ir::KTransform kt(m);
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
        ne->feeds.push_back(s->second);
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
    // Only the inputs' and weights' cotangents (the captured tensors' are dead code).
    auto* all = static_cast<ir::CNode*>(bg->output());
    MC_ASSERT(all->is_builtin(ir::Builtin::MakeTuple), "pynative backward: output form");
    ir::IrBuilder bb(m, bg);
    std::vector<Node*> grads(all->inputs().begin() + 1,
                             all->inputs().begin() + 1 + static_cast<std::ptrdiff_t>(n_in_ + n_w_));
    bg->set_output(bb.make_tuple(grads));
    m.set_entry(bg);

    ne->exe = compiler::compile_graph(m, bg, compiler::CompileOptions::from_env(),
                                      str("a PYNATIVE backward graph (", recs_.size(), " ops)"));
    cache.entries_.push_back(std::move(ne));
    e = cache.entries_.back().get();
  }

  // Run it on this recording.
  std::vector<Value> args;
  args.reserve(e->feeds.size() + 1);
  args.push_back(sens);
  for (const Feed& f : e->feeds) {
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
  Value r = e->exe->run(args, host);
  MC_ASSERT(r.is(ValueKind::Tuple) && r.items().size() == n_in_ + n_w_,
            "pynative backward: result form");
  return r.items();
}

}  // namespace mycel::ad
