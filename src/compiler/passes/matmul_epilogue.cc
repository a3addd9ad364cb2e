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
    detail::outline(m_, g_, chain, {chain.back()}, next_name(), users_);
  }

  // Replaces MatMul `mm` and ReduceSum `rs` (of one of mm's operands) by a call of a new
  // epilogue graph returning (mm, rs), read through getitems.
  void outline_pair(CNode* mm, CNode* rs) {
    detail::outline(m_, g_, {mm, rs}, {mm, rs}, next_name(), users_);
  }

  std::string next_name() {
    std::string name(codegen::kMatmulEpiloguePrefix);
    name += std::to_string(counter_++);
    return name;
  }

  Module& m_;
  Manager& mng_;
  FuncGraph* g_;
  int& counter_;
  detail::UserMap users_;
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
