// The IR's walks (ir/walk.h) and the builtins table (ir/builtins.def).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/anf.h"
#include "ir/walk.h"

namespace mycel::ir {
namespace {

std::vector<std::string> names(const std::vector<CNode*>& nodes) {
  std::vector<std::string> out;
  for (CNode* c : nodes) out.push_back(c->name());
  return out;
}

// @f: %a and %b are independent, %d = depend(%s, %e) with the effect %e after %s's inputs.
FuncGraph* depend_graph(Module& m) {
  return parse_graph(m,
                     "graph @f(%x) {\n"
                     "  %a = neg(%x)\n"
                     "  %s = add(%a, 1)\n"
                     "  %b = pos(%x)\n"
                     "  %e = print(%b)\n"
                     "  %d = depend(%s, %e)\n"
                     "  return %d\n"
                     "}\n");
}

TEST(IrWalk, ToposortInputsFirstInInputOrder) {
  Module m;
  FuncGraph* f = depend_graph(m);
  Node* out = f->output();
  EXPECT_EQ(names(toposort(f, std::span<Node* const>(&out, 1))),
            (std::vector<std::string>{"a", "s", "b", "e", "d"}));
  EXPECT_EQ(names(m.toposort(f)), (std::vector<std::string>{"a", "s", "b", "e", "d"}));
}

TEST(IrWalk, ToposortEffectsFirstRunsADependsEffectsBeforeItsValue) {
  Module m;
  FuncGraph* f = depend_graph(m);
  Node* out = f->output();
  EXPECT_EQ(names(toposort(f, std::span<Node* const>(&out, 1), DependOrder::EffectsFirst)),
            (std::vector<std::string>{"b", "e", "a", "s", "d"}));
}

TEST(IrWalk, ToposortTakesRootsInOrderEachNodeOnce) {
  Module m;
  FuncGraph* f = depend_graph(m);
  CNode* d = static_cast<CNode*>(f->output());
  Node* e = d->input(2);
  // The effect first: its inputs, then it; the output then adds only what is left.
  std::vector<Node*> roots{e, d, e, f->param(0)};
  EXPECT_EQ(names(toposort(f, roots)), (std::vector<std::string>{"b", "e", "a", "s", "d"}));
}

TEST(IrWalk, ToposortStaysInsideTheGraph) {
  Module m;
  FuncGraph* a = parse_graph(m,
                             "graph @a(%x) {\n"
                             "  %y = neg(%x)\n"
                             "  %r = @b()\n"
                             "  return %r\n"
                             "}\n"
                             "graph @b() {\n"
                             "  %z = add(%y, 1)\n"
                             "  return %z\n"
                             "}\n");
  // %y is used only by @b: not a statement of @a's walk from its output.
  EXPECT_EQ(names(m.toposort(a)), (std::vector<std::string>{"r"}));
  std::vector<FuncGraph*> graphs = m.reachable_graphs(a);
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(names(m.toposort(graphs[1])), (std::vector<std::string>{"z"}));
  // Across graphs, the walk reaches %y through @b's free variable.
  std::vector<std::string> seen;
  std::vector<FuncGraph*> all{a};
  walk_graphs(
      all, /*cross=*/true, [](FuncGraph*) {},
      [&](Node* n) {
        if (n->is_cnode()) seen.push_back(n->name());
      });
  EXPECT_EQ(seen, (std::vector<std::string>{"r", "z", "y"}));
  EXPECT_EQ(all, graphs);
}

TEST(IrWalk, GraphsInLooksThroughClosuresSequencesAndDicts) {
  Module m;
  FuncGraph* g1 = m.new_graph("g1");
  FuncGraph* g2 = m.new_graph("g2");
  FuncGraph* g3 = m.new_graph("g3");
  Value v = Value::tuple({Value::closure(Value::graph(g1), {Value::integer(1)}),
                          Value::dict({Value::string("k")}, {Value::graph(g2)}),
                          Value::list({Value::graph(g3), Value::graph(g1)})});
  std::vector<FuncGraph*> out;
  graphs_in(v, out);
  EXPECT_EQ(out, (std::vector<FuncGraph*>{g1, g2, g3, g1}));
}

TEST(IrBuiltins, TableNamesArityAndFlags) {
  for (size_t i = 0; i < kNumBuiltins; ++i) {
    auto b = static_cast<Builtin>(i);
    Builtin found;
    ASSERT_TRUE(find_builtin(builtin_name(b), &found)) << builtin_name(b);
    EXPECT_EQ(found, b) << builtin_name(b);
    EXPECT_NE(builtin_def(b).symbol[0], '\0') << builtin_name(b);
  }
  EXPECT_STREQ(builtin_def(Builtin::FloorDiv).symbol, "//");
  EXPECT_STREQ(builtin_def(Builtin::GetItem).symbol, "getitem");
  EXPECT_EQ(builtin_arity(Builtin::Switch), 3);
  EXPECT_EQ(builtin_arity(Builtin::MakeTuple), -1);
  EXPECT_TRUE(builtin_has(Builtin::Truth, B_OPERATOR));
  EXPECT_FALSE(builtin_has(Builtin::GetItem, B_OPERATOR));
  EXPECT_TRUE(builtin_has(Builtin::Len, B_FRONT));
  EXPECT_FALSE(builtin_has(Builtin::Vjp, B_FRONT));
  EXPECT_TRUE(builtin_has(Builtin::Raise, B_EFFECT));
  EXPECT_FALSE(builtin_has(Builtin::Raise, B_HOST));
  EXPECT_TRUE(builtin_has(Builtin::PyExecute, B_HOST));
  Builtin none;
  EXPECT_FALSE(find_builtin("no_such_builtin", &none));
}

TEST(IrBuiltins, TheExecutorRunsWhatSurvivesSpecialisationAndAd) {
  std::vector<std::string> gone;
  for (size_t i = 0; i < kNumBuiltins; ++i)
    if (!builtin_executes(static_cast<Builtin>(i)))
      gone.push_back(builtin_name(static_cast<Builtin>(i)));
  EXPECT_EQ(gone, (std::vector<std::string>{"getattr", "make_kwarg", "unpack_call", "grad", "vjp",
                                            "custom_vjp", "vmap_fn", "vmap"}));
}

}  // namespace
}  // namespace mycel::ir
