#include "codegen/matmul_epilogue.h"

#include <vector>

#include "base/error.h"
#include "kernels/fused_matmul.h"
#include "runtime/eager.h"

namespace mycel::codegen {

namespace {

using ir::CNode;
using ir::FuncGraph;
using ir::Node;

class MatmulEpilogueKernel final : public vm::FusedKernel {
 public:
  explicit MatmulEpilogueKernel(const FuncGraph* g) : name_(g->name()) {
    const Node* out = g->output();
    MC_ASSERT(out->is_cnode(), "graph kernel @", name_, ": the output is not an op");
    const auto* last = static_cast<const CNode*>(out);
    const CNode* bias_add = last;
    if (last->prim() != nullptr && last->prim()->op->id != OpId::BiasAdd) {
      act_ = *last->prim();
      has_act_ = true;
      MC_ASSERT(last->input(1)->is_cnode(), "graph kernel @", name_, ": bad activation input");
      bias_add = static_cast<const CNode*>(last->input(1));
    }
    MC_ASSERT(bias_add->prim() != nullptr && bias_add->prim()->op->id == OpId::BiasAdd &&
                  bias_add->input(1)->is_cnode(),
              "graph kernel @", name_, ": no BiasAdd of a MatMul");
    const auto* mm = static_cast<const CNode*>(bias_add->input(1));
    MC_ASSERT(mm->prim() != nullptr && mm->prim()->op->id == OpId::MatMul, "graph kernel @", name_,
              ": no MatMul");
    mm_ = *mm->prim();
    bias_add_ = *bias_add->prim();
    a_ = param_index(g, mm->input(1));
    b_ = param_index(g, mm->input(2));
    bias_ = param_index(g, bias_add->input(2));
    ta_ = mm_.attrs.get_bool("transpose_a");
    tb_ = mm_.attrs.get_bool("transpose_b");
    epilogue_ = MatmulEpilogue::Bias;
    if (has_act_) {
      if (act_.op->id == OpId::ReLU) {
        epilogue_ = MatmulEpilogue::ReluBias;
      } else {
        MC_ASSERT(act_.op->id == OpId::GeLU && act_.attrs.get_str("approximate") == "tanh",
                  "graph kernel @", name_, ": the activation is not ReLU or GeLU(tanh)");
        epilogue_ = MatmulEpilogue::GeluBias;
      }
    }
    const ir::AbsPtr& y = out->abstract();
    MC_ASSERT(y && y->is_tensor(), "graph kernel @", name_, ": the result is not a tensor");
    shape_ = y->shape;
    dtype_ = y->dtype;
  }

  ir::Value run(std::span<const ir::Value> args, std::span<const uint8_t>) const override {
    const Tensor& a = args[a_].as_tensor();
    const Tensor& b = args[b_].as_tensor();
    const Tensor& bias = args[bias_].as_tensor();
    // Placed as the ops would place them (host inputs migrate to the context's GPU).
    const std::vector<Tensor> ins{a, b, bias};
    TensorList copies;
    const Device d = place_inputs(ins, copies);
    auto placed = [&](size_t i) -> const Tensor& { return copies.empty() ? ins[i] : copies[i]; };
    if (!d.is_cpu() && a.dtype() == dtype_ && b.dtype() == dtype_ && bias.dtype() == dtype_) {
      if (FusedMatmulFn fn = fused_matmul(d.type)) {
        Tensor y = Tensor::empty(shape_, dtype_, d);
        if (fn(placed(0).contiguous(), placed(1).contiguous(), placed(2).contiguous(), ta_, tb_,
               epilogue_, y))
          return ir::Value::tensor(std::move(y));
      }
    }
    // The ops one by one, as the graph says.
    Tensor m = run_op1(*mm_.op, std::vector<Tensor>{a, b}, mm_.attrs);
    Tensor y = run_op1(*bias_add_.op, std::vector<Tensor>{m, bias}, bias_add_.attrs);
    if (has_act_) y = run_op1(*act_.op, std::vector<Tensor>{y}, act_.attrs);
    return ir::Value::tensor(std::move(y));
  }

 private:
  size_t param_index(const FuncGraph* g, const Node* n) const {
    for (size_t i = 0; i < g->params().size(); ++i)
      if (g->param(i) == n) return i;
    MC_ASSERT(false, "graph kernel @", name_, ": an operand is not a parameter");
    return 0;
  }

