// inline_graphs: before/after IR text and the policy (recursion, size, scoping, no_inline).
#include "ir/source_files.h"
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::inline_graphs;

TEST(PassInline, SmallGraphCalledTwiceIsInlinedAtBothSites) {
  expect_rewrite(inline_graphs, R"(
    graph @f(%x: f32[2]) {
      %a = @sq(%x) : f32[2]
      %b = @sq(%a) : f32[2]
      return %b
    }
    graph @sq(%v: f32[2]) {
      %m = Mul(%v, %v) : f32[2]
      return %m
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %m = Mul(%x, %x) : f32[2]
      %m.1 = Mul(%m, %m) : f32[2]
      return %m.1
    }
  )");
}

TEST(PassInline, ChainsFlattenInOneRun) {
  expect_rewrite(inline_graphs, R"(
    graph @f(%x: f32[2]) {
      %a = @outer(%x) : f32[2]
      return %a
    }
    graph @outer(%p: f32[2]) {
      %e = Exp(%p) : f32[2]
      %i = @inner(%e) : f32[2]
      return %i
    }
    graph @inner(%q: f32[2]) {
      %n = Neg(%q) : f32[2]
      return %n
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %e = Exp(%x) : f32[2]
      %n = Neg(%e) : f32[2]
      return %n
    }
  )");
}

// An unrolled loop: a chain of n graphs, each applying Exp and calling the next, the last
// reading the entry's %x (so every graph of the chain captures it). One run
// flattens it; the Manager's analyses it asks for are computed once, closing the free
// variables over the chain in a couple of sweeps (in discovery order they took n sweeps of
// the n graphs: the pass was O(n^2) on long chains, such as a network's unrolled layers).
TEST(PassInline, LongChainClosesItsFreeVariablesInFewSweeps) {
  for (int n : {8, 200}) {
    std::string text = "graph @f(%x: f32[2]) {\n  %a = @g1(%x) : f32[2]\n  return %a\n}\n";
    for (int i = 1; i <= n; ++i) {
      std::string k = std::to_string(i);
      std::string call =
          i < n ? "@g" + std::to_string(i + 1) + "(%e" + k + ")" : "Add(%e" + k + ", %x)";
      text += "graph @g" + k + "(%p" + k + ": f32[2]) {\n  %e" + k + " = Exp(%p" + k +
              ") : f32[2]\n  %r" + k + " = " + call + " : f32[2]\n  return %r" + k + "\n}\n";
    }
    PassCase c(text);
    ir::Manager mng(c.m, c.root);
    ASSERT_TRUE(inline_graphs(c.m, c.root));
    EXPECT_EQ(mng.stats().recomputes, 1u) << "n = " << n;
    EXPECT_LE(mng.stats().sweeps, 2u) << "n = " << n;
    // Flat: n Exps and the Add, in the entry.
    ir::Manager after(c.m, c.root);
    EXPECT_EQ(after.graphs().size(), 1u);
    EXPECT_EQ(c.m.toposort(c.root).size(), static_cast<size_t>(n + 1));
  }
}

// A chain of n single-use graphs, each also calling a shared helper @h: the work of one run
// grows linearly with n. Measured by what the run adds to the module's arena: a single-use
// callee's statements move into its caller, only @h's are copied (once per call). Copying
// each callee, which already held the rest of the chain, added O(n^2) nodes.
std::string chain_with_helper(int n) {
  std::string text = "graph @f(%x: f32[2]) {\n  %a = @g1(%x) : f32[2]\n  return %a\n}\n";
  for (int i = 1; i <= n; ++i) {
    std::string k = std::to_string(i);
    std::string next =
        i < n ? "@g" + std::to_string(i + 1) + "(%h" + k + ")" : "Add(%h" + k + ", %x)";
    text += "graph @g" + k + "(%p" + k + ": f32[2]) {\n  %e" + k + " = Exp(%p" + k +
            ") : f32[2]\n  %h" + k + " = @h(%e" + k + ") : f32[2]\n  %r" + k + " = " + next +
            " : f32[2]\n  return %r" + k + "\n}\n";
  }
  return text + "graph @h(%v: f32[2]) {\n  %m = Mul(%v, %v) : f32[2]\n  return %m\n}\n";
}

