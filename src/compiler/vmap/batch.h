// Batching rules of the op-table primitives: what vmap (compiler/vmap/vmap.h) does with one
// primitive call some of whose inputs carry a batch (after JAX's batching rules and
// MindSpore's VmapRule; written anew for mycel's IR).
//
// The transform keeps one convention: a batched tensor carries the batch as its axis 0 (the
// transform moves an in_axes axis there first), an unbatched one is the per-example value
// as the unbatched program has it. A rule receives the call's inputs in that form, which of
// them are batched, the batch size and the call's complete attributes, emits the batched
// call with the IrBuilder and returns its output with the batch on axis 0 of every output (a
// Tuple node for multi-output ops). It is called only when at least one input is batched.
//
// Each op names its rule in compiler/vmap/defs/<family>.def, one line per op of the table
// beside its op-table line (as the CUDA kernels' table, kernels/cuda/defs/): `VMAP(Tanh,
// batch_unary)`, or why it has none, `NOVMAP(SGD, "reason")` (fused in-place updates,
// collectives, ops without tensor inputs, whose result is never batched). The declarations
// below and the table in batch_util.cc are generated from those lines, so a rule that is named
// but not written fails to link, and a line naming an op the table lacks fails to compile;
// an op without a line has no rule, which `Vmap.EveryOpHasABatchingRuleOrAReason`
// (tests/cpp/compiler/test_vmap_rules.cc) reports. Rules live in batch_<family>.cc;
// batch_loop is the generic rule (a call per example, the results stacked) for ops whose
// batched form has no cheaper expression in the table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/ad/ir_builder.h"

namespace mycel::ir {

struct BatchArgs {
  IrBuilder& b;
  const OpDef& op;
  std::span<Node* const> in;  // batched inputs have the batch on axis 0
  const std::vector<bool>& batched;
  int64_t size;        // the batch size
  const Attrs& attrs;  // the call's complete attributes

  bool is_batched(size_t i) const { return batched[i]; }
  // The per-example rank of input i (its rank without the batch).
  int64_t rank(size_t i) const;
  // Input i with the batch on axis 0, broadcast from the per-example value when unbatched.
  Node* full(size_t i) const;
  // Batched input i reshaped to [B, 1, ..., 1, per-example dims] of per-example rank r
  // (so that it broadcasts right-aligned against unbatched values of rank <= r); an
  // unbatched input as it is.
  Node* aligned(size_t i, int64_t r) const;
  // The call itself with other inputs or attributes (nothing else changed).
  Node* call(std::vector<Node*> inputs, const Attrs& attrs) const;
};

using BatchFn = Node* (*)(BatchArgs&);

// The rule of `op` (nullptr when its line has none), and the reason its line gives for having
// none (nullptr when it names a rule or says nothing).
BatchFn batch_rule(OpId op);
const char* no_batch_reason(OpId op);

// Shared by the rules:
// x with its axis `from` moved to `to` (a Transpose; x itself when equal).
Node* move_axis(IrBuilder& b, Node* x, int64_t from, int64_t to);
// A per-example axis (negative counts from the end of a per-example rank `rank`) as an axis
// of the batched value.
int64_t batched_axis(int64_t axis, int64_t rank);
// [B, N, ...] -> [B*N, ...] and back.
Node* fold_batch(IrBuilder& b, Node* x);
Node* unfold_batch(IrBuilder& b, Node* x, int64_t size);

// The rules named in compiler/vmap/defs/*.def.
using BatchRule = Node*(BatchArgs&);
#define VMAP(op, rule) BatchRule rule;
#define NOVMAP(op, why)
#include "compiler/vmap/defs/all.def"
#undef NOVMAP
#undef VMAP

}  // namespace mycel::ir
