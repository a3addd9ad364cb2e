// The optimisation pipeline: specialised IR in, lifted IR the executor runs out.
//
//   repeat until no pass changes anything (at most kMaxRounds rounds):
//     switch_simplify   switch(True/False, a, b) -> a/b, so `if` on a constant is a call
//     inline            calls of once-used or small graphs (nested graphs counted) -> bodies
//     fold              constant folding (prims on small constant tensors, scalars, getitem)
//     simplify          algebraic identities (x*1, x+0, Transpose∘Transpose, ...)
//     cse               common subexpressions and equal constants merge
//     dce               unused parameters and tuple outputs of called graphs go
//   before_ad           (when set, once: parallel/spmd.h's rewrite; then the loop again)
//   lift                free variables -> parameters and partial() (the executor's form)
//   expand_vjp          autodiff (or expand_vmap, batching); after each: recompute (marked
//                       forward values the bprops read are computed again there), the loop,
//                       lift; then order_updates
//   graph_kernel        (when set, last) elementwise/reduction clusters -> GraphKernel calls;
//                       for a device target (graph_kernel_device) matmul_epilogue instead:
//                       MatMul -> BiasAdd (-> ReLU | GeLU) -> MatMul epilogue calls
//
// The passes are compiler/passes.h. With a dump directory (PipelineOptions::dump_dir) the IR
// is written before the first pass as <dir>/<PPP>_<name>_00_input.ir and after each pass as
// <dir>/<PPP>_<name>_<NN>_<pass>.ir (ir::print_graph): PPP numbers the programs optimised
// with that directory (one more than the highest number of a file there, so a later
// program, or a later process, never overwrites an earlier one's files), <name> is
// PipelineOptions::dump_name reduced to letters, digits and '_' (left out when empty). With
// verify_each, ir::verify runs on the input (specialised form) and after every pass (specialised
// form; lifted after lift), naming the pass that broke an invariant, or the input when what built
// it did. With a log function, each pass's time is reported to it ("mycel: pass <name> <ms> ms").
//
// optimize() reads no environment variable: the compile driver (compiler/compile.h) fills
// these options from MYCEL_VERIFY_IR, MYCEL_DUMP_IR and MYCEL_LOG_COMPILE.
#pragma once

#include <functional>
#include <string>

#include "ir/anf.h"

namespace mycel::compiler {

struct PipelineOptions {
  bool verify_each = false;
  std::string dump_dir;                         // empty: no dumps
  std::string dump_name;                        // the program's name, in its dump files' names
  std::function<void(const std::string&)> log;  // set: one line per pass (with '\n')
  // Set: a pass of a layer above the compiler run once after the first simplification (calls
  // inlined) and before autodiff, so the backward is derived from what it makes; the
  // pipeline then simplifies again. Semi-automatic parallelism's rewrite (parallel/spmd.h).
  std::function<void(ir::Module&, ir::FuncGraph*)> before_ad;
  // Graph-kernel fusion (set_context(enable_graph_kernel=True)): the graph_kernel pass last.
  bool graph_kernel = false;
  // The program runs on a device (the context's device_target is a GPU): fusion makes only
  // the clusters a device runs (matmul_epilogue), not the CPU's generated kernels.
  bool graph_kernel_device = false;
};

// Optimises the graphs reachable from `root` in place. Attaches a Manager to `m` for the
// duration unless one is attached already.
void optimize(ir::Module& m, ir::FuncGraph* root, const PipelineOptions& opts = {});

}  // namespace mycel::compiler
