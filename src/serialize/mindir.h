// MINDIR export and import: a compiled inference graph with its weights in one file, a
// protobuf ModelProto after MindSpore's mind_ir.proto (src/serialize/mind_ir.proto; the
// mapping and what MindSpore can and cannot read are in docs/mindir-format.md).
//
// Export takes what the compiler hands the executor: the entry graph of a specialised,
// optimised and lambda-lifted module (compiler::optimize), whose parameters are the inputs
// then the weights, and the graphs it reaches (branches, loop bodies: recursive graphs).
// Every graph becomes a GraphProto (the entry ModelProto.graph, the others
// ModelProto.functions), every node a NodeProto with its abstract (dtype and shape), every
// weight a TensorProto with its bytes. Graphs holding host objects (a JIT-fallback
// py_execute, print, a Python object constant) cannot be written: a ValueError names the
// node's source line.
//
// Import reads only files mycel wrote: it checks the trailing CRC-32 first (a truncated or
// corrupted file is a ValueError that says so), parses the protobuf, rebuilds the module
// (unknown ops, attributes, builtins or names are ValueErrors naming the file and the
// node), runs the IR verifier, re-infers every prim call's output and checks it against the
// stored abstract (and graph calls' arguments against the callee's parameters), then
// compiles the executable.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/anf.h"
#include "runtime/vm.h"

namespace mycel::serialize {

// What export writes. `entry`'s parameters are `num_inputs` inputs followed by one
// parameter per weight, named weight_names[i] and holding weights[i].
struct ExportSpec {
  ir::FuncGraph* entry = nullptr;
  size_t num_inputs = 0;
  std::vector<std::string> weight_names;
  std::vector<Tensor> weights;
  std::string producer_version;  // the mycel version, informational
};

// The file's bytes (ValueError for graphs that hold host objects, with the source line).
std::string export_mindir(const ExportSpec& spec);

// A loaded file: the rebuilt module, its executable, and what running it needs.
struct LoadedModel {
  std::unique_ptr<ir::Module> module;  // declared first: it outlives `exe`
  ir::FuncGraph* entry = nullptr;      // parameters: the inputs, then the weights
  std::vector<ir::AbsPtr> inputs;      // the abstracts of the inputs
  std::vector<std::string> input_names;
  std::vector<std::string> weight_names;
  std::vector<Tensor> weights;  // the stored weights, in parameter order
  ir::AbsPtr output;            // the abstract of the result
  std::unique_ptr<vm::Executable> exe;
};

// Rebuilds, checks and compiles the model in `bytes`; `file_name` names the file in errors.
LoadedModel import_mindir(std::string_view bytes, const std::string& file_name);

}  // namespace mycel::serialize
