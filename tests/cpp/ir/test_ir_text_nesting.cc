// parse_graph on deeply nested text (found by fuzz/fuzz_ir_text.cc): constants and types
// nested past the limit are a ValueError naming line:col, not a stack overflow; nesting up to
// the limit still parses.
#include <gtest/gtest.h>

#include <string>

#include "ir/anf.h"

namespace mycel::ir {
namespace {

std::string nested(const std::string& open, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::string error_of(const std::string& text) {
  Module m;
  try {
    parse_graph(m, text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    return e.message();
  }
  return "";
}

TEST(IrTextNesting, DeepConstantsAreValueErrors) {
  for (const char* open : {"[", "(", "partial(", "{1: "}) {
    std::string close = open[0] == '[' ? "]" : open[0] == '{' ? "}" : ",)";
    std::string text = "graph @main(%a) {\n  %0 = make_tuple(%a, " + nested(open, close, 100000) +
                       ")\n" + "  return %0\n}\n";
    std::string msg = error_of(text);
    EXPECT_NE(msg.find("2:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nested deeper than 256 levels"), std::string::npos) << open << msg;
  }
}

TEST(IrTextNesting, DeepTypesAreValueErrors) {
  std::string text = "graph @main(%a: " + nested("tuple(", ")", 100000) + ") {\n  return %a\n}\n";
  EXPECT_NE(error_of(text).find("nested deeper than 256 levels"), std::string::npos);
}

TEST(IrTextNesting, NestingUpToTheLimitParses) {
  Module m;
  std::string text =
      "graph @main(%a) {\n  %0 = make_tuple(%a, " + nested("[", "]", 200) + ")\n  return %0\n}\n";
  FuncGraph* g = parse_graph(m, text);
  ASSERT_NE(g, nullptr);
  EXPECT_NE(print_graph(g).find(nested("[", "]", 200)), std::string::npos);
}

}  // namespace
}  // namespace mycel::ir
