// GraphFunction: a Python callable (a function, a bound method or a Cell) compiled to a graph
// per call signature and run by the graph executor without the GIL.
//
//   GraphFunction(fn)(*args)
//     1. the signature: an abstract per argument — tensors by dtype and shape, anything
//        else (numbers, strings, tuples of them) by value, except run-time scalars: a
//        mycel.mutable(number), and a Python float argument that took kFloatRecompiles
//        different values in compiles (then "f64", the graph takes it as a 0-d input; if
//        that graph does not compile, the argument goes back to being compiled by value);
//        With an input signature (Cell.set_inputs, jit(input_signature=...)), each tensor
//        argument it gives a shape for must be an instance of that shape (dtype and rank
//        equal, the known dimensions equal; a ValueError or TypeError naming the argument
//        otherwise) and is keyed by it: its dynamic (None) dimensions are -1, so every
//        shape they take runs one graph, compiled once with dynamic shapes;
//     2. a cache hit runs the compiled graph (one compiled with graph kernels only for the
//        target they were made for, the host or a device; one whose weights, the
//        Parameters it reads, all still have the dtypes and shapes it was compiled for:
//        Parameter.set_data may give one new data of another shape); a miss compiles
//        (compiler::compile, options from the environment, logging to sys.stderr): parse (once per
//        function, in this object's source module) -> specialise -> optimise (the pass pipeline) ->
//        executable. MYCEL_LOG_RECOMPILE=1 reports which argument changed and how. The
//        cache is LRU, bounded by the jit cache limit (set_jit_cache_limit: 8 unless
//        set_context(jit_cache_limit=n) or MYCEL_JIT_CACHE_LIMIT say otherwise, as
//        PyTorch's recompile limit); the first eviction warns, naming the argument that
//        changed;
//     3. runs it on the argument values plus the current tensors of the weights
//        (Parameters) the graph reads, with the GIL released (print and the JIT fallback
//        take it back).
//
// Garbage collection: a Cell compiled in GRAPH mode is in a cycle, Cell -> its jit function
// -> GraphFunction -> the bound construct and the IR's host objects (the cell, its sub-cells
// and Parameters) -> Cell. The GraphFunction type takes part in Python's cycle collector
// (tp_traverse/tp_clear through py::custom_type_setup): after each compile it lists every
// distinct host object its modules, signatures, weights and host hold (HostRefs; each
// holds one reference, which tp_traverse reports once), so a dropped Cell is freed with its
// graphs by gc.collect().
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "base/env.h"
#include "compiler/compile.h"
#include "frontend/py_convert.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "parallel/spmd.h"
#include "python/module.h"
#include "python/py_data.h"
#include "runtime/eager.h"
#include "runtime/vm.h"
#include "runtime/vm_capture.h"
#include "tensor/dynamic_shape.h"

namespace pyb = pybind11;

namespace mycel::py {

using ir::AbsPtr;
using ir::Abstract;
using ir::Value;
using ir::ValueKind;

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
    case ValueKind::Dict: {  // tensors inside are run-time values, as in a tuple
      std::vector<AbsPtr> el;
      bool all_const = true;
      for (const Value& e : v.as_dict().values) {
        el.push_back(arg_abstract(e, host));
        all_const = all_const && el.back()->value.has_value();
      }
      if (all_const) return Abstract::constant(v);
      return Abstract::dict(v.as_dict().keys, el);
    }
    case ValueKind::PyObj: {
      if (auto t = host.weight(v)) return Abstract::tensor(t->dtype(), t->shape());
      return Abstract::constant(v);
    }
    default:
      return Abstract::constant(v);
  }
}

namespace {

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
  if (v.is(ValueKind::Dict)) {
    std::vector<Value> values;
    for (const Value& e : v.as_dict().values) values.push_back(runtime_value(e, host));
    return Value::dict(v.as_dict().keys, std::move(values));
  }
  return v;
}

// The most graphs one GraphFunction keeps.
std::atomic<int> g_cache_limit{8};
// set_context(jit_level=...): "O2" runs compiled steps as captured graphs on a device that
// can capture (runtime/vm_capture.h); a function's own jit_level (jit(jit_level=...),
// JitConfig) overrides it.
std::atomic<bool> g_capture_default{false};
// set_context(enable_graph_kernel=...): GRAPH-mode compiles fuse into generated kernels.
std::atomic<bool> g_graph_kernel{false};
// A Python float argument that took this many values in compiles becomes a run-time scalar.
constexpr int kFloatRecompiles = 3;

// The dataset strategy of each argument of `sig` (parallel::SpmdOptions::inputs) from the
// auto-parallel context's (mycel.parallel._spmd._compile_config): None (every argument
// whole), "data_parallel" (each tensor argument of at least one dimension split along
// dimension 0 over the devices) or one row of slice counts per tensor argument.
std::vector<std::vector<int64_t>> input_strategies(const pyb::object& spec,
                                                   const std::vector<AbsPtr>& sig,
                                                   int64_t devices) {
  std::vector<std::vector<int64_t>> out(sig.size());
  if (spec.is_none()) return out;
  const bool dp = pyb::isinstance<pyb::str>(spec);
  std::vector<std::vector<int64_t>> rows;
  if (!dp) rows = spec.cast<std::vector<std::vector<int64_t>>>();
  size_t next = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    if (!sig[i]->is_tensor()) continue;
    if (dp) {
      if (sig[i]->shape.empty()) continue;
      out[i].assign(sig[i]->shape.size(), 1);
      out[i][0] = devices;
      continue;
    }
    MC_CHECK(next < rows.size(), Value, "semi_auto_parallel: the dataset_strategy has ",
             rows.size(), " rows, but the network takes more tensor inputs");
    out[i] = rows[next++];
  }
  MC_CHECK(dp || next == rows.size(), Value, "semi_auto_parallel: the dataset_strategy has ",
           rows.size(), " rows, but the network takes ", next, " tensor inputs");
  return out;
}

