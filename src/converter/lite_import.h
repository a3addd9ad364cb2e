// mycel.load of a lite .ms file (for instance one that on-device training exported): the lite
// graph back in mycel's IR, as serialize::LoadedModel, so that nn.GraphCell runs it as it runs
// a loaded MINDIR. Each lite op becomes the mycel ops it was lowered from: Conv2D (explicit
// pads) + BiasAdd, MaxPool/AvgPool (explicit pads, ceil mode, count_include_pad), MatMul
// (FullyConnected: transpose_b) + BiasAdd, BiasAdd, Add/Sub/Mul/Div, ReLU/ReLU6/Sigmoid/Tanh
// (also for fused activations), Reshape (to the stored shape: the batch of the file),
// Transpose, Softmax, inference BatchNorm and its getitem 0. The constants become the
// weights, under their tensor names (GraphCell's parameter names). The file is read and
// checked as the runtime reads it (lite/model_file.h); the graph is verified, re-inferred and
// compiled as import_mindir's is.
#pragma once

#include <string>
#include <string_view>

#include "serialize/mindir.h"

namespace mycel::converter {

serialize::LoadedModel import_lite(std::string_view bytes, const std::string& file_name);

}  // namespace mycel::converter
