// The executor's builtins (Python semantics of scalar operators, containers, conversions,
// print, py_execute, raise) and run-time error messages that name the user's source line.
// Programs are IR text (ir/text.cc) where they need no tensor constants.
#include <cmath>

#include "test_vm_util.h"

namespace mycel::vmtest {
namespace {

using vm::Executable;

Value run_text(const std::string& text, const std::vector<Value>& args,
               vm::RuntimeHost* host = nullptr) {
  ir::Module m;
  FuncGraph* g = ir::parse_graph(m, text);
  return Executable::compile(g)->run(args, host);
}

// One binary builtin on two scalars.
Value binop(const std::string& op, const Value& a, const Value& b) {
  return run_text("graph @main(%a, %b) {\n  %r = " + op + "(%a, %b)\n  return %r\n}\n", {a, b});
}
Value unop(const std::string& op, const Value& a) {
  return run_text("graph @main(%a) {\n  %r = " + op + "(%a)\n  return %r\n}\n", {a});
}

Value I(int64_t v) { return Value::integer(v); }
Value F(double v) { return Value::real(v); }
Value B(bool v) { return Value::boolean(v); }
Value S(const std::string& v) { return Value::string(v); }

void expect_value(const Value& got, const Value& want, const std::string& what) {
  EXPECT_EQ(got.kind(), want.kind()) << what << ": got " << got.to_string();
  EXPECT_EQ(got, want) << what << ": got " << got.to_string() << ", want " << want.to_string();
}

template <class F>
void expect_error(F f, ErrorKind kind, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(VmBuiltins, PythonScalarArithmetic) {
  struct Case {
    const char* op;
    Value a, b, want;
  };
  // Each line is what CPython 3 gives for the same expression.
  const Case cases[] = {
      {"floordiv", I(-7), I(2), I(-4)},
      {"mod", I(-7), I(2), I(1)},
      {"floordiv", I(7), I(-2), I(-4)},
      {"mod", I(7), I(-2), I(-1)},
      {"truediv", I(7), I(2), F(3.5)},
      {"truediv", I(6), I(3), F(2.0)},
      {"floordiv", F(-7.5), I(2), F(-4.0)},
      {"mod", F(-7.5), I(2), F(0.5)},
      {"mod", F(7.5), I(-2), F(-0.5)},
      {"mod", F(-0.0), I(3), F(0.0)},
      {"pow", I(2), I(10), I(1024)},
      {"pow", I(2), I(-1), F(0.5)},
      {"pow", F(2.0), I(3), F(8.0)},
      {"pow", I(-3), I(3), I(-27)},
      {"add", B(true), B(true), I(2)},
      {"mul", B(true), F(2.5), F(2.5)},
      {"sub", I(1), F(0.5), F(0.5)},
      {"add", S("ab"), S("c"), S("abc")},
      {"bitand", B(true), B(false), B(false)},
      {"bitor", B(true), B(false), B(true)},
      {"bitand", I(3), B(true), I(1)},
      {"bitxor", I(6), I(3), I(5)},
      {"lshift", I(1), I(62), I(int64_t{1} << 62)},
      {"rshift", I(-8), I(1), I(-4)},
      {"rshift", I(-8), I(70), I(-1)},
      {"eq", I(1), F(1.0), B(true)},
      {"eq", B(true), I(1), B(true)},
      {"ne", S("a"), S("b"), B(true)},
      {"lt", I(1), F(2.5), B(true)},
      {"ge", S("b"), S("a"), B(true)},
      {"le", F(NAN), F(NAN), B(false)},
      {"gt", I(3), B(true), B(true)},
      {"is", Value(), Value(), B(true)},
      {"is_not", I(1), Value(), B(true)},
  };
  for (const Case& c : cases) {
    expect_value(binop(c.op, c.a, c.b), c.want,
                 std::string(c.op) + "(" + c.a.to_string() + ", " + c.b.to_string() + ")");
  }
  expect_value(unop("neg", B(true)), I(-1), "-True");
  expect_value(unop("pos", B(true)), I(1), "+True");
  expect_value(unop("invert", I(5)), I(-6), "~5");
  expect_value(unop("not", I(0)), B(true), "not 0");
  expect_value(unop("not", S("")), B(true), "not ''");
  expect_value(unop("truth", F(0.0)), B(false), "bool(0.0)");
  expect_value(unop("truth", F(-0.5)), B(true), "bool(-0.5)");
}

// Properties of Python's floor division and modulo, checked against floor() of the exact
// quotient: a == (a // b) * b + a % b, with a % b taking b's sign, for ints and floats.
TEST(VmBuiltins, FloorDivisionModuloIdentity) {
  ir::Module m;
  FuncGraph* g = ir::parse_graph(m, R"(graph @main(%a, %b) {
  %q = floordiv(%a, %b)
  %r = mod(%a, %b)
  %t = make_tuple(%q, %r)
  return %t
})");
  auto exe = Executable::compile(g);
  for (int64_t a = -13; a <= 13; ++a) {
    for (int64_t b = -5; b <= 5; ++b) {
      if (b == 0) continue;
      Value t = exe->run({I(a), I(b)}, nullptr);
      int64_t q = t.items()[0].as_int(), r = t.items()[1].as_int();
      EXPECT_EQ(q, static_cast<int64_t>(std::floor(static_cast<double>(a) / b))) << a << "//" << b;
      EXPECT_EQ(q * b + r, a);
      EXPECT_TRUE(r == 0 || (r < 0) == (b < 0)) << a << "%" << b;
      // The same on floats (quarters are exact).
      double fa = static_cast<double>(a) / 4, fb = static_cast<double>(b);
      Value tf = exe->run({F(fa), F(fb)}, nullptr);
      EXPECT_EQ(tf.items()[0].as_float(), std::floor(fa / fb)) << fa << "//" << fb;
      EXPECT_EQ(tf.items()[0].as_float() * fb + tf.items()[1].as_float(), fa);
      double fr = tf.items()[1].as_float();
      EXPECT_TRUE(fr == 0 || (fr < 0) == (fb < 0)) << fa << "%" << fb;
    }
  }
}

TEST(VmBuiltins, ArithmeticErrorsAsPython) {
  expect_error([] { binop("floordiv", I(1), I(0)); }, ErrorKind::Runtime,
               "ZeroDivisionError: integer division or modulo by zero");
  expect_error([] { binop("truediv", I(1), I(0)); }, ErrorKind::Runtime,
               "ZeroDivisionError: division by zero");
  expect_error([] { binop("mod", F(1), F(0)); }, ErrorKind::Runtime, "float modulo");
  expect_error([] { binop("pow", F(0), I(-1)); }, ErrorKind::Runtime,
               "0.0 cannot be raised to a negative power");
  expect_error([] { binop("add", I(1), S("a")); }, ErrorKind::Type,
               "unsupported operand type(s) for +: 'int' and 'str'");
  expect_error([] { binop("lt", I(1), S("a")); }, ErrorKind::Type,
               "'<' not supported between instances of 'int' and 'str'");
  expect_error([] { binop("add", I(INT64_MAX), I(1)); }, ErrorKind::Overflow, "does not fit");
  expect_error([] { binop("pow", I(3), I(64)); }, ErrorKind::Overflow, "does not fit");
  expect_error([] { binop("lshift", I(1), I(-1)); }, ErrorKind::Value, "negative shift count");
}

TEST(VmBuiltins, CastScalar) {
  auto cast = [](const Value& x, const char* to) {
    return run_text(
        std::string("graph @main(%a) {\n  %r = cast_scalar(%a, \"") + to + "\")\n  return %r\n}\n",
        {x});
  };
  expect_value(cast(F(-2.7), "int"), I(-2), "int(-2.7)");
  expect_value(cast(B(true), "int"), I(1), "int(True)");
  expect_value(cast(S(" 12 "), "int"), I(12), "int(' 12 ')");
  expect_value(cast(I(3), "float"), F(3.0), "float(3)");
  expect_value(cast(S("2.5"), "float"), F(2.5), "float('2.5')");
  expect_value(cast(F(0.0), "bool"), B(false), "bool(0.0)");
  expect_value(cast(S("x"), "bool"), B(true), "bool('x')");
  expect_error([&] { cast(S("x"), "int"); }, ErrorKind::Value,
               "invalid literal for int() with base 10: 'x'");
  expect_error([&] { cast(F(NAN), "int"); }, ErrorKind::Value, "cannot convert float NaN");
  expect_error([&] { cast(F(INFINITY), "int"); }, ErrorKind::Overflow, "float infinity");
}

TEST(VmBuiltins, Containers) {
  Value t = run_text(R"(graph @main(%a, %b) {
  %t = make_tuple(%a, %b, 3)
  %l = make_list(%b, %a)
  %d = make_dict("x", %a, "y", %l)
  %e = getitem(%t, -1)
  %f = getitem(%d, "y")
  %g = getitem(%f, 0)
  %s = make_slice(None, None, -1)
  %h = getitem(%t, %s)
  %i = in(%b, %t)
  %k = setitem(%l, 1, 9)
  %n = len(%d)
  %r = make_tuple(%e, %g, %h, %i, %k, %n)
  return %r
})",
                     {I(1), S("two")});
  EXPECT_EQ(vm::format_value(t), "(3, 'two', (3, 'two', 1), True, ['two', 9], 2)");
  expect_error(
      [] {
        run_text("graph @main(%a) {\n  %r = getitem(%a, 3)\n  return %r\n}",
                 {Value::tuple({I(1)})});
      },
      ErrorKind::Index, "tuple index out of range");
  expect_error(
      [] {
        run_text("graph @main(%a) {\n  %r = getitem(%a, \"z\")\n  return %r\n}",
                 {Value::dict({S("a")}, {I(1)})});
      },
      ErrorKind::Index, "KeyError: 'z'");
}