bool is_float_const(const AbsPtr& a) {
  return a->kind == ir::AbsKind::Scalar && a->stype == ValueKind::Float && a->is_const();
}

// mycel.mutable(number) (common/api.py): a float or int subclass marked __ms_mutable__,
// passed as a run-time scalar. Sets `v` and `abs` and returns true for one.
bool mutable_scalar(pyb::handle a, Value& v, AbsPtr& abs) {
  PyObject* p = a.ptr();
  bool is_float = PyFloat_Check(p) && !PyFloat_CheckExact(p);
  bool is_int = PyLong_Check(p) && !PyLong_CheckExact(p) && !PyBool_Check(p);
  if (!(is_float || is_int) || !pyb::hasattr(a, "__ms_mutable__")) return false;
  if (is_float) {
    v = Value::real(PyFloat_AsDouble(p));
    abs = Abstract::scalar(ValueKind::Float);
  } else {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(p, &overflow);
    MC_CHECK(overflow == 0, Value, "mutable: the int ", pyb::str(a).cast<std::string>(),
             " does not fit in int64");
    v = Value::integer(i);
    abs = Abstract::scalar(ValueKind::Int);
  }
  return true;
}

// The distinct host objects reachable from IR values, abstracts and modules: each holds one
// reference to its Python object, which the garbage collector must see.
class HostRefs {
 public:
  void value(const Value& v) {
    switch (v.kind()) {
      case ValueKind::PyObj:
        if (seen_.insert(v.as_host().get()).second) out_.push_back(v.as_host());
        break;
      case ValueKind::Tuple:
      case ValueKind::List:
        for (const Value& e : v.items()) value(e);
        break;
      case ValueKind::Dict:
        for (const Value& e : v.as_dict().keys) value(e);
        for (const Value& e : v.as_dict().values) value(e);
        break;
      case ValueKind::Slice:
        value(v.as_slice().start);
        value(v.as_slice().stop);
        value(v.as_slice().step);
        break;
      case ValueKind::Closure:
        value(v.as_closure().fn);
        for (const Value& e : v.as_closure().args) value(e);
        break;
      default:
        break;
    }
  }
  void abstract(const AbsPtr& a) {
    if (!a || !seen_abs_.insert(a.get()).second) return;
    if (a->value) value(*a->value);
    for (const AbsPtr& e : a->elems) abstract(e);
    for (const Value& k : a->keys) value(k);
    for (const ir::FuncCandidate& f : a->funcs) {
      value(f.fn);
      for (const AbsPtr& b : f.bound) abstract(b);
    }
  }
  void module(const ir::Module& m) {
    for (const auto& n : m.nodes()) {
      abstract(n->abstract());
      if (n->is_value()) value(static_cast<const ir::ValueNode&>(*n).value());
    }
    for (const auto& g : m.graphs())
      for (const std::optional<Value>& d : g->signature().defaults)
        if (d) value(*d);
  }
  std::vector<std::shared_ptr<const ir::HostObject>> take() { return std::move(out_); }

 private:
  std::unordered_set<const ir::HostObject*> seen_;
  std::unordered_set<const Abstract*> seen_abs_;  // abstracts are shared DAGs
  std::vector<std::shared_ptr<const ir::HostObject>> out_;
};

// Whether graph-kernel fusion is for a device: the context's target is a GPU, or
// MYCEL_GRAPH_KERNEL_DEVICE=1 asks for the device's fusion on the host (compiler/compile.h).
bool graph_kernel_on_device() {
  return !default_device().is_cpu() || env_flag("MYCEL_GRAPH_KERNEL_DEVICE");
}

