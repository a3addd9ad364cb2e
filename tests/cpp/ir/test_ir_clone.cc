// clone_graph and inline_call: the copies print like the originals (or like the program
// written out by hand), are independent of them, and keep scoping right.
#include <gtest/gtest.h>

#include "ir/anf.h"
#include "ir/clone.h"
#include "ir/manager.h"
#include "ir_test_util.h"

namespace mycel::ir {
namespace {

using testing::f32;
using testing::op;

const char* kClosureProgram =
    "graph @f(%x: f32[2]) {\n"
    "  %1 = partial(@inner, %x)\n"
    "  %s = Exp(%x) : f32[2]\n"
    "  %2 = %1(%s) : f32[2]\n"
    "  %3 = @top(%2) : f32[2]\n"
    "  return %3\n"
    "}\n"
    "\n"
    "graph @top(%t) {\n"
    "  return %t\n"
    "}\n"
    "\n"
    "graph @inner(%a: f32[2], %b: f32[2]) {\n"
    "  %4 = Mul(%a, %s) : f32[2]\n"
    "  %5 = @deeper()\n"
    "  %6 = Add(%4, %5) : f32[2]\n"
    "  return %6\n"
    "}\n"
    "\n"
    "graph @deeper() {\n"
    "  %7 = Neg(%b) : f32[2]\n"
    "  return %7\n"
    "}\n";

// The graph named `name` reachable from root.
FuncGraph* graph_of(FuncGraph* root, const std::string& name) {
  for (FuncGraph* g : root->module()->reachable_graphs(root))
    if (g->name() == name) return g;
  ADD_FAILURE() << "no graph @" << name;
  return nullptr;
}

FuncGraph* called(Node* n) { return static_cast<CNode*>(n)->called_graph(); }

TEST(IrClone, CopiesNestedClosuresAndSharesTheRest) {
  Module m;
  FuncGraph* f = parse_graph(m, kClosureProgram);
  std::unordered_map<Node*, Node*> map;
  FuncGraph* copy = clone_graph(f, &map);
  ASSERT_NE(copy, f);
  EXPECT_EQ(print_graph(copy), kClosureProgram);
  EXPECT_EQ(print_graph(f), kClosureProgram);
  verify(copy);

  Manager mng(m, f);
  FuncGraph* inner = graph_of(f, "inner");
  FuncGraph* top = graph_of(f, "top");
  FuncGraph* deeper = graph_of(f, "deeper");
  FuncGraph* c_inner = graph_of(copy, "inner");
  FuncGraph* c_top = graph_of(copy, "top");
  FuncGraph* c_deeper = graph_of(copy, "deeper");
  EXPECT_NE(c_inner, inner);                // nested: copied
  EXPECT_NE(c_deeper, deeper);              // nested in inner: copied
  EXPECT_EQ(c_top, top);                    // top-level: shared
  EXPECT_EQ(mng.parent(c_inner), nullptr);  // the manager's root is f: copy unknown
  Manager mc(m, copy);
  EXPECT_EQ(mc.parent(c_inner), copy);
  EXPECT_EQ(mc.parent(c_deeper), c_inner);

  // The map: parameters and CNodes; the copy's closure captures the copy's %s.
  EXPECT_EQ(map.at(f->param(0)), copy->param(0));
  auto* s = static_cast<CNode*>(
      static_cast<CNode*>(static_cast<CNode*>(f->output())->input(1))->input(1));
  EXPECT_EQ(s->name(), "s");
  Node* cs = map.at(s);
  EXPECT_EQ(cs->graph(), copy);
  EXPECT_TRUE(abs_equal(cs->abstract(), f32({2})));
  auto* mul = static_cast<CNode*>(static_cast<CNode*>(c_inner->output())->input(1));
  EXPECT_EQ(mul->input(2), cs);

  // Editing the copy leaves the original alone.
  mul->set_input(0, m.value(Value::prim(op("Sub"), {})));
  EXPECT_EQ(print_graph(f), kClosureProgram);
  EXPECT_NE(print_graph(copy).find("Sub(%a, %s)"), std::string::npos);
}

TEST(IrClone, NestedGraphKeepsOuterFreeVariables) {
  Module m;
  FuncGraph* f = parse_graph(m, kClosureProgram);
  Manager mng(m, f);
  FuncGraph* inner = graph_of(f, "inner");
  FuncGraph* copy = clone_graph(inner);
  Manager mc(m, copy);
  EXPECT_EQ(mc.free_vars(copy), mng.free_vars(inner));  // the original f's %s
  // The copy's deeper is new and captures the copy's %b.
  FuncGraph* c_deeper = graph_of(copy, "deeper");
  EXPECT_NE(c_deeper, graph_of(f, "deeper"));
  EXPECT_EQ(mc.free_vars(c_deeper), std::vector<Node*>{copy->param(1)});
  verify(copy);
}

TEST(IrClone, InlineCall) {
  Module m;
  FuncGraph* main = parse_graph(m,
                                "graph @main(%p: f32[2]) {\n"
                                "  %1 = @callee(%p, 2.0)\n"
                                "  %2 = Neg(%1)\n"
                                "  return %2\n"
                                "}\n"
                                "\n"
                                "graph @callee(%a, %b) {\n"
                                "  %3 = Mul(%a, %a) : f32[2]\n"
                                "  %4 = partial(@cl, %b)\n"
                                "  %5 = %4()\n"
                                "  return %5\n"
                                "}\n"
                                "\n"
                                "graph @cl(%c) {\n"
                                "  %6 = Add(%3, %c)\n"
                                "  return %6\n"
                                "}\n");
  auto* call = static_cast<CNode*>(static_cast<CNode*>(main->output())->input(1));
  FuncGraph* callee = call->called_graph();
  std::string callee_text = print_graph(callee);
  Node* result = inline_call(main, call);
  EXPECT_EQ(result->graph(), main);
  {
    Manager mng(m, main);
    mng.replace(call, result);
  }
  // The same program written out with the body inlined (the Mul only the closure uses is
  // printed after the statements of the output).
  Module expect_m;
  FuncGraph* expected = parse_graph(expect_m,
                                    "graph @main(%p: f32[2]) {\n"
                                    "  %1 = partial(@cl, 2.0)\n"
                                    "  %2 = %1()\n"
                                    "  %3 = Neg(%2)\n"
                                    "  %4 = Mul(%p, %p) : f32[2]\n"
                                    "  return %3\n"
                                    "}\n"
                                    "\n"
                                    "graph @cl(%c) {\n"
                                    "  %5 = Add(%4, %c)\n"
                                    "  return %5\n"
                                    "}\n");
  EXPECT_EQ(print_graph(main), print_graph(expected));
  EXPECT_EQ(print_graph(callee), callee_text);  // the callee is unchanged
  Manager mng(m, main);
  FuncGraph* cl = graph_of(main, "cl");
  EXPECT_NE(cl, graph_of(callee, "cl"));
  EXPECT_EQ(mng.parent(cl), main);
  verify(main);
}

TEST(IrClone, InlineTrivialAndRecursiveCallees) {
  Module m;
  FuncGraph* main = parse_graph(m,
                                "graph @main(%p) {\n"
                                "  %1 = @id(%p)\n"
                                "  %2 = @rec(%1)\n"
                                "  return %2\n"
                                "}\n"
                                "graph @id(%a) { return %a }\n"
                                "graph @rec(%n) {\n"
                                "  %3 = sub(%n, 1)\n"
                                "  %4 = @rec(%3)\n"
                                "  return %4\n"
                                "}\n");
  auto* c2 = static_cast<CNode*>(main->output());
  auto* c1 = static_cast<CNode*>(c2->input(1));
  FuncGraph* rec = c2->called_graph();
  EXPECT_EQ(inline_call(main, c1), main->param(0));  // a parameter result: the argument
  Node* r = inline_call(main, c2);
  // One unrolled step: the copy still calls the original recursive graph.
  ASSERT_TRUE(r->is_cnode());
  EXPECT_EQ(r->graph(), main);
  EXPECT_EQ(called(r), rec);
  auto* sub = static_cast<CNode*>(static_cast<CNode*>(r)->input(1));
  EXPECT_TRUE(sub->is_builtin(Builtin::Sub));
  EXPECT_EQ(sub->input(1), c1);
}

}  // namespace
}  // namespace mycel::ir