  std::string name_;
  ir::PrimData mm_{}, bias_add_{}, act_{};  // the ops (copies of the graph's)
  bool has_act_ = false;                    // act_ is set (not for a bias epilogue)
  size_t a_ = 0, b_ = 0, bias_ = 0;         // argument positions
  bool ta_ = false, tb_ = false;
  MatmulEpilogue epilogue_ = MatmulEpilogue::Bias;
  Shape shape_;
  DType dtype_ = DType::Float32;
};

// The index of parameter `n` of g.
size_t param_of(const FuncGraph* g, const Node* n) {
  for (size_t i = 0; i < g->params().size(); ++i)
    if (g->param(i) == n) return i;
  MC_ASSERT(false, "graph kernel @", g->name(), ": an operand is not a parameter");
  return 0;
}

// make_tuple(MatMul{transpose_a=True, transpose_b=False}(p, q), ReduceSum{axis=(0,)}(p or q)):
// the weight and bias gradients of a Dense layer.
class MatmulBiasGradKernel final : public vm::FusedKernel {
 public:
  explicit MatmulBiasGradKernel(const FuncGraph* g) : name_(g->name()) {
    const auto* t = static_cast<const CNode*>(g->output());
    MC_ASSERT(t->size() == 3 && t->input(1)->is_cnode() && t->input(2)->is_cnode(),
              "graph kernel @", name_, ": not a pair of results");
    const auto* mm = static_cast<const CNode*>(t->input(1));
    const auto* rs = static_cast<const CNode*>(t->input(2));
    MC_ASSERT(mm->prim() != nullptr && mm->prim()->op->id == OpId::MatMul &&
                  rs->prim() != nullptr && rs->prim()->op->id == OpId::ReduceSum,
              "graph kernel @", name_, ": not a MatMul and a ReduceSum");
    mm_ = *mm->prim();
    rs_ = *rs->prim();
    a_ = param_of(g, mm->input(1));
    b_ = param_of(g, mm->input(2));
    const size_t r = param_of(g, rs->input(1));
    MC_ASSERT(r == a_ || r == b_, "graph kernel @", name_, ": the sum is not of an operand");
    epilogue_ = r == a_ ? MatmulEpilogue::BiasGradB : MatmulEpilogue::BiasGradA;
    r_ = r;
    y_shape_ = mm->abstract()->shape;
    db_shape_ = rs->abstract()->shape;
    dtype_ = mm->abstract()->dtype;
  }

  ir::Value run(std::span<const ir::Value> args, std::span<const uint8_t>) const override {
    const Tensor& a = args[a_].as_tensor();
    const Tensor& b = args[b_].as_tensor();
    const std::vector<Tensor> ins{a, b};
    TensorList copies;
    const Device d = place_inputs(ins, copies);
    auto placed = [&](size_t i) -> const Tensor& { return copies.empty() ? ins[i] : copies[i]; };
    if (!d.is_cpu() && a.dtype() == dtype_ && b.dtype() == dtype_) {
      if (FusedMatmulFn fn = fused_matmul(d.type)) {
        Tensor y = Tensor::empty(y_shape_, dtype_, d);
        Tensor db = Tensor::empty(db_shape_, dtype_, d);
        if (fn(placed(0).contiguous(), placed(1).contiguous(), db, true, false, epilogue_, y))
          return ir::Value::tuple(
              {ir::Value::tensor(std::move(y)), ir::Value::tensor(std::move(db))});
      }
    }
    Tensor y = run_op1(*mm_.op, std::vector<Tensor>{a, b}, mm_.attrs);
    Tensor db = run_op1(*rs_.op, std::vector<Tensor>{r_ == a_ ? a : b}, rs_.attrs);
    return ir::Value::tuple({ir::Value::tensor(std::move(y)), ir::Value::tensor(std::move(db))});
  }

 private:
  std::string name_;
  ir::PrimData mm_{}, rs_{};
  size_t a_ = 0, b_ = 0, r_ = 0;  // argument positions: the operands, the summed one
  MatmulEpilogue epilogue_ = MatmulEpilogue::BiasGradA;
  Shape y_shape_, db_shape_;
  DType dtype_ = DType::Float32;
};

}  // namespace

std::shared_ptr<const vm::FusedKernel> matmul_epilogue_kernel(const FuncGraph* g) {
  const Node* out = g->output();
  if (out->is_cnode() && static_cast<const CNode*>(out)->prim() == nullptr)  // make_tuple
    return std::make_shared<MatmulBiasGradKernel>(g);
  return std::make_shared<MatmulEpilogueKernel>(g);
}

}  // namespace mycel::codegen