struct Compiled {
  std::vector<AbsPtr> sig;
  AbsPtr key;
  // With graph kernels, the target they were made for (0: the CPU's generated kernels, 1: a
  // device's MatMul epilogues; -1: no graph kernels): a program is not reused for the other
  // target, whose kernels it lacks.
  int gk_target = -1;
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<vm::Executable> exe;
  std::unique_ptr<vm::CaptureRunner> runner;  // jit_level O2: made on its first call
  std::vector<Value> weights;
  // The dtype and shape of each weight's tensor when compiled (after a semi_auto_parallel
  // rewrite sliced it): the graph is reused only while they are the same (find).
  std::vector<AbsPtr> weight_specs;
  std::vector<std::string> warnings;
  bool custom_grads = false;  // compiler::CompileResult::custom_grads
  bool grads = false;         // compiler::CompileResult::grads
};

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
    name_ = qualname(fn_);
  }

  pyb::object call(const pyb::args& args) { return call_keyed(pyb::none(), args); }

  // `phase` joins the cache key without being an argument: the training flags of a Cell
  // tree, which the compiled graph reads as constants.
  pyb::object call_keyed(pyb::handle phase, const pyb::args& args) {
    std::vector<Value> vals;
    std::vector<Value> weights;
    std::shared_ptr<Compiled> c =
        lookup_args(phase, args, vals, weights);  // shared: an eviction may drop it
    std::vector<Value> run_args;
    run_args.reserve(vals.size() + weights.size());
    for (const Value& v : vals) run_args.push_back(runtime_value(v, *host_));
    for (Value& w : weights) run_args.push_back(std::move(w));
    Value out;
    before_graph_run();  // Ctrl-C reaches the executor (base/interrupt.h)
    vm::CaptureRunner* runner = runner_of(*c);
    {
      pyb::gil_scoped_release nogil;
      out = runner ? runner->run(run_args, runtime_host_.get())
                   : c->exe->run(run_args, runtime_host_.get());
    }
    return frontend::to_python(out);
  }

  // Whether the graph for these arguments (compiled now if it is not cached) has a custom
  // gradient rule (compiler::CompileResult::custom_grads): _JitFunction (common/api.py) then
  // runs the function eagerly inside a PYNATIVE gradient's recording, where the rule is seen.
  bool custom_grads(const pyb::args& args) {
    std::vector<Value> vals, weights;
    return lookup_args(pyb::none(), args, vals, weights)->custom_grads;
  }

  // The weights (Parameters) the graph for these arguments reads if it takes a gradient,
  // else None (compiled now if it is not cached): _JitFunction refuses Tensor.register_hook
  // hooks on them and on the arguments, which a gradient inside graph code does not run.
  pyb::object grad_weights(pyb::handle phase, const pyb::args& args) {
    std::vector<Value> vals, weights;
    std::shared_ptr<Compiled> c = lookup_args(phase, args, vals, weights);
    if (!c->grads) return pyb::none();
    pyb::list out;
    for (const Value& w : c->weights) out.append(frontend::to_python(w));
    return out;
  }

  // The compiled graph for a call's arguments (their values in `vals`, the current tensors of
  // the weights it reads in `weights`), from the cache or compiled now.
  std::shared_ptr<Compiled> lookup_args(pyb::handle phase, const pyb::args& args,
                                        std::vector<Value>& vals, std::vector<Value>& weights) {
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) {
      Value v;
      AbsPtr abs;
      if (!mutable_scalar(a, v, abs)) {
        v = frontend::to_value(a);
        abs = arg_abstract(v, *host_);
        size_t i = sig.size();
        if (i < float_state_.size() && float_state_[i] == kRuntime && is_float_const(abs))
          abs = Abstract::scalar(ValueKind::Float);
      }
      vals.push_back(std::move(v));
      sig.push_back(std::move(abs));
    }
    if (!input_sig_.empty()) apply_input_signature(sig);
    return lookup(sig, Abstract::constant(frontend::to_value(phase)), weights);
  }

  // Data sink: up to `steps` calls, each on the next row of `pipeline` (a _data.Pipeline
  // whose columns are the arguments, in order), with no Python code run between them: the
  // rows come from the engine's threads as Tensors, the compiled graph runs with the GIL
  // released, and the graph is looked up again only when a row's signature changes (a last
  // smaller batch). With `cross_epochs` an epoch's end continues into the next epoch; else it
  // ends the sink. Returns (the last call's output or None, calls made, whether the pipeline
  // has ended).
  pyb::tuple sink(pyb::handle phase, pyb::handle pipeline, const std::vector<std::string>& columns,
                  int64_t steps, bool cross_epochs) {
    AbsPtr key = Abstract::constant(frontend::to_value(phase));
    std::shared_ptr<Compiled> c;
    std::vector<Tensor> row;
    std::vector<AbsPtr> sig;
    std::vector<Value> run_args, weights;
    Value out;
    int64_t n = 0;
    bool ended = false;
    before_graph_run();
    bool empty = false;  // two epoch ends with no row between: nothing more will come
    while (n < steps) {
      SinkRow got = pipeline_next_tensors(pipeline, columns, &row);
      if (got == SinkRow::Ended) ended = true;
      if (got != SinkRow::Row) {
        // An epoch end before this call's first row closes the epoch an earlier call read to
        // its last row: it never ends this one.
        bool leading = n == 0 && !empty;
        if (ended || empty || !(cross_epochs || leading)) break;
        empty = true;
        continue;
      }
      empty = false;
      bool same = c && row.size() == sig.size();
      for (size_t i = 0; same && i < row.size(); ++i)
        same = row[i].dtype() == sig[i]->dtype && shape_matches(sig[i]->shape, row[i].shape());
      if (!same) {
        sig.clear();
        for (const Tensor& t : row) sig.push_back(Abstract::tensor(t.dtype(), t.shape()));
        if (!input_sig_.empty()) apply_input_signature(sig);
        c = lookup(sig, key, weights);
      }
      run_args.clear();
      for (Tensor& t : row) run_args.push_back(Value::tensor(std::move(t)));
      for (const Value& w : c->weights) run_args.push_back(Value::tensor(*host_->weight(w)));
      vm::CaptureRunner* runner = runner_of(*c);
      {
        pyb::gil_scoped_release nogil;
        out = runner ? runner->run(run_args, runtime_host_.get())
                     : c->exe->run(run_args, runtime_host_.get());
      }
      ++n;
    }
    pyb::object last = n > 0 ? frontend::to_python(out) : pyb::none();
    return pyb::make_tuple(last, n, ended);
  }

  std::string ir_text(const pyb::args& args, bool optimized) {
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) sig.push_back(arg_abstract(frontend::to_value(a), *host_));
    if (!input_sig_.empty()) apply_input_signature(sig);
    ir::Module out;
    compiler::CompileResult r = compiler::compile(
        *host_, *src_, out, frontend::wrap_host(fn_), sig, compile_options(), str("'", name_, "'"),
        optimized ? compiler::Stage::Optimize : compiler::Stage::Specialize);
    refresh_refs();  // src_ and host_ may hold new objects
    return ir::print_graph(r.entry);
  }

  std::string vm_text(const pyb::args& args) {
    std::vector<AbsPtr> sig;
    for (pyb::handle a : args) sig.push_back(arg_abstract(frontend::to_value(a), *host_));
    if (!input_sig_.empty()) apply_input_signature(sig);
    std::vector<Value> weights;
    return lookup(sig, Abstract::constant(Value::none()), weights)->exe->dump();
  }

  // The input signature: per positional argument, None (any value) or (dtype, shape) with -1
  // for a dynamic dimension; an empty list removes it. Graphs compiled before stay cached.
  void set_input_signature(const pyb::list& specs) {
    std::vector<AbsPtr> sig;
    for (pyb::handle s : specs) {
      if (s.is_none()) {
        sig.push_back(nullptr);
        continue;
      }
      auto t = s.cast<std::pair<pyb::object, std::vector<int64_t>>>();
      for (int64_t d : t.second)
        MC_CHECK(d >= -1, Value,
                 "For 'set_inputs', a dimension must be an int >= 0 or None, "
                 "but got ",
                 d, ".");
      sig.push_back(Abstract::tensor(to_dtype(t.first), Shape(t.second.begin(), t.second.end())));
    }
    input_sig_ = std::move(sig);
  }

  size_t num_compiled() const { return cache_.size(); }

  // jit_level of this function: "" follows set_context's, "O2" captures, others do not.
  void set_jit_level(const std::string& level) { jit_level_ = level; }
  const std::string& jit_level() const { return jit_level_; }

  // The capture counters (runtime/vm_capture.h) summed over the graphs in the cache.
  pyb::dict capture_stats() const {
    vm::CaptureStats t;
    for (const auto& c : cache_) {
      if (!c->runner) continue;
      vm::CaptureStats s = c->runner->stats();
      t.op_by_op += s.op_by_op;
      t.captures += s.captures;
      t.replays += s.replays;
      t.fallbacks += s.fallbacks;
      if (!s.last_reason.empty()) t.last_reason = s.last_reason;
    }
    pyb::dict d;
    d["op_by_op"] = t.op_by_op;
    d["captures"] = t.captures;
    d["replays"] = t.replays;
    d["fallbacks"] = t.fallbacks;
    d["last_reason"] = t.last_reason;
    return d;
  }

  // The most recently used compiled graph, as the VM program text (what `vm` prints); empty
  // before the first compile. MindSpore's train.serialization._save_graph writes it.
  std::string last_graph_text() const {
    return cache_.empty() ? std::string() : cache_.back()->exe->dump();
  }
  size_t num_compiles() const { return compiles_; }

  // tp_traverse: the Python objects this function holds (one visit per reference).
  int traverse(visitproc visit, void* arg) const {
    Py_VISIT(fn_.ptr());
    for (const auto& h : refs_) {
      auto* p = dynamic_cast<const frontend::PyHostObject*>(h.get());
      if (p != nullptr) Py_VISIT(p->object().ptr());
    }
    return 0;
  }

  // tp_clear: drops every reference (the function can no longer compile; nothing calls it,
  // as the collector clears only unreachable objects). Old state is released after the
  // members are reset, so code run by a released object's __del__ sees a consistent one.
  void clear() {
    std::unique_ptr<ir::Module> src = std::move(src_);
    std::unique_ptr<ir::Host> host = std::move(host_);
    std::vector<std::shared_ptr<Compiled>> cache = std::move(cache_);
    std::vector<std::shared_ptr<const ir::HostObject>> refs = std::move(refs_);
    pyb::object fn = std::move(fn_);
    cache_.clear();
    refs_.clear();
    src_ = std::make_unique<ir::Module>();
    host_ = frontend::make_py_host();
    fn_ = pyb::none();
    last_float_.clear();
    float_state_.clear();
    float_changes_.clear();
  }

 private:
  // The capture runner of `c` when this function runs at jit_level O2, else nullptr.
  vm::CaptureRunner* runner_of(Compiled& c) {
    const bool o2 = jit_level_.empty() ? g_capture_default.load() : jit_level_ == "O2";
    if (!o2) return nullptr;
    if (!c.runner) c.runner = std::make_unique<vm::CaptureRunner>(*c.exe, name_);
    return c.runner.get();
  }

  // How a Python float argument position is keyed: by value, as a run-time scalar (after
  // kFloatRecompiles values), or by value for good (its run-time form did not compile).
  enum FloatState : uint8_t { kByValue, kRuntime, kStatic };

  // The graph for `sig` and `key` whose weights have their dtypes and shapes now (their
  // tensors in `weights`): from the cache, or compiled now.
  std::shared_ptr<Compiled> lookup(std::vector<AbsPtr>& sig, const AbsPtr& key,
                                   std::vector<Value>& weights) {
    if (std::shared_ptr<Compiled> c = find(sig, key, weights)) return c;
    std::vector<size_t> broadened = count_float_changes(sig);
    if (!broadened.empty()) {
      if (std::shared_ptr<Compiled> c = find(sig, key, weights)) return c;
      try {
        std::shared_ptr<Compiled> c = compile(sig, key, weights);
        for (size_t i : broadened)
          warn(str("mycel: argument ", arg_name(i), " of '", name_,
                   "' is a Python float that took ", kFloatRecompiles,
                   " different values, each compiled into its own graph; it is now passed to "
                   "the graph as a run-time float scalar. Pass it as mycel.mutable(value) (or "
                   "a Tensor) to do so from the first call."));
        return c;
      } catch (const Error&) {
        // The graph needs those floats as constants: key them by value from now on.
        for (size_t i : broadened) {
          float_state_[i] = kStatic;
          sig[i] = Abstract::constant(*last_float_[i]);
        }
        if (std::shared_ptr<Compiled> c = find(sig, key, weights)) return c;
      }
    }
    return compile(sig, key, weights);
  }

  // Checks the arguments' abstracts against the input signature and replaces those of the
  // tensors it gives shapes for by them (see the top of the file).
  void apply_input_signature(std::vector<AbsPtr>& sig) const {
    MC_CHECK(sig.size() == input_sig_.size(), Type, "For '", name_, "', set_inputs gave ",
             input_sig_.size(), " input", input_sig_.size() == 1 ? "" : "s",
             ", but it was called with ", sig.size(), ".");
    for (size_t i = 0; i < sig.size(); ++i) {
      const AbsPtr& want = input_sig_[i];
      if (!want) continue;
      const AbsPtr& got = sig[i];
      MC_CHECK(got->kind == ir::AbsKind::Tensor, Type, "For '", name_, "', the input ", arg_name(i),
               " must be a Tensor of ", want->to_string(), " (set_inputs), but got ",
               got->to_string(), ".");
      MC_CHECK(got->dtype == want->dtype, Type, "For '", name_, "', the input ", arg_name(i),
               " must have dtype ", want->dtype, " (set_inputs), but got ", got->dtype, ".");
      MC_CHECK(shape_matches(want->shape, got->shape), Value, "For '", name_, "', the input ",
               arg_name(i), " must have shape ", want->shape,
               " (set_inputs; -1 is any size), but got ", got->shape, ".");
      sig[i] = want;
    }
  }

  // The tensors of the weights `c` reads, in `out`; false when one is no longer a Parameter's
  // or has another dtype or shape than `c` was compiled for (Parameter.set_data with new
  // data: the graph read the old shape, so it is compiled again).
  bool current_weights(const Compiled& c, std::vector<Value>& out) const {
    out.clear();
    out.reserve(c.weights.size());
    for (size_t i = 0; i < c.weights.size(); ++i) {
      std::optional<Tensor> t = host_->weight(c.weights[i]);
      const AbsPtr& spec = c.weight_specs[i];
      if (!t || t->dtype() != spec->dtype || t->shape() != spec->shape) return false;
      out.push_back(Value::tensor(std::move(*t)));
    }
    return true;
  }

  // Hits move to the back: the front is the least recently used. A hit's weight tensors are
  // in `weights`.
  std::shared_ptr<Compiled> find(const std::vector<AbsPtr>& sig, const AbsPtr& key,
                                 std::vector<Value>& weights) {
    const int target = graph_kernel_on_device() ? 1 : 0;
    for (size_t k = cache_.size(); k-- > 0;) {
      const Compiled& c = *cache_[k];
      if (c.sig.size() != sig.size() || !ir::abs_equal(c.key, key)) continue;
      if (c.gk_target >= 0 && c.gk_target != target) continue;
      bool same = true;
      for (size_t i = 0; i < sig.size() && same; ++i) same = ir::abs_equal(c.sig[i], sig[i]);
      if (!same || !current_weights(c, weights)) continue;
      if (k + 1 != cache_.size())
        std::rotate(cache_.begin() + k, cache_.begin() + k + 1, cache_.end());
      return cache_.back();
    }
    return nullptr;
  }

  // On a cache miss: counts, per position, the Python floats that differ from the value
  // of the last miss; a position that reaches kFloatRecompiles becomes a run-time scalar
  // (its entry of `sig` broadened). Returns the positions broadened now.
  std::vector<size_t> count_float_changes(std::vector<AbsPtr>& sig) {
    std::vector<size_t> now;
    if (float_state_.size() < sig.size()) {
      float_state_.resize(sig.size(), kByValue);
      float_changes_.resize(sig.size(), 0);
      last_float_.resize(sig.size());
    }
    for (size_t i = 0; i < sig.size(); ++i) {
      if (float_state_[i] != kByValue || !is_float_const(sig[i])) continue;
      const Value& v = *sig[i]->value;
      if (last_float_[i] && !(last_float_[i]->as_float() == v.as_float())) ++float_changes_[i];
      last_float_[i] = v;
      if (float_changes_[i] + 1 < kFloatRecompiles) continue;
      float_state_[i] = kRuntime;
      sig[i] = Abstract::scalar(ValueKind::Float);
      now.push_back(i);
    }
    return now;
  }

  // Lists the host objects of every structure (see HostRefs). Runs no Python code until the
  // new list is in place: the old one, released last, may drop the last references.
  void refresh_refs() {
    HostRefs r;
    r.module(*src_);
    frontend::for_each_host_value(*host_, [&](const Value& v) { r.value(v); });
    for (const auto& c : cache_) {
      for (const AbsPtr& a : c->sig) r.abstract(a);
      r.abstract(c->key);
      r.module(*c->module);
      for (const Value& w : c->weights) r.value(w);
    }
    std::vector<std::shared_ptr<const ir::HostObject>> fresh = r.take();
    std::swap(refs_, fresh);
  }

  std::string arg_name(size_t i) const {
    return i < arg_names_.size() ? str("'", arg_names_[i], "'") : str("#", i);
  }

  // What differs between `sig`/`key` and the most recently used graph's.
  std::string why_recompile(const std::vector<AbsPtr>& sig, const AbsPtr& key) const {
    const Compiled& last = *cache_.back();
    std::string why;
    if (!ir::abs_equal(last.key, key))
      why = str("the cell's training flags changed from ", last.key->to_string(), " to ",
                key->to_string());
    if (last.sig.size() != sig.size())
      return str("the number of arguments changed from ", last.sig.size(), " to ", sig.size());
    for (size_t i = 0; i < sig.size(); ++i) {
      if (ir::abs_equal(last.sig[i], sig[i])) continue;
      if (!why.empty()) why += "; ";
      why += str("argument ", arg_name(i), " changed from ", last.sig[i]->to_string(), " to ",
                 sig[i]->to_string());
    }
    if (!why.empty()) return why;
    for (size_t i = 0; i < last.weights.size(); ++i) {
      std::optional<Tensor> t = host_->weight(last.weights[i]);
      if (!t) continue;
      AbsPtr now = Abstract::tensor(t->dtype(), t->shape());
      if (ir::abs_equal(last.weight_specs[i], now)) continue;
      if (!why.empty()) why += "; ";
      std::string name =
          pyb::str(pyb::getattr(frontend::to_python(last.weights[i]), "name", pyb::str("?")));
      why += str("Parameter '", name, "' changed from ", last.weight_specs[i]->to_string(), " to ",
                 now->to_string());
    }
    return why;
  }

  // A UserWarning attributed to the caller of the jit function (stack level 2, as before).
  void warn(const std::string& text) {
    pyb::module_::import("warnings").attr("warn")(text, pyb::none(), 2);
  }

  // Before the first run of a program rewritten per rank (parallel/spmd.h): the groups its
  // collectives use are created and its sliced weights take their slices
  // (mycel.parallel._spmd._apply).
  void apply_spmd(const pyb::object& glue, const parallel::SpmdResult& res, const Compiled& c,
                  const compiler::CompileOptions& options) {
    pyb::list weights, slices, groups;
    for (const Value& w : c.weights) weights.append(frontend::to_python(w));
    int64_t rank = glue.attr("_compile_config")()[pyb::int_(1)].cast<int64_t>();
    for (size_t i = 0; i < res.weights.size(); ++i) {
      if (!res.weights[i]) continue;
      const parallel::TensorLayout& l = *res.weights[i];
      slices.append(pyb::make_tuple(i, l.slice_offsets(rank), l.slice_shape(), l.mesh().shape(),
                                    l.map(), l.shape(), res.opt_axes[i]));
      if (options.log)
        options.write_log(str("mycel: semi_auto_parallel: weight ", i, " ", l.to_string(), "\n"));
    }
    for (const parallel::SpmdGroup& g : res.groups) groups.append(pyb::make_tuple(g.name, g.ranks));
    glue.attr("_apply")(weights, slices, groups);
  }

  std::shared_ptr<Compiled> compile(const std::vector<AbsPtr>& sig, const AbsPtr& key,
                                    std::vector<Value>& weights) {
    std::string why = cache_.empty() ? std::string() : why_recompile(sig, key);
    compiler::CompileOptions options = compile_options();
    if (!cache_.empty() && options.log_recompile)
      options.write_log(str("mycel: recompiling '", name_, "' (", cache_.size() + 1,
                            " signatures): ", why, "\n"));
    auto c = std::make_shared<Compiled>();
    c->sig = sig;
    c->key = key;
    if (options.graph_kernel) c->gk_target = options.graph_kernel_device ? 1 : 0;
    c->module = std::make_unique<ir::Module>();
    std::optional<parallel::SpmdResult> spmd;
    pyb::object spmd_glue = pyb::module_::import("mycel.parallel._spmd");
    if (pyb::object cfg = spmd_glue.attr("_compile_config")(); !cfg.is_none()) {
      auto t = cfg.cast<std::tuple<int64_t, int64_t, std::string, pyb::object, std::string,
                                   std::vector<double>, bool>>();
      parallel::SpmdOptions so;
      so.devices = std::get<0>(t);
      so.rank = std::get<1>(t);
      so.num_args = sig.size();
      so.world_group = std::get<2>(t);
      so.inputs = input_strategies(std::get<3>(t), sig, so.devices);
      so.search = std::get<4>(t);  // auto_parallel's search mode, or empty
      so.profile = parallel::profile_from(std::get<5>(t));
      so.plan_only = std::get<6>(t);
      // The program is written for the whole inputs: it compiles on their global shapes,
      // and the pass types them back as this rank's slices.
      for (size_t i = 0; i < sig.size(); ++i) {
        AbsPtr a = sig[i];
        if (!so.inputs[i].empty()) {
          auto global = a->shape;
          for (size_t d = 0; d < global.size() && d < so.inputs[i].size(); ++d)
            global[d] *= so.inputs[i][d];
          a = Abstract::tensor(a->dtype, std::move(global));
        }
        spmd_sig_.push_back(a);
      }
      options.before_ad = [&spmd, so](ir::Module& m, ir::FuncGraph* root,
                                      const std::vector<Value>& weights) mutable {
        pyb::gil_scoped_acquire gil;
        for (const Value& w : weights) {
          pyb::object l = pyb::getattr(frontend::to_python(w), "_spmd_layout", pyb::none());
          if (l.is_none()) {
            so.known.emplace_back();
            continue;
          }
          auto [mesh, map] = l.cast<std::pair<parallel::Shape, parallel::TensorMap>>();
          so.known.emplace_back(std::make_pair(mesh, map));
        }
        // The optimizer shard (ZeRO-3) and the parameter plans of the weights
        // (mycel.parallel._spmd._weight_options).
        pyb::list py_weights;
        for (const Value& w : weights) py_weights.append(frontend::to_python(w));
        std::tie(so.opt_shard_size, so.opt_shard, so.known_opt, so.planned, so.planned_where) =
            pyb::module_::import("mycel.parallel._spmd")
                .attr("_weight_options")(py_weights)
                .cast<std::tuple<int64_t, std::vector<bool>, std::vector<parallel::Axes>,
                                 std::vector<std::vector<int64_t>>, std::vector<std::string>>>();
        spmd = parallel::spmd_rewrite(m, root, so);
      };
    }
    compiler::CompileResult r =
        compiler::compile(*host_, *src_, *c->module, frontend::wrap_host(fn_),
                          spmd_sig_.empty() ? sig : spmd_sig_, options, str("'", name_, "'"));
    spmd_sig_.clear();
    c->exe = std::move(r.exe);
    c->weights = std::move(r.weights);
    c->warnings = std::move(r.warnings);
    c->custom_grads = r.custom_grads;
    c->grads = r.grads;
    if (spmd && spmd->plan)
      spmd_glue.attr("_planned")(spmd->plan->to_string(), spmd->plan->to_json());
    if (spmd && spmd->sharded) apply_spmd(spmd_glue, *spmd, *c, options);
    for (const Value& w : c->weights) {
      std::optional<Tensor> t = host_->weight(w);
      MC_CHECK(t.has_value(), Internal, "'", name_, "': a weight of the graph is not a Parameter");
      c->weight_specs.push_back(Abstract::tensor(t->dtype(), t->shape()));
    }
    MC_CHECK(current_weights(*c, weights), Internal, "'", name_,
             "': a weight changed while the graph was compiled");
    ++compiles_;
    // Evict (least recently used first) and insert with no Python call in between: another
    // thread may use the cache whenever Python code runs.
    size_t limit = static_cast<size_t>(std::max(1, g_cache_limit.load()));
    bool evicted = false;
    while (cache_.size() >= limit) {
      cache_.erase(cache_.begin());
      evicted = true;
    }
    cache_.push_back(c);
    refresh_refs();
    for (const std::string& w : c->warnings) warn(str("mycel: ", w));
    if (evicted && !warned_eviction_) {
      warned_eviction_ = true;
      warn(str("mycel: '", name_, "' was compiled for more than ", limit,
               " signatures, the jit cache limit (set_context(jit_cache_limit=n) or "
               "MYCEL_JIT_CACHE_LIMIT); the least recently used graph was dropped. Last "
               "recompile: ",
               why,
               ". Python numbers, strings and tuples are compiled in by "
               "value: pass values that change between calls as Tensors, or wrap them in "
               "mycel.mutable()."));
    }
    return c;
  }

  pyb::object fn_;
  std::string name_;
  std::string jit_level_;  // "" follows set_context(jit_level=...)
  std::vector<std::string> arg_names_;
  std::unique_ptr<ir::Host> host_;
  std::unique_ptr<ir::Module> src_;
  std::vector<std::shared_ptr<Compiled>> cache_;  // least recently used first
  // The signature the next compile sees instead of the arguments' (semi_auto_parallel with
  // inputs given as slices: their global shapes); empty otherwise.
  std::vector<AbsPtr> spmd_sig_;
  std::vector<AbsPtr> input_sig_;  // set_input_signature; empty: none
  size_t compiles_ = 0;
  bool warned_eviction_ = false;
  std::vector<FloatState> float_state_;           // per argument position
  std::vector<int> float_changes_;                // per position: new float values at misses
  std::vector<std::optional<Value>> last_float_;  // per position: the float of the last miss
  std::unique_ptr<vm::RuntimeHost> runtime_host_ = frontend::make_py_runtime_host();
  // The host objects of all of the above (refresh_refs), for the garbage collector.
  std::vector<std::shared_ptr<const ir::HostObject>> refs_;
};

