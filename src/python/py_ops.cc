// Op handles: the Python primitives (mycel.ops.operations) hold one each. A handle keeps the
// op's validated init-time attributes, so a call converts only its tensors and call-time
// attributes before going straight to the eager dispatcher.
#include <pybind11/stl.h>

#include "comm/work_queue.h"
#include "frontend/py_convert.h"
#include "ops/weak_scalar.h"
#include "python/module.h"
#include "runtime/eager.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

// Large ops release the GIL so other Python threads (data loading) run meanwhile.
constexpr int64_t kReleaseGilElements = 1 << 15;

struct OpHandle {
  const OpDef* op;
  Attrs given;  // init-time attributes as the user gave them
  Attrs attrs;  // complete, when the op has no required call-time attribute
  bool attrs_complete = false;
  std::vector<const AttrSpec*> call_specs;
};

// to_attr with the op and attribute in its errors ("For 'Fill', 'shape': the integer ...").
AttrValue op_attr(const OpDef& op, std::string_view name, pyb::handle v) {
  try {
    return to_attr(v);
  } catch (const Error& e) {
    throw Error(e.kind(), str("For '", op.name, "', '", name, "': ", e.message()));
  }
}

OpHandle make_handle(const std::string& name, const pyb::dict& init) {
  const OpDef* op = find_op(name);
  MC_CHECK(op != nullptr, Value, "unknown primitive '", name, "'.");
  OpHandle h{op, {}, {}, false, {}};
  for (auto [k, v] : init) {
    std::string key = k.cast<std::string>();
    AttrValue val = op_attr(*op, key, v);
    if (std::holds_alternative<std::monostate>(val)) continue;  // None: use the default
    h.given.set(key, std::move(val));
  }
  // A random primitive's own position in its seeds' stream (ops/op_table.h); a handle made
  // again from a compiled node's attributes keeps the node's.
  if ((op->flags & F_RANDOM) && !h.given.has(kRandomStreamAttr))
    h.given.set(kRandomStreamAttr, new_random_instance());
  bool required_call = false;
  for (const AttrSpec& s : op->attrs) {
    if (s.when == AttrWhen::Call) {
      h.call_specs.push_back(&s);
      required_call |= std::holds_alternative<std::monostate>(s.dflt) && !h.given.has(s.name);
    }
  }
  check_attrs(*op, h.given);  // errors surface at construction, not at the first call
  if (!required_call) {
    h.attrs = make_attrs(*op, h.given);
    h.attrs_complete = true;
  }
  return h;
}

pyb::object wrap_outputs(const OpDef& op, TensorList outs) {
  if (op.num_outputs == 1) return pyb::cast(std::move(outs[0]));
  pyb::tuple t(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) t[i] = pyb::cast(std::move(outs[i]));
  return t;
}

pyb::object call_handle(const OpHandle& h, const pyb::args& args, const pyb::kwargs& kwargs) {
  const OpDef& op = *h.op;
  InlineVector<pyb::handle, 4> raw;
  size_t next = 0;
  if (op.num_inputs == kVariadic) {
    MC_CHECK(args.size() >= 1 &&
                 (pyb::isinstance<pyb::tuple>(args[0]) || pyb::isinstance<pyb::list>(args[0])),
             Type, "For '", op.name, "', the input must be a tuple or list of tensors.");
    for (pyb::handle x : args[0]) raw.push_back(x);
    next = 1;
  } else {
    size_t n = static_cast<size_t>(op.num_inputs);
    MC_CHECK(args.size() >= n, Type, "For '", op.name, "', expected ", n, " input",
             n == 1 ? "" : "s", ", but got ", args.size(), ".");
    for (size_t i = 0; i < n; ++i) raw.push_back(args[i]);
    next = n;
  }
  // Python scalars take their dtype from the first tensor input (weak scalars), but for the
  // inputs ops/weak_scalar.h exempts.
  const Tensor* like = nullptr;
  for (pyb::handle x : raw) {
    if (is_tensor(x)) {
      like = &tensor_of(x);
      break;
    }
  }
  TensorList inputs;
  for (size_t i = 0; i < raw.size(); ++i) {
    try {
      inputs.push_back(operand(raw[i], weak_scalar_follows_tensor(op, i) ? like : nullptr));
    } catch (const Error& e) {
      throw Error(e.kind(), str("For '", op.name, "', input ", i, ": ", e.message()));
    }
  }

  const Attrs* attrs = &h.attrs;
  Attrs merged;
  size_t extra = args.size() - next;
  if (extra > 0 || !kwargs.empty() || !h.attrs_complete) {
    MC_CHECK(extra <= h.call_specs.size(), Type, "For Operator[", op.name,
             "], the number of inputs should be less than or equal to ", next + h.call_specs.size(),
             ", but got ", args.size(), " (too many arguments).");
    merged = h.given;
    for (size_t i = 0; i < extra; ++i) {
      AttrValue v = op_attr(op, h.call_specs[i]->name, args[next + i]);
      if (!std::holds_alternative<std::monostate>(v))
        merged.set(h.call_specs[i]->name, std::move(v));
    }
    for (auto [k, v] : kwargs) {
      std::string key = k.cast<std::string>();
      AttrValue val = op_attr(op, key, v);
      if (!std::holds_alternative<std::monostate>(val)) merged.set(key, std::move(val));
    }
    merged = make_attrs(op, merged);
    attrs = &merged;
  }

  int64_t work = 0;
  for (const Tensor& t : inputs) work += t.numel();
  TensorList outs;
  if (work >= kReleaseGilElements) {
    pyb::gil_scoped_release nogil;
    outs = run_op(op, inputs, *attrs);
  } else {
    outs = run_op(op, inputs, *attrs);
  }
  return wrap_outputs(op, std::move(outs));
}

