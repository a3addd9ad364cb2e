// The IR's table of builtins (ir/builtins.h), from ir/builtins.def.
#include "ir/builtins.h"

#include <iterator>
#include <string_view>

namespace mycel::ir {

namespace {
constexpr BuiltinDef kBuiltins[] = {
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags)                 \
  {text, nargs, symbol[0] != '\0' ? symbol : text, static_cast<uint8_t>(flags), \
   std::string_view(#vm) != "vm_none"},
#include "ir/builtins.def"
#undef BUILTIN
};
static_assert(std::size(kBuiltins) == kNumBuiltins);
}  // namespace

const BuiltinDef& builtin_def(Builtin b) { return kBuiltins[static_cast<size_t>(b)]; }

bool find_builtin(std::string_view text, Builtin* out) {
  for (size_t i = 0; i < kNumBuiltins; ++i)
    if (text == kBuiltins[i].name) {
      *out = static_cast<Builtin>(i);
      return true;
    }
  return false;
}

}  // namespace mycel::ir