TEST(VmBuiltins, ScalarTensorConversions) {
  Value r = run_text(R"(graph @main(%a) {
  %t = scalar_to_tensor(%a, f32)
  %s = tensor_to_scalar(%t)
  %u = scalar_to_tensor(%a, i64)
  %v = tensor_to_scalar(%u)
  %r = make_tuple(%t, %s, %v)
  return %r
})",
                     {I(3)});
  const Tensor& t = r.items()[0].as_tensor();
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(t.ndim(), 0);
  expect_value(r.items()[1], F(3.0), "float tensor item");
  expect_value(r.items()[2], I(3), "int tensor item");
  expect_error([] { unop("tensor_to_scalar", Value::tensor(make_tensor({2}, 1))); },
               ErrorKind::Value, "only a tensor with one element");
}

TEST(VmBuiltins, PrintFormatsLikePython) {
  FakeHost host;
  Tensor t = make_tensor({3}, 5);
  Value r = run_text(R"(graph @main(%a, %t) {
  %p = print("x =", %a, 2.5, True, None, %t, (1, "a"), 1e-05, 1e+16, 0.1, 100.0, -0.0)
  return %p
})",
                     {I(3), Value::tensor(t)}, &host);
  EXPECT_TRUE(r.is_none());
  EXPECT_EQ(host.printed,
            "x = 3 2.5 True None " + t.to_string() + " (1, 'a') 1e-05 1e+16 0.1 100.0 -0.0\n");
  // Without a host, print writes to stdout.
  testing::internal::CaptureStdout();
  run_text("graph @main(%a) {\n  %p = print(%a, [1.5, \"q\"])\n  return %p\n}", {I(7)});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "7 [1.5, 'q']\n");
}

