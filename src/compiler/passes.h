// The optimisation passes over SPECIALISED IR (every node has an abstract; prim calls have
// their tensor inputs only; see the conventions in ir/anf.h and docs/architecture.md).
//
// Each pass is one function in its own file, src/compiler/passes/<name>.cc, whose first
// comment states the rewrite and its pre/postconditions. A pass rewrites the graphs reachable
// from `root` in place and returns whether it changed anything (the pipeline iterates to a
// fixed point on that). Passes use the module's Manager when one is attached (the pipeline
// attaches one) and otherwise attach their own for their duration. The pipeline that orders
// them is compiler/pipeline.h.
#pragma once

#include "ir/anf.h"

namespace mycel::compiler {

// switch(True/False, a, b) -> a / b; switch(c, x, x) -> x.
bool switch_simplify(ir::Module& m, ir::FuncGraph* root);
// Calls of non-recursive graph constants that are called once or small (<= 32 nodes) are
// replaced by the callee's body (`inline` is a C++ keyword, hence the name).
bool inline_graphs(ir::Module& m, ir::FuncGraph* root);
// Constant folding: prim calls on small constant tensors, scalar builtins on constants,
// getitem of make_tuple/constant sequences.
bool fold(ir::Module& m, ir::FuncGraph* root);
// Algebraic identities checked against abstracts: x*1, x+0, x-0, x/1, Neg(Neg(x)),
// Transpose∘Transpose, Reshape∘Reshape, no-op Reshape/Cast/Transpose, ExpandDims∘Squeeze.
bool simplify(ir::Module& m, ir::FuncGraph* root);
// Common subexpressions within each graph merge (pure callees only); equal constants merge.
bool cse(ir::Module& m, ir::FuncGraph* root);
// Dead code: unused parameters of directly-called graphs (and their arguments) go; unused
// elements of tuples returned by directly-called graphs become None.
bool dce(ir::Module& m, ir::FuncGraph* root);
// Lambda lifting (MindSpore's cconv): free variables become leading parameters; references
// to such graphs become partial(@g, captured...). Afterwards verify(root, {.lifted=true}).
bool lift(ir::Module& m, ir::FuncGraph* root);
// Forward values of recomputed cells (kRecomputeAttr) that bprop graphs read are computed
// again inside them, after the backward values their users need, instead of kept. Runs
// after each expand_vjp.
bool recompute(ir::Module& m, ir::FuncGraph* root);
// Update ops (F_UPDATE: Assign, SGD, Adam...) run after every reader of the tensors they
// write that does not depend on them: the written input becomes depend(x, readers...).
bool order_updates(ir::Module& m, ir::FuncGraph* root);
// Graph-kernel fusion: connected elementwise/reduction prims of one shape family become a call
// of a GraphKernel graph (one generated kernel, codegen/). Lifted IR in and out.
bool graph_kernel(ir::Module& m, ir::FuncGraph* root);
// Graph-kernel fusion for a device: MatMul -> BiasAdd (-> ReLU | GeLU) become a call of a
// MatMul epilogue graph (one fused library call on the device, codegen/matmul_epilogue.h).
bool matmul_epilogue(ir::Module& m, ir::FuncGraph* root);

}  // namespace mycel::compiler
