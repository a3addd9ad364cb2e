// The IR text form: print_graph on hand-built graphs (the expected text is the format of
// ir/anf.h written out), parse_graph back (structure and print(parse(t)) == t), errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/anf.h"
#include "ir/manager.h"
#include "ir_test_util.h"

namespace mycel::ir {
namespace {

using testing::error_of;
using testing::f32;
using testing::gval;
using testing::op;

TEST(IrPrinter, StraightLine) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* x = m.add_param(f, "x");
  Parameter* y = m.add_param(f, "y");
  x->set_abstract(f32({3}));
  y->set_abstract(f32({3}));
  CNode* mul = m.call_prim(f, op("Mul"), {}, {x, y});
  mul->set_abstract(f32({3}));
  Attrs a;
  a.set("axis", std::vector<int64_t>{0});
  a.set("keep_dims", false);
  CNode* sum = m.call_prim(f, op("ReduceSum"), a, {mul});
  sum->set_name("s");
  sum->set_abstract(f32({}));
  f->set_output(m.call_builtin(f, Builtin::MakeTuple, {sum, m.value(Value::integer(-2))}));
  EXPECT_EQ(print_graph(f),
            "graph @f(%x: f32[3], %y: f32[3]) {\n"
            "  %1 = Mul(%x, %y) : f32[3]\n"
            "  %s = ReduceSum{axis=(0,), keep_dims=False}(%1) : f32[]\n"
            "  %2 = make_tuple(%s, -2)\n"
            "  return %2\n"
            "}\n");
  EXPECT_EQ(print_graph(f, false),
            "graph @f(%x, %y) {\n"
            "  %1 = Mul(%x, %y)\n"
            "  %s = ReduceSum{axis=(0,), keep_dims=False}(%1)\n"
            "  %2 = make_tuple(%s, -2)\n"
            "  return %2\n"
            "}\n");
}

// if c: return x * x  else: return x   ->  switch(c, @then, @else)()
TEST(IrPrinter, IfWithFreeVariables) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* c = m.add_param(f, "c");
  Parameter* x = m.add_param(f, "x");
  c->set_abstract(Abstract::scalar(ValueKind::Bool));
  FuncGraph* t = m.new_graph("then");
  FuncGraph* e = m.new_graph("else");
  t->set_output(m.call_prim(t, op("Mul"), {}, {x, x}));
  e->set_output(x);
  CNode* sw = m.call_builtin(f, Builtin::Switch, {c, gval(m, t), gval(m, e)});
  f->set_output(m.cnode(f, {sw}));
  EXPECT_EQ(print_graph(f),
            "graph @f(%c: bool, %x) {\n"
            "  %1 = switch(%c, @then, @else)\n"
            "  %2 = %1()\n"
            "  return %2\n"
            "}\n"
            "\n"
            "graph @then() {\n"
            "  %3 = Mul(%x, %x)\n"
            "  return %3\n"
            "}\n"
            "\n"
            "graph @else() {\n"
            "  return %x\n"
            "}\n");
}

// while i < n: i = i + 1  ->  a loop header that tail-calls itself through a switch.
TEST(IrPrinter, LoopRecursionPrintedOnce) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* n = m.add_param(f, "n");
  FuncGraph* loop = m.new_graph("loop");
  Parameter* i = m.add_param(loop, "i");
  FuncGraph* body = m.new_graph("body");
  FuncGraph* exit = m.new_graph("exit");
  f->set_output(m.cnode(f, {gval(m, loop), m.value(Value::integer(0))}));
  CNode* lt = m.call_builtin(loop, Builtin::Lt, {i, n});
  CNode* sw = m.call_builtin(loop, Builtin::Switch, {lt, gval(m, body), gval(m, exit)});
  loop->set_output(m.cnode(loop, {sw}));
  CNode* inc = m.call_builtin(body, Builtin::Add, {i, m.value(Value::integer(1))});
  inc->set_name("i");
  body->set_output(m.cnode(body, {gval(m, loop), inc}));
  exit->set_output(i);
  EXPECT_EQ(print_graph(f),
            "graph @f(%n) {\n"
            "  %1 = @loop(0)\n"
            "  return %1\n"
            "}\n"
            "\n"
            "graph @loop(%i) {\n"
            "  %2 = lt(%i, %n)\n"
            "  %3 = switch(%2, @body, @exit)\n"
            "  %4 = %3()\n"
            "  return %4\n"
            "}\n"
            "\n"
            "graph @body() {\n"
            "  %i.1 = add(%i, 1)\n"
            "  %5 = @loop(%i.1)\n"
            "  return %5\n"
            "}\n"
            "\n"
            "graph @exit() {\n"
            "  return %i\n"
            "}\n");
}