// depend(x, effects...): the effects run first, in order; a loop whose body prints keeps its
// tail call (the call under the depend() runs last), so it runs in one frame.
TEST(VmBuiltins, DependOrdersEffectsAndKeepsTailCalls) {
  FakeHost host;
  ir::Module m;
  FuncGraph* g = ir::parse_graph(m, R"(graph @count(%n) {
  %c = gt(%n, 0)
  %s = partial(@step, %n)
  %e = partial(@done, %n)
  %f = switch(%c, %s, %e)
  %r = %f()
  return %r
}
graph @step(%k) {
  %p = print("n =", %k)
  %m = sub(%k, 1)
  %t = @count(%m)
  %d = depend(%t, %p)
  return %d
}
graph @done(%z) {
  %p2 = print("done")
  %q2 = print("twice")
  %d2 = depend(%z, %p2, %q2)
  return %d2
})");
  auto exe = Executable::compile(g);
  expect_value(exe->run({I(3)}, &host), I(0), "count(3)");
  EXPECT_EQ(host.printed, "n = 3\nn = 2\nn = 1\ndone\ntwice\n");
  EXPECT_NE(exe->dump().find("tailcall @count(move r"), std::string::npos) << exe->dump();
  vm::RunStats stats;
  FakeHost quiet;
  run_with_stack(256 << 10, [&] { exe->run({I(100000)}, &quiet, &stats); });
  EXPECT_EQ(stats.max_frames, 1u);
  size_t want = std::string("done\ntwice\n").size();
  for (int n = 1; n <= 100000; ++n) want += 5 + std::to_string(n).size();
  EXPECT_EQ(quiet.printed.size(), want);
  EXPECT_EQ(quiet.printed.substr(0, 20), "n = 100000\nn = 99999");
}

struct FakeObject : ir::HostObject {
  std::string name;
  explicit FakeObject(std::string n) : name(std::move(n)) {}
  std::string repr() const override { return name; }
  size_t hash() const override { return std::hash<std::string>()(name); }
  bool same(const HostObject& o) const override { return this == &o; }
};

TEST(VmBuiltins, PyExecuteCallsTheHost) {
  ir::Module m;
  FuncGraph* g = ir::parse_graph(m, R"(graph @main(%f, %a) {
  %r = py_execute(%f, %a, 2)
  %s = add(%r, 1)
  return %s
})");
  auto exe = Executable::compile(g);
  FakeHost host;
  host.result = I(41);
  Value fn = Value::host(std::make_shared<FakeObject>("<function np_thing>"));
  expect_value(exe->run({fn, S("arg")}, &host), I(42), "py_execute result + 1");
  ASSERT_EQ(host.calls.size(), 1u);
  ASSERT_EQ(host.calls[0].size(), 3u);
  EXPECT_EQ(host.calls[0][0], fn);
  EXPECT_EQ(host.calls[0][1].as_str(), "arg");
  EXPECT_EQ(host.calls[0][2].as_int(), 2);
  expect_error(
      [&] {
        exe->run({fn, S("arg")}, nullptr);
      },
      ErrorKind::Runtime, "calls back into Python");
}

