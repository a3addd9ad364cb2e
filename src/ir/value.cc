#include "ir/value.h"

#include <bit>
#include <cstring>
#include <functional>
#include <sstream>

#include "base/error.h"
#include "ir/anf.h"

namespace mycel::ir {

namespace {
size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }
}  // namespace

const char* value_kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::None:
      return "None";
    case ValueKind::Bool:
      return "bool";
    case ValueKind::Int:
      return "int";
    case ValueKind::Float:
      return "float";
    case ValueKind::Str:
      return "str";
    case ValueKind::Tensor:
      return "Tensor";
    case ValueKind::DType:
      return "dtype";
    case ValueKind::Ellipsis:
      return "ellipsis";
    case ValueKind::Tuple:
      return "tuple";
    case ValueKind::List:
      return "list";
    case ValueKind::Dict:
      return "dict";
    case ValueKind::Slice:
      return "slice";
    case ValueKind::Prim:
      return "primitive";
    case ValueKind::Builtin:
      return "builtin";
    case ValueKind::Graph:
      return "function";
    case ValueKind::Closure:
      return "closure";
    case ValueKind::PyObj:
      return "object";
  }
  return "?";
}

const char* dtype_short_name(DType t) {
  switch (t) {
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "i8";
    case DType::UInt8:
      return "u8";
    case DType::Int16:
      return "i16";
    case DType::Int32:
      return "i32";
    case DType::Int64:
      return "i64";
    case DType::Float16:
      return "f16";
    case DType::BFloat16:
      return "bf16";
    case DType::Float32:
      return "f32";
    case DType::Float64:
      return "f64";
    case DType::UInt16:
      return "u16";
    case DType::UInt32:
      return "u32";
    case DType::UInt64:
      return "u64";
    case DType::Complex64:
      return "c64";
    case DType::Complex128:
      return "c128";
  }
  return "?";
}

bool dtype_from_short_name(std::string_view s, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (s == dtype_short_name(static_cast<DType>(i))) {
      *out = static_cast<DType>(i);
      return true;
    }
  return false;
}

Value Value::boolean(bool v) { return Value(ValueKind::Bool, v); }
Value Value::integer(int64_t v) { return Value(ValueKind::Int, v); }
Value Value::real(double v) { return Value(ValueKind::Float, v); }
Value Value::string(std::string v) {
  return Value(ValueKind::Str, std::make_shared<const std::string>(std::move(v)));
}
Value Value::tensor(Tensor t) {
  MC_ASSERT(t.defined());
  return Value(ValueKind::Tensor, std::move(t));
}
Value Value::dtype(DType t) { return Value(ValueKind::DType, t); }
Value Value::ellipsis() { return Value(ValueKind::Ellipsis, std::monostate{}); }
Value Value::tuple(std::vector<Value> items) {
  return Value(ValueKind::Tuple, std::make_shared<const SeqData>(SeqData{std::move(items)}));
}
Value Value::list(std::vector<Value> items) {
  return Value(ValueKind::List, std::make_shared<const SeqData>(SeqData{std::move(items)}));
}
Value Value::dict(std::vector<Value> keys, std::vector<Value> values) {
  MC_ASSERT(keys.size() == values.size());
  return Value(ValueKind::Dict,
               std::make_shared<const DictData>(DictData{std::move(keys), std::move(values)}));
}
Value Value::slice(Value start, Value stop, Value step) {
  return Value(ValueKind::Slice, std::make_shared<const SliceData>(SliceData{
                                     std::move(start), std::move(stop), std::move(step)}));
}
Value Value::prim(const OpDef& op, Attrs attrs) {
  return Value(ValueKind::Prim, std::make_shared<const PrimData>(PrimData{&op, std::move(attrs)}));
}
Value Value::builtin(Builtin b) { return Value(ValueKind::Builtin, b); }
Value Value::graph(FuncGraph* g) {
  MC_ASSERT(g != nullptr);
  return Value(ValueKind::Graph, g);
}
Value Value::closure(Value fn, std::vector<Value> args) {
  return Value(ValueKind::Closure,
               std::make_shared<const ClosureData>(ClosureData{std::move(fn), std::move(args)}));
}
Value Value::host(std::shared_ptr<const HostObject> obj) {
  MC_ASSERT(obj != nullptr);
  return Value(ValueKind::PyObj, std::move(obj));
}

