// Executable::run: the interpreter loop. Frames live on an explicit heap stack and their
// registers on one register stack (a frame is a window [base, base + nregs)), so neither
// deep recursion nor long loops use the C++ stack; a tail call replaces the current frame's
// window with the callee's. See vm.h for the instruction set and the liveness plan.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/env.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "comm/work_queue.h"
#include "ir/depth.h"
#include "runtime/eager.h"
#include "runtime/op_profile.h"
#include "runtime/record.h"
#include "runtime/vm_code.h"
#include "tensor/dynamic_shape.h"

namespace mycel::vm {

using ir::Value;
using ir::ValueKind;

namespace {

// The op profiler's result type of a graph value: a tensor's "f32[2, 3]", a tuple's first
// element with "+" marking more.
std::string profile_type(const Value& v) {
  if (v.is(ValueKind::Tensor))
    return std::string(ir::dtype_short_name(v.as_tensor().dtype())) +
           shape_str(v.as_tensor().shape());
  if (v.is(ValueKind::Tuple) && !v.items().empty()) return profile_type(v.items()[0]) + "+";
  return "";
}

}  // namespace

namespace {
[[noreturn]] void stop_interrupted() {
  set_interrupt_pending(false);
  MC_THROW(Runtime, "interrupted (SIGINT)");
}
}  // namespace

void RuntimeHost::check_signals() { stop_interrupted(); }

class Interpreter {
 public:
  Interpreter(const Executable& exe, RuntimeHost* host, RunStats* stats, ResultObserver* observer)
      : exe_(exe),
        host_(host),
        stats_(stats),
        observer_(observer),
        max_depth_(std::max(static_cast<size_t>(ir::max_call_depth()), Executable::kMinDepth)) {}

  Value run(const std::vector<Value>& args) {
    const GraphCode& entry = *exe_.graphs_[0];
    check_entry_args(entry, args);
    scratch_.assign(args.begin(), args.end());
    try {
      push_frame(entry);
      Value r = loop();
      if (observer_) report_rest(r);
      return r;
    } catch (const Error& e) {
      throw Error(e.kind(), e.message() + traceback(e.message()));
    }
  }

 private:
  struct Frame {
    const GraphCode* gc;
    size_t base;  // first register on the register stack
    size_t pc;    // the instruction being executed
  };

  void check_entry_args(const GraphCode& gc, const std::vector<Value>& args) {
    MC_CHECK(args.size() == gc.nparams, Type, "@", gc.name, " takes ", gc.nparams, " argument",
             gc.nparams == 1 ? "" : "s", " but ", args.size(), " were given");
    for (size_t i = 0; i < args.size(); ++i) {
      const ir::AbsPtr& a = gc.param_abs[i];
      if (!a || a->kind != ir::AbsKind::Tensor) continue;
      MC_CHECK(args[i].is(ValueKind::Tensor), Type, "@", gc.name, ": argument ", i,
               " must be a Tensor of ", a->to_string(), ", got a ",
               ir::value_kind_name(args[i].kind()));
      const Tensor& t = args[i].as_tensor();
      MC_CHECK(t.dtype() == a->dtype, Type, "@", gc.name, ": argument ", i, " must be ",
               a->to_string(), ", got ", ir::dtype_short_name(t.dtype()), shape_str(t.shape()));
      MC_CHECK(t.shape() == a->shape || shape_matches(a->shape, t.shape()), Value, "@", gc.name,
               ": argument ", i, " must be ", a->to_string(), ", got ",
               ir::dtype_short_name(t.dtype()), shape_str(t.shape()));
    }
  }

