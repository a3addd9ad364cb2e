// fold: before/after IR text; scalar folding against Python's results.
#include "pass_test_util.h"
#include "runtime/eager.h"

namespace mycel::passtest {
namespace {

using compiler::fold;
using ir::Value;
using ir::ValueKind;

// The constant the root graph returns.
const Value& returned_const(const PassCase& c) {
  EXPECT_TRUE(c.root->output()->is_value()) << c.text();
  return static_cast<ir::ValueNode*>(c.root->output())->value();
}

TEST(PassFold, PrimOnConstantTensorsRunsAtCompileTime) {
  Tensor a = tensor_f32({2}, {1, 2}), b = tensor_f32({2}, {3, 4});
  PassCase c(R"(
    graph @f(%a: f32[2], %b: f32[2]) {
      %s = Add(%a, %b) : f32[2]
      %n = Neg(%s) : f32[2]
      return %n
    }
  )",
             {{"a", a}, {"b", b}});
  EXPECT_TRUE(c.run(fold));
  // The whole chain folds in one run; the oracle is the eager dispatcher.
  Tensor want = run_op1(OpId::Neg, {run_op1(OpId::Add, {a, b})});
  const Value& v = returned_const(c);
  ASSERT_TRUE(v.is(ValueKind::Tensor));
  ASSERT_EQ(v.as_tensor().shape(), want.shape());
  for (int64_t i = 0; i < 2; ++i)
    EXPECT_EQ(v.as_tensor().element_as_double(i), want.element_as_double(i));
  EXPECT_EQ(c.text(), "graph @f() {\n  return tensor<f32[2]>([-4. -6.])\n}\n");
  EXPECT_FALSE(c.run(fold));
}

TEST(PassFold, MultiOutputPrimFoldsToTupleAndGetitemTakesElement) {
  PassCase c(R"(
    graph @f(%a: f32[4]) {
      %s = Split{axis=0, output_num=2}(%a) : tuple(f32[2], f32[2])
      %e = getitem(%s, 1) : f32[2]
      return %e
    }
  )",
             {{"a", tensor_f32({4}, {1, 2, 3, 4})}});
  EXPECT_TRUE(c.run(fold));
  EXPECT_EQ(c.text(), "graph @f() {\n  return tensor<f32[2]>([3. 4.])\n}\n");
}

// The K transform's rule of cot_pad reads the length of tuples of cotangents at run time
// (len is left in specialised IR there); once the tuple's structure folds, so does len.
TEST(PassFold, LenOfATupleFolds) {
  expect_rewrite(fold, R"(
    graph @f(%x: f32[2], %y: f32[2]) {
      %t = make_tuple(%x, %y) : tuple(f32[2], f32[2])
      %n = len(%t) : i64
      %k = len((1, 2, 3)) : i64
      %m = sub(%n, %k) : i64
      return %m
    }
  )",
                 R"(
    graph @f(%x: f32[2], %y: f32[2]) {
      return -1
    }
  )");
}

TEST(PassFold, ATensorAnUpdateWritesStaysComputed) {
  // `z = -c; ops.assign_add(z, x); return z`: folded, z would be one constant buffer that
  // every run writes (the second run returned x + x); computed, each run makes a fresh one.
  PassCase c(R"(
    graph @f(%x: f32[2], %c: f32[2]) {
      %z = Neg(%c) : f32[2]
      %u = AssignAdd(%z, %x) : f32[2]
      return %u
    }
  )",
             {{"c", tensor_f32({2}, {1, 2})}});
  EXPECT_FALSE(c.run(fold)) << c.text();
}

