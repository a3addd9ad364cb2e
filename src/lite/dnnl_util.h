// What the lite kernels on oneDNN share (kernels_dnnl.cc defines them; kernels_int8.cc uses
// them too): one CPU engine, one in-order stream per thread, and the window limit.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>

#include "lite/graph.h"

namespace mycel::lite {

// The process's CPU engine.
dnnl::engine& dnnl_engine();
// One in-order CPU stream per thread for every kernel (primitives run synchronously on the
// caller's thread and OpenMP's workers): models may Predict on several threads at once.
dnnl::stream& dnnl_stream();
// A convolution whose dilated kernel extent or pad passes this (only a damaged file's) runs on
// the reference: oneDNN takes seconds to make such a primitive.
constexpr int64_t kMaxDnnlWindow = 4096;
// Whether oneDNN may run node n of g: no empty tensor (oneDNN rejects empty problems) and a
// Conv2D's window within kMaxDnnlWindow. Otherwise its reference kernel runs.
bool dnnl_can_run(const Graph& g, const NodeDesc& n);

// Whether Conv2D node n runs on oneDNN's Winograd F(2x2, 3x3) kernel: float32 (not bf16), 3x3,
// stride 1, undilated, ungrouped, at least kWinogradPixels output pixels (batch included). It
// does 2.25x fewer multiplications (ResNet-18 at batch 1: its 56x56 and 28x28 layers 27% and
// 15% faster per primitive), outputs within a few ulps of a direct convolution's; but its
// transformed weights are 16/9 the direct ones, and a layer with few output pixels is bound
// by streaming its weights from memory (the 14x14 and 7x7 layers: 20% slower), so those stay
// direct. It reads and writes nChw16c (Layout::Blocked16; lite/layout.h keeps its
// activations so where it can, else they are reordered around it).
constexpr int64_t kWinogradPixels = 784;
bool winograd_fits(const Graph& g, const NodeDesc& n, bool bf16);

}  // namespace mycel::lite
