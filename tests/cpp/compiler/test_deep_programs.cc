// Long and deep programs through the IR tools and the pipeline: the text parser, the printer,
// the verifier, clone, every pass and the executor walk long chains without recursion
// (issue #16: a chain of 50,000 statements must not overflow the C stack), and the depth
// guard of ir/depth.h measures the stack left.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "compiler/pipeline.h"
#include "ir/clone.h"
#include "ir/depth.h"
#include "pass_test_util.h"
#include "runtime/vm.h"

namespace mycel::passtest {
namespace {

// x -> x + 1 + 1 ... (n Adds of a constant held in a parameter), then a Mul chain.
std::string chain_program(int n) {
  std::string s = "graph @f(%x: f32[2], %one: f32[2]) {\n  %a0 = Add(%x, %one) : f32[2]\n";
  for (int i = 1; i < n; ++i)
    s += "  %a" + std::to_string(i) + " = Add(%a" + std::to_string(i - 1) + ", %one) : f32[2]\n";
  s += "  return %a" + std::to_string(n - 1) + "\n}\n";
  return s;
}

TEST(DeepPrograms, LongChainThroughEveryTool) {
  const int n = 50000;
  PassCase c(chain_program(n));  // parse_graph + verify
  std::string text = c.text();
  EXPECT_NE(text.find("%a49999"), std::string::npos);
  ir::FuncGraph* copy = ir::clone_graph(c.root);
  EXPECT_EQ(ir::print_graph(copy).size(), ir::print_graph(c.root).size());
  compiler::optimize(c.m, c.root);
  ir::verify(c.root, {.specialized = true, .lifted = true});
  auto exe = vm::Executable::compile(c.root);
  ir::Value out = exe->run({ir::Value::tensor(tensor_f32({2}, {0.5f, -1.0f})),
                            ir::Value::tensor(tensor_f32({2}, {1.0f}))},
                           nullptr);
  const float* p = out.as_tensor().data<float>();
  EXPECT_EQ(p[0], 0.5f + n);
  EXPECT_EQ(p[1], -1.0f + n);
}

// The guard sees the stack shrink with depth, on the main thread and in a thread.
int depth_until_guard(int depth) {
  static int level = 0;
  ir::DepthGuard g(level);
  volatile char pad[1024];  // a frame of at least 1 KiB
  pad[0] = 0;
  if (g.too_deep(1 << 30)) return depth;
  return depth_until_guard(depth + 1) + pad[0];
}

TEST(DeepPrograms, DepthGuardMeasuresTheStack) {
  EXPECT_GT(ir::stack_left(), ir::kStackReserve);
  int on_main = depth_until_guard(0);
  EXPECT_GT(on_main, 1000);  // stops well before a default 8 MiB stack overflows
  int in_thread = 0;
  std::thread t([&] { in_thread = depth_until_guard(0); });
  t.join();
  EXPECT_GT(in_thread, 100);
}

}  // namespace
}  // namespace mycel::passtest