std::string_view grad_name(Grad g) { return g == Grad::DIFF ? "DIFF" : "NODIFF"; }

}  // namespace

void bind_ops(pyb::module_& m) {
  pyb::class_<OpHandle>(m, "OpHandle", "A primitive with its init-time attributes, ready to call.")
      .def(pyb::init([](const std::string& name, const pyb::dict& attrs) {
             return make_handle(name, attrs);
           }),
           pyb::arg("name"), pyb::arg("attrs") = pyb::dict())
      .def("__call__", &call_handle)
      // A handle never changes after construction: copies share it (copy.deepcopy of a Cell
      // holding primitives).
      .def("__copy__", [](pyb::object self) { return self; })
      .def("__deepcopy__", [](pyb::object self, pyb::object /*memo*/) { return self; })
      .def(
          "call_async",
          [](const OpHandle& h, const std::vector<Tensor>& inputs) {
            MC_CHECK(h.attrs_complete, Type, "For '", h.op->name,
                     "', call_async needs every attribute given at construction.");
            AsyncCollective r = run_collective_async(*h.op, inputs, h.attrs);
            pyb::tuple outs(r.outputs.size());
            for (size_t i = 0; i < r.outputs.size(); ++i) outs[i] = pyb::cast(r.outputs[i]);
            return pyb::make_tuple(outs, r.work);
          },
          "A communication op queued on the job's communication queue: (outputs, work); the "
          "outputs hold the result once work.wait() returned.")
      .def_property_readonly("name", [](const OpHandle& h) { return std::string(h.op->name); })
      .def("attrs", [](const OpHandle& h) {
        pyb::dict d;
        const Attrs& a = h.attrs_complete ? h.attrs : h.given;
        for (const auto& [k, v] : a.items()) d[pyb::str(k)] = attr_to_py(v);
        return d;
      });

  // The op table as Python data, from which mycel.ops.operations builds its classes.
  m.def("op_schema", []() {
    pyb::list ops;
    for (const OpDef& d : op_table()) {
      pyb::list attrs;
      for (const AttrSpec& s : d.attrs) {
        pyb::dict a;
        a["name"] = s.name;
        a["kind"] = std::string(attr_kind_name(s.kind));
        a["required"] = std::holds_alternative<std::monostate>(s.dflt);
        a["default"] = attr_to_py(s.dflt);
        a["call"] = s.when == AttrWhen::Call;
        attrs.append(a);
      }
      pyb::dict op;
      op["name"] = d.name;
      op["num_inputs"] = d.num_inputs;
      op["num_outputs"] = d.num_outputs;
      op["grad"] = std::string(grad_name(d.grad));
      op["effects"] = (d.flags & kEffectFlags) != 0;  // random, in place or collective
      op["attrs"] = attrs;
      ops.append(op);
    }
    return ops;
  });
}

}  // namespace mycel::py
