// ONNX import: an ONNX ModelProto (default domain, opsets 1-18) -> the same checked module and
// executable that MINDIR import gives (serialize/mindir.h's LoadedModel), so mycel.lite's
// converter and nn.GraphCell take an ONNX model as they take a mycel.export file.
//
// The graph is translated node by node in file order, one translation per ONNX op kind
// (the table onnx_ops.def, the translations onnx_ops_*.cc): each emits op-table primitives
// with attributes mapped, typed at import (shapes are static: inputs with symbolic
// dimensions need OnnxOptions::input_shapes). Integer initializers, Constant nodes and what is
// computed from them alone (Shape, Gather of a shape, Concat, ...) are folded at import by
// OnnxOptions::fold, so shape, axes and pads inputs are known as ONNX models compute them;
// float initializers become weights (the entry's parameters after the inputs, by their ONNX
// names).
//
// Errors are ValueErrors starting "load_onnx: '<file>': ": a file that does not parse as a
// ModelProto; every operator without a translation, listed together with its nodes' names
// before any translation runs; an attribute or input value a translation does not map (an
// auto_pad mode, a Pad mode, a non-constant shape input), or an attribute it does not read,
// naming the node; an unsupported data type, external tensor data, a symbolic input
// dimension not given a size. Then the IR verifier runs and the executable is compiled.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/op_table.h"
#include "serialize/mindir.h"

namespace mycel::serialize {

// Runs `op` on constant inputs at import time and returns its outputs.
using OnnxFoldFn =
    std::function<std::vector<Tensor>(const OpDef& op, std::span<const Tensor>, const Attrs&)>;

struct OnnxOptions {
  // Sizes for inputs with symbolic (or missing) dimensions, by input name; the given shape
  // must agree with the file's known dimensions.
  std::map<std::string, Shape> input_shapes;
  // Inputs frozen to a value: they become constants of the graph, not inputs (a shape or
  // axes input that an ONNX model takes at run time).
  std::map<std::string, Tensor> const_inputs;
  // Evaluates ops on constants at import (eager_fold below, as the Python binding does);
  // null: nothing folds, constant expressions stay graph nodes and an input
  // that must be known at import (a Reshape's shape) must then be an initializer or Constant.
  OnnxFoldFn fold;
};

// OnnxOptions::fold by the eager dispatcher (runtime/eager.h's run_op), what the Python
// binding and the converter pass (onnx_fold.cc, which builds without kernels leave out).
std::vector<Tensor> eager_fold(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs);

// Translates, checks and compiles the ONNX model in `bytes`; `file_name` names it in errors.
// The result's inputs are the ONNX graph's inputs less the initializers and const_inputs; its
// output is the one ONNX output, or a tuple of them.
LoadedModel import_onnx(std::string_view bytes, const std::string& file_name,
                        const OnnxOptions& options = {});

// The ONNX op types import translates, sorted.
std::vector<std::string_view> onnx_supported_ops();

}  // namespace mycel::serialize
