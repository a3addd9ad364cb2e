// The grad API's rules (compiler/grad_spec.h) on their own: options, positions, the
// differentiated output, the sensitivity and the result's shape. Both modes' use of them is
// tests/python/test_grad_rules.py.
#include "compiler/grad_spec.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "base/error.h"

namespace mycel::compiler {
namespace {

using ir::Abstract;
using ir::Value;

// The error `f` raises: its kind and message.
std::pair<ErrorKind, std::string> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.kind(), e.message()};
  }
  ADD_FAILURE() << "no error";
  return {ErrorKind::Internal, ""};
}

Value ints(std::vector<int64_t> v) {
  std::vector<Value> items;
  for (int64_t i : v) items.push_back(Value::integer(i));
  return Value::tuple(items);
}

TEST(GradSpec, OptionsOfGrad) {
  Value w = Value::string("a weight");
  GradSpec s = GradSpec::parse(grad_options(true, ints({0, 2}), w, Value::boolean(true)));
  EXPECT_EQ(s.positions.items().size(), 2u);
  EXPECT_TRUE(s.has_weights);
  ASSERT_EQ(s.weights.size(), 1u);  // one weight becomes a tuple of one
  EXPECT_TRUE(s.has_aux);
  EXPECT_TRUE(s.return_value);
  EXPECT_FALSE(s.sens_param);

  auto [k1, m1] = error_of([] { grad_options(false, Value(), Value(), Value::boolean(false)); });
  EXPECT_EQ(k1, ErrorKind::Value);
  EXPECT_EQ(m1, "grad(): 'grad_position' and 'weights' cannot both be None");
  auto [k2, m2] = error_of([] {
    grad_options(true, Value::tuple({Value::integer(0), Value::real(1.5)}), Value(),
                 Value::boolean(false));
  });
  EXPECT_EQ(k2, ErrorKind::Type);
  EXPECT_NE(m2.find("value_and_grad(): 'grad_position' must be None, an int or a tuple of ints"),
            std::string::npos)
      << m2;
  EXPECT_EQ(error_of([] { grad_options(false, Value::boolean(true), Value(), Value()); }).first,
            ErrorKind::Type);  // a bool is not a position
  EXPECT_EQ(
      error_of([] { grad_options(false, Value::integer(0), Value(), Value::integer(1)); }).second,
      "grad(): 'has_aux' must be a bool");
}

TEST(GradSpec, OptionsOfGradOperation) {
  GradSpec all = GradSpec::parse(grad_operation_options(true, false, true, Value()));
  EXPECT_TRUE(all.positions.is(ir::ValueKind::Str));
  EXPECT_TRUE(all.sens_param);
  EXPECT_FALSE(all.has_weights);
  GradSpec by_list =
      GradSpec::parse(grad_operation_options(false, true, false, Value::tuple({Value()})));
  EXPECT_TRUE(by_list.positions.is_none());
  EXPECT_TRUE(by_list.has_weights);
  // GradOperation's default: the first input's gradient, bare; none without inputs (())
  GradSpec first = GradSpec::parse(grad_operation_options(false, false, false, Value()));
  ASSERT_TRUE(first.positions.is(ir::ValueKind::Str));
  EXPECT_EQ(first.positions.as_str(), "first");
  GradCall one = grad_positions(first, 2);
  EXPECT_EQ(one.positions, (std::vector<size_t>{0}));
  EXPECT_TRUE(one.single);
  EXPECT_FALSE(one.all);
  GradCall none = grad_positions(first, 0);
  EXPECT_TRUE(none.positions.empty());
  EXPECT_TRUE(none.single);
  // get_by_list with weights None: no weights (MindSpore returns an empty tuple for them)
  GradSpec no_weights = GradSpec::parse(grad_operation_options(false, true, false, Value()));
  EXPECT_TRUE(no_weights.has_weights);
  EXPECT_TRUE(no_weights.weights.empty());
}

