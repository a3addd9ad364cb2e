// Residual Adds folded into their convolutions: the runtime's rewrite of a graph before it
// picks layouts and kernels (at Build and Resize, not with Context::reference; the file and
// Model::graph() keep the Add).
//
//   y = Conv2D(x, w[, b])            (no fused activation, run by oneDNN, float32)
//   z = Eltwise Add(y, s) + act      (s an activation of y's shape, written before the conv)
// becomes
//   z = Conv2D(x, w[, b], s) + act   (OpAttrs::sum: s added before the activation)
// when y has no other reader and is not a graph output. The kernel adds s with oneDNN's `sum`
// post-op, which accumulates into the destination, so the Add's separate pass over three
// tensors (ResNet's shortcut joins: 4% of ResNet-18 at batch 1) disappears. Where s is read
// by no later node, plan_arena (lite/arena.h) gives z the buffer of s and the convolution
// adds in place; otherwise the kernel first copies s into z. When both Add inputs are
// convolutions', the later one takes the Add.
#pragma once

#include "lite/graph.h"

namespace mycel::lite {

void fold_residual_adds(Graph& g);

}  // namespace mycel::lite
