// The converter's driver: options, import, lowering, passes, writing, and the accuracy check
// of every conversion (the source model's executable against the converted file, both run on
// the same seeded random inputs).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <random>
#include <set>

#include "base/error.h"
#include "converter/codegen.h"
#include "converter/converter.h"
#include "converter/passes/passes.h"
#include "converter/quant.h"
#include "lite/flags.h"
#include "lite/model.h"
#include "lite/model_file.h"
#include "serialize/mindir.h"
#include "serialize/onnx_import.h"

namespace mycel::converter {

namespace {

constexpr const char* kTool = "mycel_convert";

void check_not_built(const Options& o) {
  auto off = [](const std::string& v) { return v.empty() || v == "off" || v == "false"; };
  MC_CHECK(off(o.fp16) || o.fp16 == "on" || o.fp16 == "true", Value, kTool, ": --fp16=", o.fp16,
           ": expected on or off");
  MC_CHECK(off(o.train_model) || o.train_model == "true", Value, kTool,
           ": --trainModel=", o.train_model, ": must be true or false");
  MC_CHECK(o.codegen.empty() || o.codegen == "c", Value, kTool, ": --codegen=", o.codegen,
           ": the code generator writes C only (--codegen=c)");
  MC_CHECK(o.fmk == "MINDIR" || o.fmk == "ONNX", Value, kTool, ": --fmk=", o.fmk,
           " is not a known format (MINDIR, ONNX)");
}

std::vector<const Tensor*> source_outputs(const ir::Value& v) {
  std::vector<const Tensor*> out;
  if (v.kind() == ir::ValueKind::Tensor) {
    out.push_back(&v.as_tensor());
  } else if (v.is_sequence()) {
    for (const ir::Value& x : v.items())
      if (x.kind() == ir::ValueKind::Tensor) out.push_back(&x.as_tensor());
  }
  return out;
}

// The difference of one output over the samples: sums and maxima of |converted - source|
// and |source|, and (for [N, C] outputs) how often the argmax of a row agrees.
struct OutputDiff {
  double diff = 0, norm = 0, max_diff = 0, max_ref = 0;
  int64_t rows = 0, agree = 0;
  void add(const float* got, const Tensor& want, const lite::Dims& shape) {
    const int64_t n = lite::numel(shape);
    for (int64_t i = 0; i < n; ++i) {
      const double w = want.element_as_double(i), d = std::fabs(got[i] - w);
      diff += d, norm += std::fabs(w);
      max_diff = std::max(max_diff, d), max_ref = std::max(max_ref, std::fabs(w));
    }
    if (shape.size() != 2 || shape[1] < 2) return;
    for (int64_t r = 0; r < shape[0]; ++r) {
      int64_t a = 0, b = 0;
      for (int64_t c = 1; c < shape[1]; ++c) {
        if (got[r * shape[1] + c] > got[r * shape[1] + a]) a = c;
        if (want.element_as_double(r * shape[1] + c) > want.element_as_double(r * shape[1] + b))
          b = c;
      }
      ++rows, agree += a == b;
    }
  }
};

// Runs both models on the calibration samples (or, without any, on one seeded random input)
// and prints each output's difference.
void accuracy_check(const serialize::LoadedModel& src, const std::string& bytes,
                    const std::vector<Sample>& samples, std::ostream& out) {
  lite::Model model;
  model.Build(bytes.data(), bytes.size());
  std::vector<lite::Tensor> inputs = model.GetInputs();
  std::vector<Sample> runs = samples;
  if (runs.empty()) {
    std::mt19937 gen(0);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    runs.emplace_back();
    for (lite::Tensor& t : inputs) {
      runs[0].emplace_back(static_cast<size_t>(t.ElementNum()));
      for (float& v : runs[0].back()) v = u(gen);
    }
  }
  std::vector<OutputDiff> diffs;
  for (const Sample& s : runs) {
    std::vector<ir::Value> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::memcpy(inputs[i].MutableData(), s[i].data(), inputs[i].DataSize());
      const lite::Dims& d = inputs[i].Shape();
      Tensor x = Tensor::empty(Shape(d.begin(), d.end()), DType::Float32);
      std::memcpy(x.data<float>(), s[i].data(), inputs[i].DataSize());
      args.push_back(ir::Value::tensor(x));
    }
    for (const Tensor& w : src.weights) args.push_back(ir::Value::tensor(w));
    std::vector<lite::Tensor> outputs;
    model.Predict(inputs, &outputs);
    ir::Value ref = src.exe->run(args, nullptr);
    std::vector<const Tensor*> refs = source_outputs(ref);
    MC_CHECK(refs.size() == outputs.size(), Value, kTool, ": the converted model has ",
             outputs.size(), " output(s), the source ", refs.size());
    diffs.resize(outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k)
      diffs[k].add(static_cast<const float*>(outputs[k].Data()), refs[k]->contiguous(),
                   outputs[k].Shape());
  }
  out << std::setprecision(3);
  const std::vector<lite::Tensor> names = model.GetOutputs();
  for (size_t k = 0; k < diffs.size(); ++k) {
    const OutputDiff& d = diffs[k];
    out << "Accuracy: output '" << names[k].Name() << "' differs from the source model by "
        << (d.norm > 0 ? 100.0 * d.diff / d.norm : d.diff) << "% (mean relative), "
        << (d.max_ref > 0 ? 100.0 * d.max_diff / d.max_ref : d.max_diff)
        << "% (max relative, of the largest |output|)";
    if (d.rows) out << ", top-1 agreement " << 100.0 * d.agree / d.rows << "%";
    out << (samples.empty() ? " on random inputs\n"
                            : str(" on ", samples.size(), " calibration input(s)\n"));
  }
}

}  // namespace

