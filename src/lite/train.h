// On-device training of a mycel lite model (MindSpore Lite's train session): a .ms file
// converted with `mycel_convert --trainModel=true` keeps its weights unfolded, marks the
// trainable ones and names its loss (softmax cross-entropy over output 0 against int32
// class labels, batch mean). TrainModel runs it forward, computes the loss, runs the backward
// graph (the gradient kernels of lite/grad_kernels.h, in reverse node order, only through
// tensors that depend on a trained weight) and updates the weights with the optimizer of its
// TrainCfg, each update as mycel's (and MindSpore's) optimizer of that name:
//
//   SGD       g += wd p; accum = g (first step) or momentum accum + (1 - dampening) g;
//             p -= lr (nesterov ? g + momentum accum : accum)
//   Momentum  g += wd p; m = momentum m + g; p -= lr (nesterov ? g + momentum m : m)
//   Adam      g += wd p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//             p -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)
//
//   mycel::lite::TrainCfg cfg;  cfg.optimizer = "Adam";  cfg.learning_rate = 1e-3f;
//   cfg.trainable = {"fc3.weight", "fc3.bias"};   // empty: every weight the file marks
//   mycel::lite::TrainModel model;  model.Build("lenet_train.ms", {}, cfg);
//   float loss = model.TrainStep(inputs, labels);  // labels: Int32 [batch]
//   model.Export("lenet_tuned.ms");                // read by Model::Build and TrainModel
//
// Every activation is kept for the backward pass (no arena reuse); nodes that read a trained
// weight run on the reference kernels (the optimised ones prepack weights at load). The
// batch is the file's (Resize is not offered). Errors are mycel::Error (ValueError).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lite/model.h"

namespace mycel::lite {

struct TrainCfg {
  std::string optimizer = "SGD";  // SGD, Momentum or Adam
  float learning_rate = 0.01f;
  float momentum = 0.f;   // SGD (default 0), Momentum (set it: MindSpore's has no default)
  float dampening = 0.f;  // SGD
  bool nesterov = false;  // SGD, Momentum
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  // Adam
  float weight_decay = 0.f;
  std::vector<std::string> trainable;  // weights to train, by name; empty: all the file marks
};

class TrainModel {
 public:
  TrainModel();
  ~TrainModel();
  TrainModel(const TrainModel&) = delete;
  TrainModel& operator=(const TrainModel&) = delete;

  // Reads and checks the file (as Model::Build), which must be a training model, and checks
  // the configuration (optimizer name, hyper-parameters, trainable names).
  void Build(const std::string& path, const Context& ctx = {}, const TrainCfg& cfg = {});

  std::vector<Tensor> GetInputs() const;
  // One step on a batch: forward, loss, backward, update. `inputs` as for Model::Predict,
  // `labels` Int32 [batch] class indices in [0, classes). Returns the loss before the update.
  float TrainStep(const std::vector<Tensor>& inputs, const Tensor& labels);
  // The forward pass with the current weights.
  void Predict(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);
  // The model with its current weights, as .ms bytes / a file (still a training model).
  std::string ExportBytes() const;
  void Export(const std::string& path) const;

  const Graph& graph() const;
  std::vector<std::string> TrainableNames() const;  // the weights being trained
  int64_t Steps() const;                            // TrainStep calls so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mycel::lite
