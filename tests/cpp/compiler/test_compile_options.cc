// The compile driver's options (compiler/compile.h): one rule for flag variables (base/env.h),
// CompileOptions::from_env, and the compile log of compile_graph.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/env.h"
#include "compiler/compile.h"
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::CompileOptions;
using ir::Value;

// Sets (or, with nullopt, unsets) an environment variable for a scope; restores it after.
class EnvVar {
 public:
  EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CompileOptions, FlagRuleOffValues) {
  EXPECT_FALSE(flag_value_on(nullptr));
  for (const char* v : {"", "0", "false", "False", "FALSE", "off", "Off", "OFF"})
    EXPECT_FALSE(flag_value_on(v)) << "'" << v << "'";
}

TEST(CompileOptions, FlagRuleAnythingElseIsOn) {
  for (const char* v : {"1", "2", "true", "True", "on", "yes", "verbose", "00", " 0"})
    EXPECT_TRUE(flag_value_on(v)) << "'" << v << "'";
}

TEST(CompileOptions, FromEnvUnsetIsAllOff) {
  EnvVar a("MYCEL_VERIFY_IR", std::nullopt), b("MYCEL_LOG_COMPILE", std::nullopt),
      c("MYCEL_LOG_RECOMPILE", std::nullopt), d("MYCEL_DUMP_IR", std::nullopt);
  CompileOptions o = CompileOptions::from_env();
  EXPECT_FALSE(o.verify_each);
  EXPECT_FALSE(o.log);
  EXPECT_FALSE(o.log_recompile);
  EXPECT_EQ(o.dump_dir, "");
  EXPECT_FALSE(static_cast<bool>(o.log_to));
}

TEST(CompileOptions, FromEnvReadsEachVariable) {
  EnvVar a("MYCEL_VERIFY_IR", "1"), b("MYCEL_LOG_COMPILE", "yes"), c("MYCEL_LOG_RECOMPILE", "on"),
      d("MYCEL_DUMP_IR", "/tmp/mycel_ir");
  CompileOptions o = CompileOptions::from_env();
  EXPECT_TRUE(o.verify_each);
  EXPECT_TRUE(o.log);
  EXPECT_TRUE(o.log_recompile);
  EXPECT_EQ(o.dump_dir, "/tmp/mycel_ir");
  compiler::PipelineOptions p = o.pipeline();
  EXPECT_TRUE(p.verify_each);
  EXPECT_EQ(p.dump_dir, "/tmp/mycel_ir");
  EXPECT_TRUE(static_cast<bool>(p.log));
}

// The bug this rule fixed: MYCEL_LOG_COMPILE=0 logged the passes' times in one place.
TEST(CompileOptions, ZeroFalseOffAreOffForEveryFlag) {
  for (const char* v : {"0", "false", "off", ""}) {
    EnvVar a("MYCEL_VERIFY_IR", v), b("MYCEL_LOG_COMPILE", v), c("MYCEL_LOG_RECOMPILE", v);
    CompileOptions o = CompileOptions::from_env();
    EXPECT_FALSE(o.verify_each) << v;
    EXPECT_FALSE(o.log) << v;
    EXPECT_FALSE(o.log_recompile) << v;
    EXPECT_FALSE(static_cast<bool>(o.pipeline().log)) << v;
  }
}

const char* kProgram = R"(
  graph @f(%x: f32[2]) {
    %a = Mul(%x, %x) : f32[2]
    %b = Add(%a, %x) : f32[2]
    return %b
  }
)";

TEST(CompileOptions, CompileGraphLogsPassesAndStagesToLogTo) {
  PassCase c(kProgram);
  CompileOptions o;
  o.log = true;
  o.verify_each = true;
  std::vector<std::string> lines;
  o.log_to = [&](const std::string& line) { lines.push_back(line); };
  auto exe = compiler::compile_graph(c.m, c.root, o, "'f'");
  ASSERT_NE(exe, nullptr);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.front().rfind("mycel: pass switch_simplify", 0), 0u) << lines.front();
  const std::string& last = lines.back();
  EXPECT_EQ(last.rfind("mycel: compiled 'f': passes ", 0), 0u) << last;
  EXPECT_NE(last.find(" ms, executable "), std::string::npos) << last;
  EXPECT_EQ(last.back(), '\n');
  Value r = exe->run({Value::tensor(tensor_f32({2}, {2, 3}))}, nullptr);
  EXPECT_EQ(r.as_tensor().data<float>()[0], 6.0f);
  EXPECT_EQ(r.as_tensor().data<float>()[1], 12.0f);
}

TEST(CompileOptions, CompileGraphWithoutLogWritesNothing) {
  PassCase c(kProgram);
  CompileOptions o;
  std::vector<std::string> lines;
  o.log_to = [&](const std::string& line) { lines.push_back(line); };
  compiler::compile_graph(c.m, c.root, o, "'f'");
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace mycel::passtest
