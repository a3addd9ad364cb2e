// Command-line flags of the lite tools (mycel_benchmark, mycel_convert), in MindSpore Lite's
// form: --name=value. An unknown flag, a flag without '=' or given twice, and a missing
// required flag are ValueErrors naming the tool and listing what it takes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace mycel::lite {

struct Flags {
  std::string tool;
  std::map<std::string, std::string> values;

  bool has(const std::string& name) const { return values.count(name) != 0; }
  const std::string& get(const std::string& name) const;  // required
  std::string get(const std::string& name, const std::string& dflt) const;
  int64_t get_int(const std::string& name, int64_t dflt, int64_t lo, int64_t hi) const;
};

// `allowed` lists the flag names without dashes.
Flags parse_flags(const std::string& tool, const std::vector<std::string>& args,
                  const std::vector<std::string>& allowed);

// Splits "a,b,c" at commas (empty pieces dropped).
std::vector<std::string> split_commas(const std::string& s);

}  // namespace mycel::lite
