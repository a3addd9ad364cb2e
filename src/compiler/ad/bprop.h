// Backward rules of the op-table primitives, written once as IR builders (house plan
// principle 2; after MindSpore's bprop and PyTorch's derivatives.yaml).
//
// A rule receives the forward call (its tensor inputs `in`, as the kernel sees them, i.e.
// already promoted/cast; its output `out`, a Tensor or a Tuple of Tensors for multi-output
// ops; the complete attributes) and the cotangent `dout` of the output (same structure as
// `out`), and emits, with the IrBuilder, one cotangent per tensor input: a node of that
// input's dtype and shape, or nullptr when the input gets none (integer indices, labels,
// bool conditions, non-float inputs, running statistics).
//
// Rules use differentiable ops where they can, so that the gradient of a gradient works;
// for windowed and normalisation ops they call the dedicated backward prims
// (Conv2DBackpropInput/Filter, MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad, BatchNormGrad,
// LayerNormGrad, StridedSliceGrad, GatherDGrad, UnsortedSegmentSum,
// SparseSoftmaxCrossEntropyWithLogits with is_grad), which have rules of their own where the
// second derivative is simple.
//
// The table is a switch over OpId per family file (no static-initialisation registry):
// bprop_rule(op) asks each family in turn.
#pragma once

#include <span>
#include <vector>

#include "compiler/ad/ir_builder.h"

namespace mycel::ir {

struct BpropArgs {
  IrBuilder& b;
  std::span<Node* const> in;  // the forward call's tensor inputs
  Node* out;                  // the forward call's output
  Node* dout;                 // its cotangent (a tuple for multi-output ops)
  const Attrs& attrs;         // the forward call's complete attributes
};

using BpropFn = std::vector<Node*> (*)(BpropArgs&);

// The rule of `op`, or nullptr when it has none (NODIFF ops, and DIFF ops not done yet).
BpropFn bprop_rule(OpId op);

// Per-family tables (bprop_<family>.cc); nullptr for ops of other families.
BpropFn bprop_rule_elementwise(OpId op);
BpropFn bprop_rule_reduce(OpId op);
BpropFn bprop_rule_linalg(OpId op);
BpropFn bprop_rule_nn(OpId op);
BpropFn bprop_rule_array(OpId op);
BpropFn bprop_rule_random(OpId op);

}  // namespace mycel::ir
