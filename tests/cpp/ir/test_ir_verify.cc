// The verifier: valid programs pass; each broken invariant is caught with a message that
// names the graph, the node and the rule.
#include <gtest/gtest.h>

#include "ir/anf.h"
#include "ir_test_util.h"

namespace mycel::ir {
namespace {

using testing::error_of;
using testing::f32;
using testing::gval;
using testing::op;

std::string verify_error(FuncGraph* g, VerifyOptions opts = {}) {
  return error_of([&] { verify(g, opts); });
}

#define EXPECT_VERIFY_ERROR(g, opts, text)                      \
  do {                                                          \
    std::string msg_ = verify_error(g, opts);                   \
    EXPECT_EQ(msg_.rfind("IR verify failed: ", 0), 0u) << msg_; \
    EXPECT_NE(msg_.find(text), std::string::npos) << msg_;      \
  } while (0)

TEST(IrVerify, ValidProgramsPass) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%c: bool, %x: f32[2]) {\n"
                             "  %1 = switch(%c, @then, @else) : func\n"
                             "  %2 = %1() : f32[2]\n"
                             "  %3 = Transpose{perm=(0,)}(%2) : f32[2]\n"
                             "  return %3\n"
                             "}\n"
                             "graph @then() {\n"
                             "  %4 = Mul(%x, %x) : f32[2]\n"
                             "  return %4\n"
                             "}\n"
                             "graph @else() { return %x }\n");
  verify(f);
  verify(f, {.specialized = true});
  EXPECT_VERIFY_ERROR(f, {.lifted = true}, "free variable %x of graph @f after lambda lifting");
  // Lifted: captured values passed through partial.
  Module m2;
  FuncGraph* g = parse_graph(m2,
                             "graph @g(%x: f32[2]) {\n"
                             "  %1 = partial(@k, %x) : func\n"
                             "  %2 = %1() : f32[2]\n"
                             "  return %2\n"
                             "}\n"
                             "graph @k(%y: f32[2]) {\n"
                             "  %3 = Neg(%y) : f32[2]\n"
                             "  return %3\n"
                             "}\n");
  verify(g, {.specialized = true, .lifted = true});
}

TEST(IrVerify, NestedGraphAlone) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%x) {\n"
                             "  %1 = @g()\n"
                             "  return %1\n"
                             "}\n"
                             "graph @g() {\n"
                             "  %2 = neg(%x)\n"
                             "  return %2\n"
                             "}\n");
  FuncGraph* g = static_cast<CNode*>(f->output())->called_graph();
  verify(g);
  EXPECT_VERIFY_ERROR(g, {.lifted = true}, "graph @g: free variable %x");
}

// g uses a node of its sibling h: h does not enclose g.
TEST(IrVerify, NodeOfANonEnclosingGraph) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* x = m.add_param(f, "x");
  FuncGraph* g = m.new_graph("g");
  FuncGraph* h = m.new_graph("h");
  CNode* n = m.call_prim(h, op("Neg"), {}, {x});
  n->set_name("n");
  h->set_output(n);
  g->set_output(m.call_prim(g, op("Exp"), {}, {n}));
  f->set_output(
      m.call_builtin(f, Builtin::MakeTuple, {m.cnode(f, {gval(m, g)}), m.cnode(f, {gval(m, h)})}));
  EXPECT_VERIFY_ERROR(f, {}, "input 1 is a node of graph @h, which does not enclose @g");
  EXPECT_VERIFY_ERROR(f, {}, "graph @g, node %");
}

// The entry calls @d, a closure over %l of @c, which the entry never calls: %l is never
// computed. @c counts as @d's parent, and so as the entry's (through @d): only the rule that
// the module's entry has no free variables catches it. @d alone still verifies.
TEST(IrVerify, EntryReadingANodeOfAGraphItNeverRuns) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%x: f32[2]) {\n"
                             "  %r = @d(%x) : f32[2]\n"
                             "  return %r\n"
                             "}\n"
                             "graph @d(%t: f32[2]) {\n"
                             "  %n = Mul(%l, %t) : f32[2]\n"
                             "  return %n\n"
                             "}\n"
                             "graph @c(%p: f32[2]) {\n"
                             "  %l = Exp(%p) : f32[2]\n"
                             "  return @d\n"
                             "}\n");
  ASSERT_EQ(m.entry(), f);
  EXPECT_VERIFY_ERROR(
      f, {}, "graph @f: the entry graph has the free variable %l (Exp), a node of graph @c");
  verify(static_cast<CNode*>(f->output())->called_graph());
}