// Run-time errors name the user's source line: the failing node's and the calls below it.
class VmErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = ir::register_source_file("model.py", {
                                                     "def construct(self, x, flag):",
                                                     "    y = self.check(x, flag)",
                                                     "def check(self, x, flag):",
                                                     "    raise ValueError('x must be positive')",
                                                     "    z = ops.gather(x, idx, 0)",
                                                     "    if x:",
                                                 });
  }
  ir::SourceSpan at(int line) const { return {file_, line, 5}; }
  int32_t file_ = -1;
};

TEST_F(VmErrors, RaiseNamesTheLineAndTheCaller) {
  Builder b;
  FuncGraph* main = b.graph("main", {f32({3}), bool_abs()});
  FuncGraph* fail = b.graph("fail", {f32({3})});
  FuncGraph* ok = b.graph("ok", {f32({3})});
  ok->set_output(b.param(ok, 0));
  Node* r = b.builtin(fail, Builtin::Raise,
                      {b.c(Value::host(std::make_shared<FakeObject>("<class 'ValueError'>"))),
                       b.c(S("x must be positive"))},
                      Abstract::any(), at(4));
  fail->set_output(r);
  Node* x = b.param(main, 0);
  Node* sw = b.builtin(main, Builtin::Switch,
                       {b.param(main, 1), b.builtin(main, Builtin::Partial, {b.ref(fail), x}),
                        b.builtin(main, Builtin::Partial, {b.ref(ok), x})});
  Node* y = b.call(main, sw, {}, f32({3}), at(2));
  main->set_output(b.prim(main, OpId::Mul, {y, y}));
  auto exe = Executable::compile(main);
  Tensor xt = make_tensor({3}, 1);
  EXPECT_TRUE(
      bit_equal(exe->run({tv(xt), B(false)}, nullptr).as_tensor(), run_op1(OpId::Mul, {xt, xt})));
  try {
    exe->run({tv(xt), B(true)}, nullptr);
    FAIL() << "expected a ValueError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("x must be positive\n", 0), 0u) << msg;  // the message comes first
    size_t inner =
        msg.find("File \"model.py\", line 4\n    raise ValueError('x must be positive')");
    size_t outer = msg.find("File \"model.py\", line 2\n    y = self.check(x, flag)");
    EXPECT_NE(inner, std::string::npos) << msg;
    EXPECT_NE(outer, std::string::npos) << msg;
    EXPECT_LT(inner, outer) << msg;
  }
  // An exception class the executor does not map keeps its name in the message.
  Builder b2;
  FuncGraph* g2 = b2.graph("main", {});
  g2->set_output(b2.builtin(
      g2, Builtin::Raise,
      {b2.c(Value::host(std::make_shared<FakeObject>("<class 'm.MyError'>"))), b2.c(S("boom"))}));
  expect_error([&] { Executable::compile(g2)->run({}, nullptr); }, ErrorKind::Runtime,
               "MyError: boom");
}

TEST_F(VmErrors, KernelErrorNamesTheLine) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({4, 2}), Abstract::tensor(DType::Int32, {3})});
  Node* ga = b.prim(g, OpId::Gather, {b.param(g, 0), b.param(g, 1)}, {}, at(5));
  g->set_output(ga);
  auto exe = Executable::compile(g);
  Tensor idx = Tensor::zeros({3}, DType::Int32);
  idx.data<int32_t>()[1] = 7;  // out of range
  try {
    exe->run({tv(make_tensor({4, 2}, 1)), tv(idx)}, nullptr);
    FAIL() << "expected an IndexError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index);
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("For 'Gather', the index", 0), 0u) << msg;
    EXPECT_NE(msg.find("File \"model.py\", line 5\n    z = ops.gather(x, idx, 0)\n"),
              std::string::npos)
        << msg;
  }
}

TEST_F(VmErrors, AmbiguousTruthNamesTheLine) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3})});
  g->set_output(b.builtin(g, Builtin::Truth, {b.param(g, 0)}, bool_abs(), at(6)));
  auto exe = Executable::compile(g);
  expect_error([&] { exe->run({tv(make_tensor({3}, 1))}, nullptr); }, ErrorKind::Value,
               "ambiguous (shape [3]); reduce it first, e.g. with .any() or .all().\n"
               "  File \"model.py\", line 6\n    if x:\n");
}

}  // namespace
}  // namespace mycel::vmtest