void optimize(lite::Graph& g) {
  passes::fold_constants(g);
  passes::fuse_bias(g);
  passes::fold_batchnorm(g);
  passes::fuse_activation(g);
  passes::eliminate_transposes(g);
  passes::infer_and_prune(g);
  lite::validate(g, "the converted graph");
}

namespace {

// --trainModel=true: the passes that keep weights, the trainable weights marked (the
// source's parameters, BatchNorm statistics excepted), the loss named.
void prepare_for_training(lite::Graph& g, const SourceModel& m) {
  // Keep every weight a weight: no constant folding, BatchNorm folding or bias fusion (they
  // would bake or rename trainable tensors); activations still fuse (their gradients run
  // through the node's output).
  passes::fuse_activation(g);
  passes::eliminate_transposes(g);
  passes::infer_and_prune(g);
  lite::validate(g, "the converted graph");
  std::set<int> stats;  // BatchNorm's moving statistics are not trained
  for (const lite::NodeDesc& n : g.nodes)
    if (n.op == lite::OpType::BatchNorm) stats.insert(n.inputs[3]), stats.insert(n.inputs[4]);
  const std::set<std::string> weights(m.weight_names.begin(), m.weight_names.end());
  int marked = 0;
  for (int t = 0; t < static_cast<int>(g.tensors.size()); ++t) {
    lite::TensorDesc& d = g.tensors[t];
    d.trainable =
        d.constant && d.dtype == lite::DType::Float32 && weights.count(d.name) && !stats.count(t);
    marked += d.trainable;
  }
  MC_CHECK(marked > 0, Value, kTool, ": --trainModel=true: the model has no trainable weight");
  const lite::Dims& y = g.tensors[g.outputs[0]].shape;
  MC_CHECK(y.size() == 2, Value, kTool,
           ": --trainModel=true: the loss (softmax cross-entropy) needs output 0 to be "
           "[batch, classes] logits; it is ",
           lite::dims_str(y));
  g.loss = lite::Loss::SoftmaxCrossEntropy;
}

}  // namespace

void convert(const Options& o, std::ostream& out) {
  check_not_built(o);
  MC_CHECK(!o.output_file.empty(), Value, kTool, ": --outputFile is empty");
  QuantConfig qc;  // read first: a bad config is reported before any work
  if (!o.config_file.empty()) qc = read_quant_config(o.config_file);
  lite::MappedFile file(o.model_file);
  const std::string_view bytes_in(reinterpret_cast<const char*>(file.data()), file.size());
  serialize::LoadedModel src;
  if (o.fmk == "ONNX") {
    serialize::OnnxOptions onnx;
    onnx.fold = serialize::eager_fold;  // constant subgraphs (Shape -> Reshape) fold at import
    src = serialize::import_onnx(bytes_in, o.model_file, onnx);
  } else {
    src = serialize::import_mindir(bytes_in, o.model_file);
  }
  SourceModel m{src.entry, src.input_names, src.weight_names, src.weights, o.model_file};
  lite::Graph g = lower(m);
  const size_t before = g.nodes.size();
  const bool train = o.train_model == "true";
  const bool fp16 = o.fp16 == "on" || o.fp16 == "true";
  MC_CHECK(!train || o.codegen.empty(), Value, kTool,
           ": --trainModel=true and --codegen=c: generated C runs inference only");
  MC_CHECK((!train && o.codegen.empty()) || (qc.type == QuantConfig::Type::None && !fp16), Value,
           kTool,
           ": --configFile and --fp16 make a model for the lite runtime's inference: not with "
           "--trainModel=true or --codegen=c (float32 only)");
  std::vector<Sample> samples;
  if (train) {
    prepare_for_training(g, m);
  } else {
    optimize(g);
    if (qc.type == QuantConfig::Type::Full) {
      samples = load_calibration(qc, g);
      full_quantize(g, qc, samples, out);
    } else if (qc.type == QuantConfig::Type::Weight) {
      out << "Quantized the weights of " << quantize_weights(g, qc)
          << " node(s) to int8 (per channel, dequantized at load)\n";
    }
    if (fp16) store_fp16(g);
  }
  std::string bytes = lite::write_model(g, "mycel converter");
  if (o.codegen == "c") {
    write_c(g, o.model_file, o.output_file, out);
    accuracy_check(src, bytes, samples, out);
    return;
  }
  const std::string path = o.output_file + ".ms";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    MC_CHECK(f.good(), Value, kTool, ": cannot write '", path, "'");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    MC_CHECK(f.good(), Value, kTool, ": writing '", path, "' failed");
  }
  out << "Converted '" << o.model_file << "': " << before << " ops lowered, " << g.nodes.size()
      << " after the passes; wrote '" << path << "' (" << bytes.size() << " bytes)\n";
  accuracy_check(src, bytes, samples, out);
}

int convert_main(const std::vector<std::string>& args, std::ostream& out) {
  lite::Flags f = lite::parse_flags(
      kTool, args,
      {"fmk", "modelFile", "outputFile", "fp16", "configFile", "trainModel", "codegen"});
  Options o;
  o.fmk = f.get("fmk");
  o.model_file = f.get("modelFile");
  o.output_file = f.get("outputFile");
  o.fp16 = f.get("fp16", "off");
  o.config_file = f.get("configFile", "");
  o.train_model = f.get("trainModel", "false");
  o.codegen = f.get("codegen", "");
  convert(o, out);
  return 0;
}

}  // namespace mycel::converter