TEST(PassFold, AnUpdateOfATupleElementWritesThatElement) {
  // An optimizer reads its parameters as getitem(make_tuple(w, ...), i): the update writes w,
  // so the getitem folds to w (the parallel optimizer shard finds the weight an update
  // writes there), and a tensor written through a tuple element stays computed.
  PassCase c(R"(
    graph @f(%w: f32[2], %g: f32[2], %c: f32[2]) {
      %z = Neg(%c) : f32[2]
      %t = make_tuple(%w, %g, %z) : tuple(f32[2], f32[2], f32[2])
      %p = getitem(%t, 0) : f32[2]
      %e = getitem(%t, 2) : f32[2]
      %u = AssignAdd(%p, %g) : f32[2]
      %v = AssignAdd(%e, %u) : f32[2]
      return %v
    }
  )",
             {{"c", tensor_f32({2}, {1, 2})}});
  EXPECT_TRUE(c.run(fold)) << c.text();
  const std::string t = c.text();
  EXPECT_NE(t.find("AssignAdd(%w, %g)"), std::string::npos) << t;
  EXPECT_NE(t.find("Neg(tensor<f32[2]>"), std::string::npos) << t;
  EXPECT_EQ(t.find("getitem"), std::string::npos) << t;
}

TEST(PassFold, ParameterInputIsNotFolded) {
  PassCase c(R"(
    graph @f(%x: f32[2], %a: f32[2]) {
      %s = Add(%x, %a) : f32[2]
      return %s
    }
  )",
             {{"a", tensor_f32({2}, {1, 2})}});
  std::string before = c.text();
  EXPECT_FALSE(c.run(fold));
  EXPECT_EQ(c.text(), before);
}

TEST(PassFold, RandomOpsAndLargeTensorsAreNotFolded) {
  expect_unchanged(fold, R"(
    graph @f() {
      %r = StandardNormal{shape=(2,), seed=0, seed2=0, dtype=f32}() : f32[2]
      return %r
    }
  )");
  PassCase big(R"(
    graph @f(%a: f32[70000]) {
      %n = Neg(%a) : f32[70000]
      return %n
    }
  )",
               {{"a", tensor_of(DType::Float32, {70000}, 1.0)}});
  EXPECT_FALSE(big.run(fold));
  // Small inputs, large output: not folded either.
  PassCase wide(R"(
    graph @f(%a: f32[1]) {
      %b = BroadcastTo{shape=(300, 300)}(%a) : f32[300, 300]
      return %b
    }
  )",
                {{"a", tensor_of(DType::Float32, {1}, 2.0)}});
  EXPECT_FALSE(wide.run(fold));
}

TEST(PassFold, KernelErrorIsLeftToRunTime) {
  // Gather with an index out of range: an IndexError when run; folding leaves it.
  PassCase c(R"(
    graph @f(%p: f32[3], %i: i64[1]) {
      %g = Gather{axis=0, batch_dims=0}(%p, %i) : f32[1]
      return %g
    }
  )",
             {{"p", tensor_f32({3}, {1, 2, 3})}, {"i", tensor_of(DType::Int64, {1}, 5)}});
  EXPECT_FALSE(c.run(fold));
  EXPECT_TRUE(c.root->output()->is_cnode());
}

TEST(PassFold, GetitemOfMakeTupleAndConstants) {
  expect_rewrite(fold, R"(
    graph @f(%x: f32[2], %y: i64) {
      %t = make_tuple(%x, %y) : tuple(f32[2], i64)
      %a = getitem(%t, 0) : f32[2]
      %b = getitem(%t, -1) : i64
      %c = getitem((1, 2.5), 1) : f64
      %d = make_dict("k", %y) : dict("k": i64)
      %e = getitem(%d, "k") : i64
      %r = make_tuple(%a, %b, %c, %e) : tuple(f32[2], i64, f64, i64)
      return %r
    }
  )",
                 R"(
    graph @f(%x: f32[2], %y: i64) {
      %r = make_tuple(%x, %y, 2.5, %y) : tuple(f32[2], i64, f64, i64)
      return %r
    }
  )");
  // An index out of range is a run-time IndexError: left alone.
  expect_unchanged(fold, R"(
    graph @f(%x: f32[2]) {
      %t = make_tuple(%x) : tuple(f32[2])
      %a = getitem(%t, 1) : f32[2]
      return %a
    }
  )");
}