  // The source lines of the failing node and of the calls below it (innermost first),
  // consecutive repeats (recursion) shown once, lines the message already quotes (a raise
  // carries its own) left out.
  std::string traceback(const std::string& msg) const {
    std::string out;
    std::string prev;
    int shown = 0;
    for (size_t k = frames_.size(); k-- > 0 && shown < 5;) {
      const Frame& f = frames_[k];
      if (f.pc >= f.gc->code.size()) continue;
      std::string ex = ir::span_excerpt(f.gc->code[f.pc].span);
      if (ex.empty() || ex == prev) continue;
      if (msg.find(ex.substr(0, ex.size() - 1)) != std::string::npos) continue;
      out += (shown == 0 ? "\n" : "") + ex;
      prev = ex;
      ++shown;
    }
    return out;
  }

  const Value& get(const GraphCode& gc, const Value* regs, Operand o) const {
    return is_const_operand(o) ? gc.consts[const_index(o)] : regs[o];
  }

  void kill(const GraphCode& gc, const Instr& in, Value* regs) {
    for (uint32_t k = 0; k < in.nkill; ++k) regs[gc.kills[in.kill_begin + k]] = Value();
  }

  // Pushes a frame for gc with the arguments in scratch_.
  void push_frame(const GraphCode& gc) {
    check_arity(gc);
    // The entry's frame and max_depth_ nested graph calls (tail calls add none).
    MC_CHECK(frames_.size() <= max_depth_, Runtime, "maximum recursion depth exceeded: more than ",
             max_depth_,
             " nested graph calls at run time; if the recursion is meant to go this deep, "
             "raise the limit with mycel.set_context(max_call_depth=N) or "
             "mycel.set_recursion_limit(N)");
    size_t base = regs_.size();
    frames_.push_back({&gc, base, 0});
    regs_.resize(base + gc.nregs);
    enter(gc, base);
  }

  void check_arity(const GraphCode& gc) {
    MC_CHECK(scratch_.size() == gc.nparams, Type, "@", gc.name, " takes ", gc.nparams, " argument",
             gc.nparams == 1 ? "" : "s", " but ", scratch_.size(), " were given");
  }

  void enter(const GraphCode& gc, size_t base) {
    for (size_t i = 0; i < scratch_.size(); ++i) regs_[base + i] = std::move(scratch_[i]);
    scratch_.clear();
    for (int32_t r : gc.entry_kills) regs_[base + static_cast<size_t>(r)] = Value();
    if (stats_) {
      stats_->max_frames = std::max(stats_->max_frames, frames_.size());
      stats_->max_registers = std::max(stats_->max_registers, regs_.size());
    }
  }

  // Gathers a call's arguments into scratch_ (bound arguments of closures first, moving
  // dying registers) and returns what to call: a graph (*target set) or another callable.
  Value resolve_call(const GraphCode& gc, const Instr& in, Value* regs, const GraphCode** target) {
    Value fn = get(gc, regs, in.callee);
    scratch_.clear();
    if (fn.is(ValueKind::Closure)) {
      // partial(partial(f, a), b)(x) is f(a, b, x): bound arguments innermost first.
      closures_.clear();
      while (fn.is(ValueKind::Closure)) {
        closures_.push_back(fn);
        Value inner = fn.as_closure().fn;
        fn = std::move(inner);
      }
      for (size_t k = closures_.size(); k-- > 0;)
        for (const Value& b : closures_[k].as_closure().args) scratch_.push_back(b);
      closures_.clear();
    }
    for (uint32_t k = 0; k < in.nargs; ++k) {
      Operand o = gc.operands[in.args_begin + k];
      if (gc.moves[in.args_begin + k])
        scratch_.push_back(std::move(regs[o]));
      else
        scratch_.push_back(get(gc, regs, o));
    }
    *target = nullptr;
    if (in.target >= 0 && fn.is(ValueKind::Graph)) {
      *target = exe_.graphs_[static_cast<size_t>(in.target)].get();
    } else if (fn.is(ValueKind::Graph)) {
      auto it = exe_.index_.find(fn.as_graph());
      MC_CHECK(it != exe_.index_.end(), Runtime, "executor: graph @", fn.as_graph()->name(),
               " is not part of this executable");
      *target = exe_.graphs_[static_cast<size_t>(it->second)].get();
    }
    return fn;
  }