// A node of the outer graph that only the closure uses is still a statement of the outer
// graph; names clash across graphs get suffixes.
TEST(IrPrinter, ClosureOnlyNodesAndUniqueNames) {
  Module m;
  FuncGraph* outer = m.new_graph("f");
  Parameter* x = m.add_param(outer, "x");
  CNode* sq = m.call_prim(outer, op("Mul"), {}, {x, x});
  sq->set_name("sq");
  FuncGraph* inner = m.new_graph("f");
  Parameter* x2 = m.add_param(inner, "x");
  inner->set_output(m.call_prim(inner, op("Add"), {}, {sq, x2}));
  outer->set_output(m.call_builtin(outer, Builtin::Partial, {gval(m, inner), x}));
  EXPECT_EQ(print_graph(outer, false),
            "graph @f(%x) {\n"
            "  %1 = partial(@f.1, %x)\n"
            "  %sq = Mul(%x, %x)\n"
            "  return %1\n"
            "}\n"
            "\n"
            "graph @f.1(%x.1) {\n"
            "  %2 = Add(%sq, %x.1)\n"
            "  return %2\n"
            "}\n");
}

TEST(IrPrinter, ConstantsAndNestedValues) {
  Module m;
  FuncGraph* g = m.new_graph("g");
  FuncGraph* h = m.new_graph("h");
  h->set_output(m.value(Value::none()));
  Value tup = Value::tuple({Value::integer(1), Value::real(2.5), Value::string("a\"b"),
                            Value::boolean(true), Value::none(), Value::dtype(DType::Int64)});
  Value clo = Value::closure(Value::graph(h), {Value::tuple({Value::integer(3)})});
  g->set_output(m.call_builtin(
      g, Builtin::MakeTuple,
      {m.value(tup), m.value(clo), m.value(Value::list({})),
       m.value(Value::slice(Value::integer(1), Value(), Value())), m.value(Value::ellipsis())}));
  EXPECT_EQ(print_graph(g),
            "graph @g() {\n"
            "  %1 = make_tuple((1, 2.5, \"a\\\"b\", True, None, i64), partial(@h, (3,)), [], "
            "slice(1, None, None), ...)\n"
            "  return %1\n"
            "}\n"
            "\n"
            "graph @h() {\n"
            "  return None\n"
            "}\n");
}

// ---------------------------------------------------------------- parsing

