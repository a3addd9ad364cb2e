// C code generation for microcontrollers (`mycel_convert --codegen=c --outputFile=BASE`):
// a converted lite graph (after the passes, shapes fixed at the conversion's input shapes)
// becomes a folder BASE/ of self-contained C99:
//
//   model.h    the API: input/output counts and sizes, mycel_model_run(inputs, outputs)
//   model.c    the kernels the model uses (plain loops), one static float arena, the run
//   weights.c  every constant as a `const float` array (hex float literals: exact)
//   main.c     `prog input.bin output.bin`: the inputs, concatenated in graph order, as raw
//              little-endian float32 (byte-swapped on a big-endian host); the outputs likewise
//
// No heap, no runtime library: the activations live in one static array planned as the
// runtime plans its arena (lite::plan_arena: the same offsets), the weights in read-only
// arrays, and the code calls only memcpy and libm (expf, tanhf). It compiles with
// `cc -O2 -std=c99 -Wall -Werror *.c -lm`. The kernels are naive loops with float
// accumulators (what an MCU without a double FPU wants): correct and small, not fast.
//
// Ops: Conv2D (groups, dilation, pads), Pool (max/avg, ceil mode, count_include_pad),
// FullyConnected, MatMul, BiasAdd, Eltwise (numpy broadcasting), Act, Reshape, Softmax, each
// with its fused activation; float32 only. Anything else (Transpose, BatchNorm left unfolded,
// a non-float32 tensor) is collected and reported in one ValueError before anything is written.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "lite/graph.h"

namespace mycel::converter {

// The generated files: (file name, contents), in the order above. `source` names the model
// in the files' header comments. ValueError listing every unsupported op of `g`.
std::vector<std::pair<std::string, std::string>> generate_c(const lite::Graph& g,
                                                            const std::string& source);

// Generates and writes the files into folder `dir` (created if missing); reports what it
// wrote to `out`.
void write_c(const lite::Graph& g, const std::string& source, const std::string& dir,
             std::ostream& out);

}  // namespace mycel::converter
