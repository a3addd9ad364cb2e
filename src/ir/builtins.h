// The builtins of ir/builtins.def: the enum and what the IR layer knows of each (its text
// name, arity, operator symbol and flags), generated from the .def lines. The executor, the
// fold pass and the K transform make their own tables of functions from the same lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mycel::ir {

enum class Builtin : uint16_t {
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) name,
#include "ir/builtins.def"
#undef BUILTIN
};

inline constexpr size_t kNumBuiltins = 0
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) +1
#include "ir/builtins.def"
#undef BUILTIN
    ;

// The flags column of builtins.def.
enum BuiltinFlag : uint8_t {
  B_NONE = 0,
  B_OPERATOR = 1 << 0,  // a Python operator: on scalars only once specialised
  B_FRONT = 1 << 1,     // resolved by specialisation: absent from specialised IR
  B_EFFECT = 1 << 2,    // runs for its effect: never merged, dropped or folded
  B_HOST = 1 << 3,      // calls the host at run time: a MINDIR file cannot hold it
};

struct BuiltinDef {
  const char* name;    // the IR text name ("make_tuple")
  int arity;           // -1: variadic
  const char* symbol;  // the Python operator ("+", "unary -") or the text name
  uint8_t flags;       // BuiltinFlag
  bool executes;       // the executor runs it (its vm column is not vm_none)
};

const BuiltinDef& builtin_def(Builtin b);
inline const char* builtin_name(Builtin b) { return builtin_def(b).name; }
inline int builtin_arity(Builtin b) { return builtin_def(b).arity; }
inline bool builtin_has(Builtin b, BuiltinFlag f) { return (builtin_def(b).flags & f) != 0; }
// Whether the executor can run it; the others are gone before execution.
inline bool builtin_executes(Builtin b) { return builtin_def(b).executes; }
bool find_builtin(std::string_view text, Builtin* out);

}  // namespace mycel::ir