// One scalar builtin on constants: the folded value's text, or "" when not folded.
std::string fold_scalar(const std::string& op, const std::string& args) {
  PassCase c("graph @f() {\n  %r = " + op + "(" + args + ") : any\n  return %r\n}\n");
  c.run(fold);
  if (!c.root->output()->is_value()) return "";
  return returned_const(c).to_string();
}

TEST(PassFold, ScalarBuiltinsFollowPython) {
  // Expected values are what CPython prints for the same expression.
  struct Case {
    const char* op;
    const char* args;
    const char* want;
  } cases[] = {
      {"add", "2, 3", "5"},
      {"add", "True, True", "2"},
      {"add", "1, 0.5", "1.5"},
      {"add", "\"ab\", \"c\"", "\"abc\""},
      {"sub", "2, 5", "-3"},
      {"mul", "3, 4", "12"},
      {"truediv", "1, 4", "0.25"},
      {"floordiv", "-7, 2", "-4"},
      {"mod", "-7, 2", "1"},
      {"mod", "7.5, -2", "-0.5"},
      {"floordiv", "7.5, -2", "-4.0"},
      {"floordiv", "5, -0.5", "-10.0"},
      {"pow", "2, 10", "1024"},
      {"pow", "2, -1", "0.5"},
      {"neg", "5", "-5"},
      {"pos", "True", "1"},
      {"invert", "5", "-6"},
      {"not", "0", "True"},
      {"truth", "\"\"", "False"},
      {"lt", "1, 2.5", "True"},
      {"ge", "2, 2", "True"},
      {"eq", "1, 1.0", "True"},
      {"ne", "\"a\", 1", "True"},
      {"is", "None, None", "True"},
      {"is_not", "True, None", "True"},
      {"in", "2, (1, 2, 3)", "True"},
      {"not_in", "2.0, (1, 2)", "False"},
      {"bitand", "6, 3", "2"},
      {"bitor", "True, False", "True"},
      {"bitxor", "6, 3", "5"},
      {"lshift", "1, 62", "4611686018427387904"},
      {"rshift", "-9, 1", "-5"},
      {"cast_scalar", "2.7, \"int\"", "2"},
      {"cast_scalar", "-2.7, \"int\"", "-2"},
      {"cast_scalar", "3, \"float\"", "3.0"},
      {"cast_scalar", "0.0, \"bool\"", "False"},
  };
  for (const Case& k : cases)
    EXPECT_EQ(fold_scalar(k.op, k.args), k.want) << k.op << "(" << k.args << ")";
}

TEST(PassFold, ScalarErrorsAreLeftToRunTime) {
  // Python raises (ZeroDivisionError, OverflowError...) or int64 would overflow: no fold.
  const char* cases[][2] = {
      {"truediv", "1, 0"},
      {"floordiv", "1, 0"},
      {"mod", "1.5, 0.0"},
      {"pow", "0, -1"},
      {"pow", "3, 40"},
      {"pow", "-8.0, 0.5"},
      {"mul", "4611686018427387904, 4"},
      {"lshift", "1, 64"},
      {"lshift", "1, -1"},
      {"bitand", "1.5, 1"},
      {"lt", "1, \"a\""},
      {"is", "1, 1"},
      {"cast_scalar", "inf, \"int\""},
  };
  for (auto& k : cases) EXPECT_EQ(fold_scalar(k[0], k[1]), "") << k[0] << "(" << k[1] << ")";
}

TEST(PassFold, ScalarTensorConversions) {
  PassCase c(R"(
    graph @f() {
      %t = scalar_to_tensor(3, f32) : f32[]
      %n = Neg(%t) : f32[]
      %s = tensor_to_scalar(%n) : f64
      return %s
    }
  )");
  EXPECT_TRUE(c.run(fold));
  EXPECT_EQ(c.text(), "graph @f() {\n  return -3.0\n}\n");
}

}  // namespace
}  // namespace mycel::passtest
