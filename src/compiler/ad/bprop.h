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
// Each DIFF op names its rule on its line in ops/defs/*.def (the grad column, e.g. `bprop_neg`;
// NODIFF ops say NODIFF there): the declarations below and the table in bprop_table.cc are
// generated from those lines, so a rule that is named but not written fails to link, and an
// op cannot have a rule without its line saying so. Rules live in bprop_<family>.cc; several
// ops may share one (Mod and FloorMod, the reshape-like ops).
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
  // Nodes the rule makes that must run though no cotangent may read them: the backward of
  // a point-to-point op is communication that its peer waits for. The K transform makes the
  // backward graph's result depend on them, in the order the rules ran.
  std::vector<Node*>* effects = nullptr;
};

using BpropFn = std::vector<Node*> (*)(BpropArgs&);

// The rule of `op`, or nullptr for a NODIFF op.
BpropFn bprop_rule(OpId op);

// Whether op's rule runs even where no cotangent reaches the call (with a zero one): Send
// and Receive, whose backward (a Receive, a Send) a peer's backward waits for.
bool bprop_always(OpId op);

// Whether op's rule is written for real x as dout * f'(x) (f holomorphic with real
// coefficients: Mul, Div, Pow, Exp, Sin, MatMul, ReduceProd, ...). For complex inputs the K
// transform hands such a rule conj(inputs) and conj(out), so that it computes
// dout * conj(f'(z)): the cotangent in PyTorch's and MindSpore's convention (bprop_complex.cc).
bool bprop_conjugates(OpId op);

using BpropRule = std::vector<Node*>(BpropArgs&);

// Whether a rule gives input n a cotangent: floats, and complex (the rules' arithmetic holds
// for it; k_transform.cc conjugates). Integer and bool inputs get none.
inline bool is_float_node(const Node* n) {
  const DType t = IrBuilder::dtype_of(n);
  return is_floating(t) || is_complex(t);
}

// The rules named in the grad column of the .def lines (NODIFF declares nothing that is used).
#define OP(name, n_in, n_out, infer, kernel, ref, grad, ...) BpropRule grad;
#include "ops/defs/all.def"
#undef OP

}  // namespace mycel::ir
