// The compile driver: the one sequence that turns a program into something runnable, shared
// by GRAPH mode (python/py_graph.cc), MINDIR export (python/py_export.cc) and the PYNATIVE
// backward graphs (compiler/ad/pynative.cc).
//
//   compile(host, src, out, fn, signature, options, until)
//       specialise fn for the signature (compiler/specialize.h)   -> Stage::Specialize
//       optimise: the pass pipeline (compiler/pipeline.h)          -> Stage::Optimize
//       lower to executor code (vm::Executable::compile)           -> Stage::Lower
//   compile_graph(m, entry, options)
//       the last two steps, for a graph already built in IR (the PYNATIVE backward).
//
// Options come from the environment through CompileOptions::from_env, the only place the
// compiler's variables are read (flags follow base/env.h: unset, "", "0", "false", "off" are
// off, anything else on):
//   MYCEL_VERIFY_IR=1      ir::verify after every pass, naming the pass that broke the IR
//   MYCEL_DUMP_IR=dir      the IR before the passes and after each one, as dir/NN_<pass>.ir
//   MYCEL_LOG_COMPILE=1    each pass's time, then one line per compile with the time of each
//                          stage ("mycel: compiled 'f': parse+specialise 3.1 ms, passes ...")
//   MYCEL_LOG_RECOMPILE=1  (GRAPH mode's cache) why a function was compiled again
//   MYCEL_GRAPH_KERNEL_DEVICE=1  graph-kernel fusion as for a device target even on the host
//                          (MatMul epilogues, whose kernels then run their ops): to check the
//                          device's fusion on a machine without one
// With graph_kernel (GRAPH mode's set_context(enable_graph_kernel=True)), the pipeline ends
// with the graph_kernel pass and lowering builds the clusters' kernels (codegen/
// graph_kernels.h); MYCEL_LOG_COMPILE then adds "mycel: graph kernels 'f': 3 fused clusters,
// kernel cache: 2 hit, 1 miss". With graph_kernel_device too (the context's target is a GPU),
// the pipeline ends with matmul_epilogue instead (fused cuBLASLt MatMul epilogues; the CPU's
// generated kernels would not run on a device).
// The log goes to CompileOptions::log_to, stderr unless the caller says otherwise (the
// Python bindings write to sys.stderr, as Python code does).
//
// The compiler layer stays free of Python: the host language is reached through ir::Host.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/host.h"
#include "compiler/pipeline.h"
#include "runtime/vm.h"

namespace mycel::compiler {

struct CompileOptions {
  bool verify_each = false;          // MYCEL_VERIFY_IR
  bool log = false;                  // MYCEL_LOG_COMPILE: per-pass and per-compile times
  bool log_recompile = false;        // MYCEL_LOG_RECOMPILE: read by GRAPH mode's cache
  std::string dump_dir;              // MYCEL_DUMP_IR; empty: no dumps
  bool graph_kernel = false;         // fuse into generated kernels (set by GRAPH mode's context)
  bool graph_kernel_device = false;  // ... for a device target: MatMul epilogues only
  // Where log lines (each ending in '\n') go; empty: stderr (std::fprintf).
  std::function<void(const std::string&)> log_to;
  // Passed on to the pipeline (PipelineOptions::before_ad) with the program's weights (the
  // host's Parameters, in entry-parameter order): set by GRAPH mode in semi-automatic
  // parallelism.
  std::function<void(ir::Module&, ir::FuncGraph*, const std::vector<ir::Value>&)> before_ad;

  // The options the environment asks for (see the top of the file); log_to stays empty.
  static CompileOptions from_env();

  // The pass pipeline's share: verification, dumps, and the per-pass log when `log` (its
  // log function refers to this object: use the result while this object lives).
  PipelineOptions pipeline() const;

  // Writes one log line to log_to (or stderr), whether or not `log` is set.
  void write_log(const std::string& line) const;
};

// How far compile() goes.
enum class Stage { Specialize, Optimize, Lower };

struct CompileResult {
  ir::FuncGraph* entry = nullptr;       // in `out`: params per argument, then per weight
  std::vector<ir::Value> weights;       // the host Parameter objects, in parameter order
  std::vector<std::string> warnings;    // the specialiser's (JIT fallback notes)
  std::unique_ptr<vm::Executable> exe;  // Stage::Lower only
  // The specialised program has a custom gradient rule (custom_vjp: a Cell's own bprop, a
  // Tensor.register_hook in graph code) or a stop_gradient. The optimised program no longer
  // has it (expand_vjp makes it a plain call once differentiation is done; stop_gradient is
  // an identity), so a PYNATIVE recording through the executable would miss the rule: GRAPH
  // mode runs such a function eagerly while a PYNATIVE gradient records (python/py_graph.cc).
  bool custom_grads = false;
  // The specialised program takes a gradient (a vjp): Tensor.register_hook on its arguments
  // or weights would not run there (common/api.py refuses such a call).
  bool grads = false;
};

// Compiles `fn` (a Graph, a Closure, or a host callable such as a Cell, of module `src`) for
// arguments with abstracts `sig` up to `until`; the IR lives in `out`. `name` names the
// program in the compile log ("'f'"). Errors propagate unchanged (specialisation's user
// errors, a verifier's internal error naming the pass).
CompileResult compile(ir::Host& host, ir::Module& src, ir::Module& out, const ir::Value& fn,
                      const std::vector<ir::AbsPtr>& sig, const CompileOptions& options,
                      const std::string& name, Stage until = Stage::Lower);

// Optimises `entry` of `m` (specialised IR) in place and lowers it to executor code.
std::unique_ptr<vm::Executable> compile_graph(ir::Module& m, ir::FuncGraph* entry,
                                              const CompileOptions& options,
                                              const std::string& name);

}  // namespace mycel::compiler
