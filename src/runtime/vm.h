// The graph executor: runs a specialised, lambda-lifted module (see the conventions of the
// specialised IR in ir/anf.h and ir/builtins.def) in C++, without Python.
//
// Compilation (vm_compile.cc) turns every graph reachable from the entry into a linear list
// of instructions over a frame of registers:
//
//   registers  parameters first (r0..rN-1), then one register per CNode, in topological order;
//   constants  ValueNodes become entries of the graph's constant table (listed inline);
//              instructions read them in place, frames never copy them;
//   Prim       a prim call: OpDef, attributes and output metas precomputed from the node's
//              abstract (a Tensor, or a Tuple of Tensors for multi-output ops), so no
//              inference runs at run time; except for a call with a dynamic shape among its
//              inputs or outputs (tensor/dynamic_shape.h), which infers on the run-time
//              shapes and checks the outputs against the compiled metas (a ValueError
//              naming the op when a known dimension differs);
//   Builtin    a graph-level builtin (ir/builtins.def) on run-time values: scalar arithmetic
//              with Python semantics, containers, getitem, partial, switch, scalar<->tensor,
//              cast_scalar, print, py_execute, raise;
//   Fused      a call of a GraphKernel graph with a generated kernel (FusedKernel): one
//              instruction, no frame (under a PYNATIVE recorder the graph runs as a Call, so
//              its ops are recorded);
//   Call       a call of a Graph, Closure (bound arguments first), Prim, Builtin or host value;
//              a graph call pushes a frame on an explicit heap stack (no C++ recursion);
//   TailCall   a call in the graph's output position: the callee reuses the caller's frame,
//              so a loop (a graph tail-calling itself, usually through a switch) runs in
//              constant C++ stack and constant memory;
//   Return     returns a register or constant.
//
// Order: inputs before users; a graph's `effects` and the effects of depend(x, effects...)
// run before x (depend itself emits nothing: it is x), so a loop body that prints still ends
// in its tail call. Collectives and the pure items of a returned tuple run, with what leads
// to them alone, as soon as they can (vm_compile.cc, hoist_sinks): a gradient bucket's
// AllReduce runs while the backward pass goes on, and a backward graph's gradients are
// ready (ResultObserver) in the order they can be computed.
//
// Liveness plan: for each register the compiler records the instruction of its last use;
// right after that instruction the register is cleared (parameters too; unused parameters
// at frame entry), so tensor buffers go back to the caching allocator as soon as they are
// dead and the next allocation of that size reuses them. An argument whose register dies at
// a call is moved into the callee's frame, so the callee owns the only reference. A chain of
// ops thus holds about two buffers at a time, whatever its length. Better still,
// an elementwise op (the unary and binary families of ops/defs/elementwise.def) whose input
// dies at it with the output's dtype and shape writes its result into that input's buffer
// when that input was allocated by a kernel of the same graph (not a view, an argument or a
// host's tensor) and, at run time, the register holds the only reference to it (no closure
// or tuple shares it): such a chain runs in one buffer. A Fused call donates such inputs to
// its kernel (FusedKernel::run's `donated`, where FusedKernel::donatable allows), which
// stores an output of the input's dtype and shape into it; a kernel's outputs are fresh in
// turn (its single result, and the items its tuple hands to getitem).
//
// Interrupts: the loop polls base/interrupt.h's flag before every instruction (one relaxed
// load) and calls RuntimeHost::check_signals when it is set, so Ctrl-C stops a compiled
// loop after at most the instruction (kernel) being run; every kPollInstructions it calls
// RuntimeHost::poll.
//
// Run-time errors (a kernel's check, raise, a bad argument) are rethrown as the same mycel
// error kind with the source excerpt of the failing node appended (ir::span_excerpt), and
// those of the calling nodes below it (innermost first, at most a few).
//
// Whole-step capture (jit_level "O2"): vm_capture.h's CaptureRunner runs an Executable's
// steps as a captured device graph, replayed per call, where the device can capture.
//
// An Executable is immutable once compiled: run() is thread-safe and reentrant, touches no
// Python (the host does, for print and py_execute), and keeps all its state on the heap.
// Graph values are identified by their FuncGraph*: the module must outlive the Executable
// (constants hold Values of the module), as compile caches keep both anyway.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/anf.h"