TEST(PassInline, SingleUseChainIsMovedNotCopied) {
  std::vector<size_t> added;
  for (int n : {100, 200, 400}) {
    PassCase c(chain_with_helper(n));
    size_t before = c.m.nodes().size();
    ASSERT_TRUE(c.run(inline_graphs));
    added.push_back(c.m.nodes().size() - before);
    // Flat: n Exps, n Muls and the Add, in the entry; its statements are its own.
    ir::Manager after(c.m, c.root);
    EXPECT_EQ(after.graphs().size(), 1u) << "n = " << n;
    std::vector<ir::CNode*> body = c.m.toposort(c.root);
    ASSERT_EQ(body.size(), static_cast<size_t>(2 * n + 1)) << "n = " << n;
    for (ir::CNode* x : body) EXPECT_EQ(x->graph(), c.root);
    EXPECT_NE(c.text().find("%m.1 = Mul(%e2, %e2)"), std::string::npos);
  }
  // n Muls copied (with the bound uses they need), nothing per moved graph: twice the chain,
  // twice the nodes (a run that copied the chain added about 4x for 2n, 16x for 4n).
  EXPECT_GE(added[0], 100u);
  EXPECT_LE(added[1], 2 * added[0] + 8) << added[0] << " " << added[1];
  EXPECT_LE(added[2], 4 * added[0] + 8) << added[0] << " " << added[2];
}

// A graph copied before the run reached its own calls (@y copies @x while @x still calls
// @s) must keep its callee intact: @s then has two callers, @x's call is copied, not moved.
TEST(PassInline, CalleeOfACopiedGraphIsCopiedNotMoved) {
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = @x(%x) : f32[2]
      %b = @y(%x) : f32[2]
      %c = Add(%a, %b) : f32[2]
      return %c
    }
    graph @x(%q: f32[2]) {
      %s = @s(%q) : f32[2]
      return %s
    }
    graph @y(%p: f32[2]) {
      %r = @x(%p) : f32[2]
      return %r
    }
    graph @s(%u: f32[2]) {
      %e = Exp(%u) : f32[2]
      return %e
    }
  )");
  ASSERT_TRUE(c.run(inline_graphs));
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2]) {
      %e = Exp(%x) : f32[2]
      %s = @s(%x) : f32[2]
      %c = Add(%e, %s) : f32[2]
      return %c
    }
    graph @s(%u: f32[2]) {
      %e.1 = Exp(%u) : f32[2]
      return %e.1
    }
  )"));
}

// @then reads @lin's %y and has had @join moved into it, its parameter %q not yet replaced
// by %z when @g2 copies @lin: @then must still count as nested in @lin (copied with it,
// reading the copy's %y), though its output reaches %y only through that replacement.
TEST(PassInline, GraphHoldingAMovedCalleeIsStillNestedWhenCopied) {
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = @lin(%x) : f32[2]
      %b = @g2(%x) : f32[2]
      %c = Add(%a, %b) : f32[2]
      return %c
    }
    graph @lin(%p: f32[2]) {
      %t = @then() : f32[2]
      %y = Exp(%p) : f32[2]
      return %t
    }
    graph @g2(%u: f32[2]) {
      %v = @lin(%u) : f32[2]
      return %v
    }
    graph @then() {
      %z = Neg(%y) : f32[2]
      %j = @join(%z) : f32[2]
      return %j
    }
    graph @join(%q: f32[2]) {
      %r = Mul(%q, %q) : f32[2]
      return %r
    }
  )");
  ASSERT_TRUE(c.run(inline_graphs));
  // @g2's copy of @lin (made before @lin's own call was inlined) still calls a copy of
  // @then, nested in @f (it reads the copy's %y.1); the next run inlines it.
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %z = Neg(%y) : f32[2]
      %r = Mul(%z, %z) : f32[2]
      %t = @then() : f32[2]
      %c = Add(%r, %t) : f32[2]
      %y.1 = Exp(%x) : f32[2]
      return %c
    }
    graph @then() {
      %z.1 = Neg(%y.1) : f32[2]
      %r.1 = Mul(%z.1, %z.1) : f32[2]
      return %r.1
    }
  )"));
}

