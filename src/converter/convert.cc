// The converter's driver: options, import, lowering, passes, writing, and the accuracy check
// of every conversion (the source model's executable against the converted file, both run on
// the same seeded random inputs).
#include <cmath>
#include <fstream>
#include <iomanip>
#include <random>
#include <set>

#include "base/error.h"
#include "converter/codegen.h"
#include "converter/converter.h"
#include "converter/passes/passes.h"
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
  MC_CHECK(off(o.fp16), Value, kTool, ": --fp16=", o.fp16,
           ": float16 weight storage is not built yet (a later converter)");
  MC_CHECK(o.config_file.empty(), Value, kTool,
           ": --configFile (quantization) is not built yet; the converter writes float32");
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

// Runs both models on seeded random inputs and prints each output's difference.
void accuracy_check(const serialize::LoadedModel& src, const std::string& bytes,
                    std::ostream& out) {
  lite::Model model;
  model.Build(bytes.data(), bytes.size());
  std::vector<lite::Tensor> inputs = model.GetInputs();
  std::vector<ir::Value> args;
  std::mt19937 gen(0);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (lite::Tensor& t : inputs) {
    float* p = static_cast<float*>(t.MutableData());
    Tensor x = Tensor::empty(Shape(t.Shape().begin(), t.Shape().end()), DType::Float32);
    for (int64_t i = 0; i < t.ElementNum(); ++i) x.data<float>()[i] = p[i] = u(gen);
    args.push_back(ir::Value::tensor(x));
  }
  for (const Tensor& w : src.weights) args.push_back(ir::Value::tensor(w));
  std::vector<lite::Tensor> outputs;
  model.Predict(inputs, &outputs);
  ir::Value ref = src.exe->run(args, nullptr);
  std::vector<const Tensor*> refs = source_outputs(ref);
  MC_CHECK(refs.size() == outputs.size(), Value, kTool, ": the converted model has ",
           outputs.size(), " output(s), the source ", refs.size());
  out << std::setprecision(3);
  for (size_t k = 0; k < outputs.size(); ++k) {
    Tensor r = refs[k]->contiguous();
    const float* p = static_cast<const float*>(outputs[k].Data());
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < outputs[k].ElementNum(); ++i) {
      double want = r.element_as_double(i);
      diff += std::fabs(p[i] - want), norm += std::fabs(want);
    }
    out << "Accuracy: output '" << outputs[k].Name() << "' differs from the source model by "
        << (norm > 0 ? 100.0 * diff / norm : diff) << "% (mean relative, random inputs)\n";
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
  MC_CHECK(!train || o.codegen.empty(), Value, kTool,
           ": --trainModel=true and --codegen=c: generated C runs inference only");
  if (train)
    prepare_for_training(g, m);
  else
    optimize(g);
  std::string bytes = lite::write_model(g, "mycel converter");
  if (o.codegen == "c") {
    write_c(g, o.model_file, o.output_file, out);
    accuracy_check(src, bytes, out);
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
  accuracy_check(src, bytes, out);
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
