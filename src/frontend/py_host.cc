// PyHost: ir::Host for Python (see py_host.h for what converts to what).
#include "frontend/py_host.h"

#include <map>
#include <utility>

#include "base/error.h"
#include "base/interrupt.h"
#include "frontend/gil_once.h"
#include "frontend/parse.h"
#include "frontend/py_convert.h"
#include "frontend/py_runtime.h"
#include "frontend/py_value.h"

namespace mycel::frontend {

namespace {

using ir::Value;
using ir::ValueKind;

// Python objects the host compares against, looked up once under the GIL and leaked on
// purpose (nothing may be released after the interpreter is gone).
struct PyRefs {
  py::object function_type, method_type, partial_type, property_type, union_type;
  py::object op_handle, primitive, primitive_call, cell, tensor, parameter, ops, grad_operation;
  py::object none_type, bool_type, int_type, float_type, str_type, tuple_type, list_type, dict_type,
      object_type;
  std::vector<std::pair<PyObject*, std::string>> builtins;
};

const PyRefs& refs() {
  static mycel::py::GilOnce<PyRefs*> once;  // frontend/gil_once.h: no deadlock on first use
  return *once.get([] {
    auto* p = new PyRefs();
    py::module_ types = py::module_::import("types");
    py::module_ bi = py::module_::import("builtins");
    p->function_type = types.attr("FunctionType");
    p->method_type = types.attr("MethodType");
    p->union_type = types.attr("UnionType");
    p->partial_type = py::module_::import("functools").attr("partial");
    p->property_type = bi.attr("property");
    p->op_handle = py::module_::import("mycel._mycel").attr("OpHandle");
    p->primitive = py::module_::import("mycel.ops.primitive").attr("Primitive");
    p->primitive_call = p->primitive.attr("__call__");
    p->cell = py::module_::import("mycel.nn.cell").attr("Cell");
    p->tensor = py::module_::import("mycel._mycel").attr("Tensor");
    p->parameter = py::module_::import("mycel.common.parameter").attr("Parameter");
    p->ops = py::module_::import("mycel.ops");
    p->none_type = py::type::of(py::none());
    p->bool_type = bi.attr("bool");
    p->int_type = bi.attr("int");
    p->float_type = bi.attr("float");
    p->str_type = bi.attr("str");
    p->tuple_type = bi.attr("tuple");
    p->list_type = bi.attr("list");
    p->dict_type = bi.attr("dict");
    p->object_type = bi.attr("object");
    // Python builtins the specialiser models by name (host.h's list).
    for (const char* n :
         {"len",   "isinstance", "range",   "zip",     "enumerate", "print", "int",
          "float", "bool",       "tuple",   "list",    "dict",      "abs",   "max",
          "min",   "sum",        "getattr", "hasattr", "type",      "super", "iter",
          "all",   "any",        "round",   "divmod",  "str",       "slice", "map"}) {
      p->builtins.emplace_back(bi.attr(n).ptr(), n);
    }
    // The Tensor class: Tensor(t[, dtype]) of a run-time tensor (specialize_host.cc).
    p->builtins.emplace_back(p->tensor.ptr(), "Tensor");
    // mycel helpers it models: the static shape of a tensor.
    py::object array_func = py::module_::import("mycel.ops.function.array_func");
    p->builtins.emplace_back(array_func.attr("shape").ptr(), "F.shape");
    // Whether a value holds a dimension known only at run time (a constant bool).
    p->builtins.emplace_back(
        py::module_::import("mycel.ops.function._util").attr("holds_dynamic_dim").ptr(),
        "F.holds_dynamic_dim");
    // The gradient transforms (mycel.ops.composite), expanded by the specialiser.
    py::object composite = py::module_::import("mycel.ops.composite");
    p->grad_operation = composite.attr("GradOperation");
    for (const char* n : {"grad", "value_and_grad", "stop_gradient", "grad_operation", "depend",
                          "get_grad", "_vjp_forward", "_vjp_backward", "_vjp_out_zeros"})
      p->builtins.emplace_back(composite.attr(n).ptr(), n);
    // vmap (mycel.ops._vmap), expanded by the specialiser too (compiler/vmap/vmap.h).
    p->builtins.emplace_back(py::module_::import("mycel.ops._vmap").attr("vmap").ptr(), "vmap");
    // functools.partial(f, *args): the partial application (specialize_host.cc).
    p->builtins.emplace_back(p->partial_type.ptr(), "functools.partial");
    // mutable (mycel.common.api): in graph code the value itself (specialize_host.cc).
    p->builtins.emplace_back(py::module_::import("mycel.common.api").attr("mutable").ptr(),
                             "mutable");
    return p;
  });
}

bool is_instance(py::handle obj, py::handle cls) {
  int r = PyObject_IsInstance(obj.ptr(), cls.ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

// np.bool_ / np.integer / np.floating, when numpy is loaded (else there are none).
bool is_numpy_scalar(py::handle o) {
  static PyObject* types = nullptr;  // (np.bool_, np.number), leaked as PyRefs are
  if (types == nullptr) {
    PyObject* np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
    if (np == nullptr) return false;
    py::handle mod(np);
    types = py::make_tuple(mod.attr("bool_"), mod.attr("number")).release().ptr();
  }
  return is_instance(o, types);
}

bool is_subclass(py::handle sub, py::handle cls) {
  int r = PyObject_IsSubclass(sub.ptr(), cls.ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

// A Python exception as a mycel error: "<Type>: <message>", with a matching kind.
[[noreturn]] void rethrow_python(py::error_already_set& e) {
  std::string type = "Exception";
  if (e.type()) type = py::str(e.type().attr("__name__")).cast<std::string>();
  std::string msg = e.value() ? py::str(e.value()).cast<std::string>() : std::string();
  ErrorKind kind = ErrorKind::Value;
  if (e.matches(PyExc_TypeError)) {
    kind = ErrorKind::Type;
  } else if (e.matches(PyExc_IndexError) || e.matches(PyExc_KeyError)) {
    kind = ErrorKind::Index;
  } else if (e.matches(PyExc_RecursionError)) {
    kind = ErrorKind::Recursion;
  } else if (e.matches(PyExc_OverflowError)) {
    kind = ErrorKind::Overflow;
  } else if (e.matches(PyExc_NotImplementedError)) {
    // a RuntimeError whose text starts "NotImplementedError: ": the bindings raise it as
    // NotImplementedError again (python/module.cc)
    kind = ErrorKind::Runtime;
  } else if (e.matches(PyExc_RuntimeError)) {
    kind = ErrorKind::Runtime;  // (after its subclasses above)
  }
  throw Error(kind, str(type, ": ", msg));
}

// The rows of a strategy appended to `flat`: their count, their lengths, then the entries.
void encode_rows(py::handle strategy, std::vector<int64_t>& flat) {
  flat.push_back(static_cast<int64_t>(py::len(strategy)));
  std::vector<int64_t> entries;
  for (py::handle row : strategy) {
    flat.push_back(static_cast<int64_t>(py::len(row)));
    for (py::handle v : row) entries.push_back(v.cast<int64_t>());
  }
  flat.insert(flat.end(), entries.begin(), entries.end());
}

// The Prim of an OpHandle: complete attributes when every required one is known. A
// primitive's strategy (Primitive.shard) travels as kStrategyAttr: its rows encoded, then
// its out_strategy's if it has one (parallel/spmd.h reads them); Primitive.recompute's mode
// as kRecomputeAttr.
Value prim_of_handle(py::handle h, py::handle strategy = py::none(),
                     py::handle out_strategy = py::none(), py::handle recompute = py::none()) {
  std::string name = h.attr("name").cast<std::string>();
  const OpDef* op = find_op(name);
  MC_ASSERT(op != nullptr, "an OpHandle of an unknown op ", name);
  Attrs given;
  for (auto [k, v] : h.attr("attrs")().cast<py::dict>()) {
    AttrValue a = mycel::py::to_attr(v);
    if (!std::holds_alternative<std::monostate>(a)) given.set(k.cast<std::string>(), std::move(a));
  }
  if (!strategy.is_none()) {
    std::vector<int64_t> flat;
    encode_rows(strategy, flat);
    if (!out_strategy.is_none()) encode_rows(out_strategy, flat);
    given.set(kStrategyAttr, std::move(flat));
  }
  // Primitive.recompute(mode): always (-1) or never (0), kRecomputeAttr's encoding.
  if (!recompute.is_none()) given.set(kRecomputeAttr, int64_t{recompute.cast<bool>() ? -1 : 0});
  bool complete = true;
  for (const AttrSpec& s : op->attrs)
    complete &= !std::holds_alternative<std::monostate>(s.dflt) || given.has(s.name);
  return Value::prim(*op, complete ? make_attrs(*op, given) : std::move(given));
}

// Functions of the standard library and installed third-party packages (numpy, math helpers
// written in Python, ...) are not parsed: like MindSpore's JIT fallback they run in Python,
// at compile time on constants, else at run time. mycel's own package is parsed.
bool is_library_function(py::handle fn) {
  static mycel::py::GilOnce<const std::vector<std::string>*> prefixes_once;
  const std::vector<std::string>* prefixes = prefixes_once.get([] {
    auto* v = new std::vector<std::string>;
    py::module_ sc = py::module_::import("sysconfig");
    for (const char* k : {"stdlib", "platstdlib", "purelib", "platlib"})
      v->push_back(py::str(sc.attr("get_paths")()[py::str(k)]));
    py::module_ site = py::module_::import("site");
    if (py::hasattr(site, "getsitepackages"))
      for (py::handle p : site.attr("getsitepackages")()) v->push_back(py::str(p));
    v->push_back("/usr/lib/python3/dist-packages");
    return static_cast<const std::vector<std::string>*>(v);
  });
  static mycel::py::GilOnce<std::string> mycel_dir_once;
  const std::string& mycel_dir = mycel_dir_once.get([] {
    py::module_ os = py::module_::import("os");
    return std::string(
        py::str(os.attr("path").attr("dirname")(py::module_::import("mycel").attr("__file__"))));
  });
  py::object code = py::getattr(fn, "__code__", py::none());
  if (code.is_none()) return true;
  std::string file = py::str(code.attr("co_filename"));
  if (file.rfind(mycel_dir, 0) == 0) return false;
  if (file.empty() || file[0] == '<') return true;  // generated code: no source to parse
  for (const std::string& p : *prefixes)
    if (!p.empty() && file.rfind(p, 0) == 0) return true;
  return false;
}

// A Cell's bprop(self, *inputs, out, dout) must take construct's inputs and then out and dout
// (MindSpore's messages); a *args on either side is not checked.
void check_bprop_arity(const py::object& construct, const py::object& bprop) {
  constexpr int kVarArgs = 0x04;  // CO_VARARGS
  py::object fc = construct.attr("__code__"), bc = bprop.attr("__code__");
  if ((fc.attr("co_flags").cast<int>() & kVarArgs) || (bc.attr("co_flags").cast<int>() & kVarArgs))
    return;
  const int inputs = fc.attr("co_argcount").cast<int>() - 1;  // without self
  const int params = bc.attr("co_argcount").cast<int>() - 1;
  MC_CHECK(params >= 2, Type,
           "The function 'bprop' of Primitive or Cell requires at least 2 params 'out' and "
           "'dout', but got only ",
           params, ".");
  MC_CHECK(params == inputs + 2, Type,
           "The params of function 'bprop' of Primitive or Cell requires the forward inputs as "
           "well as the 'out' and 'dout'. (construct takes ",
           inputs, " inputs, bprop ", params, " params.)");
}

class PyHost final : public ir::Host {
 public:
  ~PyHost() override {
    if (!Py_IsInitialized()) {
      graphs_.clear();  // PyHostObject releases without the interpreter
      return;
    }
    py::gil_scoped_acquire gil;
    graphs_.clear();
  }

  void for_each_value(const std::function<void(const Value&)>& f) const {
    for (const auto& [k, e] : graphs_) f(e.first);
  }

  Value convert(ir::Module& m, const Value& obj) override {
    py::gil_scoped_acquire gil;
    try {
      return convert_value(m, obj);
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  Value getattr(ir::Module& m, const Value& obj, const std::string& name) override {
    py::gil_scoped_acquire gil;
    try {
      py::object o = to_python(obj);
      PyObject* r = PyObject_GetAttrString(o.ptr(), name.c_str());
      if (r == nullptr) throw py::error_already_set();
      return convert_py(m, py::reinterpret_steal<py::object>(r));
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  std::vector<std::string> op_input_names(const std::string& op) override {
    py::gil_scoped_acquire gil;
    try {
      py::object names = py::module_::import("mycel.ops._input_names")
                             .attr("INPUT_NAMES")
                             .attr("get")(op, py::tuple());
      std::vector<std::string> out;
      for (py::handle n : names) out.push_back(py::str(n).cast<std::string>());
      return out;
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  bool attr_is_mutable(const Value& obj, const std::string& name) override {
    if (!obj.is(ValueKind::PyObj)) return false;
    py::gil_scoped_acquire gil;
    py::object a = py::getattr(to_python(obj), name.c_str(), py::none());
    return !a.is_none() && py::hasattr(a, "__ms_mutable__");
  }

  Value callable(ir::Module& m, const Value& fn) override {
    if (!fn.is(ValueKind::PyObj)) return convert(m, fn);
    py::gil_scoped_acquire gil;
    try {
      py::object o = unwrap_host(fn);
      const PyRefs& r = refs();
      if (PyType_Check(o.ptr())) {
        // A struct class (its metaclass sets __mycel_graph_struct__, py_value.cc): graph code
        // makes its struct with the class's _graph_new.
        if (py::hasattr(o, "__mycel_graph_struct__")) return convert_py(m, o.attr("_graph_new"));
        return fn;  // a class: called through the host
      }
      // An object whose class says it runs only in PYNATIVE mode (ops.HookBackward): its
      // message, rather than graph code silently skipping what it does.
      py::object refuse = py::getattr(py::type::of(o), "__mycel_graph_unsupported__", py::none());
      if (py::isinstance<py::str>(refuse)) MC_THROW(Type, refuse.cast<std::string>());
      // A host-callback primitive with its own bprop(self, *inputs, out, dout)
      // (ops/custom_prim.py): the typed host call (its class's _mycel_host_forward) with that
      // backward, as a Cell with bprop.
      if (py::hasattr(py::type::of(o), "__mycel_host_infer__")) {
        py::object bprop = py::getattr(py::type::of(o), "bprop", py::none());
        if (!is_instance(bprop, r.function_type)) return fn;
        Value c = Value::closure(
            Value::graph(graph_of(m, py::type::of(o).attr("_mycel_host_forward"))), {fn});
        return Value::closure(Value::builtin(ir::Builtin::CustomVjp),
                              {c, Value::closure(Value::graph(graph_of(m, bprop)), {fn})});
      }
      if (is_instance(o, r.cell)) {
        // Forward hooks are Python run around a Cell's call (nn/cell.py); graph code calls
        // construct directly, which would skip them silently.
        py::dict d = o.attr("__dict__");
        MC_CHECK(!d.contains("_forward_pre_hooks") && !d.contains("_forward_hooks"), Type,
                 "The Cell '", py::str(py::type::of(o).attr("__name__")).cast<std::string>(),
                 "' has forward hooks (register_forward_pre_hook/register_forward_hook): they "
                 "run when it is called from Python (PYNATIVE mode, or the outermost Cell in "
                 "GRAPH mode), not inside graph code");
        // Backward hooks act through PYNATIVE's recording (nn/cell.py); a graph's gradient
        // would leave them out: a different gradient than PYNATIVE's.
        for (const char* kind : {"_backward_hooks", "_backward_pre_hooks"}) {
          MC_CHECK(!d.contains(kind) || py::len(d[kind]) == 0, Type, "The Cell '",
                   py::str(py::type::of(o).attr("__name__")).cast<std::string>(),
                   "' has backward hooks (register_backward_hook/register_backward_pre_hook): "
                   "they run in PYNATIVE mode only, not inside graph code (GRAPH mode, or a "
                   "@jit function or construct); there the gradient would leave them out");
        }
        py::object construct = py::type::of(o).attr("construct");
        // Another method of the cell set on the instance (setattr(net, "construct",
        // net.construct2), as MindSpore's test framework picks a construct): that one.
        if (d.contains("construct")) {
          py::object own = d["construct"];
          if (py::hasattr(own, "__self__") && own.attr("__self__").ptr() == o.ptr())
            construct = own.attr("__func__");
        }
        // A construct decorated with @jit: graph code compiles the function it wraps.
        if (py::hasattr(construct, "_mycel_fn")) construct = construct.attr("_mycel_fn");
        if (is_instance(construct, r.function_type)) {
          Value c = Value::closure(Value::graph(graph_of(m, construct)), {fn});
          // A Cell with its own bprop(self, *inputs, out, dout): its gradient rule.
          py::object bprop = py::getattr(py::type::of(o), "bprop", py::none());
          if (is_instance(bprop, r.function_type)) check_bprop_arity(construct, bprop);
          if (is_instance(bprop, r.function_type))
            return Value::closure(Value::builtin(ir::Builtin::CustomVjp),
                                  {c, Value::closure(Value::graph(graph_of(m, bprop)), {fn})});
          return c;
        }
        return fn;
      }
      // An object whose class sets __mycel_graph_call__ (ops/_multitype.py: MultitypeFuncGraph,
      // HyperMap, Map) stays a host object (isinstance and its attributes are read at compile
      // time); calling it compiles its __call__, a closure over it, or the method the
      // attribute names when it is a string (ops/morph.py: a call only graph code makes).
      if (py::hasattr(py::type::of(o), "__mycel_graph_call__")) {
        py::object how = py::type::of(o).attr("__mycel_graph_call__");
        if (py::isinstance<py::str>(how)) return convert_py(m, o.attr(how));
        return convert_py(m, o.attr("__call__"));
      }
      return convert_py(m, o);
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  Value call(ir::Module& m, const Value& fn, const std::vector<Value>& args,
             const ir::Kwargs& kwargs) override {
    py::gil_scoped_acquire gil;
    try {
      py::object f = to_python(fn);
      py::tuple a(args.size());
      for (size_t i = 0; i < args.size(); ++i) a[i] = host_arg(m, args[i]);
      py::dict k;
      for (const auto& [name, v] : kwargs) k[py::str(name)] = host_arg(m, v);
      PyObject* r = PyObject_Call(f.ptr(), a.ptr(), k.ptr());
      if (r == nullptr) throw py::error_already_set();
      return convert_py(m, py::reinterpret_steal<py::object>(r));
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  Value call_builtin(ir::Module& m, const std::string& name,
                     const std::vector<Value>& args) override {
    py::gil_scoped_acquire gil;
    try {
      py::module_ bi = py::module_::import("builtins");
      py::object f = py::hasattr(bi, name.c_str())
                         ? bi.attr(name.c_str())
                         : py::module_::import("operator").attr(name.c_str());
      py::tuple a(args.size());
      for (size_t i = 0; i < args.size(); ++i) a[i] = to_python(args[i]);
      PyObject* r = PyObject_Call(f.ptr(), a.ptr(), nullptr);
      if (r == nullptr) throw py::error_already_set();
      return convert_py(m, py::reinterpret_steal<py::object>(r));
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  std::string builtin_name(const Value& obj) override {
    if (!obj.is(ValueKind::PyObj)) return "";
    py::gil_scoped_acquire gil;
    PyObject* p = unwrap_host(obj).ptr();
    for (const auto& [b, name] : refs().builtins)
      if (b == p) return name;
    if (is_instance(p, refs().grad_operation)) return "GradOperation()";
    return "";
  }

  std::optional<Tensor> weight(const Value& obj) override {
    if (!obj.is(ValueKind::PyObj)) return std::nullopt;
    py::gil_scoped_acquire gil;
    py::object o = unwrap_host(obj);
    if (!mycel::py::is_tensor(o) || !is_instance(o, refs().parameter)) return std::nullopt;
    return mycel::py::tensor_of(o);
  }

  std::optional<Shape> weight_global_shape(const Value& obj) override {
    if (!obj.is(ValueKind::PyObj)) return std::nullopt;
    py::gil_scoped_acquire gil;
    py::object g = py::getattr(unwrap_host(obj), "_spmd_global_shape", py::none());
    if (g.is_none()) return std::nullopt;
    Shape s;
    for (py::handle d : g) s.push_back(d.cast<int64_t>());
    return s;
  }

  std::optional<DType> mixed_precision(const Value& obj, bool params) override {
    if (!obj.is(ValueKind::PyObj)) return std::nullopt;
    py::gil_scoped_acquire gil;
    py::object o = unwrap_host(obj);
    if (!is_instance(o, refs().cell)) return std::nullopt;
    if (params && !py::getattr(o, "_to_float_params", py::bool_(true)).cast<bool>())
      return std::nullopt;
    Value t = to_value(py::getattr(o, "_mixed_precision_type", py::none()));
    if (!t.is(ValueKind::DType)) return std::nullopt;
    return t.as_dtype();
  }

  std::optional<bool> recompute(const Value& obj) override {
    if (!obj.is(ValueKind::PyObj)) return std::nullopt;
    py::gil_scoped_acquire gil;
    py::object o = unwrap_host(obj);
    if (!is_instance(o, refs().cell)) return std::nullopt;
    py::object r = py::getattr(o, "_recompute_output", py::none());  // nn/cell.py
    if (r.is_none()) return std::nullopt;
    return r.cast<bool>();
  }

  std::optional<bool> isinstance(const ir::AbsPtr& x, const Value& cls) override {
    py::gil_scoped_acquire gil;
    try {
      return isinstance_of(x, cls);
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  Value tensor_method(ir::Module& m, const std::string& name) override {
    py::gil_scoped_acquire gil;
    try {
      const PyRefs& r = refs();
      // A method whose graph-code form differs from its eager one (a view's layout, which
      // graph values do not have: common/_tensor_overloads.py, GRAPH_FORMS): that form.
      py::object forms = py::getattr(r.tensor, "_mycel_graph_forms", py::none());
      if (!forms.is_none() && forms.contains(py::str(name)))
        return convert_py(m, forms[py::str(name)]);
      // The class dict along the MRO, so that a property is seen as one.
      py::object attr =
          py::module_::import("inspect").attr("getattr_static")(r.tensor, name, py::none());
      MC_CHECK(!attr.is_none(), Value, "AttributeError: 'Tensor' has no method '", name, "'.");
      if (is_instance(attr, r.function_type)) return convert_py(m, attr);
      if (is_instance(attr, r.property_type)) {
        py::object fget = attr.attr("fget");
        if (is_instance(fget, r.function_type)) return convert_py(m, fget);
      }
      // Methods written in C++ (operators): the mycel.ops function computing the same.
      static const std::pair<const char*, const char*> kOps[] = {
          {"__add__", "add"},
          {"__radd__", "add"},
          {"__sub__", "sub"},
          {"__mul__", "mul"},
          {"__rmul__", "mul"},
          {"__truediv__", "div"},
          {"__floordiv__", "floor_divide"},
          {"__mod__", "remainder"},
          {"__pow__", "pow"},
          {"__matmul__", "matmul"},
          {"__neg__", "neg"},
          {"__abs__", "abs"},
          {"__eq__", "equal"},
          {"__ne__", "not_equal"},
          {"__lt__", "less"},
          {"__le__", "less_equal"},
          {"__gt__", "greater"},
          {"__ge__", "greater_equal"},
          {"__and__", "logical_and"},
          {"__rand__", "logical_and"},
          {"__or__", "logical_or"},
          {"__ror__", "logical_or"},
          {"__invert__", "logical_not"},
          {"astype", "cast"},
      };
      for (const auto& [method, fn] : kOps) {
        if (name == method) return convert_py(m, r.ops.attr(fn));
      }
      MC_THROW(Value, "Tensor method '", name, "' is not supported in graph mode.");
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  }

  std::string type_name(const Value& obj) override {
    switch (obj.kind()) {
      case ValueKind::Graph:
        return "function";
      case ValueKind::Closure:
        return "method";
      case ValueKind::Prim:
        return obj.as_prim().op->name;
      case ValueKind::Builtin:
        return "builtin_function_or_method";
      default:
        break;
    }
    py::gil_scoped_acquire gil;
    return py::str(py::type::of(to_python(obj)).attr("__name__")).cast<std::string>();
  }

 private:
  Value convert_value(ir::Module& m, const Value& v) {
    switch (v.kind()) {
      case ValueKind::PyObj:
        return convert_py(m, unwrap_host(v));
      case ValueKind::Tuple:
      case ValueKind::List: {
        std::vector<Value> items;
        items.reserve(v.items().size());
        for (const Value& e : v.items()) items.push_back(convert_value(m, e));
        return v.is(ValueKind::Tuple) ? Value::tuple(std::move(items))
                                      : Value::list(std::move(items));
      }
      case ValueKind::Dict: {
        std::vector<Value> values;
        for (const Value& e : v.as_dict().values) values.push_back(convert_value(m, e));
        return Value::dict(v.as_dict().keys, std::move(values));
      }
      default:
        return v;
    }
  }

  Value convert_py(ir::Module& m, py::handle o) {
    Value d = to_value(o);
    if (!d.is(ValueKind::PyObj)) return convert_value(m, d);
    // Compile-time results as the data they stand for: a numpy scalar (np.sqrt(2.0)) is the
    // Python number it holds, as eager mycel treats it (a weak scalar); an iterator of the
    // builtins (reversed(range(n)), map, a generator over constants) is the tuple it yields.
    if (is_numpy_scalar(o)) {
      Value v = to_value(o.attr("item")());
      if (!v.is(ValueKind::PyObj)) return v;
    }
    if (PyIter_Check(o.ptr()) &&
        py::str(py::type::of(o).attr("__module__")).cast<std::string>() == "builtins")
      return convert_py(m, py::tuple(py::reinterpret_borrow<py::object>(o)));
    const PyRefs& r = refs();
    if (is_instance(o, r.parameter)) return d;
    if (is_instance(o, r.op_handle)) return prim_of_handle(o);
    // A primitive declared in Python with a Python implementation and an inference
    // (ops/custom_prim.py: its class sets __mycel_host_infer__) stays a host object: the
    // specialiser types its call by the inference and runs it in Python at run time.
    if (py::hasattr(py::type::of(o), "__mycel_host_infer__")) return d;
    if (is_instance(o, r.primitive)) {
      py::object call = py::type::of(o).attr("__call__");
      if (call.ptr() == r.primitive_call.ptr())
        return prim_of_handle(o.attr("_handle"), py::getattr(o, "_in_strategy", py::none()),
                              py::getattr(o, "_out_strategy", py::none()),
                              py::getattr(o, "_recompute", py::none()));
      return convert_py(m, o.attr("__call__"));  // its own __call__: a closure over it
    }
    PyTypeObject* t = Py_TYPE(o.ptr());
    if (reinterpret_cast<PyObject*>(t) == r.function_type.ptr()) {
      // @constexpr helpers run in Python at compile time (on constants) instead of parsing.
      if (py::hasattr(o, "__mycel_constexpr__") || is_library_function(o)) return d;
      // Functions the specialiser models by name (grad, F.shape, ...) stay host objects.
      for (const auto& [b, name] : r.builtins)
        if (b == o.ptr()) return d;
      return Value::graph(graph_of(m, o));
    }
    // A gradient function (mycel.grad(fn, ...)): the grad builtin bound to fn and options.
    if (py::hasattr(o, "_mycel_grad") && !PyType_Check(o.ptr())) {
      py::tuple spec = o.attr("_mycel_grad");
      return Value::closure(Value::builtin(ir::Builtin::Grad),
                            {to_value(spec[0]), convert_py(m, spec[1])});
    }
    // A vmap function (mycel.vmap(fn, in_axes, out_axes)): the vmap_fn builtin bound to fn and
    // the axes (compiler/vmap/vmap.h).
    if (py::hasattr(o, "_mycel_vmap") && !PyType_Check(o.ptr())) {
      py::tuple spec = o.attr("_mycel_vmap");
      return Value::closure(Value::builtin(ir::Builtin::VmapFn),
                            {to_value(spec[0]), convert_py(m, spec[1])});
    }
    // A @jit function called from graph code: its Python function is compiled inline.
    if (py::hasattr(o, "_mycel_fn") && !PyType_Check(o.ptr())) {
      py::object inst = o.attr("_instance");
      Value g = Value::graph(graph_of(m, o.attr("_mycel_fn")));
      if (inst.is_none()) return g;
      return Value::closure(g, {to_value(inst)});
    }
    if (reinterpret_cast<PyObject*>(t) == r.method_type.ptr()) {
      py::object func = o.attr("__func__");
      if (is_instance(func, r.function_type))
        // self as data or a host object: a primitive with its own __call__ must stay the
        // object its method reads attributes from (converting it would recurse).
        return Value::closure(Value::graph(graph_of(m, func)), {to_value(o.attr("__self__"))});
      return d;
    }
    if (reinterpret_cast<PyObject*>(t) == r.partial_type.ptr() &&
        py::len(o.attr("keywords")) == 0) {
      Value f = convert_py(m, o.attr("func"));
      std::vector<Value> args;
      if (f.is(ValueKind::Closure)) {
        args = f.as_closure().args;
        f = f.as_closure().fn;
      } else if (!f.is(ValueKind::Graph) && !f.is(ValueKind::Prim)) {
        return d;
      }
      for (py::handle a : o.attr("args")) args.push_back(convert_py(m, a));
      return Value::closure(std::move(f), std::move(args));
    }
    return d;
  }

  // An argument of a host call at compile time: a graph parsed from a Python function is
  // that function again (Net(fn) in graph code, fn a function); the rest as to_python.
  // A closure over such a graph (a bound method: the function and self) is that method again.
  bool graph_has_host_form(ir::Module& m, const Value& v) override {
    if (v.is(ValueKind::Closure)) return graph_has_host_form(m, v.as_closure().fn);
    if (!v.is(ValueKind::Graph)) return false;
    for (const auto& [key, entry] : graphs_)
      if (key.first == &m && entry.second == v.as_graph()) return true;
    return false;
  }

  py::object host_arg(ir::Module& m, const Value& v) {
    if (v.is(ValueKind::Graph))
      for (const auto& [key, entry] : graphs_)
        if (key.first == &m && entry.second == v.as_graph()) return to_python(entry.first);
    if (v.is(ValueKind::Closure) && graph_has_host_form(m, v)) {
      py::object fn = host_arg(m, v.as_closure().fn);
      const std::vector<Value>& bound = v.as_closure().args;
      if (bound.size() == 1) return refs().method_type(fn, host_arg(m, bound[0]));
      py::list args;
      for (const Value& b : bound) args.append(host_arg(m, b));
      return refs().partial_type(fn, *py::tuple(args));
    }
    return to_python(v);
  }

  ir::FuncGraph* graph_of(ir::Module& m, py::handle fn) {
    auto key = std::make_pair(&m, fn.ptr());
    auto it = graphs_.find(key);
    if (it != graphs_.end()) return it->second.second;
    ir::FuncGraph* g = parse_function(m, fn);
    MC_ASSERT(g != nullptr, "parse_function returned no graph");
    graphs_.emplace(key, std::make_pair(wrap_host(fn), g));
    return g;
  }

  std::optional<bool> isinstance_of(const ir::AbsPtr& x, const Value& cls) {
    const PyRefs& r = refs();
    if (cls.is(ValueKind::Tuple)) {  // any of them; unknown unless one says yes
      bool unknown = false;
      for (const Value& c : cls.items()) {
        std::optional<bool> b = isinstance_of(x, c);
        if (b.value_or(false)) return true;
        unknown |= !b.has_value();
      }
      if (unknown) return std::nullopt;
      return false;
    }
    MC_CHECK(cls.is(ValueKind::PyObj), Type,
             "isinstance() arg 2 must be a type, a tuple of types, or a union, but got ",
             cls.to_string(), ".");
    py::object c = unwrap_host(cls);
    if (is_instance(c, r.union_type)) {  // int | float
      std::vector<Value> members;
      for (py::handle a : c.attr("__args__")) members.push_back(wrap_host(a));
      return isinstance_of(x, Value::tuple(std::move(members)));
    }
    MC_CHECK(PyType_Check(c.ptr()), Type,
             "isinstance() arg 2 must be a type, a tuple of types, or a union, but got ",
             cls.to_string(), ".");
    // A struct value (a tuple (class, fields...) of a class whose metaclass sets
    // __mycel_graph_struct__, py_value.cc) is an instance of its class.
    if (x->kind == ir::AbsKind::Tuple && !x->elems.empty() && x->elems[0]->value &&
        x->elems[0]->value->is(ValueKind::PyObj)) {
      py::object k = unwrap_host(*x->elems[0]->value);
      if (PyType_Check(k.ptr()) && py::hasattr(k, "__mycel_graph_struct__"))
        return is_subclass(k, c);
    }
    if (x->value) {
      const Value& v = *x->value;
      switch (v.kind()) {
        case ValueKind::Prim:
        case ValueKind::Builtin:
        case ValueKind::Graph:
        case ValueKind::Closure:
          break;  // no Python form: decided by kind below
        default:
          return is_instance(to_python(v), c);
      }
    }
    py::handle type;
    switch (x->kind) {
      case ir::AbsKind::Tensor:
        if (is_subclass(r.tensor, c)) return true;
        if (is_subclass(c, r.tensor)) return std::nullopt;  // a Parameter? cannot tell
        return false;
      case ir::AbsKind::Scalar:
        switch (x->stype) {
          case ValueKind::Bool:
            type = r.bool_type;
            break;
          case ValueKind::Int:
            type = r.int_type;
            break;
          case ValueKind::Float:
            type = r.float_type;
            break;
          case ValueKind::Str:
            type = r.str_type;
            break;
          default:
            type = r.none_type;
            break;
        }
        return is_subclass(type, c);
      case ir::AbsKind::Tuple:
        return is_subclass(r.tuple_type, c);
      case ir::AbsKind::List:
        return is_subclass(r.list_type, c);
      case ir::AbsKind::Dict:
        return is_subclass(r.dict_type, c);
      case ir::AbsKind::Func:
      case ir::AbsKind::Const:
      case ir::AbsKind::Any:
        if (c.ptr() == r.object_type.ptr()) return true;
        return std::nullopt;
    }
    return std::nullopt;
  }

  // (module, function) -> its graph; the function is kept alive so its id stays unique.
  // Parsed functions: (module, function) -> (the function, as a host object, and its graph).
  std::map<std::pair<ir::Module*, PyObject*>, std::pair<Value, ir::FuncGraph*>> graphs_;
};

}  // namespace

std::unique_ptr<ir::Host> make_py_host() { return std::make_unique<PyHost>(); }

void for_each_host_value(const ir::Host& host, const std::function<void(const Value&)>& f) {
  if (const auto* h = dynamic_cast<const PyHost*>(&host)) h->for_each_value(f);
}

namespace {
class PyRuntimeHost final : public vm::RuntimeHost {
 public:
  void print(const std::string& text) override {
    py::gil_scoped_acquire gil;
    py::module_::import("sys").attr("stdout").attr("write")(text);
  }
  Value call(const Value& fn, const std::vector<Value>& args) override {
    py::gil_scoped_acquire gil;
    py::tuple a(args.size());
    for (size_t i = 0; i < args.size(); ++i) a[i] = to_python(args[i]);
    try {
      return to_value(unwrap_host(fn)(*a));
    } catch (py::error_already_set& e) {
      // KeyboardInterrupt, SystemExit and other non-Exception errors pass through as they are.
      if (!e.matches(PyExc_Exception)) throw;
      // TypeError / ValueError / IndexError keep their kind and message as they are.
      for (auto [exc, kind] : {std::pair{PyExc_TypeError, ErrorKind::Type},
                               std::pair{PyExc_ValueError, ErrorKind::Value},
                               std::pair{PyExc_IndexError, ErrorKind::Index}})
        if (e.matches(exc) && e.value()) throw Error(kind, py::str(e.value()).cast<std::string>());
      rethrow_python(e);
    }
  }
  void poll() override {
    if (mycel::py::on_main_thread()) chain_sigint_handler();
  }
  void check_signals() override {
    // Python runs signal handlers on its main thread only: elsewhere the graph goes on and
    // the flag stays set for the main thread.
    if (!mycel::py::on_main_thread()) return;
    set_interrupt_pending(false);
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
};
}  // namespace

std::unique_ptr<vm::RuntimeHost> make_py_runtime_host() {
  return std::make_unique<PyRuntimeHost>();
}

}  // namespace mycel::frontend