namespace mycel::vm {

// What running a graph needs from the host language. The Python binding implements it,
// taking the GIL in each call; tests use a fake.
class RuntimeHost {
 public:
  virtual ~RuntimeHost() = default;
  // Output of the print builtin: the arguments formatted as Python's print would, separated
  // by spaces, with the trailing newline.
  virtual void print(const std::string& text) = 0;
  // py_execute(fn, args...): calls host object `fn` (JIT fallback). Host exceptions become
  // mycel errors carrying the host's message.
  virtual ir::Value call(const ir::Value& fn, const std::vector<ir::Value>& args) = 0;
  // Called by the executor between instructions when a SIGINT is pending
  // (base/interrupt.h): throws to stop the run or returns to go on. This default (also used
  // when the host is null) clears the flag and throws a RuntimeError "interrupted"; the
  // Python host runs Python's signal handlers on the main thread (Ctrl-C: KeyboardInterrupt)
  // and leaves the flag to the main thread on other threads, whose graphs go on.
  virtual void check_signals();
  // Called every kPollInstructions instructions of a run (long runs only). The Python host
  // chains the SIGINT handler again on the main thread, in case something replaced it other
  // than through signal.signal (which tells mycel at once).
  virtual void poll() {}
  static constexpr uint32_t kPollInstructions = 1u << 16;
};

// Counters of one run, for tests and profiling.
struct RunStats {
  uint64_t instructions = 0;  // instructions executed
  size_t max_frames = 0;      // deepest frame stack (tail calls do not add frames)
  size_t max_registers = 0;   // most registers live on the register stack at once
};

// Told the items of the entry graph's result (a tuple) one by one as soon as each is final,
// while the run goes on: an item computed by the entry graph itself (it returns a make_tuple
// of its own) right after the instruction that computes it, any other item when the entry
// returns. Each item is reported exactly once, on the running thread, in the order the
// items are computed. PYNATIVE data parallelism reduces a gradient bucket this way as soon
// as its last gradient is ready, while the backward pass goes on (PyTorch DDP's hooks).
// An exception thrown by ready() ends the run.
class ResultObserver {
 public:
  virtual ~ResultObserver() = default;
  virtual void ready(size_t index, const ir::Value& item) = 0;
};

struct GraphCode;  // one compiled graph (vm_compile.cc)

// A generated kernel standing for a call of a GraphKernel graph (made by the compiler's
// graph_kernel pass; kernels from codegen/graph_kernels.h). It computes what the graph
// computes, so a graph without one still runs, op by op: the graph is the kernel's reference.
class FusedKernel {
 public:
  virtual ~FusedKernel() = default;
  // The graph's result (a tensor, or a tuple of tensors) for its arguments (tensors).
  // `donated` (empty, or one flag per argument): the executor gives argument i's buffer to
  // the kernel where donated[i] is set (a contiguous tensor that no one else can see and
  // that dies here), so the kernel may store an output into it, as an elementwise prim
  // writes into its dying input (an output that reads a fresh cold buffer costs a pass
  // over memory more than one written where its input was just read).
  virtual ir::Value run(std::span<const ir::Value> args,
                        std::span<const uint8_t> donated = {}) const = 0;
  // Per argument: whether some output can be stored into its buffer (same dtype and shape).
  // The executor donates only these (asked once, when it compiles the call).
  virtual std::vector<uint8_t> donatable() const { return {}; }
};
using FusedKernels = std::unordered_map<const ir::FuncGraph*, std::shared_ptr<const FusedKernel>>;

class Executable {
 public:
  // Compiles `entry` and every graph reachable from it. Throws an internal error on IR that
  // breaks the specialised conventions (free variables, builtins specialisation removes).
  // A call of a graph that `fused` maps runs its kernel (one instruction, "fused").
  static std::unique_ptr<Executable> compile(ir::FuncGraph* entry,
                                             const FusedKernels* fused = nullptr);
  ~Executable();

  // Runs the entry graph on `args` (one per parameter; tensor arguments must match the
  // parameter's dtype and shape when its abstract is known, any size where it is dynamic). `host`
  // may be null: print then writes to stdout and py_execute fails. Non-tail recursion is
  // limited to max(kMinDepth, ir::max_call_depth()) nested graph calls, read when the run
  // starts (a RuntimeError naming the limit, how to raise it and the line), not by the C++
  // stack. With
  // `observer`, the result's items are also reported as they become final (see ResultObserver).
  ir::Value run(const std::vector<ir::Value>& args, RuntimeHost* host, RunStats* stats = nullptr,
                ResultObserver* observer = nullptr) const;

  // The instruction listing of every graph, entry first:
  //   @name(r0, r1): 5 registers, 2 constants
  //     0  r2 = Mul(r0, r1) : f32[3]        free r0 r1
  //     1  return r2
  std::string dump() const;

  size_t num_graphs() const { return graphs_.size(); }
  // The least run-time depth limit. max_call_depth (MindSpore's, default 1000) bounds calls
  // nested at compile time; at run time a gradient through a loop nests about two graph
  // calls per iteration, so the limit is never below this (a larger max_call_depth raises
  // it: the frames live on the heap).
  static constexpr size_t kMinDepth = 200000;

 private:
  Executable();
  friend class Compiler;
  friend class Interpreter;
  friend std::string capture_blocker(const Executable& exe, DeviceType type);  // vm_capture.h
  std::vector<std::unique_ptr<GraphCode>> graphs_;                             // entry first
  std::unordered_map<const ir::FuncGraph*, int32_t> index_;  // graph -> index in graphs_
};

// Runs builtin `b` on run-time values (vm_builtins.cc): Python's semantics for scalar
// operators, containers, getitem, casts, print, py_execute, raise. Switch, partial and calls
// are the interpreter's. Throws mycel errors with Python's messages. Constant folding (the
// fold pass, specialisation) uses it too, so compile time and run time agree. Dispatch is an
// array of functions made from the `vm` column of ir/builtins.def.
ir::Value run_builtin(ir::Builtin b, std::span<const ir::Value> args, RuntimeHost* host);
// Python-style formatting of a run-time value, as print() writes it: str() of the top-level
// value (strings raw, tensors as Tensor::to_string) and repr() inside containers.
std::string format_value(const ir::Value& v, bool top = true);

}  // namespace mycel::vm