TEST(IrText, ParseBuildsTheGraph) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%c: bool, %x: f32[2, 3]) {\n"
                             "  %1 = switch(%c, @then, @else)\n"
                             "  %2 = %1() : f32[2, 3]\n"
                             "  return %2\n"
                             "}\n"
                             "graph @then() {\n"
                             "  %y = Transpose{perm=(1, 0)}(%x) : f32[3, 2]\n"
                             "  %3 = Transpose{perm=(1, 0)}(%y)\n"
                             "  return %3\n"
                             "}\n"
                             "graph @else() { return %x }\n");
  EXPECT_EQ(m.entry(), f);
  EXPECT_EQ(f->name(), "f");
  ASSERT_EQ(f->params().size(), 2u);
  EXPECT_EQ(f->param(1)->name(), "x");
  EXPECT_TRUE(abs_equal(f->param(1)->abstract(), f32({2, 3})));
  auto* call = static_cast<CNode*>(f->output());
  ASSERT_TRUE(call->is_cnode());
  EXPECT_EQ(call->size(), 1u);
  EXPECT_TRUE(abs_equal(call->abstract(), f32({2, 3})));
  auto* sw = static_cast<CNode*>(call->callee());
  EXPECT_TRUE(sw->is_builtin(Builtin::Switch));
  EXPECT_EQ(sw->input(1), f->param(0));
  const Value& tv = static_cast<ValueNode*>(sw->input(2))->value();
  FuncGraph* then = tv.as_graph();
  EXPECT_EQ(then->name(), "then");
  auto* t2 = static_cast<CNode*>(then->output());
  ASSERT_NE(t2->prim(), nullptr);
  EXPECT_EQ(std::string(t2->prim()->op->name), "Transpose");
  EXPECT_EQ(t2->prim()->attrs.get_ints("perm"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(t2->name(), "");  // a number: no name hint
  auto* y = static_cast<CNode*>(t2->input(1));
  EXPECT_EQ(y->name(), "y");
  EXPECT_EQ(y->input(1), f->param(1));  // the free variable
  FuncGraph* els = static_cast<ValueNode*>(sw->input(3))->value().as_graph();
  EXPECT_EQ(els->output(), f->param(1));
  // Constants carry their abstract.
  EXPECT_TRUE(sw->input(0)->abstract() != nullptr);
  Manager mng(m, f);
  EXPECT_EQ(mng.free_vars(then), std::vector<Node*>{f->param(1)});
  EXPECT_EQ(mng.parent(then), f);
  verify(f);
}

TEST(IrText, ForwardReferencesAndConstants) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "# a comment\n"
                             "graph @f() {\n"
                             "  %r = @g(%k)\n"
                             "  %k = make_tuple(-1.5e-3, -inf, \"x\\ny\", (), (1,), [True, False],"
                             " {\"a\": 1}, f16, slice(None, 2, None), ..., partial(@g, 1))\n"
                             "  return %r\n"
                             "}\n"
                             "graph @g(%t) { return %t }\n");
  auto* r = static_cast<CNode*>(f->output());
  FuncGraph* g = r->called_graph();
  ASSERT_NE(g, nullptr);
  auto* k = static_cast<CNode*>(r->input(1));
  ASSERT_TRUE(k->is_cnode());
  auto cv = [&](size_t i) { return static_cast<ValueNode*>(k->input(i))->value(); };
  EXPECT_EQ(cv(1), Value::real(-1.5e-3));
  EXPECT_EQ(cv(2).as_float(), -INFINITY);
  EXPECT_EQ(cv(3), Value::string("x\ny"));
  EXPECT_EQ(cv(4), Value::tuple({}));
  EXPECT_EQ(cv(5), Value::tuple({Value::integer(1)}));
  EXPECT_EQ(cv(6), Value::list({Value::boolean(true), Value::boolean(false)}));
  EXPECT_EQ(cv(7), Value::dict({Value::string("a")}, {Value::integer(1)}));
  EXPECT_EQ(cv(8), Value::dtype(DType::Float16));
  EXPECT_EQ(cv(9), Value::slice(Value(), Value::integer(2), Value()));
  EXPECT_EQ(cv(10), Value::ellipsis());
  EXPECT_EQ(cv(11), Value::closure(Value::graph(g), {Value::integer(1)}));
}

TEST(IrText, RoundTrip) {
  const char* programs[] = {
      // straight line with types and attributes
      "graph @f(%x: f32[2, 3], %y: f32[3]) {\n"
      "  %1 = Mul(%x, %y) : f32[2, 3]\n"
      "  %s = ReduceSum{axis=(0, 1), keep_dims=True}(%1) : f32[1, 1]\n"
      "  %2 = Cast{dtype=f64}(%s) : tuple(f64[1, 1], i64=3, bool, none, str=\"a\")\n"
      "  %3 = make_tuple(%2, 1.5, -7, \"s\", None) : list(dict(\"k\": f64), func, any, const)\n"
      "  return %3\n"
      "}\n",
      // if with a closure over x
      "graph @f(%c: bool, %x: f32[]) {\n"
      "  %1 = switch(%c, @then, @else)\n"
      "  %2 = %1() : f32[]\n"
      "  return %2\n"
      "}\n"
      "\n"
      "graph @then() {\n"
      "  %3 = Mul(%x, %x) : f32[]\n"
      "  return %3\n"
      "}\n"
      "\n"
      "graph @else() {\n"
      "  return %x\n"
      "}\n",
      // a loop, names with suffixes, three levels of nesting
      "graph @f(%n: i64) {\n"
      "  %1 = @loop(0, %n)\n"
      "  return %1\n"
      "}\n"
      "\n"
      "graph @loop(%i: i64, %n.1: i64) {\n"
      "  %2 = lt(%i, %n.1) : bool\n"
      "  %3 = switch(%2, @body, @exit)\n"
      "  %4 = %3()\n"
      "  return %4\n"
      "}\n"
      "\n"
      "graph @body() {\n"
      "  %i.1 = add(%i, 1) : i64\n"
      "  %5 = partial(@inner, %i.1)\n"
      "  %6 = %5()\n"
      "  %7 = @loop(%6, %n.1)\n"
      "  return %7\n"
      "}\n"
      "\n"
      "graph @exit() {\n"
      "  return %i\n"
      "}\n"
      "\n"
      "graph @inner(%a) {\n"
      "  %8 = add(%a, %n)\n"
      "  return %8\n"
      "}\n",
      // a called closure constant, an output that is a constant, dtypes and tuples
      "graph @f() {\n"
      "  %1 = partial(@g, (1,), f32)(2)\n"
      "  %2 = make_tuple(%1, @g, ((), [1, [2]]))\n"
      "  return %2\n"
      "}\n"
      "\n"
      "graph @g(%a, %b, %c) {\n"
      "  return 0.5\n"
      "}\n",
  };
  for (const char* text : programs) {
    Module m;
    FuncGraph* f = parse_graph(m, text);
    EXPECT_EQ(print_graph(f), text);
    verify(f);
  }
}