// @c returns the closure @d, which reads @c's %l only through @h1's %u once @h2 and @h1
// were moved into @d (@h1's call passed %l; %u is replaced lazily). @c, called twice, is
// copied: each copy must return its own copy of @d reading its own %l. A copy returning the
// original @d left @f calling a closure over a node of @c, which no longer runs (nested
// jvps: `return d` in a helper, the jvp body one call deeper; the entry then enclosed
// itself or read a node never computed).
TEST(PassInline, ClosureReturnedByACopiedGraphIsCopiedWithIt) {
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %k1 = @c(%x) : func
      %k2 = @c(%x) : func
      %r1 = %k1(%x) : f32[2]
      %r2 = %k2(%x) : f32[2]
      %r = Add(%r1, %r2) : f32[2]
      return %r
    }
    graph @c(%p: f32[2]) {
      %l = Exp(%p) : f32[2]
      return @d
    }
    graph @d(%t: f32[2]) {
      %m = @h1(%l, %t) : f32[2]
      return %m
    }
    graph @h1(%u: f32[2], %v: f32[2]) {
      %q = @h2(%u, %v) : f32[2]
      return %q
    }
    graph @h2(%a: f32[2], %b: f32[2]) {
      %n = Mul(%a, %b) : f32[2]
      return %n
    }
  )");
  ASSERT_TRUE(c.run(inline_graphs));
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2]) {
      %r1 = @d(%x) : f32[2]
      %r2 = @d.1(%x) : f32[2]
      %r = Add(%r1, %r2) : f32[2]
      %l = Exp(%x) : f32[2]
      %l.1 = Exp(%x) : f32[2]
      return %r
    }
    graph @d(%t: f32[2]) {
      %n = Mul(%l, %t) : f32[2]
      return %n
    }
    graph @d.1(%t.1: f32[2]) {
      %n.1 = Mul(%l.1, %t.1) : f32[2]
      return %n.1
    }
  )"));
  ASSERT_TRUE(c.run(inline_graphs));
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2]) {
      %l = Exp(%x) : f32[2]
      %n = Mul(%l, %x) : f32[2]
      %l.1 = Exp(%x) : f32[2]
      %n.1 = Mul(%l.1, %x) : f32[2]
      %r = Add(%n, %n.1) : f32[2]
      return %r
    }
  )"));
}

TEST(PassInline, ClosureOverCallerIsInlinedWithItsFreeVariables) {
  expect_rewrite(inline_graphs, R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g(%x) : f32[2]
      return %r
    }
    graph @g(%a: f32[2]) {
      %m = Mul(%a, %y) : f32[2]
      return %m
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %m = Mul(%x, %y) : f32[2]
      return %m
    }
  )");
}

TEST(PassInline, BranchOfResolvedSwitchIsInlined) {
  // What switch_simplify leaves for `if True:` with a branch that captures %y.
  expect_rewrite(inline_graphs, R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @then() : f32[2]
      return %r
    }
    graph @then() {
      %n = Neg(%y) : f32[2]
      return %n
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %n = Neg(%y) : f32[2]
      return %n
    }
  )");
}

TEST(PassInline, RecursiveGraphsStay) {
  expect_unchanged(inline_graphs, R"(
    graph @f(%n: i64) {
      %r = @loop(%n) : i64
      return %r
    }
    graph @loop(%i: i64) {
      %c = lt(%i, 10) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : i64
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %t = @loop(%j) : i64
      return %t
    }
    graph @exit() {
      return %i
    }
  )");
}

// A graph of `n` Neg statements, called `calls` times from @f.
std::string big_graph_program(int n, int calls) {
  std::string s = "graph @f(%x: f32[2]) {\n";
  std::string last = "%x";
  for (int k = 0; k < calls; ++k) {
    s += "  %c" + std::to_string(k) + " = @big(" + last + ") : f32[2]\n";
    last = "%c" + std::to_string(k);
  }
  s += "  return " + last + "\n}\ngraph @big(%v: f32[2]) {\n";
  last = "%v";
  for (int k = 0; k < n; ++k) {
    s += "  %n" + std::to_string(k) + " = Neg(" + last + ") : f32[2]\n";
    last = "%n" + std::to_string(k);
  }
  return s + "  return " + last + "\n}\n";
}

