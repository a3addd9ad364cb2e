// GraphFunction: a Python callable (a function, a bound method or a Cell) compiled to a graph
// per call signature and run by the graph executor without the GIL.
//
//   GraphFunction(fn)(*args)
//     1. the signature: an abstract per argument — tensors by dtype and shape, anything
//        else (numbers, strings, tuples of them) by value;
//     2. a cache hit runs the compiled graph; a miss compiles: parse (once per function,
//        in this object's source module) -> specialise -> optimise (the pass pipeline) ->
//        executable. MYCEL_LOG_RECOMPILE=1 reports which argument changed and how;
//     3. runs it on the argument values plus the current tensors of the weights
//        (Parameters) the graph reads, with the GIL released (print and the JIT fallback
//        take it back).
#include <pybind11/stl.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "compiler/pipeline.h"
#include "compiler/specialize.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "python/convert.h"
#include "python/module.h"
#include "runtime/vm.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using ir::AbsPtr;
using ir::Abstract;
using ir::Value;
using ir::ValueKind;

// The abstract of a run-time argument: tensors by type, constants by value.
AbsPtr arg_abstract(const Value& v, ir::Host& host) {
  switch (v.kind()) {
    case ValueKind::Tensor:
      return Abstract::tensor(v.as_tensor().dtype(), v.as_tensor().shape());
    case ValueKind::Tuple:
    case ValueKind::List: {
      std::vector<AbsPtr> el;
      bool all_const = true;
      for (const Value& e : v.items()) {
        el.push_back(arg_abstract(e, host));
        all_const = all_const && el.back()->value.has_value();
      }
      if (all_const) return Abstract::constant(v);
      return v.is(ValueKind::Tuple) ? Abstract::tuple(el) : Abstract::list(el);
    }
    case ValueKind::PyObj: {
      if (auto t = host.weight(v)) return Abstract::tensor(t->dtype(), t->shape());
      return Abstract::constant(v);
    }
    default:
      return Abstract::constant(v);
  }
}

// Parameters passed as arguments run as their tensors.
Value runtime_value(const Value& v, ir::Host& host) {
  if (v.is(ValueKind::PyObj)) {
    if (auto t = host.weight(v)) return Value::tensor(*t);
  }
  if (v.is_sequence()) {
    std::vector<Value> items;
    for (const Value& e : v.items()) items.push_back(runtime_value(e, host));
    return v.is(ValueKind::Tuple) ? Value::tuple(items) : Value::list(items);
  }
  return v;
}

struct Compiled {
  std::vector<AbsPtr> sig;
  AbsPtr key;
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<vm::Executable> exe;
  std::vector<Value> weights;
  std::vector<std::string> warnings;
};

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

class GraphFunction {
 public:
  explicit GraphFunction(pyb::object fn) : fn_(std::move(fn)), host_(frontend::make_py_host()) {
    src_ = std::make_unique<ir::Module>();
    try {  // parameter names, for the recompile log
      pyb::object params =
          pyb::module_::import("inspect").attr("signature")(fn_).attr("parameters");
      for (pyb::handle k : params) arg_names_.push_back(pyb::str(k));
    } catch (pyb::error_already_set&) {
    }
    name_ = pyb::str(
        pyb::getattr(fn_, "__qualname__", pyb::getattr(fn_, "__class__").attr("__name__")));
  }

  pyb::object call(const pyb::args& args) { return call_keyed(pyb::none(), args); }

