// A small JSON writer and parser: enough for MindRecord's header (objects, arrays, strings,
// integers, null). Not a general JSON library: no floats, no booleans.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mycel::data {

// Appends s as a JSON string literal (quotes and escapes).
void json_string(std::string* out, std::string_view s);

struct Json {
  enum class Kind { Null, Int, Str, Arr, Obj } kind = Kind::Null;
  int64_t i = 0;
  std::string s;
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;  // in file order

  const Json* get(std::string_view key) const {
    for (const auto& [k, v] : obj)
      if (k == key) return &v;
    return nullptr;
  }
};

// Whether s is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF): what Python can decode into a str. Text sources and the MindRecord reader check
// string values with it, so a bad byte is an error naming the file, not a UnicodeDecodeError.
bool valid_utf8(std::string_view s);

// Parses a whole document; throws std::runtime_error naming what is malformed (the MindRecord
// reader turns it into a "corrupt" message naming the file).
Json parse_json(std::string_view text);

}  // namespace mycel::data
