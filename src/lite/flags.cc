#include "lite/flags.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "base/error.h"

namespace mycel::lite {

namespace {
std::string listing(const std::vector<std::string>& allowed) {
  std::string s;
  for (const auto& a : allowed) s += (s.empty() ? "--" : ", --") + a;
  return s;
}
}  // namespace

const std::string& Flags::get(const std::string& name) const {
  auto it = values.find(name);
  MC_CHECK(it != values.end(), Value, tool, ": --", name, " is required");
  return it->second;
}

std::string Flags::get(const std::string& name, const std::string& dflt) const {
  auto it = values.find(name);
  return it == values.end() ? dflt : it->second;
}

int64_t Flags::get_int(const std::string& name, int64_t dflt, int64_t lo, int64_t hi) const {
  auto it = values.find(name);
  if (it == values.end()) return dflt;
  const char* s = it->second.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  MC_CHECK(*s && *end == '\0' && errno == 0 && v >= lo && v <= hi, Value, tool, ": --", name, "=",
           it->second, " is not an integer in [", lo, ", ", hi, "]");
  return v;
}

Flags parse_flags(const std::string& tool, const std::vector<std::string>& args,
                  const std::vector<std::string>& allowed) {
  Flags f;
  f.tool = tool;
  for (const std::string& a : args) {
    auto eq = a.find('=');
    MC_CHECK(a.rfind("--", 0) == 0 && eq != std::string::npos, Value, tool, ": '", a,
             "' is not of the form --name=value (flags: ", listing(allowed), ")");
    std::string name = a.substr(2, eq - 2);
    MC_CHECK(std::find(allowed.begin(), allowed.end(), name) != allowed.end(), Value, tool,
             ": unknown flag --", name, " (flags: ", listing(allowed), ")");
    MC_CHECK(f.values.emplace(name, a.substr(eq + 1)).second, Value, tool, ": --", name,
             " given twice");
  }
  return f;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t c = s.find(',', at);
    if (c == std::string::npos) c = s.size();
    if (c > at) out.push_back(s.substr(at, c - at));
    at = c + 1;
  }
  return out;
}

}  // namespace mycel::lite
