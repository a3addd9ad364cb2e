// The gradient kernels of on-device training (lite/train.h): for each lite op, the gradient
// of the loss with respect to the node's inputs, given its inputs, its output and the
// gradient with respect to the output. Plain loops in float over the same index maps as the
// forward references (kernels_ref.cc, kernels_own.cc), so each is the exact adjoint of its
// forward; tests/cpp/lite/test_lite_grad.cc checks every op against central differences.
//
// Fused activations are differentiated through the node's output (ReLU: y > 0, ReLU6:
// 0 < y < 6, Sigmoid: y (1 - y), Tanh: 1 - y^2). MaxPool routes the gradient to the first
// maximum of each window, as the forward picks it. BatchNorm is the inference form (moving
// statistics, not trained): gradients reach x, scale and bias.
#pragma once

#include <vector>

#include "lite/graph.h"

namespace mycel::lite {

// Adds to dx[i] the gradient of the loss with respect to input i of node `n` (made for input
// shapes `in` and output shape `out`), for every i whose dx[i] is not null. `x` holds the
// node's inputs, `y` its output, `dy` the gradient with respect to y.
void backward(const NodeDesc& n, const std::vector<Dims>& in, const Dims& out,
              const float* const* x, const float* y, const float* dy, float* const* dx);

}  // namespace mycel::lite