// GraphFunction's type takes part in the cycle collector (see the top of the file).
void setup_gc(PyHeapTypeObject* heap_type) {
  PyTypeObject* type = &heap_type->ht_type;
  type->tp_flags |= Py_TPFLAGS_HAVE_GC;
  type->tp_traverse = [](PyObject* self, visitproc visit, void* arg) -> int {
    Py_VISIT(Py_TYPE(self));  // a heap type's instances own a reference to it
    auto* inst = reinterpret_cast<pyb::detail::instance*>(self);
    pyb::detail::value_and_holder vh = inst->get_value_and_holder();
    if (!vh.holder_constructed()) return 0;  // not built yet, or being destroyed
    return vh.value_ptr<GraphFunction>()->traverse(visit, arg);
  };
  type->tp_clear = [](PyObject* self) -> int {
    auto* inst = reinterpret_cast<pyb::detail::instance*>(self);
    pyb::detail::value_and_holder vh = inst->get_value_and_holder();
    if (vh.holder_constructed()) vh.value_ptr<GraphFunction>()->clear();
    return 0;
  };
  // Untracked before the C++ object is destroyed, so a collection run by a destructor's
  // Python code never traverses a half-destroyed GraphFunction.
  type->tp_dealloc = [](PyObject* self) {
    PyObject_GC_UnTrack(self);
    pyb::detail::pybind11_object_dealloc(self);
  };
}

}  // namespace

