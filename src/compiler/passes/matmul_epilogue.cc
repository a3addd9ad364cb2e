// matmul_epilogue: graph-kernel fusion for a program that runs on a device. A 2-D MatMul
// whose only user is a BiasAdd, and that BiasAdd's only user when it is ReLU or
// GeLU{approximate="tanh"}, become a call of a MatMul epilogue graph, which runs as one fused
// library call on the device (codegen/matmul_epilogue.h: cuBLASLt's bias epilogues):
//
//   %m = MatMul{transpose_b=True}(%x, %w) : f32[M, N]       %0 = @GraphKernel#MatmulEpilogue_0(
//   %b = BiasAdd(%m, %c) : f32[M, N]                    ->       %x, %w, %c) : f32[M, N]
//   %r = ReLU(%b) : f32[M, N]                                (uses of %r read %0)
//
//   graph @GraphKernel#MatmulEpilogue_0(%x0, %x1, %x2) { the same three ops; return %r }
//
// Matched: MatMul with static 2-D shapes, its inputs, the bias (1-D, N elements) and the
// results all of one dtype among float32, float16 and bfloat16; no member is an effect of
// the graph, and the MatMul (and the BiasAdd when an activation joins) is used by the next
// member only.
//
// And a Dense layer's backward: ReduceSum{axis=(0,), keep_dims=False} of a 2-D dy beside a
// MatMul{transpose_a=True, transpose_b=False} with dy as one operand (its weight gradient,
// same dtypes as above) become one call with both results (the bias gradient computed in the
// product's epilogue, cuBLASLt's BGRADA/BGRADB):
//
//   %w = MatMul{transpose_a=True}(%dy, %x) : f32[N, K]      %0 = @GraphKernel#MatmulEpilogue_1(
//   %s = ReduceSum{axis=(0,)}(%dy) : f32[N]           ->        %dy, %x) : tuple(...)
//                                                            %w, %s: getitem(%0, 0), (%0, 1)
//
// provided the other operand is computed before the ReduceSum (so it cannot depend on it: the
// call would be part of a cycle). The elementwise and reduction clusters of the graph_kernel pass
// are not formed for a device: their generated kernels run on the CPU only.
//
// Pre: specialised, lifted IR (the pipeline runs it last, in place of graph_kernel, when
// the compile's target is a device). Post: the same, with epilogue graphs (GraphKernel graphs
// by name, so codegen::build_kernels gives them their kernel and the pass skips them).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/loop_ir.h"
#include "codegen/matmul_epilogue.h"
#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

bool epilogue_dtype(DType t) {
  return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16;
}

const Abstract* tensor_of(const Node* n) {
  const AbsPtr& a = n->abstract();
  if (!a || !a->is_tensor()) return nullptr;
  for (int64_t d : a->shape)
    if (d < 0) return nullptr;
  return a.get();
}

bool is_op(const Node* n, OpId id) {
  return n->is_cnode() && static_cast<const CNode*>(n)->prim() != nullptr &&
         static_cast<const CNode*>(n)->prim()->op->id == id;
}

class Matcher {
 public:
  Matcher(Module& m, Manager& mng, FuncGraph* g, int& counter)
      : m_(m), mng_(mng), g_(g), counter_(counter) {}