  // Calls a non-graph callable on scratch_.
  Value call_value(const Value& fn) {
    std::vector<Value> args;
    args.swap(scratch_);
    Value r;
    switch (fn.kind()) {
      case ValueKind::Prim: {
        const ir::PrimData& p = fn.as_prim();
        TensorList ins;
        for (size_t i = 0; i < args.size(); ++i) {
          MC_CHECK(args[i].is(ValueKind::Tensor), Type, "For '", p.op->name, "', input ", i,
                   " is a ", ir::value_kind_name(args[i].kind()), ", not a Tensor.");
          ins.push_back(args[i].as_tensor());
        }
        r = wrap(run_op(*p.op, ins, p.attrs), p.op->num_outputs != 1);
        break;
      }
      case ValueKind::Builtin:
        r = run_builtin(fn.as_builtin(), args, host_);
        break;
      case ValueKind::PyObj:
        MC_CHECK(host_ != nullptr, Runtime,
                 "this graph calls a Python object, but it runs without a host");
        r = host_->call(fn, args);
        break;
      default:
        MC_THROW(Type, "'", ir::value_kind_name(fn.kind()), "' object is not callable");
    }
    args.clear();
    scratch_.swap(args);  // keep the capacity
    return r;
  }

  static Value wrap(TensorList&& outs, bool tuple) {
    if (!tuple) return Value::tensor(std::move(outs[0]));
    std::vector<Value> items;
    items.reserve(outs.size());
    for (Tensor& t : outs) items.push_back(Value::tensor(std::move(t)));
    return Value::tuple(std::move(items));
  }

  TensorList inputs_of(const GraphCode& gc, const Instr& in, const Value* regs) const {
    TensorList ins;
    for (uint32_t k = 0; k < in.nargs; ++k) {
      const Value& v = get(gc, regs, gc.operands[in.args_begin + k]);
      MC_CHECK(v.is(ValueKind::Tensor), Type, "For '", in.op->name, "', input ", k, " is a ",
               ir::value_kind_name(v.kind()), ", not a Tensor.");
      ins.push_back(v.as_tensor());
    }
    return ins;
  }

  // A collective of a job, not under a recorder: queued on the communication queue
  // (runtime/eager.h, run_collective_async); its result register waits for it when read.
  bool runs_async(const Instr& in) const {
    return (in.op->flags & F_COLLECTIVE) && process_groups() != nullptr && !record::active();
  }

  Value exec_async(const GraphCode& gc, const Instr& in, const Value* regs, size_t base) {
    AsyncCollective a = run_collective_async(*in.op, inputs_of(gc, in, regs), *in.attrs);
    pending_.push_back({base + static_cast<size_t>(in.out), std::move(a.work)});
    return wrap(std::move(a.outputs), in.op->num_outputs != 1);
  }