TEST(IrText, PrintedHandBuiltGraphsParseBack) {
  // A graph built by hand, printed, parsed and printed again gives the same text.
  Module m;
  FuncGraph* outer = m.new_graph("outer");
  Parameter* x = m.add_param(outer, "x");
  x->set_abstract(f32({4}));
  CNode* e = m.call_prim(outer, op("Exp"), {}, {x});
  e->set_abstract(f32({4}));
  FuncGraph* mid = m.new_graph("mid");
  FuncGraph* in = m.new_graph("in");
  in->set_output(m.call_prim(in, op("Add"), {}, {e, x}));
  mid->set_output(m.cnode(mid, {gval(m, in)}));
  outer->set_output(m.cnode(outer, {gval(m, mid)}));
  std::string text = print_graph(outer);
  Module m2;
  EXPECT_EQ(print_graph(parse_graph(m2, text)), text);
}

TEST(IrText, Errors) {
  auto err = [](const std::string& text) {
    return error_of([&] {
      Module m;
      parse_graph(m, text);
    });
  };
  EXPECT_EQ(err("graph @f() {\n  return %z\n}\n"), "parse_graph: 2:10: %z is not defined");
  EXPECT_EQ(err("graph @f() {\n  %1 = Nope(1)\n  return %1\n}"),
            "parse_graph: 2:8: unknown name 'Nope' (not a constant, builtin or primitive)");
  EXPECT_EQ(err("graph @f() {\n  %1 = @g()\n  return %1\n}"),
            "parse_graph: 2:8: graph @g is not defined");
  EXPECT_EQ(err("graph @f(%a, %a) { return %a }"), "parse_graph: 1:14: %a is defined twice");
  EXPECT_EQ(err("graph @f() { return 1 }\ngraph @f() { return 2 }"),
            "parse_graph: 2:7: graph @f is defined twice");
  EXPECT_EQ(err("graph @f(%x) { %1 = Transpose{prem=(1, 0)}(%x) return %1 }"),
            "parse_graph: 1:31: Transpose has no attribute 'prem'");
  EXPECT_EQ(err("graph @f(%x) { %1 = Transpose{perm=1}(%x) return %1 }"),
            "parse_graph: 1:36: attribute 'perm' takes tuple of int, found 1");
  EXPECT_EQ(err("graph @f(%x { return %x }"), "parse_graph: 1:13: expected ')', found '{'");
  EXPECT_EQ(err("graph @f(%x: f32) { return %x }"), "parse_graph: 1:14: unknown type 'f32'");
  EXPECT_EQ(err("graph @f(%x: i64=2.5) { return %x }"),
            "parse_graph: 1:18: a i64 constant expected, found 2.5");
  EXPECT_EQ(err("graph @f() { return \"abc }"), "parse_graph: 1:21: unterminated string");
  EXPECT_EQ(err("graph @f() { return $ }"), "parse_graph: 1:21: unexpected character '$'");
  EXPECT_EQ(err("graph @f() { return (1) }"),
            "parse_graph: 1:21: a one-element tuple is written '(x,)'");
  EXPECT_EQ(err(""), "parse_graph: 1:1: expected 'graph'");
  EXPECT_EQ(err("graph @f() {\n  %1 = add(1, 2)\n"),
            "parse_graph: 3:1: expected a statement or 'return', found the end of the text");
  EXPECT_EQ(err("graph @f() { return tensor }"),
            "parse_graph: 1:21: tensor constants cannot be read from text");
  EXPECT_EQ(err("graph @f() { return 99999999999999999999 }"),
            "parse_graph: 1:21: integer 99999999999999999999 out of range");
}

}  // namespace
}  // namespace mycel::ir
