// Host: what compilation needs from the host language. The front end (src/frontend, which
// links Python) implements it; the compiler stays free of Python. All values crossing here
// are ir::Values; Python objects travel as host objects (ValueKind::PyObj).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/anf.h"

namespace mycel::ir {

using Kwargs = std::vector<std::pair<std::string, Value>>;

class Host {
 public:
  virtual ~Host() = default;

  // The IR value of a host object, as precise as possible:
  //   None/bool/int/float/str, tuple/list/dict (recursively), mycel Tensors -> those values;
  //   mycel dtypes -> DType; primitives and op handles -> Prim (attributes complete);
  //   Python builtins the compiler models (len, isinstance, range, print, ...) -> Builtin or
  //   kept as host objects the specialiser recognises by name (see builtin_name());
  //   Python functions -> Graph (parsed into `m`, cached per function object);
  //   bound methods of Cells/objects -> Closure(Graph, self);
  //   Cells, modules, classes, Parameters and anything else -> host object unchanged.
  virtual Value convert(Module& m, const Value& obj) = 0;

  // getattr(obj, name) on a constant host object, converted. Throws AttributeError
  // (mycel::ValueError is fine) with the object's type and name when missing.
  virtual Value getattr(Module& m, const Value& obj, const std::string& name) = 0;

  // What a call of host object `fn` runs: a Cell -> Closure(its construct Graph, cell);
  // a class with a known graph form -> ...; otherwise the host object itself, meaning
  // "call it through the host" (compile time on constants, else run-time JIT fallback).
  virtual Value callable(Module& m, const Value& fn) = 0;

  // Calls a host callable now, at compile time, on constant arguments; converts the result
  // back (as convert()). Python exceptions become mycel errors with the Python message.
  virtual Value call(Module& m, const Value& fn, const std::vector<Value>& args,
                     const Kwargs& kwargs) = 0;

  // Calls a Python builtin (`len`, ...) or operator (`getitem`, from the operator module)
  // by name on constants, now: len(cell_list), cell_list[1] on host objects.
  virtual Value call_builtin(Module& m, const std::string& name,
                             const std::vector<Value>& args) = 0;

  // The name of a Python builtin or mycel-known function the specialiser models itself
  // ("len", "isinstance", "range", "zip", "enumerate", "print", "int", "float", "bool",
  // "tuple", "list", "abs", "max", "min", "sum", "getattr", "hasattr", "type", "super",
  // "F.shape", "grad", ...; "GradOperation()" for an instance of GradOperation), or "" when
  // `obj` is none of them.
  virtual std::string builtin_name(const Value& obj) = 0;

  // When obj is a Parameter (a trainable weight), its current tensor.
  virtual std::optional<Tensor> weight(const Value& obj) = 0;
  // The shape programs see for weight `obj` when its tensor is this rank's slice of a larger
  // one (semi-automatic parallelism, parallel/spmd.h); none: the tensor's own.
  virtual std::optional<Shape> weight_global_shape(const Value&) { return std::nullopt; }

  // Mixed precision (MindSpore's Cell.to_float): when obj is a Cell marked to compute in a
  // float dtype, that dtype. The specialiser casts the floating-point tensors passed to such
  // a cell to it and, when `params` asks and the cell allows it (BatchNorm does not: its op
  // updates its moving statistics in place), the Parameters read from its attributes.
  virtual std::optional<DType> mixed_precision(const Value& obj, bool params) = 0;

  // Recompute (MindSpore's Cell.recompute()): when obj is a Cell marked to have its
  // activations recomputed in the backward, whether its outputs are recomputed too
  // (output_recompute); nullopt when it is not marked. The specialiser marks the ops of such
  // a call (compiler/passes/recompute.cc).
  virtual std::optional<bool> recompute(const Value&) { return std::nullopt; }

  // isinstance(x, cls) for an abstract x: true/false, or nullopt if the host cannot tell.
  virtual std::optional<bool> isinstance(const AbsPtr& x, const Value& cls) = 0;

  // The method `name` of mycel.Tensor as a graph taking the tensor first (x.reshape(...),
  // x.sum(...)): the Python function implementing it, converted. Throws ValueError naming
  // the method when Tensor has none. (Properties shape/dtype/ndim/size/T are modelled by
  // the specialiser.)
  virtual Value tensor_method(Module& m, const std::string& name) = 0;

  // "Tensor", "int", "Dense", ...: for error messages.
  virtual std::string type_name(const Value& obj) = 0;

  // Whether a graph value stands for a host function the host can pass back to host code
  // (a function parsed from one); a lambda or nested function made in graph code has none.
  virtual bool graph_has_host_form(Module& /*m*/, const Value& /*graph*/) { return false; }

  // Whether attribute `name` of host object `obj` was made by mutable(...) (a tuple, list
  // or dict marked so): graph code reads it as a run-time value, not a constant.
  virtual bool attr_is_mutable(const Value& /*obj*/, const std::string& /*name*/) { return false; }

  // The names MindSpore gives the tensor inputs of op-table op `op` (P.MatMul()(x=a, y=b),
  // P.BatchNorm()(input_x=..., ...)), in the op's input order; empty when none are known
  // (the op's inputs are then positional only). Its call-time attributes keep their names.
  virtual std::vector<std::string> op_input_names(const std::string& /*op*/) { return {}; }
};

}  // namespace mycel::ir