TEST(IrVerify, ScopingCycle) {
  // a uses b's node and b uses a's node: each would enclose the other.
  Module m;
  FuncGraph* a = m.new_graph("a");
  FuncGraph* b = m.new_graph("b");
  Parameter* pa = m.add_param(a, "pa");
  Parameter* pb = m.add_param(b, "pb");
  a->set_output(m.cnode(a, {gval(m, b), pb}));
  b->set_output(m.cnode(b, {gval(m, a), pa}));
  EXPECT_VERIFY_ERROR(a, {}, "enclose itself");
}

TEST(IrVerify, OutputNotSet) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  FuncGraph* g = m.new_graph("g");
  f->set_output(m.cnode(f, {gval(m, g)}));
  EXPECT_VERIFY_ERROR(f, {}, "graph @g: the output is not set");
}

TEST(IrVerify, RemovedParameterStillUsed) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* x = m.add_param(f, "x");
  m.add_param(f, "y");
  f->set_output(m.call_prim(f, op("Neg"), {}, {x}));
  f->remove_param(0);
  EXPECT_VERIFY_ERROR(f, {}, "input 1 is %x, which is not a parameter of @f");
}

TEST(IrVerify, GraphOfAnotherModule) {
  Module m, other;
  FuncGraph* g = other.new_graph("g");
  g->set_output(other.value(Value::integer(1)));
  FuncGraph* f = m.new_graph("f");
  f->set_output(m.cnode(f, {gval(m, g)}));
  EXPECT_VERIFY_ERROR(f, {}, "graph @g: the graph belongs to another module");
}

TEST(IrVerify, Cycle) {
  Module m;
  FuncGraph* f = m.new_graph("f");
  Parameter* x = m.add_param(f, "x");
  CNode* a = m.call_prim(f, op("Neg"), {}, {x});
  CNode* b = m.call_prim(f, op("Exp"), {}, {a});
  a->set_input(1, b);
  f->set_output(b);
  EXPECT_VERIFY_ERROR(f, {}, "depends on itself (a cycle)");
  // The printer still terminates.
  EXPECT_FALSE(print_graph(f).empty());
}

TEST(IrVerify, Specialized) {
  auto check = [](const std::string& text, const std::string& what) {
    Module m;
    FuncGraph* f = parse_graph(m, text);
    verify(f);  // structurally fine
    EXPECT_VERIFY_ERROR(f, {.specialized = true}, what);
  };
  check("graph @f(%x: f32[2]) {\n  %1 = Neg(%x)\n  return %1\n}\n", "(Neg): no abstract");
  check("graph @f(%x) {\n  %1 = Neg(%x) : f32[2]\n  return %1\n}\n",
        "node %x: the parameter has no abstract");
  check("graph @f(%x: f32[2]) {\n  %1 = getattr(%x, \"shape\") : any\n  return %1\n}\n",
        "builtin getattr must be resolved by specialisation");
  check("graph @f(%x: f32[2]) {\n  %1 = add(%x, 1) : f32[2]\n  return %1\n}\n",
        "builtin add applied to a tensor (input 1: f32[2])");
  check("graph @f(%x: f32[2]) {\n  %1 = getitem(%x, 0) : f32[]\n  return %1\n}\n",
        "builtin getitem applied to a tensor");
  check("graph @f(%x: f32[2]) {\n  %1 = Mul(%x) : f32[2]\n  return %1\n}\n",
        "Mul takes 2 tensor inputs, the call passes 1");
  check("graph @f(%x: f32[2], %n: i64) {\n  %1 = Mul(%x, %n) : f32[2]\n  return %1\n}\n",
        "input 2 of Mul is not a tensor (i64)");
  check("graph @f(%x: f32[2]) {\n  %1 = Transpose(%x) : f32[2]\n  return %1\n}\n",
        "attribute 'perm' of Transpose is missing");
  check("graph @f(%x: f32[2]) {\n  %1 = Concat() : f32[2]\n  return %1\n}\n",
        "Concat is called without inputs");
}

}  // namespace
}  // namespace mycel::ir
