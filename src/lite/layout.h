// Channels-last float32 activations: which rank-4 float32 activations the runtime stores NHWC
// (TensorDesc::nhwc), chosen at Build and Resize for the optimised kernels, so that oneDNN's
// convolutions read and write one layout and no reorder runs between them (the file and the
// graph's shapes stay NCHW; only the arena's bytes are ordered differently).
//
// A tensor is NHWC when every node writing or reading it takes NHWC there:
//   - a float32 Conv2D that oneDNN runs reads and writes either layout;
//   - a float32 Pool reads either, and writes NHWC only from NHWC;
//   - Act, and Eltwise of two activations of its output's shape, keep one layout for all
//     their tensors;
//   - every other node (int8 ones included) reads and writes NCHW.
// Graph inputs and outputs stay NCHW. Found as the int8 flow is (converter/quant_full.cc):
// start from every candidate and drop, until none changes, what some node cannot take.
#pragma once

#include "lite/graph.h"

namespace mycel::lite {

void choose_layouts(Graph& g);

}  // namespace mycel::lite
