// LLVM IR (text, LLVM 14's typed pointers) of a loop kernel (codegen/loop_ir.h).
//
// The module defines `void NAME(i8** bufs, i64 lo, i64 hi, i64 flags)`: bufs are the kernel's
// inputs, then its outputs, then one accumulator per reducing output (loop_ir.h's acc_dtype: double
// for float sums and means, the integer of the float's width for float max/min, which reduce
// order-preserving integer keys so that their loops vectorise; the output's own type
// otherwise), each a dense buffer (bfloat16 as 16-bit words, computed in float); the call runs the
// steps [lo, hi) of dims[0]. It initialises and finalises the accumulator elements those steps
// own. flags = 3 runs them whole; a kernel that reduces dims[0] (not parallel_outer()) may
// instead run in slices with flags = 1 (steps [lo, hi) into their own accumulators of the
// outputs that reduce dims[0], not finalised), the caller combining those accumulators in a
// fixed order, then once with flags = 2 (finalise them). A staged kernel (row_dims) runs
// whole rows and always as flags = 3. NAME's body is an internal function whose
// buffer arguments are noalias, so the optimiser vectorises the loops (the O3 pipeline, jit.h).
//
// Scalar formulas are those of the CPU kernels (kernels/cpu/elementwise_*.cc): Maximum and
// Minimum propagate a NaN of either side, ReLU keeps NaN, Sign keeps 0 and NaN, casts
// saturate as tensor/dtype.h's saturate_cast (llvm.fptosi.sat), float sums add in double.
// No fast-math flag is set except `reassoc` on the double sums, so elementwise results are
// bit-identical to the unfused kernels; Exp, Sigmoid and Tanh follow kernels/cpu/vmath.h step
// by step with a * b + c as llvm.fmuladd (the host's FMA, as GCC contracts the op kernels'),
// so they agree to an ulp or two.
#pragma once

#include <string>

#include "codegen/loop_ir.h"

namespace mycel::codegen {

std::string emit_llvm(const LoopKernel& k, const std::string& name);

}  // namespace mycel::codegen
