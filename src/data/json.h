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

  // Declared here and defaulted below: clang 14 (the fuzz build) instantiates a member's
  // constexpr destructor where it is declared, before Json is complete.
  Json();
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;
  ~Json();

  const Json* get(std::string_view key) const {
    for (const auto& [k, v] : obj)
      if (k == key) return &v;
    return nullptr;
  }
};

inline Json::Json() = default;
inline Json::Json(const Json&) = default;
inline Json::Json(Json&&) noexcept = default;
inline Json& Json::operator=(const Json&) = default;
inline Json& Json::operator=(Json&&) noexcept = default;
inline Json::~Json() = default;

// Parses a whole document; throws std::runtime_error naming what is malformed (the MindRecord
// reader turns it into a "corrupt" message naming the file).
Json parse_json(std::string_view text);

}  // namespace mycel::data