TEST(PassInline, LargeGraphsAreInlinedOnlyWhenCalledOnce) {
  expect_unchanged(inline_graphs, big_graph_program(33, 2));
  PassCase once(big_graph_program(33, 1));
  EXPECT_TRUE(once.run(inline_graphs));
  EXPECT_EQ(once.text().find("@big"), std::string::npos) << once.text();
  // At the size limit a graph is inlined at every call.
  PassCase small(big_graph_program(32, 2));
  EXPECT_TRUE(small.run(inline_graphs));
  EXPECT_EQ(small.text().find("@big"), std::string::npos) << small.text();
}

// The join after an `if` holds the next if, whose branches are nested in it (they read
// its parameter): inlining copies them too, so they count towards the size.
TEST(PassInline, SharedGraphCountsItsNestedGraphs) {
  std::string s =
      "graph @f(%x: f32[2]) {\n  %a = @join(%x) : f32[2]\n  %b = @join(%a) : f32[2]\n"
      "  return %b\n}\ngraph @join(%p: f32[2]) {\n  %r = @br() : f32[2]\n  return %r\n}\n"
      "graph @br() {\n";
  std::string last = "%p";
  for (int k = 0; k < 32; ++k) {
    s += "  %n" + std::to_string(k) + " = Neg(" + last + ") : f32[2]\n";
    last = "%n" + std::to_string(k);
  }
  s += "  return " + last + "\n}\n";
  PassCase c(s);
  c.run(inline_graphs);  // @br is inlined into @join (once used), @join stays shared
  EXPECT_NE(c.text().find("@join(%x)"), std::string::npos) << c.text();
}

// Sizes are counted as the run inlines: @a is small, but holds two copies of @b once
// @b is inlined into it, so @a stays a called graph (copying it into both of @f's call
// sites, and so on down a chain, doubled the program per level).
TEST(PassInline, SizeCountsWhatTheRunInlinedIntoTheCallee) {
  std::string s =
      "graph @f(%x: f32[2]) {\n  %a1 = @a(%x) : f32[2]\n  %a2 = @a(%a1) : f32[2]\n"
      "  return %a2\n}\ngraph @a(%p: f32[2]) {\n  %b1 = @b(%p) : f32[2]\n"
      "  %b2 = @b(%b1) : f32[2]\n  return %b2\n}\ngraph @b(%v: f32[2]) {\n";
  std::string last = "%v";
  for (int k = 0; k < 20; ++k) {
    s += "  %n" + std::to_string(k) + " = Neg(" + last + ") : f32[2]\n";
    last = "%n" + std::to_string(k);
  }
  s += "  return " + last + "\n}\n";
  PassCase c(s);
  EXPECT_TRUE(c.run(inline_graphs));
  EXPECT_NE(c.text().find("@a(%x)"), std::string::npos) << c.text();
  EXPECT_EQ(c.text().find("@b("), std::string::npos) << c.text();
}

TEST(PassInline, NoInlineFlagIsRespected) {
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x) : f32[2]
      return %a
    }
    graph @g(%v: f32[2]) {
      %m = Neg(%v) : f32[2]
      return %m
    }
  )");
  ASSERT_TRUE(c.root->output()->is_cnode());
  static_cast<ir::CNode*>(c.root->output())->called_graph()->no_inline = true;
  EXPECT_FALSE(c.run(inline_graphs));
}

}  // namespace
}  // namespace mycel::passtest