TEST(GradSpec, Positions) {
  GradSpec s =
      GradSpec::parse(grad_options(false, ints({2, 0, 5}), Value(), Value::boolean(false)));
  GradCall c = grad_positions(s, 3);
  EXPECT_EQ(c.n, 3u);
  EXPECT_EQ(c.positions, (std::vector<size_t>{2, 0}));  // 5 is out of range: left out
  EXPECT_FALSE(c.single);
  GradSpec all = GradSpec::parse(grad_operation_options(true, false, true, Value()));
  GradCall a = grad_positions(all, 3);  // the sensitivity is the last argument
  EXPECT_EQ(a.n, 2u);
  EXPECT_EQ(a.positions, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(a.all);
  GradSpec one =
      GradSpec::parse(grad_options(false, Value::integer(1), Value(), Value::boolean(false)));
  EXPECT_TRUE(grad_positions(one, 2).single);
}

TEST(GradSpec, TargetAndSensitivity) {
  auto f32 = Abstract::tensor(DType::Float32, {3});
  auto i64 = Abstract::tensor(DType::Int64, {3});
  GradSpec plain =
      GradSpec::parse(grad_options(false, Value::integer(0), Value(), Value::boolean(false)));
  GradSpec aux =
      GradSpec::parse(grad_options(false, Value::integer(0), Value(), Value::boolean(true)));
  EXPECT_EQ(grad_target(plain, f32), f32);
  EXPECT_EQ(grad_target(aux, Abstract::tuple({f32, i64})), f32);
  auto [k1, m1] = error_of([&] { grad_target(aux, f32); });
  EXPECT_EQ(k1, ErrorKind::Type);
  EXPECT_EQ(m1,
            "grad with has_aux=True needs the function to return a tuple of at least two "
            "outputs, but it returns f32[3]");
  // An integer output is differentiated in its dtype (MindSpore's rule), with or without a
  // sensitivity; a bool output has zero gradients, and a sensitivity given for it (of any
  // abstract) is ignored, as MindSpore's.
  auto b8 = Abstract::tensor(DType::Bool, {3});
  EXPECT_EQ(grad_target(plain, i64), i64);
  EXPECT_EQ(grad_target(plain, b8), b8);
  GradSpec with_sens = GradSpec::parse(grad_operation_options(false, false, true, Value()));
  EXPECT_EQ(grad_target(with_sens, i64), i64);
  EXPECT_EQ(grad_target(with_sens, b8), b8);
  check_grad_sens(b8, Abstract::tensor(DType::Float32, {2}));  // no error: ignored
  check_grad_sens(f32, Abstract::tensor(DType::Float32, {3}));
  EXPECT_EQ(error_of([&] { check_grad_sens(f32, Abstract::tensor(DType::Float32, {2})); }).second,
            "GradOperation: the sensitivity must match the output f32[3], but it is f32[2]");
}

// The result's shape, on strings: "(a,b)" for a tuple.
std::string result(const Value& options, std::vector<std::string> in, std::vector<std::string> w,
                   std::vector<std::string> out_items = {}) {
  GradSpec s = GradSpec::parse(options);
  auto tuple = [](const std::vector<std::string>& xs) {
    std::string r = "(";
    for (size_t i = 0; i < xs.size(); ++i) r += (i ? "," : "") + xs[i];
    return r + ")";
  };
  return grad_result(s, grad_positions(s, in.size()), in, w, std::string("out"), out_items, tuple);
}

TEST(GradSpec, ResultShapes) {
  Value no = Value::boolean(false), yes = Value::boolean(true);
  Value ws = Value::tuple({Value(), Value()});
  EXPECT_EQ(result(grad_options(false, Value::integer(0), Value(), no), {"g0"}, {}), "g0");
  // A tuple of one position gives the gradient bare, as an int (MindSpore's grad).
  EXPECT_EQ(result(grad_options(false, ints({0}), Value(), no), {"g0"}, {}), "g0");
  EXPECT_EQ(result(grad_options(false, ints({0, 1}), Value(), no), {"g0", "g1"}, {}), "(g0,g1)");
  EXPECT_EQ(result(grad_options(false, Value(), ws, no), {}, {"w0", "w1"}), "(w0,w1)");
  EXPECT_EQ(result(grad_options(false, ints({0, 1}), ws, no), {"g0", "g1"}, {"w0", "w1"}),
            "((g0,g1),(w0,w1))");
  EXPECT_EQ(result(grad_options(true, Value::integer(0), Value(), no), {"g0"}, {}), "(out,g0)");
  // has_aux: aux is the tuple out[1:], a 1-tuple for one auxiliary output (MindSpore's
  // `grads, (z,) = grad_fn(x)`).
  EXPECT_EQ(result(grad_options(false, Value::integer(0), Value(), yes), {"g0"}, {}, {"y", "a"}),
            "(g0,(a))");
  EXPECT_EQ(
      result(grad_options(false, Value::integer(0), Value(), yes), {"g0"}, {}, {"y", "a", "b"}),
      "(g0,(a,b))");
  // One Parameter as the weights (not a sequence): its gradient comes bare (MindSpore's rule).
  Value one = Value::string("w");
  EXPECT_EQ(result(grad_options(false, Value(), one, no), {}, {"w0"}), "w0");
  EXPECT_EQ(result(grad_options(false, Value::integer(0), one, no), {"g0"}, {"w0"}), "(g0,w0)");
  EXPECT_EQ(result(grad_operation_options(true, true, false, one), {"g0"}, {"w0"}), "((g0),w0)");
  EXPECT_EQ(result(grad_options(false, Value(), Value::tuple({one}), no), {}, {"w0"}), "(w0)");
}

}  // namespace
}  // namespace mycel::compiler
