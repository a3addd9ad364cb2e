// The Python implementation of ir::Host (compiler/host.h): what specialisation asks of
// Python objects (their IR value, attributes, what calling them runs, compile-time calls,
// isinstance on abstracts, Tensor methods).
//
// Conversions, beyond py_value.h's data (to_value):
//   mycel Parameter                    -> host object (weight(): its tensor)
//   _C.OpHandle                        -> Prim(op, attrs): complete when the handle's are
//                                         (no required call-time attribute missing), else
//                                         the init-time attributes given; the specialiser
//                                         folds call-time arguments in with make_attrs
//   mycel.ops.Primitive instance       -> as its OpHandle, when it uses Primitive.__call__;
//                                         one with its own __call__ (GatherD, Fill, ...)
//                                         -> Closure(graph of that __call__, primitive);
//                                         one whose class sets __mycel_host_infer__ (a
//                                         PrimitiveWithInfer with a Python __call__ and an
//                                         inference) -> host object (a typed host callback)
//   Python function                    -> Graph, parsed once per (module, function)
//   bound method                       -> Closure(graph of __func__, __self__ as to_value()
//                                         gives it: data, or the host object itself)
//   functools.partial without keywords -> Closure(converted func, converted args)
//   builtins (builtin_name() != "")    -> host object; the specialiser models them by name
//   numpy bool_/integer/floating       -> Bool/Int/Float (as eager mycel: a weak scalar)
//   iterators of the builtins module   -> Tuple of what they yield (reversed(range(n)),
//     (a generator, map, zip, ...)        a generator over constants); consumed at once
//   Cells, classes, modules, others    -> host object
// tuple/list/dict items are converted the same way, recursively.
//
// Python exceptions raised at compile time (getattr, call) become mycel errors whose text
// starts with the Python exception's type name: "ZeroDivisionError: division by zero".
// TypeError maps to mycel TypeError, IndexError/KeyError to IndexError, everything else
// (AttributeError included: mycel has no such kind) to ValueError.
//
// The graph cache keys on the Module's address: use one host per compilation (a Module
// freed and another allocated at the same address would otherwise see stale graphs).
// Every method takes the GIL itself; callers need not hold it.
#pragma once

#include <functional>
#include <memory>

#include "compiler/host.h"
#include "runtime/vm.h"

namespace mycel::frontend {

std::unique_ptr<ir::Host> make_py_host();
// Calls f on every value a host made by make_py_host keeps (its parsed functions, as host
// objects): with the IR's own values, what the garbage collector must see of a compiled
// function (python/py_graph.cc).
void for_each_host_value(const ir::Host& host, const std::function<void(const ir::Value&)>& f);

// What graphs need from Python at run time (print, JIT fallback and host calls).
std::unique_ptr<vm::RuntimeHost> make_py_runtime_host();

}  // namespace mycel::frontend