namespace mycel::passtest {
namespace {

// Inlined library code names the user's call (ir/source_files.h): copied (@lib called
// twice) and moved (@once called once); a library call inlined into library code keeps
// its own line.
TEST(PassInline, InlinedLibraryNodesNameTheUsersCall) {
  const int32_t lib = ir::register_source_file("pass_inline_lib.py", {"a", "b", "c"});
  const int32_t user = ir::register_source_file("pass_inline_user.py", {"x", "y", "z"});
  ir::mark_library_file(lib);
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = @lib(%x) : f32[2]
      %b = @lib(%a) : f32[2]
      %d = @once(%b) : f32[2]
      return %d
    }
    graph @lib(%p: f32[2]) {
      %e = Exp(%p) : f32[2]
      return %e
    }
    graph @once(%q: f32[2]) {
      %n = Neg(%q) : f32[2]
      %s = @lib(%n) : f32[2]
      return %s
    }
  )");
  std::vector<ir::CNode*> calls = c.m.toposort(c.root);
  ASSERT_EQ(calls.size(), 3u);
  for (size_t i = 0; i < calls.size(); ++i)
    calls[i]->set_span({user, static_cast<int32_t>(i + 1), 0});
  FuncGraph* libg = calls[0]->called_graph();
  FuncGraph* onceg = calls[2]->called_graph();
  c.m.toposort(libg)[0]->set_span({lib, 1, 0});
  for (ir::CNode* n : c.m.toposort(onceg)) n->set_span({lib, 2, 0});
  ASSERT_TRUE(c.run(inline_graphs));  // one run flattens the chain
  std::vector<ir::CNode*> body = c.m.toposort(c.root);
  ASSERT_EQ(body.size(), 4u) << c.text();  // Exp, Exp, Neg, Exp
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(body[i]->span().file, user) << i;
    EXPECT_EQ(body[i]->span().line, static_cast<int32_t>(i + 1)) << i;
  }
  // @once's Neg and its own call of @lib: all of them name f's call of @once
  for (size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(body[i]->span().file, user) << i;
    EXPECT_EQ(body[i]->span().line, 3) << i;
  }
  EXPECT_FALSE(ir::is_library_span({user, 1, 0}));
  EXPECT_TRUE(ir::is_library_span({lib, 1, 0}));
}

}  // namespace
}  // namespace mycel::passtest

namespace mycel::passtest {
namespace {

// A chain of graphs moved into their callers (each called once), as an unrolled loop is:
// library nodes take the span of the first user's call above them, moved with their graph
// through library calls until one; user nodes keep theirs.
TEST(PassInline, MovedChainLibraryNodesNameTheNearestUsersCall) {
  const int32_t lib = ir::register_source_file("pass_inline_chain_lib.py", {"a", "b", "c"});
  const int32_t user = ir::register_source_file("pass_inline_chain_user.py", {"x", "y", "z"});
  ir::mark_library_file(lib);
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = @g1(%x) : f32[2]
      return %a
    }
    graph @g1(%p: f32[2]) {
      %e = Exp(%p) : f32[2]
      %i = @g2(%e) : f32[2]
      return %i
    }
    graph @g2(%q: f32[2]) {
      %n = Neg(%q) : f32[2]
      %j = @g3(%n) : f32[2]
      return %j
    }
    graph @g3(%r: f32[2]) {
      %s = Mul(%r, %r) : f32[2]
      %t = Exp(%s) : f32[2]
      return %t
    }
  )");
  auto nodes = [&](FuncGraph* g) { return c.m.toposort(g); };
  ir::CNode* call1 = nodes(c.root)[0];
  FuncGraph* g1 = call1->called_graph();
  ir::CNode* call2 = nodes(g1)[1];
  FuncGraph* g2 = call2->called_graph();
  ir::CNode* call3 = nodes(g2)[1];
  FuncGraph* g3 = call3->called_graph();
  call1->set_span({user, 1, 0});
  nodes(g1)[0]->set_span({lib, 1, 0});   // Exp
  call2->set_span({user, 2, 0});         // a user's call inside g1
  nodes(g2)[0]->set_span({lib, 2, 0});   // Neg
  call3->set_span({lib, 3, 0});          // a library call
  nodes(g3)[0]->set_span({lib, 3, 0});   // Mul
  nodes(g3)[1]->set_span({user, 3, 0});  // Exp of user code
  ASSERT_TRUE(c.run(inline_graphs));
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2]) {
      %e = Exp(%x) : f32[2]
      %n = Neg(%e) : f32[2]
      %s = Mul(%n, %n) : f32[2]
      %t = Exp(%s) : f32[2]
      return %t
    }
  )"));
  std::vector<ir::CNode*> body = nodes(c.root);
  ASSERT_EQ(body.size(), 4u) << c.text();
  const int32_t lines[] = {1, 2, 2, 3};  // f's call; g1's call of g2 (twice); its own
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(body[i]->span().file, user) << i;
    EXPECT_EQ(body[i]->span().line, lines[i]) << i;
  }
}

}  // namespace
}  // namespace mycel::passtest
