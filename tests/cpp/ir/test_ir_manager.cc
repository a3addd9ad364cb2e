// The Manager's analyses on small programs whose scoping is known by construction.
#include <gtest/gtest.h>

#include "ir/anf.h"
#include "ir/manager.h"
#include "ir_test_util.h"

namespace mycel::ir {
namespace {

using testing::op;

FuncGraph* graph_named(Manager& mng, const std::string& name) {
  for (FuncGraph* g : mng.graphs())
    if (g->name() == name) return g;
  ADD_FAILURE() << "no graph @" << name;
  return nullptr;
}

CNode* node_named(FuncGraph* g, const std::string& name) {
  for (CNode* c : g->module()->toposort(g))
    if (c->name() == name) return c;
  ADD_FAILURE() << "no node %" << name << " in @" << g->name();
  return nullptr;
}

// A chain of n graphs, each calling the next, the last reading the root's parameter: every
// graph of the chain captures it (through the graphs it calls). Closing the free variables
// takes the same few sweeps whatever n (sweeping in discovery order took n).
std::string call_chain(int n) {
  std::string s = "graph @g0(%x) {\n  %r0 = @g1()\n  return %r0\n}\n";
  for (int i = 1; i < n; ++i) {
    std::string k = std::to_string(i);
    s += "graph @g" + k + "() {\n  %r" + k + " = @g" + std::to_string(i + 1) + "()\n  return %r" +
         k + "\n}\n";
  }
  s += "graph @g" + std::to_string(n) + "() {\n  %u = neg(%x)\n  return %u\n}\n";
  return s;
}

TEST(IrManager, ClosingFreeVariablesOverAChainIsLinear) {
  for (int n : {8, 200}) {
    Module m;
    FuncGraph* root = parse_graph(m, call_chain(n));
    Manager mng(m, root);
    ASSERT_EQ(mng.graphs().size(), static_cast<size_t>(n + 1));
    for (FuncGraph* g : mng.graphs()) {
      if (g != root) {
        EXPECT_EQ(mng.free_vars(g), (std::vector<Node*>{root->param(0)})) << n;
      }
    }
    EXPECT_EQ(mng.stats().recomputes, 1u);
    EXPECT_LE(mng.stats().sweeps, 2u) << "n = " << n;
  }
}

TEST(IrManager, FreeVariablesAcrossThreeLevels) {
  Module m;
  FuncGraph* a = parse_graph(m,
                             "graph @a(%x) {\n"
                             "  %r = @b()\n"
                             "  return %r\n"
                             "}\n"
                             "graph @b() {\n"
                             "  %y = neg(%x)\n"
                             "  %r1 = @c()\n"
                             "  return %r1\n"
                             "}\n"
                             "graph @c() {\n"
                             "  %z = add(%x, %y)\n"
                             "  %w = @d()\n"
                             "  %v = add(%z, %w)\n"
                             "  return %v\n"
                             "}\n"
                             "graph @d() {\n"
                             "  %u = mul(%x, 2)\n"
                             "  return %u\n"
                             "}\n");
  Manager mng(m, a);
  EXPECT_EQ(m.manager(), &mng);
  FuncGraph* b = graph_named(mng, "b");
  FuncGraph* c = graph_named(mng, "c");
  FuncGraph* d = graph_named(mng, "d");
  EXPECT_EQ(mng.graphs(), (std::vector<FuncGraph*>{a, b, c, d}));
  Node* x = a->param(0);
  Node* y = node_named(c, "z")->input(2);  // b's node that only c uses
  EXPECT_EQ(y->graph(), b);
  EXPECT_EQ(y->name(), "y");
  EXPECT_EQ(mng.free_vars(c), (std::vector<Node*>{x, y}));
  EXPECT_EQ(mng.free_vars(b), (std::vector<Node*>{x}));  // c's y is b's own node
  EXPECT_TRUE(mng.free_vars(a).empty());
  EXPECT_EQ(mng.free_vars(d), (std::vector<Node*>{x}));
  EXPECT_EQ(mng.parent(a), nullptr);
  EXPECT_EQ(mng.parent(b), a);
  EXPECT_EQ(mng.parent(c), b);
  EXPECT_EQ(mng.parent(d), a);  // d only captures a's x: its innermost owner is a
  EXPECT_EQ(mng.children(a), (std::vector<FuncGraph*>{b, d}));
  EXPECT_EQ(mng.children(b), (std::vector<FuncGraph*>{c}));
  EXPECT_TRUE(mng.children(c).empty());
  EXPECT_EQ(mng.graphs_used(c), (std::vector<FuncGraph*>{d}));
  for (FuncGraph* g : {a, b, c, d}) EXPECT_FALSE(mng.is_recursive(g));
}

// A graph that refers to a closure over an outer node is inside that outer graph too.
TEST(IrManager, FreeVariablesThroughReferencedGraphs) {
  Module m;
  FuncGraph* p = parse_graph(m,
                             "graph @p(%x) {\n"
                             "  %r = @h()\n"
                             "  return %r\n"
                             "}\n"
                             "graph @g() { return %x }\n"
                             "graph @h() {\n"
                             "  %r1 = @g()\n"
                             "  return %r1\n"
                             "}\n");
  Manager mng(m, p);
  FuncGraph* h = graph_named(mng, "h");
  EXPECT_EQ(mng.free_vars(h), std::vector<Node*>{p->param(0)});
  EXPECT_EQ(mng.parent(h), p);
}

TEST(IrManager, Recursion) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%n) {\n"
                             "  %1 = @loop(0)\n"
                             "  %2 = @top(%1)\n"
                             "  return %2\n"
                             "}\n"
                             "graph @loop(%i) {\n"
                             "  %3 = lt(%i, %n)\n"
                             "  %4 = switch(%3, @body, @exit)\n"
                             "  %5 = %4()\n"
                             "  return %5\n"
                             "}\n"
                             "graph @body() {\n"
                             "  %6 = add(%i, 1)\n"
                             "  %7 = @loop(%6)\n"
                             "  return %7\n"
                             "}\n"
                             "graph @exit() { return %i }\n"
                             "graph @top(%a) {\n"
                             "  %8 = @top(%a)\n"
                             "  return %8\n"
                             "}\n");
  Manager mng(m, f);
  EXPECT_FALSE(mng.is_recursive(f));
  EXPECT_TRUE(mng.is_recursive(graph_named(mng, "loop")));
  EXPECT_TRUE(mng.is_recursive(graph_named(mng, "body")));
  EXPECT_FALSE(mng.is_recursive(graph_named(mng, "exit")));
  EXPECT_TRUE(mng.is_recursive(graph_named(mng, "top")));
  // The loop captures f's n; body and exit capture the loop's i.
  FuncGraph* loop = graph_named(mng, "loop");
  EXPECT_EQ(mng.parent(loop), f);
  EXPECT_EQ(mng.parent(graph_named(mng, "body")), loop);
  EXPECT_EQ(mng.parent(graph_named(mng, "exit")), loop);
  EXPECT_EQ(mng.parent(graph_named(mng, "top")), nullptr);
  EXPECT_EQ(mng.free_vars(graph_named(mng, "body")),
            (std::vector<Node*>{loop->param(0), f->param(0)}));
}

