// Automatic differentiation by source transformation (MindSpore's J/K transform; Myia).
//
// The user-facing transforms (mycel.grad, value_and_grad, GradOperation, vjp...) reach the
// compiler as calls of the `grad` builtin, which specialisation (specialize_grad.cc) expands
// into one typed primitive of the IR:
//
//   %t = vjp(%f, make_tuple(%w...), %x...)      -> (f(x...), bprop)
//   %d = getitem(%t, 1)(%dout)                  -> (d_x..., d_w...)
//
// where %f is a function value (a graph the specialiser made for exactly this call) and %w
// are weights (entry parameters standing for Parameters) whose gradients are wanted.
//
// After the optimisation pipeline has inlined, simplified and lambda-lifted the program,
// expand_vjp replaces each vjp whose target contains no vjp itself (innermost first, so a
// gradient of a gradient differentiates the already-expanded inner one) by a call of K(f):
//
//   K(g)(p...) = (g(p...), B_g)        B_g(dout) = (d_p...)   one cotangent per parameter
//
// K copies g's forward computation; B_g, a graph nested in K(g), walks it backwards,
// accumulating one adjoint per node: prim calls use their rule (ad/bprop.h), graph calls
// call the callee's B, tuples and getitem route the structure, switch routes to the branch
// taken. Loops (tail-recursive graphs) and recursion need nothing special: K(g) calls K(g),
// and each level's B captures the next one's. The pipeline then optimises again, so
// forward values no bprop needs die and the backward is simplified like any program.
//
// Cotangents: a tensor's (float or integer, as in MindSpore, where the gradient of an integer
// function is computed in its dtype: d(w*x)/dx = w for int32 w and x) is a tensor of its
// dtype and shape; a tuple's (also a list's or dict's) is a tuple of its elements'; a
// function value's is known only at run time (abstract Any): None, or a tuple with one
// cotangent per value the closure captured; anything else (Python ints, bools, bool
// tensors, strings, None) has none, written as the constant None. Rules of ops whose
// gradient is not linear arithmetic (division, powers, extrema) give integer inputs none. A missing
// contribution is a zero: tensors of zeros are made only where a value must exist.
#pragma once

#include "ir/anf.h"

namespace mycel::ir {

// The abstract of the cotangent of a value of abstract `a` (None when it has none).
AbsPtr cot_abs(const AbsPtr& a);
// Whether values of abstract `a` carry a cotangent (float tensors and function values).
bool carries_cot(const AbsPtr& a);
// A zero cotangent of abstract `cot` (a cot_abs): Fill for tensors, tuples of zeros, None.
// A tensor of a dynamic shape is zeros_like(like) (a value of that abstract: the primal),
// its size being known at run time only; without `like` that is a ValueError.
Node* zero_cot(class IrBuilder& b, const AbsPtr& cot, Node* like = nullptr);
// Element i of a cotangent tuple (the input itself when x is a make_tuple); `want` is its
// abstract when x's structure is known only at run time (an Any built by cot_sparse/cot_add).
Node* cot_item(IrBuilder& b, Node* x, size_t i, const AbsPtr& want = nullptr);
// Whether values of abstract `a` carry a gradient (a float or integer tensor somewhere inside).
bool differentiable(const AbsPtr& a);
// Whether tensors of dtype t have a cotangent: every dtype but bool.
inline bool has_cotangent(DType t) { return !is_bool(t); }

}  // namespace mycel::ir

namespace mycel::compiler {

// Replaces every vjp whose target reaches no other vjp by the K transform of the target
// (see above). Pre: lifted, specialised IR (optimize() output). Post: specialised IR whose
// new graphs have free variables (lift them again). Returns whether it changed anything.
bool expand_vjp(ir::Module& m, ir::FuncGraph* root);

}  // namespace mycel::compiler