  bool run() {
    std::unordered_set<const Node*> effects(g_->effects.begin(), g_->effects.end());
    std::vector<std::vector<CNode*>> chains;
    for (CNode* ba : m_.toposort(g_)) {
      if (!is_op(ba, OpId::BiasAdd) || effects.count(ba) || !is_op(ba->input(1), OpId::MatMul))
        continue;
      auto* mm = static_cast<CNode*>(ba->input(1));
      if (mm->graph() != g_ || effects.count(mm) || !only_user(mm, ba) || !types_fit(mm, ba))
        continue;
      std::vector<CNode*> chain{mm, ba};
      const auto& users = mng_.users(ba);
      if (users.size() == 1 && g_->output() != ba) {
        CNode* act = users[0].first;
        if (act->graph() == g_ && !effects.count(act) && act->size() == 2 &&
            (is_op(act, OpId::ReLU) ||
             (is_op(act, OpId::GeLU) && act->prim()->attrs.get_str("approximate") == "tanh"))) {
          const Abstract* y = tensor_of(act);
          if (y != nullptr && y->dtype == tensor_of(ba)->dtype) chain.push_back(act);
        }
      }
      chains.push_back(std::move(chain));
    }
    // Bias gradients: a ReduceSum over axis 0 of a MatMul{ta, !tb} operand.
    std::unordered_map<const Node*, size_t> pos;
    std::vector<CNode*> order = m_.toposort(g_);
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
    std::unordered_set<const Node*> taken;
    for (const auto& chain : chains) taken.insert(chain.begin(), chain.end());
    for (CNode* rs : order) {
      if (!is_op(rs, OpId::ReduceSum) || effects.count(rs) || !sums_rows(rs)) continue;
      Node* dy = rs->input(1);
      for (const auto& [mm, j] : mng_.users(dy)) {
        if (!is_op(mm, OpId::MatMul) || mm->graph() != g_ || effects.count(mm) || taken.count(mm) ||
            mm->input(1) == mm->input(2))
          continue;
        const Attrs& at = mm->prim()->attrs;
        if (!at.get_bool("transpose_a") || at.get_bool("transpose_b") || !grads_fit(mm, rs))
          continue;
        Node* other = mm->input(j == 1 ? 2 : 1);
        if (auto p = pos.find(other); p != pos.end() && p->second >= pos.at(rs)) continue;
        taken.insert(mm);
        chains.push_back({mm, rs});
        break;
      }
    }
    // Users before any edit (an outline changes only the inputs of later members).
    for (const auto& chain : chains)
      for (CNode* c : chain) users_[c] = mng_.users(c);
    for (const std::vector<CNode*>& chain : chains) {
      if (is_op(chain.back(), OpId::ReduceSum)) {
        outline_pair(chain[0], chain[1]);
      } else {
        outline(chain);
      }
    }
    return !chains.empty();
  }

 private:
  bool only_user(CNode* n, const CNode* user) {
    if (g_->output() == n) return false;
    const auto& users = mng_.users(n);
    return users.size() == 1 && users[0].first == user;
  }

  // ReduceSum{axis=(0,) or (-2,), keep_dims=False} of a static 2-D tensor.
  static bool sums_rows(const CNode* rs) {
    const Abstract* x = tensor_of(rs->input(1));
    const Abstract* y = tensor_of(rs);
    if (!x || !y || x->shape.size() != 2 || y->shape.size() != 1) return false;
    const Attrs& at = rs->prim()->attrs;
    const std::vector<int64_t>& axis = at.get_ints("axis");
    return !at.get_bool("keep_dims") && axis.size() == 1 && (axis[0] == 0 || axis[0] == -2) &&
           y->dtype == x->dtype;
  }

  // The weight gradient's operands and result: static 2-D, one floating dtype.
  static bool grads_fit(const CNode* mm, const CNode* rs) {
    const Abstract* a = tensor_of(mm->input(1));
    const Abstract* b = tensor_of(mm->input(2));
    const Abstract* y = tensor_of(mm);
    if (!a || !b || !y || a->shape.size() != 2 || b->shape.size() != 2 || y->shape.size() != 2)
      return false;
    const DType t = y->dtype;
    return epilogue_dtype(t) && a->dtype == t && b->dtype == t && tensor_of(rs)->dtype == t;
  }

  // Static 2-D shapes, one floating dtype, a bias of N elements.
  static bool types_fit(const CNode* mm, const CNode* ba) {
    const Abstract* a = tensor_of(mm->input(1));
    const Abstract* b = tensor_of(mm->input(2));
    const Abstract* y = tensor_of(mm);
    const Abstract* bias = tensor_of(ba->input(2));
    const Abstract* out = tensor_of(ba);
    if (!a || !b || !y || !bias || !out) return false;
    if (a->shape.size() != 2 || b->shape.size() != 2 || y->shape.size() != 2 ||
        bias->shape.size() != 1 || bias->shape[0] != y->shape[1] || out->shape != y->shape)
      return false;
    const DType t = y->dtype;
    return epilogue_dtype(t) && a->dtype == t && b->dtype == t && bias->dtype == t &&
           out->dtype == t;
  }

