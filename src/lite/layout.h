// The arena's layouts of float32 activations: which rank-4 float32 activations the runtime
// stores NHWC or nChw16c (TensorDesc::layout), chosen at Build and Resize for the optimised
// kernels, so that oneDNN's convolutions read and write their layouts and no reorder runs
// between them (the file and the graph's shapes stay NCHW; only the arena's bytes are ordered
// differently).
//
// First, a tensor is channels-last when every node writing or reading it takes that there:
//   - a float32 Conv2D that oneDNN runs reads and writes any layout (a folded residual Add's
//     input, lite/fuse.h, lies as its output);
//   - a float32 Pool reads any, and writes channels-last only in its input's layout;
//   - Act, and Eltwise of two activations of its output's shape, keep one layout for all
//     their tensors;
//   - every other node (int8 ones included) reads and writes NCHW.
// Graph inputs and outputs stay NCHW. Found as the int8 flow is (converter/quant_full.cc):
// start from every candidate and drop, until none changes, what some node cannot take.
// Then the channels-last tensors that must share a layout (through Act, Eltwise, Pool, a
// folded Add) form groups; a group whose every tensor has a multiple of 16 channels and one
// of which a Winograd convolution reads or writes (dnnl_util.h: it takes nChw16c only) is
// nChw16c, the others NHWC (the layout of oneDNN's fastest direct kernels here).
#pragma once

#include "lite/graph.h"

namespace mycel::lite {

// `bf16`: the model runs Context::precision BFloat16 (no Winograd convolutions).
void choose_layouts(Graph& g, bool bf16 = false);

}  // namespace mycel::lite
