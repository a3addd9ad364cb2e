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

}  // namespace mycel::lite
