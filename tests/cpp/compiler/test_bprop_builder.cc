// The IrBuilder (compiler/ad/ir_builder.h): promotion casts, multi-output tuples, sum_to,
// and inference errors, checked by running the built graphs on the VM.
#include <gtest/gtest.h>

#include "base/error.h"
#include "compiler/ad/ir_builder.h"
#include "runtime/vm.h"

namespace mycel::ir {
namespace {

Tensor arange(DType dt, Shape s) {
  Tensor t = Tensor::empty(s, DType::Float64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = static_cast<double>(i) - 2;
  return t.cast(dt);
}

Value run(FuncGraph* g, std::vector<Value> args) {
  verify(g, {.specialized = true, .lifted = true});
  return vm::Executable::compile(g)->run(args, nullptr);
}

TEST(BpropBuilder, PromotionInsertsCasts) {
  Module m;
  FuncGraph* g = m.new_graph("f");
  Parameter* a = m.add_param(g, "a");
  a->set_abstract(Abstract::tensor(DType::Int32, {2, 3}));
  Parameter* x = m.add_param(g, "x");
  x->set_abstract(Abstract::tensor(DType::Float64, {3}));
  IrBuilder b(m, g);
  Node* y = b.add(a, x);  // int32 + float64 -> float64, a cast first
  EXPECT_EQ(IrBuilder::dtype_of(y), DType::Float64);
  EXPECT_EQ(IrBuilder::shape_of(y), (Shape{2, 3}));
  auto* call = static_cast<CNode*>(y);
  ASSERT_TRUE(call->input(1)->is_cnode());
  EXPECT_EQ(static_cast<CNode*>(call->input(1))->prim()->op->id, OpId::Cast);
  EXPECT_EQ(call->input(2), x);  // already float64: no cast
  // A constant operand is cast in place.
  Node* z = b.mul(y, b.constant(Tensor::scalar(Scalar::from_int(2), DType::Int64)));
  EXPECT_TRUE(static_cast<CNode*>(z)->input(2)->is_value());
  g->set_output(b.sum_to(z, {3}));
  Tensor av = arange(DType::Int32, {2, 3}), xv = arange(DType::Float64, {3});
  Tensor got = run(g, {Value::tensor(av), Value::tensor(xv)}).as_tensor();
  ASSERT_EQ(got.shape(), (Shape{3}));
  for (int64_t j = 0; j < 3; ++j) {
    double want = 0;
    for (int64_t i = 0; i < 2; ++i)
      want += 2 * (av.element_as_double(i * 3 + j) + xv.element_as_double(j));
    EXPECT_DOUBLE_EQ(got.element_as_double(j), want);
  }
}

TEST(BpropBuilder, MultiOutputTupleAndSumTo) {
  Module m;
  FuncGraph* g = m.new_graph("f");
  Parameter* x = m.add_param(g, "x");
  x->set_abstract(Abstract::tensor(DType::Float64, {2, 1, 4}));
  IrBuilder b(m, g);
  Attrs sa;
  sa.set("axis", int64_t{2});
  sa.set("output_num", int64_t{2});
  Node* parts = b.prim(OpId::Split, {x}, sa);
  ASSERT_EQ(parts->abstract()->kind, AbsKind::Tuple);
  Node* second = b.tuple_get(parts, 1);
  EXPECT_EQ(IrBuilder::shape_of(second), (Shape{2, 1, 2}));
  Node* big = b.broadcast_to(second, {3, 2, 5, 2});
  Node* back = b.sum_to(big, {2, 1, 2});  // sums the new leading axis and the size-1 axis
  EXPECT_EQ(IrBuilder::shape_of(back), (Shape{2, 1, 2}));
  EXPECT_EQ(b.sum_to(second, {2, 1, 2}), second);  // identity when shapes agree
  g->set_output(back);
  Tensor xv = arange(DType::Float64, {2, 1, 4});
  Tensor got = run(g, {Value::tensor(xv)}).as_tensor();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_DOUBLE_EQ(got.element_as_double(i * 2 + j), 15 * xv.element_as_double(i * 4 + 2 + j));
}

TEST(BpropBuilder, InferenceErrorsSurface) {
  Module m;
  FuncGraph* g = m.new_graph("f");
  Parameter* a = m.add_param(g, "a");
  a->set_abstract(Abstract::tensor(DType::Float32, {2, 3}));
  Parameter* c = m.add_param(g, "c");
  c->set_abstract(Abstract::tensor(DType::Float32, {4, 3}));
  IrBuilder b(m, g);
  try {
    b.matmul(a, c);
    FAIL() << "expected a ValueError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(e.message().find("input dimensions must be equal"), std::string::npos) << e.message();
  }
  EXPECT_THROW(b.add(a, c), Error);  // shapes do not broadcast
}

}  // namespace
}  // namespace mycel::ir
