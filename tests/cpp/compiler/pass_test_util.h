// Helpers of the pass tests: parse the "before" IR text, bind tensor constants (which have
// no text form) in place of named parameters, run a pass with the verifier before and
// after, and compare the printed IR with the expected "after" text.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/passes.h"
#include "ir/anf.h"
#include "ir/manager.h"

namespace mycel::passtest {

using ir::FuncGraph;
using ir::Module;

// A float32 tensor of `shape` holding `values` (row-major), or filled with values[0].
inline Tensor tensor_f32(const Shape& shape, const std::vector<float>& values) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = values.size() == 1 ? values[0] : values[static_cast<size_t>(i)];
  return t;
}

inline Tensor tensor_of(DType dt, const Shape& shape, double v) {
  return Tensor::full(shape, Scalar::from_float(v), dt);
}

// Leading/trailing blank lines and indentation of the expected text do not matter; lines
// keep their own indentation relative to the least indented line.
inline std::string dedent(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    lines.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  while (!lines.empty() && lines.front().find_first_not_of(' ') == std::string::npos)
    lines.erase(lines.begin());
  while (!lines.empty() && lines.back().find_first_not_of(' ') == std::string::npos)
    lines.pop_back();
  size_t indent = std::string::npos;
  for (const std::string& l : lines)
    if (l.find_first_not_of(' ') != std::string::npos)
      indent = std::min(indent, l.find_first_not_of(' '));
  std::string out;
  for (const std::string& l : lines) out += (l.size() >= indent ? l.substr(indent) : "") + "\n";
  return out;
}

struct PassCase {
  Module m;
  FuncGraph* root = nullptr;

  // Parses `text`; every parameter of the entry graph named in `consts` is replaced by the
  // tensor constant given (and removed from the parameter list).
  explicit PassCase(const std::string& text,
                    const std::vector<std::pair<std::string, Tensor>>& consts = {}) {
    root = ir::parse_graph(m, dedent(text));
    for (const auto& [name, t] : consts) bind(name, ir::Value::tensor(t));
    ir::verify(root, {.specialized = true});
  }

  void bind(const std::string& name, const ir::Value& v) {
    for (size_t i = 0; i < root->params().size(); ++i) {
      if (root->param(i)->name() != name) continue;
      ir::ValueNode* c = m.value(v);
      c->set_abstract(ir::Abstract::constant(v));
      {
        ir::Manager mng(m, root);
        mng.replace(root->param(i), c);
      }
      root->remove_param(i);
      return;
    }
    ADD_FAILURE() << "no parameter %" << name;
  }

  std::string text() const { return ir::print_graph(root); }

  // Runs the pass, verifies the result and returns whether it reported a change.
  bool run(bool (*pass)(Module&, FuncGraph*), ir::VerifyOptions checks = {.specialized = true}) {
    bool changed = pass(m, root);
    ir::verify(root, checks);
    return changed;
  }
};

// The canonical printed form of IR text (names and layout as the printer writes them).
inline std::string canon(const std::string& text) {
  Module m;
  return ir::print_graph(ir::parse_graph(m, dedent(text)));
}

// Runs `pass` on `before` and expects `after` (both IR text), then runs it again and expects
// no change (the pass reached its fixed point).
inline void expect_rewrite(bool (*pass)(Module&, FuncGraph*), const std::string& before,
                           const std::string& after) {
  PassCase c(before);
  EXPECT_TRUE(c.run(pass));
  EXPECT_EQ(c.text(), canon(after));
  EXPECT_FALSE(c.run(pass)) << c.text();
}

// Runs `pass` on `before` and expects it to leave the printed IR as it was. With
// `merges_constants` (cse) the first run may report a change: equal constants, which print
// alike, were merged; a second run must not.
inline void expect_unchanged(bool (*pass)(Module&, FuncGraph*), const std::string& before,
                             bool merges_constants = false) {
  PassCase c(before);
  std::string text = c.text();
  bool changed = c.run(pass);
  if (!merges_constants) {
    EXPECT_FALSE(changed);
  }
  EXPECT_EQ(c.text(), text);
  EXPECT_FALSE(c.run(pass));
}

}  // namespace mycel::passtest