TEST(IrManager, EditsKeepUsersCurrent) {
  Module m;
  FuncGraph* f = parse_graph(m,
                             "graph @f(%x) {\n"
                             "  %a = Mul(%x, %x)\n"
                             "  %b = Add(%a, %x)\n"
                             "  return %b\n"
                             "}\n");
  {
    Manager mng(m, f);
    Parameter* x = f->param(0);
    auto* b = static_cast<CNode*>(f->output());
    auto* a = static_cast<CNode*>(b->input(1));
    using Uses = std::vector<std::pair<CNode*, int>>;
    EXPECT_EQ(mng.users(x), (Uses{{b, 2}, {a, 1}, {a, 2}}));
    EXPECT_EQ(mng.users(a), (Uses{{b, 1}}));
    EXPECT_TRUE(mng.users(b).empty());

    CNode* n = m.call_prim(f, op("Neg"), {}, {x});
    mng.replace(a, n);
    EXPECT_EQ(b->input(1), n);
    EXPECT_TRUE(mng.users(a).empty());
    EXPECT_EQ(mng.users(n), (Uses{{b, 1}}));
    EXPECT_EQ(mng.users(x), (Uses{{b, 2}, {n, 1}}));

    mng.set_edge(b, 2, n);
    EXPECT_EQ(mng.users(n), (Uses{{b, 1}, {b, 2}}));
    EXPECT_EQ(mng.users(x), (Uses{{n, 1}}));

    mng.replace(b, n);  // the output too
    EXPECT_EQ(f->output(), n);
    EXPECT_TRUE(mng.users(n).empty());
    EXPECT_EQ(print_graph(f, false),
              "graph @f(%x) {\n"
              "  %1 = Neg(%x)\n"
              "  return %1\n"
              "}\n");
    mng.set_output(f, x);
    EXPECT_TRUE(mng.users(x).empty());

    // Direct edits followed by invalidate().
    CNode* e = m.call_prim(f, op("Exp"), {}, {x});
    f->set_output(e);
    mng.invalidate();
    EXPECT_EQ(mng.users(x), (Uses{{e, 1}}));
    // A second manager does not steal the attachment.
    Manager other(m, f);
    EXPECT_EQ(m.manager(), &mng);
  }
  EXPECT_EQ(m.manager(), nullptr);
}

TEST(IrManager, NewGraphsAppearAfterEdits) {
  Module m;
  FuncGraph* f = parse_graph(m, "graph @f(%x) {\n  %1 = neg(%x)\n  return %1\n}\n");
  Manager mng(m, f);
  EXPECT_EQ(mng.graphs().size(), 1u);
  FuncGraph* g = m.new_graph("g");
  g->set_output(m.call_builtin(g, Builtin::Neg, {f->param(0)}));
  mng.set_edge(static_cast<CNode*>(f->output()), 0, m.value(Value::graph(g)));
  EXPECT_EQ(mng.graphs(), (std::vector<FuncGraph*>{f, g}));
  EXPECT_EQ(mng.parent(g), f);
  EXPECT_EQ(mng.children(f), std::vector<FuncGraph*>{g});
}

}  // namespace
}  // namespace mycel::ir
