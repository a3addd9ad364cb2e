// The pipeline: all passes in order on small programs, IR dumps, verification after each.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/pipeline.h"
#include "pass_test_util.h"
#include "runtime/vm.h"

namespace mycel::passtest {
namespace {

using compiler::optimize;
using compiler::PipelineOptions;

constexpr ir::VerifyOptions kLifted{.specialized = true, .lifted = true};

// `if True:` around a helper called twice on x*1: everything but one Mul and one Add goes.
const char* kIfProgram = R"(
  graph @f(%x: f32[2], %one: f32[2]) {
    %s = switch(True, @then, @else) : func
    %r = %s() : f32[2]
    return %r
  }
  graph @then() {
    %a = Mul(%x, %one) : f32[2]
    %b = @sq(%a) : f32[2]
    %c = @sq(%a) : f32[2]
    %d = Add(%b, %c) : f32[2]
    return %d
  }
  graph @else() {
    return %x
  }
  graph @sq(%v: f32[2]) {
    %m = Mul(%v, %v) : f32[2]
    return %m
  }
)";

const char* kIfOptimized = R"(
  graph @f(%x: f32[2]) {
    %m = Mul(%x, %x) : f32[2]
    %d = Add(%m, %m) : f32[2]
    return %d
  }
)";

PipelineOptions verify_each() {
  PipelineOptions o;
  o.verify_each = true;
  return o;
}

PipelineOptions dump_to(const std::string& dir) {
  PipelineOptions o;
  o.dump_dir = dir;
  return o;
}

TEST(Pipeline, ConstantIfHelpersAndIdentitiesCollapse) {
  PassCase c(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  optimize(c.m, c.root, verify_each());
  ir::verify(c.root, kLifted);
  EXPECT_EQ(c.text(), canon(kIfOptimized));
}

TEST(Pipeline, LoopWithCapturesIsLifted) {
  PassCase c(R"(
    graph @f(%x: f32[2], %n: i64) {
      %k = mul(2, 3) : i64
      %r = @loop(%k, %x) : f32[2]
      return %r
    }
    graph @loop(%i: i64, %acc: f32[2]) {
      %c = lt(%i, %n) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : f32[2]
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %a = Add(%acc, %x) : f32[2]
      %t = @loop(%j, %a) : f32[2]
      return %t
    }
    graph @exit() {
      return %acc
    }
  )");
  optimize(c.m, c.root, verify_each());
  ir::verify(c.root, kLifted);
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2], %n: i64) {
      %r = @loop(%n, %x, 6, %x) : f32[2]
      return %r
    }
    graph @loop(%n.1: i64, %x.1: f32[2], %i: i64, %acc: f32[2]) {
      %c = lt(%i, %n.1) : bool
      %1 = partial(@body, %i, %acc, %x.1, %n.1) : func
      %2 = partial(@exit, %acc) : func
      %s = switch(%c, %1, %2) : func
      %o = %s() : f32[2]
      return %o
    }
    graph @body(%i.1: i64, %acc.1: f32[2], %x.2: f32[2], %n.2: i64) {
      %j = add(%i.1, 1) : i64
      %a = Add(%acc.1, %x.2) : f32[2]
      %t = @loop(%n.2, %x.2, %j, %a) : f32[2]
      return %t
    }
    graph @exit(%acc.2: f32[2]) {
      return %acc.2
    }
  )"));
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> dir_listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path fresh_dir(const std::string& name) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// verify_each checks what the passes start from: IR broken by its builder (here a
// parameter without an abstract) is reported as the input's fault, not the first pass's.
TEST(Pipeline, VerifyEachChecksTheInput) {
  ir::Module m;
  ir::FuncGraph* f = ir::parse_graph(m,
                                     "graph @f(%x) {\n"
                                     "  %1 = neg(%x)\n"
                                     "  return %1\n"
                                     "}\n");
  try {
    optimize(m, f, verify_each());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("in the pipeline's input: IR verify failed: graph @f"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("the parameter has no abstract"), std::string::npos) << msg;
  }
}

