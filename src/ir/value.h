// Value: a compile-time constant of the IR (what a ValueNode holds) and, equally, a run-time
// value of the graph executor. One type serves both so that constant folding, the executor
// and the front end's conversions agree on what a value is.
//
//   None | bool | int64 | float64 | str | Tensor | DType | Ellipsis
//   Tuple(values) | List(values) | Dict(keys, values) | Slice(start, stop, step)
//   Prim(op, attrs)       a primitive of the op table with its attributes
//   Builtin               a graph-level primitive (ir/builtins.def: switch, make_tuple, ...)
//   Graph(FuncGraph*)     a function of the IR
//   Closure(fn, args)     fn partially applied to args (partial; run-time closures)
//   PyObj                 an opaque host (Python) object, for resolution and JIT fallback
//
// Values are immutable and cheap to copy (scalars inline, the rest shared).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/builtins.h"
#include "ops/op_table.h"
#include "tensor/tensor.h"

namespace mycel::ir {

class FuncGraph;
class Value;

enum class ValueKind : uint8_t {
  None,
  Bool,
  Int,
  Float,
  Str,
  Tensor,
  DType,
  Ellipsis,
  Tuple,
  List,
  Dict,
  Slice,
  Prim,
  Builtin,
  Graph,
  Closure,
  PyObj,
};
const char* value_kind_name(ValueKind k);

// An opaque host object (a Python object held with its reference count). The Python
// bindings implement it; the IR only compares, hashes and prints it.
class HostObject {
 public:
  virtual ~HostObject() = default;
  virtual std::string repr() const = 0;
  virtual size_t hash() const = 0;
  virtual bool same(const HostObject& other) const = 0;  // identity of the host object
};

struct PrimData {
  const OpDef* op;
  Attrs attrs;
};
struct SeqData {
  std::vector<Value> items;
};
struct DictData {
  std::vector<Value> keys;
  std::vector<Value> values;
};
struct SliceData;
struct ClosureData;

class Value {
 public:
  Value() = default;  // None
  static Value none() { return Value(); }
  static Value boolean(bool v);
  static Value integer(int64_t v);
  static Value real(double v);
  static Value string(std::string v);
  static Value tensor(Tensor t);
  static Value dtype(DType t);
  static Value ellipsis();
  static Value tuple(std::vector<Value> items);
  static Value list(std::vector<Value> items);
  static Value dict(std::vector<Value> keys, std::vector<Value> values);
  static Value slice(Value start, Value stop, Value step);
  static Value prim(const OpDef& op, Attrs attrs);
  static Value builtin(Builtin b);
  static Value graph(FuncGraph* g);
  static Value closure(Value fn, std::vector<Value> args);
  static Value host(std::shared_ptr<const HostObject> obj);

  ValueKind kind() const { return kind_; }
  bool is(ValueKind k) const { return kind_ == k; }
  bool is_none() const { return kind_ == ValueKind::None; }
  bool is_scalar() const;    // bool, int or float
  bool is_sequence() const;  // tuple or list
  bool is_callable() const;  // prim, builtin, graph, closure (a host object may be too)

  bool as_bool() const;
  int64_t as_int() const;   // also accepts bool
  double as_float() const;  // also accepts bool and int
  const std::string& as_str() const;
  const Tensor& as_tensor() const;
  DType as_dtype() const;
  const std::vector<Value>& items() const;  // tuple or list
  const DictData& as_dict() const;
  const SliceData& as_slice() const;
  const PrimData& as_prim() const;
  Builtin as_builtin() const;
  FuncGraph* as_graph() const;
  const ClosureData& as_closure() const;
  const std::shared_ptr<const HostObject>& as_host() const;

  // Structural equality and hash (tensors and host objects by identity, floats bitwise):
  // what compile caches and CSE need.
  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }
  size_t hash() const;

  // The IR text form: None, True, 3, 2.5, "s", (1, 2), [1], {"a": 1}, slice(1, None, None),
  // f32, Transpose{perm=(1, 0)}, make_tuple, @graph, partial(@g, 1), <host repr>, and
  // tensor<f32[2]>(...) for tensors (values printed when small).
  std::string to_string() const;
  // The same with each graph written as '@' + graph_name(g) (the printer's unique names).
  std::string to_string(const std::function<std::string(const FuncGraph*)>& graph_name) const;

 private:
  using Payload =
      std::variant<std::monostate, bool, int64_t, double, DType, Builtin, FuncGraph*,
                   std::shared_ptr<const std::string>, Tensor, std::shared_ptr<const SeqData>,
                   std::shared_ptr<const DictData>, std::shared_ptr<const SliceData>,
                   std::shared_ptr<const PrimData>, std::shared_ptr<const ClosureData>,
                   std::shared_ptr<const HostObject>>;
  Value(ValueKind k, Payload p) : kind_(k), payload_(std::move(p)) {}
  ValueKind kind_ = ValueKind::None;
  Payload payload_;
};

struct SliceData {
  Value start, stop, step;
};
struct ClosureData {
  Value fn;
  std::vector<Value> args;
};

// The exception class a raise() names: a string as it is, a host class object by the name in
// its repr ("<class 'a.b.Err'>" -> "Err"), anything else "".
std::string exception_name(const Value& v);

struct ValueHash {
  size_t operator()(const Value& v) const { return v.hash(); }
};

}  // namespace mycel::ir

namespace mycel::ir {
// Short dtype names of the IR text: f32, f64, f16, bf16, i8, i16, i32, i64, u8, bool.
const char* dtype_short_name(DType t);
bool dtype_from_short_name(std::string_view s, DType* out);
}  // namespace mycel::ir
