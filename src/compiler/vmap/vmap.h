// vmap: the batching transform (MindSpore's ops.vmap, JAX's vmap; written anew on mycel's IR).
//
// `mycel.vmap(fn, in_axes, out_axes)` reaches the compiler as the host builtin `vmap_fn`
// bound to fn and the axes (like grad, compiler/ad/ad.h). Specialisation (specialize_vmap.cc)
// expands a call of it: it checks the axes against the arguments (ValueError for an axis
// out of range, a batch size that differs between arguments, an axis on a value that is not
// a tensor), specialises a graph W(x...) = fn(x...) for ONE example (each batched argument
// without its batch axis) and emits one typed node of the IR:
//
//   %y = vmap(@W, (B, in_axes, out_axes), %x...)
//
// whose abstract is the batched result; the axes are trees matching the arguments and the
// result, each tensor leaf's axis non-negative (or None: not batched).
//
// After the pipeline has inlined, simplified and lifted the program, expand_vmap replaces
// each vmap whose target reaches no vjp or vmap (innermost first, taking turns with
// expand_vjp, so vmap(grad(f)) batches the expanded gradient and grad(vmap(f)) differentiates
// the batched program) by a call of the batched graph V(W):
//
//   - each argument's batch axis is moved to axis 0 (the transform's one convention: a
//     batched tensor has the batch first, an unbatched one is the per-example value);
//   - V(g) is made per (graph, which parameters are batched), walking g's nodes in order:
//     prim calls with nothing batched are copied, the others go to the op's batching rule
//     (compiler/vmap/batch.h, the VMAP item of its op-table line); tuples, getitem, depend and
//     stop_gradient carry the batch of their elements; graph calls call the callee's V (a
//     recursive graph, i.e. a loop, is batched with all its tensor parameters and its result
//     batched, so its calls agree); an `if` whose condition is batched (a tensor condition
//     computed from batched values) runs both branches and selects per example with Select
//     (its branches may not have effects or loop on that condition: an error names the line),
//     except a check, one branch of which only raises and the other has no effects: it runs
//     once on the condition reduced over the batch, raising when any example's check fails
//     (the run-time index checks of composed ops, e.g. sparse_func.py's _raise_if);
//   - the result's batch goes to out_axes (an unbatched result is broadcast; out_axes None
//     on a batched result is a ValueError).
// The pipeline then optimises again, so the moves and broadcasts fold where they cancel.
//
// PYNATIVE mode runs the same transform: a vmap function called eagerly is compiled like a
// jit function (python/mycel/ops/composite/__init__.py), so both modes batch one way.
#pragma once

#include "ir/anf.h"

namespace mycel::compiler {

// Replaces every vmap whose target reaches no vjp or vmap by the batched program (above).
// Pre: lifted, specialised IR (optimize() output). Post: specialised IR (lift follows).
// Returns whether it changed anything.
bool expand_vmap(ir::Module& m, ir::FuncGraph* root);

}  // namespace mycel::compiler
