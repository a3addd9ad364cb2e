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
// member only. The elementwise and reduction clusters of the graph_kernel pass are not formed
// for a device: their generated kernels run on the CPU only.
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
    for (const std::vector<CNode*>& chain : chains) outline(chain);
    return !chains.empty();
  }

 private:
  bool only_user(CNode* n, const CNode* user) {
    if (g_->output() == n) return false;
    const auto& users = mng_.users(n);
    return users.size() == 1 && users[0].first == user;
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
    std::vector<std::pair<CNode*, int>> users = mng_.users(last);  // a copy: edits change it
    for (const auto& [user, j] : users) user->set_input(static_cast<size_t>(j), call);
    if (g_->output() == last) g_->set_output(call);
  }

  Module& m_;
  Manager& mng_;
  FuncGraph* g_;
  int& counter_;
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