  // `phase` joins the cache key without being an argument: the training flags of a Cell
  // tree, which the compiled graph reads as constants.
  pyb::object call_keyed(pyb::handle phase, const pyb::args& args) {
    std::vector<Value> vals;
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) {
      vals.push_back(frontend::to_value(a));
      sig.push_back(arg_abstract(vals.back(), *host_));
    }
    AbsPtr key = Abstract::constant(frontend::to_value(phase));
    Compiled* c = find(sig, key);
    if (c == nullptr) c = compile(sig, key);
    std::vector<Value> run_args;
    for (const Value& v : vals) run_args.push_back(runtime_value(v, *host_));
    for (const Value& w : c->weights) run_args.push_back(Value::tensor(*host_->weight(w)));
    Value out;
    {
      pyb::gil_scoped_release nogil;
      out = c->exe->run(run_args, runtime_host_.get());
    }
    return frontend::to_python(out);
  }

  std::string ir_text(const pyb::args& args, bool optimized) {
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) sig.push_back(arg_abstract(frontend::to_value(a), *host_));
    ir::Module out;
    ir::Specialized s = ir::specialize(*src_, out, *host_, frontend::wrap_host(fn_), sig);
    if (optimized) compiler::optimize(out, s.entry, {});
    return ir::print_graph(s.entry);
  }

  std::string vm_text(const pyb::args& args) {
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) sig.push_back(arg_abstract(frontend::to_value(a), *host_));
    AbsPtr key = Abstract::constant(Value::none());
    Compiled* c = find(sig, key);
    if (c == nullptr) c = compile(sig, key);
    return c->exe->dump();
  }

  size_t num_compiled() const { return cache_.size(); }

 private:
  Compiled* find(const std::vector<AbsPtr>& sig, const AbsPtr& key) {
    for (auto& c : cache_) {
      if (c->sig.size() != sig.size() || !ir::abs_equal(c->key, key)) continue;
      bool same = true;
      for (size_t i = 0; i < sig.size() && same; ++i) same = ir::abs_equal(c->sig[i], sig[i]);
      if (same) return c.get();
    }
    return nullptr;
  }

  void log_recompile(const std::vector<AbsPtr>& sig, const AbsPtr& key) {
    if (cache_.empty() || !env_flag("MYCEL_LOG_RECOMPILE")) return;
    const std::vector<AbsPtr>& last = cache_.back()->sig;
    std::string why;
    if (!ir::abs_equal(cache_.back()->key, key))
      why = str("the cell's training flags changed from ", cache_.back()->key->to_string(), " to ",
                key->to_string());
    if (last.size() != sig.size()) {
      why = str("the number of arguments changed from ", last.size(), " to ", sig.size());
    } else {
      for (size_t i = 0; i < sig.size(); ++i) {
        if (ir::abs_equal(last[i], sig[i])) continue;
        if (!why.empty()) why += "; ";
        std::string arg = i < arg_names_.size() ? str("'", arg_names_[i], "'") : str(i);
        why += str("argument ", arg, " changed from ", last[i]->to_string(), " to ",
                   sig[i]->to_string());
      }
    }
    pyb::module_::import("sys").attr("stderr").attr("write")(
        str("mycel: recompiling '", name_, "' (", cache_.size() + 1, " signatures): ", why, "\n"));
  }

  Compiled* compile(const std::vector<AbsPtr>& sig, const AbsPtr& key) {
    log_recompile(sig, key);
    auto c = std::make_unique<Compiled>();
    c->sig = sig;
    c->key = key;
    c->module = std::make_unique<ir::Module>();
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    ir::Specialized s = ir::specialize(*src_, *c->module, *host_, frontend::wrap_host(fn_), sig);
    auto t1 = clock::now();
    compiler::PipelineOptions opts;
    opts.verify_each = env_flag("MYCEL_VERIFY_IR");
    compiler::optimize(*c->module, s.entry, opts);
    auto t2 = clock::now();
    c->exe = vm::Executable::compile(s.entry);
    auto t3 = clock::now();
    if (env_flag("MYCEL_LOG_COMPILE")) {
      auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
      pyb::module_::import("sys").attr("stderr").attr("write")(
          str("mycel: compiled '", name_, "': parse+specialise ", ms(t1 - t0), " ms, passes ",
              ms(t2 - t1), " ms, executable ", ms(t3 - t2), " ms\n"));
    }
    c->weights = std::move(s.weights);
    c->warnings = std::move(s.warnings);
    if (!c->warnings.empty()) {
      pyb::object warn = pyb::module_::import("warnings").attr("warn");
      for (const std::string& w : c->warnings) warn(str("mycel: ", w), pyb::none(), 2);
    }
    cache_.push_back(std::move(c));
    return cache_.back().get();
  }

  pyb::object fn_;
  std::string name_;
  std::vector<std::string> arg_names_;
  std::unique_ptr<ir::Host> host_;
  std::unique_ptr<ir::Module> src_;
  std::vector<std::unique_ptr<Compiled>> cache_;
  std::unique_ptr<vm::RuntimeHost> runtime_host_ = frontend::make_py_runtime_host();
};

}  // namespace

void bind_graph(pyb::module_& m) {
  pyb::class_<GraphFunction>(m, "GraphFunction",
                             "A function, bound method or Cell compiled per call signature.")
      .def(pyb::init<pyb::object>())
      .def("__call__", &GraphFunction::call)
      .def("call_keyed", &GraphFunction::call_keyed,
           "Calls with an extra cache key (a Cell tree's training flags).")
      .def(
          "ir", [](GraphFunction& g, const pyb::args& a) { return g.ir_text(a, true); },
          "The optimised IR for these arguments (text).")
      .def(
          "ir_specialized",
          [](GraphFunction& g, const pyb::args& a) { return g.ir_text(a, false); },
          "The specialised IR before the passes (text).")
      .def(
          "vm", [](GraphFunction& g, const pyb::args& a) { return g.vm_text(a); },
          "The executor's instruction listing for these arguments.")
      .def_property_readonly("num_compiled", &GraphFunction::num_compiled);
}

}  // namespace mycel::py
