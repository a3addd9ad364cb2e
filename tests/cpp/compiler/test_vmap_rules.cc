// The batching rules (compiler/vmap/batch.h): every op's line names a rule or says why it has
// none, and every rule, run on a batch, equals the op run on each example and stacked. The
// cases are the backward rules' finite-difference cases (test_bprop_*.cc), which cover every
// differentiable op; each runs with three batchings of its inputs: all batched (integer
// inputs too, each example's the same values), only the first, only the last.
#include <gtest/gtest.h>

#include "compiler/vmap/batch.h"
#include "test_bprop_util.h"

namespace mycel::bproptest {
namespace {

constexpr int64_t kB = 3;

TEST(Vmap, EveryOpHasABatchingRuleOrAReason) {
  for (const OpDef& op : op_table()) {
    const bool rule = ir::batch_rule(op.id) != nullptr;
    const char* why = ir::no_batch_reason(op.id);
    EXPECT_TRUE(rule || why) << op.name << " has no batching rule: name one in its .def line "
                             << "(VMAP(rule)) or say why it has none (NOVMAP(\"reason\"))";
    EXPECT_FALSE(rule && why) << op.name << " names a rule and a reason";
  }
}

TEST(Vmap, EveryDifferentiableOpHasABatchingRule) {
  for (const OpDef& op : op_table()) {
    if (op.grad != Grad::DIFF) continue;
    // Collectives are the one family left out, each with its reason (NOVMAP_COLLECTIVE).
    if (op.flags & F_COLLECTIVE) continue;
    EXPECT_NE(ir::batch_rule(op.id), nullptr) << op.name << " is differentiable but has no "
                                              << "batching rule";
  }
}

enum class Which { All, First, Last };

std::vector<Case> all_cases() {
  std::vector<Case> r;
  for (auto* f : {elementwise_cases, reduce_cases, linalg_cases, nn_cases, array_cases})
    for (Case& c : f()) r.push_back(std::move(c));
  return r;
}

Tensor stacked(const std::vector<Tensor>& xs) {
  Attrs a;
  a.set("axis", int64_t{0});
  return run_op(op_def(OpId::Stack), xs, make_attrs(op_def(OpId::Stack), a))[0];
}

void check_batched(const Case& c, Which which) {
  const OpDef& op = op_def(c.op);
  const Attrs attrs = make_attrs(op, c.attrs);
  std::mt19937_64 rng(0xba7c + c.name.size());
  // Which inputs carry the batch.
  std::vector<bool> batched(c.in.size(), false);
  std::vector<size_t> floats;
  for (size_t i = 0; i < c.in.size(); ++i)
    if (!c.in[i].fixed) floats.push_back(i);
  if (floats.empty()) return;
  if (which == Which::All) batched.assign(c.in.size(), true);
  if (which == Which::First) batched[floats.front()] = true;
  if (which == Which::Last) batched[floats.back()] = true;
  // Each example's inputs, and the batched ones stacked.
  std::vector<std::vector<Tensor>> ex(kB);
  std::vector<Tensor> full;
  for (size_t i = 0; i < c.in.size(); ++i) {
    std::vector<Tensor> per;
    for (int64_t k = 0; k < kB; ++k) {
      if (c.in[i].fixed) {
        per.push_back(*c.in[i].fixed);
        continue;
      }
      Tensor t = Tensor::empty(c.in[i].shape, DType::Float64);
      std::uniform_real_distribution<double> u(c.in[i].lo, c.in[i].hi);
      for (int64_t j = 0; j < t.numel(); ++j) t.data<double>()[j] = u(rng);
      per.push_back(batched[i] || k == 0 ? t : per[0]);
    }
    for (int64_t k = 0; k < kB; ++k) ex[k].push_back(per[k]);
    full.push_back(batched[i] ? stacked(per) : per[0]);
  }
  // The rule on the batch, as a graph run by the executor.
  ir::Module m;
  ir::FuncGraph* g = m.new_graph("vmap_" + c.name);
  m.set_entry(g);
  IrBuilder b(m, g);
  std::vector<Node*> ins;
  std::vector<Value> args;
  for (size_t i = 0; i < full.size(); ++i) {
    ir::Parameter* p = m.add_param(g, std::string(1, static_cast<char>('a' + i)));
    p->set_abstract(Abstract::tensor(full[i].dtype(), full[i].shape()));
    ins.push_back(p);
    args.push_back(Value::tensor(full[i]));
  }
  ir::BatchFn rule = ir::batch_rule(c.op);
  ASSERT_NE(rule, nullptr) << op.name;
  ir::BatchArgs ba{b, op, ins, batched, kB, attrs};
  if (c.op == OpId::BatchNorm && attrs.get_bool("is_training")) {
    EXPECT_THROW(rule(ba), Error) << "training-mode BatchNorm writes shared statistics";
    return;
  }
  if ((c.op == OpId::Assign || c.op == OpId::AssignAdd) && !batched[0]) {
    // Only the value batched: every example would write the one shared variable
    // (compiler/vmap/batch_optim.cc), a Value error naming the op.
    try {
      rule(ba);
      ADD_FAILURE() << op.name << ": no error for an unbatched variable";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value) << e.message();
      EXPECT_NE(e.message().find(op.name), std::string::npos) << e.message();
    }
    return;
  }
  Node* out = rule(ba);
  g->set_output(out);
  ir::verify(g, {.specialized = true, .lifted = true});
  Value res = vm::Executable::compile(g)->run(args, nullptr);
  // Per example, stacked.
  std::vector<TensorList> outs;
  for (int64_t k = 0; k < kB; ++k) outs.push_back(run_fwd(op, ex[k], attrs));
  for (size_t j = 0; j < outs[0].size(); ++j) {
    std::vector<Tensor> col;
    for (int64_t k = 0; k < kB; ++k) col.push_back(outs[k][j]);
    Tensor want = stacked(col);
    Tensor got =
        outs[0].size() == 1 && op.num_outputs == 1 ? res.as_tensor() : res.items()[j].as_tensor();
    ASSERT_EQ(got.shape(), want.shape()) << c.name << " output " << j;
    ASSERT_EQ(got.dtype(), want.dtype()) << c.name << " output " << j;
    // A complex output (Complex) is compared as its parts, [.., 2] in float64.
    const bool cx = is_complex(want.dtype());
    const Tensor g = cx ? got.cast(DType::Complex128).contiguous() : got;
    const Tensor w = cx ? want.cast(DType::Complex128).contiguous() : want;
    const int64_t n = cx ? 2 * want.numel() : want.numel();
    auto at = [cx](const Tensor& t, int64_t e) {
      return cx ? reinterpret_cast<const double*>(t.data<complex128>())[e] : t.element_as_double(e);
    };
    for (int64_t e = 0; e < n; ++e)
      ASSERT_NEAR(at(g, e), at(w, e), 1e-9 * std::max(1.0, std::fabs(at(w, e))))
          << c.name << " output " << j << " element " << e;
  }
}

class VmapRules : public testing::TestWithParam<Case> {};
TEST_P(VmapRules, AllBatchedEqualsALoop) { check_batched(GetParam(), Which::All); }
TEST_P(VmapRules, FirstBatchedEqualsALoop) { check_batched(GetParam(), Which::First); }
TEST_P(VmapRules, LastBatchedEqualsALoop) { check_batched(GetParam(), Which::Last); }
INSTANTIATE_TEST_SUITE_P(Vmap, VmapRules, testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace mycel::bproptest
