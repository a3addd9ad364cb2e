// Generated kernels for the GraphKernel graphs of a program: the codegen layer's entry.
//
// build_kernels(entry) lowers every GraphKernel graph reachable from `entry` (is_graph_kernel,
// made by the compiler's graph_kernel pass) to its loop kernel (loop_ir.h), emits
// LLVM IR (llvm_emit.h) and gets the compiled function from the JIT and its disk cache (jit.h).
// The result maps each graph to a vm::FusedKernel for vm::Executable::compile, whose run()
// allocates the outputs (and accumulators), makes strided inputs contiguous and runs the
// kernel over slices of its outer dimension on mycel's threads (base/parallel.h) when no
// output reduces that dimension. Inputs must be on the CPU (a RuntimeError says so). An input
// the executor donates (vm::FusedKernel::run) holds the first output of its dtype and shape
// that stores an element per point: the kernel variant that stores there (LOutput::in_place)
// is compiled on its first use, through the JIT and its disk cache, and kept (KernelStats
// counts the kernels built here only).
//
// A MatMul epilogue graph (matmul_epilogue.h) gets its library-call kernel instead.
//
// A graph whose kernel cannot be built (an LLVM failure) is left out of the map, with the
// reason in `failures`: the executor then runs it op by op, which computes the same.
#pragma once

#include <string>
#include <vector>

#include "runtime/vm.h"

namespace mycel::codegen {

struct KernelStats {
  int clusters = 0;  // GraphKernel graphs found
  int hits = 0;      // kernels loaded from this process's JIT or the disk cache
  int misses = 0;    // kernels compiled
  std::vector<std::string> failures;
};

vm::FusedKernels build_kernels(ir::FuncGraph* entry, KernelStats* stats);

}  // namespace mycel::codegen
