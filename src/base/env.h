// Environment variables that switch mycel's diagnostics on (MYCEL_VERIFY_IR, MYCEL_LOG_COMPILE,
// MYCEL_LOG_RECOMPILE, MYCEL_PROFILE_OPS, ...). One rule for every flag:
//
//   unset, "", "0", "false", "off"   off (the words in any case: "False", "OFF")
//   anything else ("1", "yes", ...)  on
//
// so MYCEL_LOG_COMPILE=0 is off wherever it is read. The compiler's variables are read in one
// place, compiler::CompileOptions::from_env (compiler/compile.h).
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

namespace mycel {

// Whether a flag's value means on (see above); nullptr (unset) is off.
inline bool flag_value_on(const char* value) {
  if (value == nullptr) return false;
  std::string lower;
  for (const char* p = value; *p != '\0'; ++p)
    lower += (*p >= 'A' && *p <= 'Z') ? static_cast<char>(*p - 'A' + 'a') : *p;
  return !(lower.empty() || lower == "0" || lower == "false" || lower == "off");
}

// The flag environment variable `name`: on or off by the rule above.
inline bool env_flag(const char* name) { return flag_value_on(std::getenv(name)); }

// The value of the environment variable `name`; "" when unset.
inline std::string env_string(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace mycel
