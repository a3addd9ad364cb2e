// Helpers for the IR tests: building graphs by hand.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"
#include "ir/anf.h"

namespace mycel::ir::testing {

inline const OpDef& op(const char* name) {
  const OpDef* d = find_op(name);
  MC_ASSERT(d != nullptr, "no op ", name);
  return *d;
}

inline AbsPtr f32(std::initializer_list<int64_t> dims) {
  Shape s;
  for (int64_t d : dims) s.push_back(d);
  return Abstract::tensor(DType::Float32, s);
}

inline ValueNode* gval(Module& m, FuncGraph* g) { return m.value(Value::graph(g)); }

// The message of the Error `fn` throws ("" if none).
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace mycel::ir::testing