std::string qualname(pyb::handle fn) {
  return pyb::str(pyb::getattr(fn, "__qualname__", pyb::getattr(fn, "__class__").attr("__name__")));
}

compiler::CompileOptions compile_options() {
  compiler::CompileOptions o = compiler::CompileOptions::from_env();
  o.graph_kernel = g_graph_kernel.load();
  o.graph_kernel_device = graph_kernel_on_device();
  o.log_to = [](const std::string& line) {
    pyb::module_::import("sys").attr("stderr").attr("write")(line);
  };
  return o;
}

void bind_graph(pyb::module_& m) {
  pyb::class_<GraphFunction>(m, "GraphFunction",
                             "A function, bound method or Cell compiled per call signature.",
                             pyb::custom_type_setup(setup_gc))
      .def(pyb::init<pyb::object>())
      .def("__call__", &GraphFunction::call)
      .def("custom_grads", &GraphFunction::custom_grads)
      .def("grad_weights", &GraphFunction::grad_weights)
      .def("call_keyed", &GraphFunction::call_keyed,
           "Calls with an extra cache key (a Cell tree's training flags).")
      .def("sink", &GraphFunction::sink, pyb::arg("phase"), pyb::arg("pipeline"),
           pyb::arg("columns"), pyb::arg("steps"), pyb::arg("cross_epochs"),
           "Data sink: up to `steps` calls on the pipeline's rows, looped in C++; returns "
           "(last output or None, calls made, whether the pipeline ended).")
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
      .def("set_input_signature", &GraphFunction::set_input_signature, pyb::arg("specs"),
           "Per positional argument: None or (dtype, shape), -1 for a dynamic dimension "
           "(Cell.set_inputs); an empty list removes the signature.")
      .def("last_graph_text", &GraphFunction::last_graph_text,
           "The most recently used compiled graph as VM program text ('' before any).")
      .def_property("jit_level", &GraphFunction::jit_level, &GraphFunction::set_jit_level,
                    "This function's jit_level ('' follows set_context): 'O2' runs its steps "
                    "as captured graphs on a GPU.")
      .def("capture_stats", &GraphFunction::capture_stats,
           "Whole-step capture counters (jit_level O2) summed over the cached graphs.")
      .def_property_readonly("num_compiled", &GraphFunction::num_compiled,
                             "Graphs in the cache now.")
      .def_property_readonly("num_compiles", &GraphFunction::num_compiles,
                             "Compilations so far (evicted graphs included).");
  m.def(
      "set_jit_cache_limit",
      [](int n) {
        MC_CHECK(n >= 1, Value,
                 "For 'set_context', jit_cache_limit must be a positive int, but got ", n, ".");
        g_cache_limit.store(n);
      },
      "The most graphs each jit function or GRAPH-mode Cell keeps (LRU).");
  m.def("get_jit_cache_limit", []() { return g_cache_limit.load(); });
  m.def(
      "_set_jit_level", [](const std::string& level) { g_capture_default.store(level == "O2"); },
      "set_context(jit_level=...): 'O2' captures compiled steps on a GPU (runtime/vm_capture.h).");
  m.def(
      "_set_graph_kernel", [](bool on) { g_graph_kernel.store(on); },
      "Graph-kernel fusion for the programs compiled from now on (set_context).");
}

}  // namespace mycel::py
