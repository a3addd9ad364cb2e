// The lite converter: a model of mycel's IR -> a lite graph -> passes -> a .ms file.
//
// Its input is the IR every importer produces: an entry FuncGraph of mycel ops whose first
// parameters are the inputs and the rest the weights (serialize::import_mindir today; the
// ONNX importer joins by building the same SourceModel). `lower` maps each op to a lite op
// (docs/architecture.md, "Lite", lists them) and reports every op it cannot map in one
// ValueError; `optimize` runs the passes (passes/passes.h); `convert` is the whole command
// (mycel_convert, python -m mycel.lite.convert, mycel.lite.Converter).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ir/anf.h"
#include "lite/graph.h"
#include "tensor/tensor.h"

namespace mycel::converter {

struct SourceModel {
  const ir::FuncGraph* entry = nullptr;  // parameters: the inputs, then the weights
  std::vector<std::string> input_names;  // one per input
  std::vector<std::string> weight_names;
  std::vector<Tensor> weights;  // in parameter order
  std::string file;             // names the model in errors
};

// The lite graph of `m` (weights copied as float32 constants; shapes inferred and checked
// against the IR's). Every unsupported op, attribute value or graph construct is collected
// and reported together: "unsupported: MaxPool3D (nodes 'a', 'b'), switch (node 'c')".
lite::Graph lower(const SourceModel& m);

// "Exp (nodes 'a', 'b'), Square (node 'c')": the one form of every unsupported-operator
// report (the lowering's and the C code generator's), from what -> the nodes naming it.
std::string unsupported_list(const std::map<std::string, std::vector<std::string>>& missing);

// The passes, in order (passes/passes.h), then a final shape inference and pruning.
void optimize(lite::Graph& g);

// The command's options (MindSpore Lite's converter flags).
struct Options {
  std::string fmk;  // MINDIR or ONNX
  std::string model_file;
  std::string output_file;  // BASE: writes BASE.ms (with codegen "c", the folder BASE/)
  std::string fp16 = "off";
  std::string config_file;
  std::string train_model = "false";  // "true": a training model (lite/train.h): weights
                                      // unfolded, parameters marked trainable, loss named
  std::string codegen;                // "c": C sources for microcontrollers (converter/codegen.h)
};

// Converts: reads and imports the model, lowers, optimises, applies the precision options
// (--configFile quantization, then --fp16=on weight storage: converter/quant.h), writes
// BASE.ms, then runs the source model and the converted one on the same inputs (the
// calibration samples of a FULL_QUANT config, else one seeded random input) and prints each
// output's mean and max relative difference and, for [N, C] outputs, top-1 agreement to
// `out`. With --trainModel=true the weights stay unfolded for on-device training; with
// codegen "c" it writes the folder BASE/ of C sources instead of BASE.ms (after the same
// accuracy check of the graph they come from); both are float32 only.
void convert(const Options& o, std::ostream& out);

// The command line: --fmk --modelFile --outputFile [--fp16 --configFile --trainModel
// --codegen]; returns 0 (errors are thrown).
int convert_main(const std::vector<std::string>& args, std::ostream& out);

}  // namespace mycel::converter