  // Waits for the queued collective whose result is in register r of the register stack,
  // if one is.
  void await_register(size_t r) {
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i].first != r) continue;
      std::shared_ptr<CommWork> w = std::move(pending_[i].second);
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      w->wait();
      return;
    }
  }

  // Waits for the queued collectives whose results `in` reads.
  void await_operands(const GraphCode& gc, const Instr& in, size_t base) {
    auto await = [&](Operand o) {
      if (!is_const_operand(o)) await_register(base + static_cast<size_t>(o));
    };
    for (uint32_t k = 0; k < in.nargs; ++k) await(gc.operands[in.args_begin + k]);
    if (in.code == OpCode::Call || in.code == OpCode::TailCall || in.code == OpCode::Return)
      await(in.callee);
  }

  // Waits for the queued collectives whose registers are at `from` or above (a frame being
  // left or replaced: results nothing read; their errors still surface).
  void await_from(size_t from) {
    for (size_t i = 0; i < pending_.size();) {
      if (pending_[i].first < from) {
        ++i;
        continue;
      }
      std::shared_ptr<CommWork> w = std::move(pending_[i].second);
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      w->wait();
    }
  }

  Value exec_prim(const GraphCode& gc, const Instr& in, const Value* regs) {
    const OpDef& op = *in.op;
    TensorList ins = inputs_of(gc, in, regs);
    if (in.infer) {
      TensorList outs = run_op(op, ins, *in.attrs);
      if (in.check) check_dynamic(in, outs);
      return wrap(std::move(outs), op.num_outputs != 1);
    }
    // Inputs moved in place (or already there) are the inputs themselves, with one
    // reference each (see `reuse` below). Copies (a host input of an op on a GPU input,
    // with the context on the host) go to launch_placed, which writes in-place results
    // back into the originals.
    TensorList copies;
    Device dev = place_inputs(ins, copies);
    const bool copied = !copies.empty();
    if ((op.flags & F_VIEW) && !in.tuple_out) {
      Tensor v = view_op(op, ins[0], in.metas[0], *in.attrs);
      if (v.defined()) {
        record::emit(op, *in.attrs, ins, std::span<const Tensor>(&v, 1));
        return Value::tensor(std::move(v));
      }
    }
    TensorList outs;
    if (in.reuse >= 0 && !copied && !record::active()) {  // a recorder must see the input intact
      // The dying input's buffer becomes the output when nothing else can see it.
      const Tensor& t = ins[static_cast<size_t>(in.reuse)];
      const TensorMeta& m = in.metas[0];
      // Two references: the register and `ins`.
      if (t.impl().use_count() == 2 && t.storage().use_count() == 1 && t.offset() == 0 &&
          t.dtype() == m.dtype && t.shape() == m.shape && t.is_contiguous()) {
        outs.push_back(t);
        KernelContext ctx{op, ins, outs, *in.attrs, dev};
        launch_kernel(ctx);
        return Value::tensor(std::move(outs[0]));
      }
    }
    record::before_write(op, ins);
    outs = launch_placed(op, ins, copies, {}, in.metas, *in.attrs);  // typed already
    record::emit(op, *in.attrs, ins, outs);
    return wrap(std::move(outs), in.tuple_out);
  }

  // A call compiled with dynamic shapes ran on run-time shapes: its outputs must be instances
  // of the compiled ones (known dimensions equal), or the rest of the program, typed with
  // them, would be wrong.
  static void check_dynamic(const Instr& in, const TensorList& outs) {
    MC_ASSERT(outs.size() == in.metas.size(), in.op->name, ": ", outs.size(),
              " outputs at run time, ", in.metas.size(), " compiled");
    for (size_t i = 0; i < outs.size(); ++i) {
      const TensorMeta& m = in.metas[i];
      MC_CHECK(outs[i].dtype() == m.dtype && shape_matches(m.shape, outs[i].shape()), Value,
               "For '", in.op->name, "', the output ", i, " has shape ", outs[i].shape(),
               " at run time, but the program was compiled for ", m.shape,
               " (dynamic shapes: the known dimensions an op infers from the compiled input "
               "shapes must hold for every input it runs on).");
    }
  }

  Value exec_builtin(const GraphCode& gc, const Instr& in, const Value* regs) {
    return with_args(gc, in, regs, [&] { return run_builtin(in.builtin, bargs_, host_); });
  }

  // A generated kernel on its operands (the arguments of the GraphKernel call).
  // Donates (vm.h) each input the compiler marked whose register holds the only reference
  // to a contiguous buffer of its own: two references, the register and bargs_.
  Value exec_fused(const GraphCode& gc, const Instr& in, const Value* regs) {
    return with_args(gc, in, regs, [&] {
      donated_.assign(in.nargs, 0);
      bool any = false;
      for (uint32_t k = 0; k < in.nargs; ++k) {
        if (!gc.donates[in.args_begin + k] || !bargs_[k].is(ValueKind::Tensor)) continue;
        const Tensor& t = bargs_[k].as_tensor();
        if (t.impl().use_count() == 2 && t.storage().use_count() == 1 && t.offset() == 0 &&
            t.is_contiguous() && t.device().is_cpu()) {
          donated_[k] = 1;
          any = true;
        }
      }
      return in.fused->run(bargs_,
                           any ? std::span<const uint8_t>(donated_) : std::span<const uint8_t>());
    });
  }

  // run() with the instruction's operands in bargs_ (emptied again after).
  template <class F>
  Value with_args(const GraphCode& gc, const Instr& in, const Value* regs, F&& run) {
    bargs_.clear();
    for (uint32_t k = 0; k < in.nargs; ++k)
      bargs_.push_back(get(gc, regs, gc.operands[in.args_begin + k]));
    Value r = run();
    bargs_.clear();
    return r;
  }

  // Pops the current frame; returns true when it was the entry's (result in `r`).
  bool do_return(Value& r) {
    if (!pending_.empty()) await_from(frames_.back().base);
    regs_.resize(frames_.back().base);
    frames_.pop_back();
    if (frames_.empty()) return true;
    Frame& f = frames_.back();
    const Instr& ci = f.gc->code[f.pc];
    regs_[f.base + static_cast<size_t>(ci.out)] = std::move(r);
    if (observer_) note_result(f, ci.out);
    ++f.pc;
    return false;
  }

  // ResultObserver: register `reg` of frame f was just written; when f is the entry graph's
  // outermost frame and the register is an item of its result, the item is final: report it.
  void note_result(const Frame& f, int32_t reg) {
    const GraphCode& gc = *f.gc;
    if (frames_.size() != 1 || &gc != exe_.graphs_[0].get() || gc.is_item.empty() ||
        !gc.is_item[static_cast<size_t>(reg)])
      return;
    const size_t r = f.base + static_cast<size_t>(reg);
    if (!pending_.empty()) await_register(r);  // a collective's result: final once done
    if (reported_.empty()) reported_.assign(gc.result_items.size(), 0);
    for (size_t k = 0; k < gc.result_items.size(); ++k) {
      if (gc.result_items[k].first != reg || reported_[k]) continue;
      reported_[k] = 1;
      observer_->ready(gc.result_items[k].second, regs_[r]);
    }
  }

  // ResultObserver: the items of the result `r` not reported yet (constants, parameters,
  // items computed elsewhere; all of them when the entry did not build the tuple itself).
  void report_rest(const Value& r) {
    if (!r.is(ValueKind::Tuple)) return;
    const GraphCode& entry = *exe_.graphs_[0];
    std::vector<uint8_t> done(r.items().size(), 0);
    for (size_t k = 0; k < reported_.size(); ++k)
      if (reported_[k]) done[entry.result_items[k].second] = 1;
    for (size_t i = 0; i < done.size(); ++i)
      if (!done[i]) observer_->ready(i, r.items()[i]);
  }

  Value loop() {
    for (;;) {
      Frame& f = frames_.back();
      const GraphCode& gc = *f.gc;
      const Instr& in = gc.code[f.pc];
      Value* regs = regs_.data() + f.base;
      if (stats_) ++stats_->instructions;
      if (--poll_countdown_ == 0) [[unlikely]] {
        poll_countdown_ = RuntimeHost::kPollInstructions;
        if (host_ != nullptr) host_->poll();
      }
      if (interrupt_pending()) [[unlikely]] {
        if (host_ != nullptr) {
          host_->check_signals();
        } else {
          stop_interrupted();
        }
      }
      if (!pending_.empty()) await_operands(gc, in, f.base);
      switch (in.code) {
        case OpCode::Prim:
          if (runs_async(in)) {
            regs[in.out] = exec_async(gc, in, regs, f.base);
          } else if (OpProfile* prof = OpProfile::active(); prof && !in.infer) {
            // (an op inferred at run time goes through run_op, which records it)
            OpProfile::Stamp t0;
            regs[in.out] = exec_prim(gc, in, regs);
            prof->add(in.op->name, profile_type(regs[in.out]), t0);
          } else {
            regs[in.out] = exec_prim(gc, in, regs);
          }
          kill(gc, in, regs);
          if (observer_) note_result(f, in.out);
          ++f.pc;
          break;
        case OpCode::Builtin:
          regs[in.out] = exec_builtin(gc, in, regs);
          kill(gc, in, regs);
          if (observer_) note_result(f, in.out);
          ++f.pc;
          break;
        case OpCode::Fused:
          if (record::active()) [[unlikely]] {
            // A recorder (PYNATIVE autodiff of a jit function) must see the cluster's ops: its
            // graph runs op by op, as a call.
            const GraphCode* target;
            resolve_call(gc, in, regs, &target);
            kill(gc, in, regs);
            push_frame(*target);  // invalidates f and regs
            break;
          }
          if (OpProfile* prof = OpProfile::active()) {
            OpProfile::Stamp t0;
            regs[in.out] = exec_fused(gc, in, regs);
            prof->add("GraphKernel", profile_type(regs[in.out]), t0, in.fused);
          } else {
            regs[in.out] = exec_fused(gc, in, regs);
          }
          kill(gc, in, regs);
          if (observer_) note_result(f, in.out);
          ++f.pc;
          break;
        case OpCode::Call: {
          const GraphCode* target;
          Value fn = resolve_call(gc, in, regs, &target);
          kill(gc, in, regs);
          if (target) {
            push_frame(*target);  // invalidates f and regs
          } else {
            Value r = call_value(fn);
            regs[in.out] = std::move(r);
            if (observer_) note_result(f, in.out);
            ++f.pc;
          }
          break;
        }
        case OpCode::TailCall: {
          const GraphCode* target;
          Value fn = resolve_call(gc, in, regs, &target);
          if (target) {
            // Replace this frame's window with the callee's: constant stack and memory.
            check_arity(*target);
            if (!pending_.empty()) await_from(f.base);
            regs_.resize(f.base);
            regs_.resize(f.base + target->nregs);
            f.gc = target;
            f.pc = 0;
            enter(*target, f.base);
          } else {
            Value r = call_value(fn);
            if (do_return(r)) return r;
          }
          break;
        }
        case OpCode::Return: {
          Value r = is_const_operand(in.callee) ? gc.consts[const_index(in.callee)]
                                                : std::move(regs[in.callee]);
          if (do_return(r)) return r;
          break;
        }
      }
    }
  }

  const Executable& exe_;
  RuntimeHost* host_;
  RunStats* stats_;
  ResultObserver* observer_;
  const size_t max_depth_;         // nested graph calls allowed (vm.h, Executable::kMinDepth)
  std::vector<uint8_t> reported_;  // per entry result item: reported to observer_
  std::vector<Value> regs_;
  std::vector<Frame> frames_;
  std::vector<Value> scratch_;    // arguments of the call being made
  std::vector<Value> bargs_;      // arguments of the builtin being run
  std::vector<uint8_t> donated_;  // exec_fused: the arguments given to the kernel
  std::vector<Value> closures_;   // closures being unwrapped
  uint32_t poll_countdown_ = RuntimeHost::kPollInstructions;  // instructions to the next poll
  // Collectives running on the communication queue: the register (on the register stack)
  // each one's result is in, and its work. An instruction that reads such a register waits
  // for the work first; leaving or replacing a frame waits for its own.
  std::vector<std::pair<size_t, std::shared_ptr<CommWork>>> pending_;
};

Value Executable::run(const std::vector<Value>& args, RuntimeHost* host, RunStats* stats,
                      ResultObserver* observer) const {
  Interpreter interp(*this, host, stats, observer);
  return interp.run(args);
}

}  // namespace mycel::vm