  // Replaces the chain (MatMul first, its last member the result) by a call of a new epilogue
  // graph.
  void outline(const std::vector<CNode*>& chain) {
    std::unordered_set<const Node*> members(chain.begin(), chain.end());
    std::vector<Node*> inputs;
    for (CNode* c : chain)
      for (size_t j = 1; j < c->size(); ++j) {
        Node* x = c->input(j);
        if (!members.count(x) && std::find(inputs.begin(), inputs.end(), x) == inputs.end())
          inputs.push_back(x);
      }
    std::string name(codegen::kMatmulEpiloguePrefix);
    name += std::to_string(counter_++);
    FuncGraph* k = m_.new_graph(name, g_->span());
    k->no_inline = true;
    std::unordered_map<const Node*, Node*> map;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string pname("x");
      pname += std::to_string(i);
      Parameter* p = m_.add_param(k, pname);
      p->set_abstract(inputs[i]->abstract());
      k->signature().names.push_back(p->name());
      k->signature().defaults.emplace_back();
      map[inputs[i]] = p;
    }
    for (CNode* c : chain) {
      std::vector<Node*> in{c->input(0)};
      for (size_t j = 1; j < c->size(); ++j) in.push_back(map.at(c->input(j)));
      CNode* copy = m_.cnode(k, std::move(in), c->span());
      copy->set_abstract(c->abstract());
      copy->set_name(c->name());
      map[c] = copy;
    }
    CNode* last = chain.back();
    k->set_output(map.at(last));
    Node* callee = m_.value(Value::graph(k), g_->span());
    callee->set_abstract(Abstract::func({FuncCandidate{Value::graph(k), {}, nullptr}}));
    std::vector<Node*> args{callee};
    args.insert(args.end(), inputs.begin(), inputs.end());
    CNode* call = m_.cnode(g_, std::move(args), last->span());
    call->set_abstract(last->abstract());
    for (const auto& [user, j] : users_.at(last)) user->set_input(static_cast<size_t>(j), call);
    if (g_->output() == last) g_->set_output(call);
  }

  // Replaces MatMul `mm` and ReduceSum `rs` (of one of mm's operands) by a call of a new
  // epilogue graph returning (mm, rs), read through getitems.
  void outline_pair(CNode* mm, CNode* rs) {
    std::vector<Node*> inputs{mm->input(1)};
    if (mm->input(2) != mm->input(1)) inputs.push_back(mm->input(2));
    std::string name(codegen::kMatmulEpiloguePrefix);
    name += std::to_string(counter_++);
    FuncGraph* k = m_.new_graph(name, g_->span());
    k->no_inline = true;
    std::unordered_map<const Node*, Node*> map;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string pname("x");
      pname += std::to_string(i);
      Parameter* p = m_.add_param(k, pname);
      p->set_abstract(inputs[i]->abstract());
      k->signature().names.push_back(p->name());
      k->signature().defaults.emplace_back();
      map[inputs[i]] = p;
    }
    std::vector<Node*> outs;
    for (CNode* c : {mm, rs}) {
      std::vector<Node*> in{c->input(0)};
      for (size_t j = 1; j < c->size(); ++j) in.push_back(map.at(c->input(j)));
      CNode* copy = m_.cnode(k, std::move(in), c->span());
      copy->set_abstract(c->abstract());
      copy->set_name(c->name());
      outs.push_back(copy);
    }
    CNode* t = m_.call_builtin(k, Builtin::MakeTuple, outs);
    t->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::MakeTuple)));
    t->set_abstract(Abstract::tuple({mm->abstract(), rs->abstract()}));
    k->set_output(t);
    Node* callee = m_.value(Value::graph(k), g_->span());
    callee->set_abstract(Abstract::func({FuncCandidate{Value::graph(k), {}, nullptr}}));
    std::vector<Node*> args{callee};
    args.insert(args.end(), inputs.begin(), inputs.end());
    CNode* call = m_.cnode(g_, std::move(args), mm->span());
    call->set_abstract(t->abstract());
    int64_t i = 0;
    for (CNode* r : {mm, rs}) {
      Node* idx = m_.value(Value::integer(i));
      idx->set_abstract(Abstract::constant(Value::integer(i)));
      CNode* get = m_.call_builtin(g_, Builtin::GetItem, {call, idx}, r->span());
      get->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::GetItem)));
      get->set_abstract(r->abstract());
      for (const auto& [user, j] : users_.at(r)) user->set_input(static_cast<size_t>(j), get);
      if (g_->output() == r) g_->set_output(get);
      ++i;
    }
  }

  Module& m_;
  Manager& mng_;
  FuncGraph* g_;
  int& counter_;
  std::unordered_map<const CNode*, std::vector<std::pair<CNode*, int>>> users_;
};

}  // namespace

bool matmul_epilogue(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  int counter = 0;
  for (const auto& g : m.graphs()) counter += codegen::is_matmul_epilogue(g.get());
  bool changed = false;
  for (FuncGraph* g : mng->graphs())
    if (!codegen::is_graph_kernel(g)) changed = Matcher(m, *mng, g, counter).run() || changed;
  if (changed) mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
