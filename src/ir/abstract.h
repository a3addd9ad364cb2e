// Abstract values: what type-and-shape inference knows about a node without running it.
//
//   Tensor(dtype, shape)            shapes are static; a known value is kept for constants
//   Scalar(stype: bool|int|float|str|none, value?)
//   Tuple(elems) | List(elems) | Dict(keys, elems)
//   Func(candidates)                callables; more than one after a switch on a run-time
//                                   condition. A candidate is a callee value plus the
//                                   abstracts of arguments bound by partial().
//   Const(value)                    any other compile-time constant (dtype, slice, host
//                                   object, prim, graph...)
//   Any                             a host object known only at run time (JIT fallback)
//
// Abstracts are immutable and shared. `value` is set when the node's value is known at
// compile time; specialisation turns such nodes into ValueNodes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/value.h"

namespace mycel::ir {

struct Abstract;
using AbsPtr = std::shared_ptr<const Abstract>;

enum class AbsKind : uint8_t { Tensor, Scalar, Tuple, List, Dict, Func, Const, Any };

struct FuncCandidate {
  Value fn;                   // Prim, Builtin, Graph or host object
  std::vector<AbsPtr> bound;  // partial() arguments
  // For a graph that captures variables: the specialiser's context of its enclosing
  // graph (opaque here; part of the identity).
  const void* context = nullptr;
  bool operator==(const FuncCandidate& o) const;
};

struct Abstract {
  AbsKind kind = AbsKind::Any;
  DType dtype = DType::Float32;       // Tensor
  Shape shape;                        // Tensor
  ValueKind stype = ValueKind::None;  // Scalar: None, Bool, Int, Float or Str
  std::vector<AbsPtr> elems;          // Tuple, List, Dict (values)
  std::vector<Value> keys;            // Dict
  std::vector<FuncCandidate> funcs;   // Func
  std::optional<Value> value;         // the compile-time value, when known
  // Scalar Int known only at run time that is a tensor's dynamic dimension (x.shape[i] of a
  // -1 dimension under set_inputs): compile-time helpers (@constexpr) see its static value,
  // -1, as MindSpore's static shape; arithmetic runs on the size read at run time.
  bool dim = false;

  static AbsPtr tensor(DType dt, Shape shape);
  static AbsPtr scalar(ValueKind kind);    // unknown value
  static AbsPtr dynamic_dim();             // an unknown Int that is a dynamic dimension
  static AbsPtr constant(const Value& v);  // the most precise abstract of a known value
  static AbsPtr tuple(std::vector<AbsPtr> elems);
  static AbsPtr list(std::vector<AbsPtr> elems);
  static AbsPtr dict(std::vector<Value> keys, std::vector<AbsPtr> elems);
  static AbsPtr func(std::vector<FuncCandidate> funcs);
  static AbsPtr any();

  bool is_const() const { return value.has_value(); }
  bool is_tensor() const { return kind == AbsKind::Tensor; }
  TensorMeta meta() const { return {dtype, shape}; }

  // Structural equality (values included): the key of a specialisation context.
  bool operator==(const Abstract& o) const;
  size_t hash() const;
  // "f32[2, 3]", "i64", "i64=3", "i64(dim)", "tuple(f32[2], bool)", "func", "any"
  std::string to_string() const;
};

bool abs_equal(const AbsPtr& a, const AbsPtr& b);
// The same abstract without its known value (recursively): a loop-carried scalar.
AbsPtr broaden(const AbsPtr& a);
// The least abstract covering both, or nullptr when they cannot join (different dtypes,
// shapes or structures): the caller reports the error with the user's line.
AbsPtr join(const AbsPtr& a, const AbsPtr& b);

}  // namespace mycel::ir
