// Every case of every family: the optimised kernel against the reference kernel.
#include <gtest/gtest.h>

#include "kernel_cases.h"
#include "ops/op_table.h"
#include "runtime/eager.h"

namespace mycel::test {
namespace {

class KernelVsRef : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelVsRef, MatchesReference) {
  const KernelCase& c = GetParam();
  const OpDef* op = find_op(c.op);
  ASSERT_NE(op, nullptr) << "unknown op " << c.op;
  Attrs attrs = make_attrs(*op, c.attrs);
  // Inputs as the dispatcher would pass them; both kernels run on the same data.
  std::vector<TensorMeta> metas;
  std::vector<Tensor> ins = kernel_inputs(*op, c, &metas);
  MetaList out = infer_op(*op, metas, attrs);
  // In-place ops write their inputs: give each kernel its own copy.
  std::vector<Tensor> ins_ref, orig;
  for (const Tensor& t : ins) ins_ref.push_back((op->flags & F_INPLACE) ? t.clone() : t);
  for (const Tensor& t : ins) orig.push_back((op->flags & F_INPLACE) ? t.clone() : t);
  TensorList got = run_kernel(*op, ins, out, attrs, false);
  TensorList want = run_kernel(*op, ins_ref, out, attrs, true);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    std::string err = compare_tensors(got[i], want[i], c.rtol, c.atol);
    EXPECT_EQ(err, "") << c.op << " " << c.label << " output " << i;
  }
  if (op->flags & F_INPLACE) {
    for (size_t i = 0; i < ins.size(); ++i) {
      std::string err = compare_tensors(ins[i], ins_ref[i], c.rtol, c.atol);
      EXPECT_EQ(err, "") << c.op << " " << c.label << " in-place input " << i;
      // Only the inputs the op declares (OpDef::writes) may change: the compiler orders
      // the readers of those alone before the write.
      if (writes_input(*op, i)) continue;
      EXPECT_EQ(compare_tensors(ins[i], orig[i], 0, 0), "")
          << c.op << " " << c.label << " writes input " << i << ", which its line does not declare";
      EXPECT_EQ(compare_tensors(ins_ref[i], orig[i], 0, 0), "")
          << c.op << " " << c.label << " (reference) writes undeclared input " << i;
    }
  }
}

// An op writes inputs exactly when it is F_INPLACE (OpDef::writes names them).
TEST(OpTable, InPlaceOpsDeclareTheInputsTheyWrite) {
  for (const OpDef& op : op_table())
    EXPECT_EQ((op.flags & F_INPLACE) != 0, op.writes != 0) << op.name;
}

INSTANTIATE_TEST_SUITE_P(All, KernelVsRef, ::testing::ValuesIn(all_kernel_cases()), CaseName());

}  // namespace
}  // namespace mycel::test