bool Value::is_scalar() const {
  return kind_ == ValueKind::Bool || kind_ == ValueKind::Int || kind_ == ValueKind::Float;
}
bool Value::is_sequence() const { return kind_ == ValueKind::Tuple || kind_ == ValueKind::List; }
bool Value::is_callable() const {
  return kind_ == ValueKind::Prim || kind_ == ValueKind::Builtin || kind_ == ValueKind::Graph ||
         kind_ == ValueKind::Closure;
}

#define MC_EXPECT(cond, what) \
  MC_ASSERT((cond) && what != nullptr)  // a wrong accessor is a bug of the caller

bool Value::as_bool() const {
  MC_EXPECT(kind_ == ValueKind::Bool, "bool");
  return std::get<bool>(payload_);
}
int64_t Value::as_int() const {
  if (kind_ == ValueKind::Bool) return std::get<bool>(payload_) ? 1 : 0;
  MC_EXPECT(kind_ == ValueKind::Int, "int");
  return std::get<int64_t>(payload_);
}
double Value::as_float() const {
  if (kind_ == ValueKind::Float) return std::get<double>(payload_);
  return static_cast<double>(as_int());
}
const std::string& Value::as_str() const {
  MC_EXPECT(kind_ == ValueKind::Str, "str");
  return *std::get<std::shared_ptr<const std::string>>(payload_);
}
const Tensor& Value::as_tensor() const {
  MC_EXPECT(kind_ == ValueKind::Tensor, "tensor");
  return std::get<Tensor>(payload_);
}
DType Value::as_dtype() const {
  MC_EXPECT(kind_ == ValueKind::DType, "dtype");
  return std::get<DType>(payload_);
}
const std::vector<Value>& Value::items() const {
  MC_EXPECT(is_sequence(), "sequence");
  return std::get<std::shared_ptr<const SeqData>>(payload_)->items;
}
const DictData& Value::as_dict() const {
  MC_EXPECT(kind_ == ValueKind::Dict, "dict");
  return *std::get<std::shared_ptr<const DictData>>(payload_);
}
const SliceData& Value::as_slice() const {
  MC_EXPECT(kind_ == ValueKind::Slice, "slice");
  return *std::get<std::shared_ptr<const SliceData>>(payload_);
}
const PrimData& Value::as_prim() const {
  MC_EXPECT(kind_ == ValueKind::Prim, "prim");
  return *std::get<std::shared_ptr<const PrimData>>(payload_);
}
Builtin Value::as_builtin() const {
  MC_EXPECT(kind_ == ValueKind::Builtin, "builtin");
  return std::get<Builtin>(payload_);
}
FuncGraph* Value::as_graph() const {
  MC_EXPECT(kind_ == ValueKind::Graph, "graph");
  return std::get<FuncGraph*>(payload_);
}
const ClosureData& Value::as_closure() const {
  MC_EXPECT(kind_ == ValueKind::Closure, "closure");
  return *std::get<std::shared_ptr<const ClosureData>>(payload_);
}
const std::shared_ptr<const HostObject>& Value::as_host() const {
  MC_EXPECT(kind_ == ValueKind::PyObj, "host object");
  return std::get<std::shared_ptr<const HostObject>>(payload_);
}

