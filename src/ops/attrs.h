// Op attributes: named compile-time values (axis, keep_dims, pad_mode, ...). Each op's table
// entry declares its attributes with a kind and a default; make_attrs() fills defaults and
// rejects unknown names or wrong kinds, so kernels can read attributes without checking.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tensor/dtype.h"

namespace mycel {

enum class AttrKind : uint8_t { Bool, Int, Float, Str, Ints, DType };

// monostate marks "no value" (a required attribute not given yet).
using AttrValue =
    std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>, DType>;

// When Python passes the attribute: at construction (P.Conv2D(out_channel=6, ...)) or as an
// extra call argument after the tensor inputs (P.ReduceSum()(x, axis)).
enum class AttrWhen : uint8_t { Init, Call };

struct AttrSpec {
  const char* name;
  AttrKind kind;
  AttrValue dflt;  // monostate: required
  AttrWhen when;
};

class Attrs {
 public:
  Attrs() = default;
  void set(std::string_view name, AttrValue v);
  bool has(std::string_view name) const { return find(name) != nullptr; }
  const AttrValue& get(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  const std::string& get_str(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;
  DType get_dtype(std::string_view name) const;
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

 private:
  const AttrValue* find(std::string_view name) const;
  std::vector<std::pair<std::string, AttrValue>> items_;
};

std::string_view attr_kind_name(AttrKind k);
std::string attr_value_str(const AttrValue& v);

// Helpers for defaults in the .def tables.
namespace attr_default {
inline AttrValue none() { return std::monostate{}; }
inline AttrValue b(bool v) { return v; }
inline AttrValue i(int64_t v) { return v; }
inline AttrValue f(double v) { return v; }
inline AttrValue s(const char* v) { return std::string(v); }
template <class... I>
inline AttrValue ints(I... v) {
  return std::vector<int64_t>{static_cast<int64_t>(v)...};
}
inline AttrValue dt(DType t) { return t; }
}  // namespace attr_default

}  // namespace mycel
