// ops/complex_ops.h, the one list of the ops with complex loops, against what reads it: the
// infer rules take complex for exactly its elementwise rows (with the Out column's dtype),
// and the CPU backend has a loop for every row, for both complex dtypes.
#include <gtest/gtest.h>

#include <string_view>

#include "kernels/cpu/complex.h"
#include "ops/complex_ops.h"
#include "ops/op_semantics.h"

namespace mycel {
namespace {

// The Out column's dtype for input dtype t.
DType out_dtype(std::string_view out, DType t) {
  if (out == "Part") return complex_part_dtype(t);
  if (out == "Bool") return DType::Bool;
  return t;
}

const Shape kShape{2, 3};

TEST(ComplexOpsTable, InferTakesComplexForTheRowsWithTheirOutDtype) {
  for (DType t : {DType::Complex64, DType::Complex128}) {
#define MC_ROW(Op, Loop, Out, Dev)                                               \
  {                                                                              \
    const OpDef& op = op_def(OpId::Op);                                          \
    std::vector<TensorMeta> in(static_cast<size_t>(op.num_inputs), {t, kShape}); \
    MetaList out = infer_op(op, in, Attrs{});                                    \
    ASSERT_EQ(out.size(), 1u) << #Op;                                            \
    EXPECT_EQ(out[0].dtype, out_dtype(#Out, t)) << #Op;                          \
    EXPECT_EQ(out[0].shape, kShape) << #Op;                                      \
  }
    MC_COMPLEX_UNARY_OPS(MC_ROW)
    MC_COMPLEX_BINARY_OPS(MC_ROW)
    MC_COMPLEX_PART_OPS(MC_ROW)
#undef MC_ROW
  }
#define MC_ROW(Op, Loop, Out, Dev) EXPECT_TRUE(complex_elementwise_op(OpId::Op)) << #Op;
  MC_COMPLEX_UNARY_OPS(MC_ROW)
  MC_COMPLEX_BINARY_OPS(MC_ROW)
#undef MC_ROW
  EXPECT_FALSE(complex_elementwise_op(OpId::Real));  // infer_complex_part's own rule
}

TEST(ComplexOpsTable, InferRefusesComplexForOtherElementwiseOps) {
  for (OpId id : {OpId::Floor, OpId::ReLU, OpId::Maximum, OpId::Greater, OpId::FloorDiv}) {
    const OpDef& op = op_def(id);
    EXPECT_FALSE(complex_elementwise_op(id)) << op.name;
    std::vector<TensorMeta> in(static_cast<size_t>(op.num_inputs), {DType::Complex64, kShape});
    try {
      infer_op(op, in, Attrs{});
      ADD_FAILURE() << op.name << " took a complex input";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type) << op.name;
      EXPECT_NE(e.message().find(op.name), std::string::npos) << e.message();
      EXPECT_NE(e.message().find("complex"), std::string::npos) << e.message();
    }
  }
}

TEST(ComplexOpsTable, TheCpuHasALoopForEveryRow) {
  for (DType t : {DType::Complex64, DType::Complex128}) {
#define MC_ROW(Op, Loop, Out, Dev) EXPECT_NE(complex_unary_loop(OpId::Op, t), nullptr) << #Op;
    MC_COMPLEX_UNARY_OPS(MC_ROW)
    MC_COMPLEX_PART_OPS(MC_ROW)
#undef MC_ROW
#define MC_ROW(Op, Loop, Out, Dev) EXPECT_NE(complex_binary_loop(OpId::Op, t), nullptr) << #Op;
    MC_COMPLEX_BINARY_OPS(MC_ROW)
#undef MC_ROW
    EXPECT_EQ(complex_unary_loop(OpId::Floor, t), nullptr);
    EXPECT_EQ(complex_binary_loop(OpId::Maximum, t), nullptr);
  }
}

}  // namespace
}  // namespace mycel