namespace {
bool attrs_equal(const Attrs& a, const Attrs& b) { return a.items() == b.items(); }
bool seq_equal(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
}  // namespace

bool Value::operator==(const Value& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case ValueKind::None:
    case ValueKind::Ellipsis:
      return true;
    case ValueKind::Bool:
      return as_bool() == o.as_bool();
    case ValueKind::Int:
      return as_int() == o.as_int();
    case ValueKind::Float:
      return std::bit_cast<uint64_t>(as_float()) == std::bit_cast<uint64_t>(o.as_float());
    case ValueKind::Str:
      return as_str() == o.as_str();
    case ValueKind::Tensor:
      return as_tensor().same(o.as_tensor());
    case ValueKind::DType:
      return as_dtype() == o.as_dtype();
    case ValueKind::Tuple:
    case ValueKind::List:
      return seq_equal(items(), o.items());
    case ValueKind::Dict:
      return seq_equal(as_dict().keys, o.as_dict().keys) &&
             seq_equal(as_dict().values, o.as_dict().values);
    case ValueKind::Slice:
      return as_slice().start == o.as_slice().start && as_slice().stop == o.as_slice().stop &&
             as_slice().step == o.as_slice().step;
    case ValueKind::Prim:
      return as_prim().op == o.as_prim().op && attrs_equal(as_prim().attrs, o.as_prim().attrs);
    case ValueKind::Builtin:
      return as_builtin() == o.as_builtin();
    case ValueKind::Graph:
      return as_graph() == o.as_graph();
    case ValueKind::Closure:
      return as_closure().fn == o.as_closure().fn &&
             seq_equal(as_closure().args, o.as_closure().args);
    case ValueKind::PyObj:
      return as_host()->same(*o.as_host());
  }
  return false;
}

size_t Value::hash() const {
  size_t h = static_cast<size_t>(kind_) * 1000003u;
  switch (kind_) {
    case ValueKind::None:
    case ValueKind::Ellipsis:
      return h;
    case ValueKind::Bool:
    case ValueKind::Int:
      return mix(h, std::hash<int64_t>()(as_int()));
    case ValueKind::Float:
      return mix(h, std::hash<uint64_t>()(std::bit_cast<uint64_t>(as_float())));
    case ValueKind::Str:
      return mix(h, std::hash<std::string>()(as_str()));
    case ValueKind::Tensor:
      return mix(h, std::hash<const void*>()(as_tensor().impl().get()));
    case ValueKind::DType:
      return mix(h, static_cast<size_t>(as_dtype()));
    case ValueKind::Tuple:
    case ValueKind::List:
      for (const Value& v : items()) h = mix(h, v.hash());
      return h;
    case ValueKind::Dict:
      for (size_t i = 0; i < as_dict().keys.size(); ++i)
        h = mix(mix(h, as_dict().keys[i].hash()), as_dict().values[i].hash());
      return h;
    case ValueKind::Slice:
      return mix(mix(mix(h, as_slice().start.hash()), as_slice().stop.hash()),
                 as_slice().step.hash());
    case ValueKind::Prim: {
      h = mix(h, static_cast<size_t>(as_prim().op->id));
      for (const auto& [k, v] : as_prim().attrs.items())
        h = mix(mix(h, std::hash<std::string>()(k)), std::hash<std::string>()(attr_value_str(v)));
      return h;
    }
    case ValueKind::Builtin:
      return mix(h, static_cast<size_t>(as_builtin()));
    case ValueKind::Graph:
      return mix(h, std::hash<const void*>()(as_graph()));
    case ValueKind::Closure:
      h = mix(h, as_closure().fn.hash());
      for (const Value& v : as_closure().args) h = mix(h, v.hash());
      return h;
    case ValueKind::PyObj:
      return mix(h, as_host()->hash());
  }
  return h;
}

namespace {
void print_float(std::ostringstream& os, double v) {
  std::ostringstream t;
  t.precision(17);
  t << v;
  std::string s = t.str();
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  os << s;
}

void print_attr(std::ostringstream& os, const AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v)) {
    os << (*b ? "True" : "False");
  } else if (auto* i = std::get_if<int64_t>(&v)) {
    os << *i;
  } else if (auto* f = std::get_if<double>(&v)) {
    print_float(os, *f);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    os << '"' << *s << '"';
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    os << '(';
    for (size_t k = 0; k < is->size(); ++k) os << (k ? ", " : "") << (*is)[k];
    if (is->size() == 1) os << ',';
    os << ')';
  } else if (auto* d = std::get_if<DType>(&v)) {
    os << dtype_short_name(*d);
  } else {
    os << "None";
  }
}

using GraphName = std::function<std::string(const FuncGraph*)>;