TEST(Pipeline, DumpDirGetsTheIrAfterEveryPass) {
  std::filesystem::path dir = fresh_dir("mycel_pipeline_dump");
  PassCase c(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  std::string input = c.text();
  optimize(c.m, c.root, dump_to(dir.string()));
  std::vector<std::string> names = dir_listing(dir);
  // The input, then rounds of six passes (the last round changes nothing), then lift, then
  // expand_vjp and expand_vmap (which find no gradient or vmap to expand), then order_updates.
  // One program, numbered 001 (the directory was empty), unnamed.
  ASSERT_GE(names.size(), 10u);
  EXPECT_EQ(names.front(), "001_00_input.ir");
  EXPECT_EQ(names[1], "001_01_switch_simplify.ir");
  EXPECT_EQ(names[2], "001_02_inline.ir");
  EXPECT_EQ(names[3], "001_03_fold.ir");
  EXPECT_EQ(names[4], "001_04_simplify.ir");
  EXPECT_EQ(names[5], "001_05_cse.ir");
  EXPECT_EQ(names[6], "001_06_dce.ir");
  EXPECT_EQ(names[names.size() - 4], "001_" + std::to_string(names.size() - 4) + "_lift.ir");
  EXPECT_EQ(names[names.size() - 3], "001_" + std::to_string(names.size() - 3) + "_expand_vjp.ir");
  EXPECT_EQ(names[names.size() - 2], "001_" + std::to_string(names.size() - 2) + "_expand_vmap.ir");
  EXPECT_EQ(names.back(), "001_" + std::to_string(names.size() - 1) + "_order_updates.ir");
  EXPECT_EQ((names.size() - 5) % 6, 0u);
  EXPECT_EQ(read_file(dir / names.front()), input);
  EXPECT_EQ(read_file(dir / names.back()), c.text());
  // After switch_simplify the `if` is a direct call of the chosen branch.
  EXPECT_NE(read_file(dir / names[1]).find("= @then()"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// optimize() reads no environment variable; CompileOptions::from_env gives it the directory.
TEST(Pipeline, DumpDirFromEnvironment) {
  std::filesystem::path dir = fresh_dir("mycel_pipeline_env");
  ::setenv("MYCEL_DUMP_IR", dir.string().c_str(), 1);
  PassCase c(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  optimize(c.m, c.root, {});
  EXPECT_FALSE(std::filesystem::exists(dir));
  compiler::CompileOptions env = compiler::CompileOptions::from_env();
  ::unsetenv("MYCEL_DUMP_IR");
  optimize(c.m, c.root, env.pipeline());
  std::vector<std::string> names = dir_listing(dir);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "001_00_input.ir");
  EXPECT_EQ(read_file(dir / names.back()), c.text());
  std::filesystem::remove_all(dir);
}

// Each program optimised with a dump directory gets its own number (one more than the
// highest there) and name in its files' prefix: a later program never overwrites an
// earlier one's dumps.
TEST(Pipeline, DumpedProgramsAreNumberedAndNamed) {
  std::filesystem::path dir = fresh_dir("mycel_pipeline_programs");
  PassCase a(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  PassCase b(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  std::string input_b = b.text();
  optimize(a.m, a.root, dump_to(dir.string()));
  size_t first = dir_listing(dir).size();
  std::string a_last = read_file(dir / dir_listing(dir).back());
  PipelineOptions o = dump_to(dir.string());
  o.dump_name = "'train step' (x)";
  optimize(b.m, b.root, o);
  std::vector<std::string> names = dir_listing(dir);
  ASSERT_EQ(names.size(), 2 * first);
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(names[i].substr(0, 4), i < first ? "001_" : "002_") << names[i];
  EXPECT_EQ(names[first], "002_train_step_x_00_input.ir");
  EXPECT_EQ(read_file(dir / names[first]), input_b);
  EXPECT_EQ(read_file(dir / names[first - 1]), a_last);  // the first program's files kept
  // A file of another tool with a higher number: the next program follows it.
  std::ofstream(dir / "041_notes.txt") << "x";
  PassCase c(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  optimize(c.m, c.root, dump_to(dir.string()));
  EXPECT_TRUE(std::filesystem::exists(dir / "042_00_input.ir"));
  std::filesystem::remove_all(dir);
}

TEST(Pipeline, UnwritableDumpDirIsAnError) {
  PassCase c(kIfProgram, {{"one", tensor_f32({2}, {1})}});
  try {
    optimize(c.m, c.root, dump_to("/proc/mycel_no_such_dir/x"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MYCEL_DUMP_IR: cannot create"), std::string::npos)
        << e.what();
  }
}

// A deep MLP-like program: `layers` calls of a small @layer graph (MatMul, Add, ReLU, and a
// redundant x*1 and a duplicate ReLU), each inlined, simplified and merged.
std::string mlp_program(int layers) {
  std::string s = "graph @f(%x: f32[4, 8], %w: f32[8, 8], %b: f32[8], %one: f32[8]) {\n";
  std::string last = "%x";
  for (int k = 0; k < layers; ++k) {
    std::string name = "%h" + std::to_string(k);
    s += "  " + name + " = @layer(" + last + ", %w, %b, %one) : f32[4, 8]\n";
    last = name;
  }
  s += "  return " + last + "\n}\n";
  s += R"(graph @layer(%a: f32[4, 8], %wt: f32[8, 8], %bias: f32[8], %o: f32[8]) {
  %m = MatMul{transpose_a=False, transpose_b=False}(%a, %wt) : f32[4, 8]
  %s = Add(%m, %bias) : f32[4, 8]
  %t = Mul(%s, %o) : f32[4, 8]
  %r1 = ReLU(%t) : f32[4, 8]
  %r2 = ReLU(%t) : f32[4, 8]
  %y = Add(%r1, %r2) : f32[4, 8]
  return %y
}
)";
  return s;
}

TEST(Pipeline, DeepProgramOptimisesInLinearishTime) {
  for (int layers : {20, 400}) {
    PassCase c(mlp_program(layers), {{"one", tensor_f32({8}, {1})}});
    auto t0 = std::chrono::steady_clock::now();
    optimize(c.m, c.root);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ir::verify(c.root, kLifted);
    std::string text = c.text();
    // Everything inlined; per layer one MatMul, one Add, one ReLU and the final Add remain.
    EXPECT_EQ(text.find("@layer"), std::string::npos);
    size_t relus = 0;
    for (size_t p = text.find("ReLU("); p != std::string::npos; p = text.find("ReLU(", p + 1))
      ++relus;
    EXPECT_EQ(relus, static_cast<size_t>(layers));
    EXPECT_EQ(text.find("Mul("), std::string::npos);
    std::printf("[ pipeline ] %d layers: %.2f ms\n", layers, ms);
  }
}

bool same_value(const ir::Value& a, const ir::Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is(ir::ValueKind::Tensor)) {
    Tensor x = a.as_tensor().contiguous(), y = b.as_tensor().contiguous();
    return x.dtype() == y.dtype() && x.shape() == y.shape() &&
           std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
  }
  if (a.is_sequence()) {
    if (a.items().size() != b.items().size()) return false;
    for (size_t i = 0; i < a.items().size(); ++i)
      if (!same_value(a.items()[i], b.items()[i])) return false;
    return true;
  }
  return a == b;
}

// The oracle: the same program with lift alone (the executor's minimum) runs on the VM and
// must give bit-identical results (no pass here reorders floating-point math).
void expect_same_results(const std::string& program,
                         const std::vector<std::pair<std::string, Tensor>>& consts,
                         const std::vector<ir::Value>& args) {
  PassCase plain(program, consts), opt(program, consts);
  plain.run(compiler::lift, kLifted);
  optimize(opt.m, opt.root, verify_each());
  auto a = vm::Executable::compile(plain.root);
  auto b = vm::Executable::compile(opt.root);
  ir::Value want = a->run(args, nullptr), got = b->run(args, nullptr);
  EXPECT_TRUE(same_value(want, got))
      << vm::format_value(want) << " vs " << vm::format_value(got) << "\n"
      << opt.text();
}

Tensor ramp(const Shape& shape) {
  std::vector<float> v;
  for (int64_t i = 0; i < numel(shape); ++i) v.push_back(0.37f * static_cast<float>(i) - 1.1f);
  return tensor_f32(shape, v);
}

TEST(Pipeline, OptimisedProgramsComputeWhatUnoptimisedOnesDo) {
  expect_same_results(kIfProgram, {{"one", tensor_f32({2}, {1})}}, {ir::Value::tensor(ramp({2}))});
  expect_same_results(mlp_program(5), {{"one", tensor_f32({8}, {1})}},
                      {ir::Value::tensor(ramp({4, 8})), ir::Value::tensor(ramp({8, 8})),
                       ir::Value::tensor(ramp({8}))});
  const char* loop = R"(
    graph @f(%x: f32[2], %n: i64) {
      %k = mul(2, 3) : i64
      %r = @loop(%k, %x) : f32[2]
      return %r
    }
    graph @loop(%i: i64, %acc: f32[2]) {
      %c = lt(%i, %n) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : f32[2]
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %a = Add(%acc, %x) : f32[2]
      %e = @twice(%a) : f32[2]
      %t = @loop(%j, %e) : f32[2]
      return %t
    }
    graph @exit() {
      return %acc
    }
    graph @twice(%v: f32[2]) {
      %h = Neg(%v) : f32[2]
      %u = Add(%h, %h) : f32[2]
      return %u
    }
  )";
  expect_same_results(loop, {}, {ir::Value::tensor(ramp({2})), ir::Value::integer(20)});
}

}  // namespace
}  // namespace mycel::passtest
