// Whole-step capture: the static scan and the per-signature warm-up, capture and replay
// (runtime/vm_capture.h).
#include "runtime/vm_capture.h"

#include <cstdio>
#include <exception>

#include "kernels/kernel_table.h"
#include "runtime/vm_code.h"
#include "tensor/capture.h"

namespace mycel::vm {

using ir::Value;
using ir::ValueKind;

namespace {

// The reason one instruction cannot be captured, or "".
std::string instr_blocker(const Instr& in, DeviceType type) {
  switch (in.code) {
    case OpCode::Builtin:
      if (in.builtin == ir::Builtin::Print) return "it calls print (a host builtin)";
      if (in.builtin == ir::Builtin::PyExecute)
        return "it calls into Python (py_execute, a host builtin)";
      return "";
    case OpCode::Fused:
      return "it calls a fused (graph-kernel) kernel, which runs on the host";
    case OpCode::Prim:
      break;
    default:
      return "";
  }
  const OpDef& op = *in.op;
  const std::string name = str("'", op.name, "'");
  if (op.flags & F_COLLECTIVE) return name + " is a collective (it runs on the host)";
  if ((op.flags & F_DYN_OUT) || in.infer || in.check)
    return name + " has a dynamic or value-dependent output shape";
  // Its device kernel reads the mask's count on the host to raise the CPU's ValueError for a
  // short source (kernels/cuda/array_select.h): the host waits, which a capture cannot hold.
  if (op.id == OpId::MaskedScatter) return name + " counts its mask on the host";
  // The output dtypes (the inputs' are earlier outputs or the step's arguments); FFTN always
  // has a complex tensor, on one side or the other, so the complex rule decides it (on CUDA:
  // whether cuFFT loaded).
  if (op.id == OpId::FFTN && !device_takes_dtype(op, type, DType::Complex64))
    return name + " runs on the host with copies (no FFT library on the device)";
  for (const TensorMeta& m : in.metas) {
    if (!device_takes_dtype(op, type, m.dtype))
      return str(name, " on ", m.dtype, " runs on the host with copies");
  }
  const bool checks_values = op.id == OpId::FloorDiv || op.id == OpId::FloorMod ||
                             op.id == OpId::Mod || op.id == OpId::Pow;
  if (checks_values && !in.metas.empty() && !is_floating(in.metas[0].dtype))
    return str("integer ", name, " checks its divisor or exponent on the host");
  if (deterministic() && device_nondeterministic(op, type))
    return name +
           " accumulates with atomics on the device (deterministic mode runs it on the "
           "host with copies)";
  if (!(op.flags & F_VIEW) && device_kernel(op, type) == nullptr)
    return name + " has no kernel on the device (it runs on the host with copies)";
  return "";
}

// The key of an argument: tensors by dtype, shape and device, other values by value.
void key_of(const Value& v, std::string& key) {
  if (v.is(ValueKind::Tensor)) {
    const Tensor& t = v.as_tensor();
    key += str("T", t.dtype(), t.shape(), "@", device_name(t.device()), ";");
  } else if (v.is_sequence()) {
    key += v.is(ValueKind::Tuple) ? "(" : "[";
    for (const Value& x : v.items()) key_of(x, key);
    key += ")";
  } else {
    key += v.to_string();
    key += ";";
  }
}

bool holds_tensor(const Value& v) {
  if (v.is(ValueKind::Tensor)) return true;
  if (v.is_sequence()) {
    for (const Value& x : v.items())
      if (holds_tensor(x)) return true;
  }
  return false;
}

// The device a step runs on: the default device unless it is the host, else that of the
// first tensor argument on a device (as place_inputs chooses for the step's ops).
Device step_device(const std::vector<Value>& args) {
  Device d = default_device();
  if (!d.is_cpu()) return d;
  for (const Value& a : args) {
    if (a.is(ValueKind::Tensor) && !a.as_tensor().device().is_cpu()) return a.as_tensor().device();
  }
  return d;
}

// Whether `t` is the same buffer, seen the same way, as `was` (identity, not contents).
bool same_buffer(const Tensor& t, const Tensor& was) {
  return t.storage() == was.storage() && t.offset() == was.offset() &&
         t.strides() == was.strides() && t.shape() == was.shape() && t.dtype() == was.dtype();
}

std::string first_line(const char* what) {
  std::string s(what);
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

std::string capture_blocker(const Executable& exe, DeviceType type) {
  for (const auto& gc : exe.graphs_) {
    for (const Instr& in : gc->code) {
      std::string why = instr_blocker(in, type);
      if (!why.empty()) return why;
    }
  }
  return "";
}

struct CaptureRunner::Entry {
  enum class State { Warm, Capture, Replay, Fallback };
  State state = State::Warm;
  std::vector<Value> warm_args;  // the warm-up's arguments (which tensors stay the same)
  std::vector<Value> inputs;     // what the graph reads: arguments, static input buffers
  std::vector<uint8_t> is_static;
  Value outputs;  // the captured step's result (its static outputs)
  std::unique_ptr<CapturedGraph> graph;
  int recaptures = 0;
};

CaptureRunner::CaptureRunner(const Executable& exe, std::string name)
    : exe_(exe), name_(std::move(name)) {}

CaptureRunner::~CaptureRunner() = default;

CaptureStats CaptureRunner::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CaptureRunner::log(const std::string& why) const {
  std::string line =
      str("mycel: jit_level O2", name_.empty() ? "" : " of '", name_, name_.empty() ? "" : "'",
          ": runs op by op, not as a captured graph: ", why, "\n");
  std::fputs(line.c_str(), stderr);
}

Value CaptureRunner::run(const std::vector<Value>& args, RuntimeHost* host) {
  const Device d = step_device(args);
  CaptureBackend* cb = d.is_cpu() ? nullptr : capture_backend(d.type);
  if (cb == nullptr || !cb->can_capture(d.index)) return exe_.run(args, host);
  std::lock_guard<std::mutex> lock(mu_);
  if (!scanned_) {
    scanned_ = true;
    blocker_ = capture_blocker(exe_, d.type);
    for (size_t i = 0; blocker_.empty() && i < args.size(); ++i) {
      if (!args[i].is(ValueKind::Tensor) && holds_tensor(args[i]))
        blocker_ = str("argument ", i, " is a container holding tensors");
    }
    if (!blocker_.empty()) {
      ++stats_.fallbacks;
      stats_.last_reason = blocker_;
      log(blocker_);
    }
  }
  if (!blocker_.empty()) {
    ++stats_.op_by_op;
    return exe_.run(args, host);
  }
  std::string key;
  for (const Value& a : args) key_of(a, key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= kMaxSignatures) {
      if (!told_full_) log(str("more than ", kMaxSignatures, " input signatures"));
      told_full_ = true;
      ++stats_.op_by_op;
      return exe_.run(args, host);
    }
    it = entries_.emplace(key, std::make_unique<Entry>()).first;
  }
  Entry& e = *it->second;
  switch (e.state) {
    case Entry::State::Warm:
      e.warm_args = args;
      e.state = Entry::State::Capture;
      ++stats_.op_by_op;
      return exe_.run(args, host);
    case Entry::State::Capture:
      return capture(e, args, d, host);
    case Entry::State::Replay:
      return replay(e, args, d, host);
    case Entry::State::Fallback:
      break;
  }
  ++stats_.op_by_op;
  return exe_.run(args, host);
}

Value CaptureRunner::fall_back(Entry& e, const std::string& why, const std::vector<Value>& args,
                               RuntimeHost* host) {
  e.state = Entry::State::Fallback;
  e.graph.reset();
  e.inputs.clear();
  e.warm_args.clear();
  e.outputs = Value();
  ++stats_.fallbacks;
  stats_.last_reason = why;
  log(why);
  ++stats_.op_by_op;
  return exe_.run(args, host);
}

Value CaptureRunner::capture(Entry& e, const std::vector<Value>& args, Device d,
                             RuntimeHost* host) {
  e.inputs.clear();
  e.is_static.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const Value& a = args[i];
    if (!a.is(ValueKind::Tensor)) {
      e.inputs.push_back(a);
      e.is_static.push_back(0);
      continue;
    }
    const Tensor& t = a.as_tensor();
    const Value& was = i < e.warm_args.size() ? e.warm_args[i] : Value();
    if (t.device() == d && was.is(ValueKind::Tensor) && same_buffer(t, was.as_tensor())) {
      e.inputs.push_back(a);  // read (and maybe updated) where it is
      e.is_static.push_back(0);
    } else {
      Tensor s = Tensor::empty(t.shape(), t.dtype(), d);
      s.copy_from(t);
      e.inputs.push_back(Value::tensor(std::move(s)));
      e.is_static.push_back(1);
    }
  }
  e.warm_args.clear();
  CaptureBackend& cb = *capture_backend(d.type);
  try {
    cb.begin_capture(d.index);
  } catch (const std::exception& ex) {
    return fall_back(e, str("the capture could not start: ", first_line(ex.what())), args, host);
  }
  Value out;
  std::string why;
  try {
    out = exe_.run(e.inputs, host);
  } catch (const std::exception& ex) {
    why = first_line(ex.what());
  }
  std::string end_why;
  std::unique_ptr<CapturedGraph> g = cb.end_capture(d.index, &end_why);
  if (why.empty() && g == nullptr) why = end_why.empty() ? "the capture failed" : end_why;
  if (!why.empty()) {
    g.reset();
    out = Value();
    return fall_back(e, str("the step could not be captured: ", why), args, host);
  }
  e.graph = std::move(g);
  e.outputs = std::move(out);
  e.state = Entry::State::Replay;
  ++stats_.captures;
  ++stats_.replays;
  e.graph->replay();  // the capture recorded the step; this computes it
  return results(e, args, e.outputs);
}

Value CaptureRunner::replay(Entry& e, const std::vector<Value>& args, Device d, RuntimeHost* host) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (e.is_static[i] || !args[i].is(ValueKind::Tensor)) continue;
    if (same_buffer(args[i].as_tensor(), e.inputs[i].as_tensor())) continue;
    // A parameter (or other argument that was the same tensor twice) was replaced.
    e.graph.reset();
    e.inputs.clear();
    e.outputs = Value();
    if (++e.recaptures > kMaxRecaptures)
      return fall_back(e,
                       str("argument ", i, " was a different tensor at ", e.recaptures,
                           " calls (the captured graph reads its buffer)"),
                       args, host);
    e.warm_args = args;  // this call is the new warm-up
    e.state = Entry::State::Capture;
    ++stats_.op_by_op;
    return exe_.run(args, host);
  }
  (void)d;
  for (size_t i = 0; i < args.size(); ++i) {
    if (e.is_static[i]) e.inputs[i].as_tensor().copy_from(args[i].as_tensor());
  }
  e.graph->replay();
  ++stats_.replays;
  return results(e, args, e.outputs);
}

// The caller's result: an argument (or its static buffer) returned as it is stays that
// argument; every other tensor is a fresh copy of the static output.
Value CaptureRunner::results(const Entry& e, const std::vector<Value>& args, const Value& v) const {
  if (v.is(ValueKind::Tensor)) {
    const Tensor& t = v.as_tensor();
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      if (e.inputs[i].is(ValueKind::Tensor) && e.inputs[i].as_tensor().same(t)) return args[i];
    }
    return Value::tensor(t.clone());
  }
  if (v.is_sequence()) {
    std::vector<Value> items;
    for (const Value& x : v.items()) items.push_back(results(e, args, x));
    return v.is(ValueKind::Tuple) ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  return v;
}

}  // namespace mycel::vm