void print_value(std::ostringstream& os, const Value& v, const GraphName* graph_name) {
  switch (v.kind()) {
    case ValueKind::None:
      os << "None";
      return;
    case ValueKind::Ellipsis:
      os << "...";
      return;
    case ValueKind::Bool:
      os << (v.as_bool() ? "True" : "False");
      return;
    case ValueKind::Int:
      os << v.as_int();
      return;
    case ValueKind::Float:
      print_float(os, v.as_float());
      return;
    case ValueKind::Str: {
      os << '"';
      for (char c : v.as_str()) {
        if (c == '"' || c == '\\') os << '\\';
        if (c == '\n') {
          os << "\\n";
          continue;
        }
        os << c;
      }
      os << '"';
      return;
    }
    case ValueKind::Tensor: {
      const Tensor& t = v.as_tensor();
      os << "tensor<" << dtype_short_name(t.dtype()) << shape_str(t.shape()) << ">";
      if (t.numel() <= 8) {
        std::string s = t.to_string();
        for (char& c : s)
          if (c == '\n') c = ' ';
        os << '(' << s << ')';
      }
      return;
    }
    case ValueKind::DType:
      os << dtype_short_name(v.as_dtype());
      return;
    case ValueKind::Tuple:
    case ValueKind::List: {
      bool tup = v.kind() == ValueKind::Tuple;
      os << (tup ? '(' : '[');
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) os << ", ";
        print_value(os, v.items()[i], graph_name);
      }
      if (tup && v.items().size() == 1) os << ',';
      os << (tup ? ')' : ']');
      return;
    }
    case ValueKind::Dict: {
      os << '{';
      for (size_t i = 0; i < v.as_dict().keys.size(); ++i) {
        if (i) os << ", ";
        print_value(os, v.as_dict().keys[i], graph_name);
        os << ": ";
        print_value(os, v.as_dict().values[i], graph_name);
      }
      os << '}';
      return;
    }
    case ValueKind::Slice:
      os << "slice(";
      print_value(os, v.as_slice().start, graph_name);
      os << ", ";
      print_value(os, v.as_slice().stop, graph_name);
      os << ", ";
      print_value(os, v.as_slice().step, graph_name);
      os << ')';
      return;
    case ValueKind::Prim: {
      os << v.as_prim().op->name;
      const auto& items = v.as_prim().attrs.items();
      if (!items.empty()) {
        os << '{';
        for (size_t i = 0; i < items.size(); ++i) {
          os << (i ? ", " : "") << items[i].first << '=';
          print_attr(os, items[i].second);
        }
        os << '}';
      }
      return;
    }
    case ValueKind::Builtin:
      os << builtin_name(v.as_builtin());
      return;
    case ValueKind::Graph:
      os << '@' << (graph_name ? (*graph_name)(v.as_graph()) : v.as_graph()->name());
      return;
    case ValueKind::Closure:
      os << "partial(";
      print_value(os, v.as_closure().fn, graph_name);
      for (const Value& a : v.as_closure().args) {
        os << ", ";
        print_value(os, a, graph_name);
      }
      os << ')';
      return;
    case ValueKind::PyObj:
      os << '<' << v.as_host()->repr() << '>';
      return;
  }
}
}  // namespace

std::string exception_name(const Value& v) {
  if (v.is(ValueKind::Str)) return v.as_str();
  if (!v.is(ValueKind::PyObj)) return "";
  std::string r = v.as_host()->repr();
  size_t b = r.find('\'');
  size_t e = r.rfind('\'');
  if (b != std::string::npos && e != std::string::npos && e > b) r = r.substr(b + 1, e - b - 1);
  size_t dot = r.rfind('.');
  return dot == std::string::npos ? r : r.substr(dot + 1);
}

std::string Value::to_string() const {
  std::ostringstream os;
  print_value(os, *this, nullptr);
  return os.str();
}

std::string Value::to_string(const GraphName& graph_name) const {
  std::ostringstream os;
  print_value(os, *this, &graph_name);
  return os.str();
}

}  // namespace mycel::ir
