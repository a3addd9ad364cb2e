// spmd_rewrite: semi-automatic parallelism's pass (MindSpore's step_parallel). It turns the
// specialised program, typed with the whole tensors, into this rank's program: its slices and
// the collectives between them.
//
//   forward region (the graphs a vjp differentiates, or the whole program when it has none):
//     op with a strategy (Primitive.shard)  its inputs' layouts from the strategy (rules.h);
//                                           with an out_strategy, its output redistributed
//                                           to the layout that gives (output_layout);
//                                           each input redistributed there, the op run on
//                                           slices, its output laid out by its rule (partial
//                                           where it summed over a split dimension; an
//                                           op with several outputs, LayerNorm's, lays
//                                           out each item its getitems read)
//     op with a rule, an input not whole    the layout propagated when the rule accepts the
//                                           inputs' layouts, or, for elementwise ops, the
//                                           layout of the input spanning the output with the
//                                           others redistributed to match; else all whole
//     any other node, graph outputs         inputs redistributed to whole (replicated)
//   entry arguments: laid out as the dataset strategy (SpmdOptions::inputs) says, the rank
//     given its slice (the strategy's device matrix joins the mesh);
//   entry weights: a weight's layout is its parameter_plan's (SpmdOptions::planned), else
//     what the first op with a strategy that reads it asks for (else its first propagating
//     reader's); it then holds its slice (the entry
//     parameter's abstract becomes the slice's; the caller slices the Parameter once, before
//     the first run), and an update op (F_UPDATE: SGD, Momentum...) gives its layout to the
//     other weights it updates with of the same shape (optimizer state); with the optimizer
//     shard (SpmdOptions::opt_shard) a shardable weight holds a smaller slice still
//     (optimizer_shard_layout) and each reader in the forward gathers it back first;
//   outside the forward region: abstracts retyped from the slices (prims re-inferred,
//     tuples, getitem, depend, vjp and the bprop call), and at each bprop call of a vjp the
//     sensitivity is divided by the devices (every device holds the loss, so each adds
//     1/n of its gradient) and each gradient is summed (AllReduce) over the mesh axes its
//     weight or input is replicated along (MindSpore's VirtualDiv and mirror operators).
//
// Redistribution (redistribution.h's plan) becomes the collective ops: AllReduce, AllGather
// and ReduceScatter (the dimension moved to the front by Transpose when it is not 0),
// AlltoAll, and a local Split as a StridedSlice of this rank's block, each over the group of
// this rank along the move's mesh axes (the world group, or a group `spmd_rewrite` names and
// lists for the caller to create: "spmd_group_0_2" for ranks 0 and 2).
//
// It runs once in the pipeline, after the first simplification (calls inlined) and before
// automatic differentiation (PipelineOptions::before_ad), so that AD derives the backward
// pass through the collectives' bprops. Pre: specialised IR, before lift. Post: specialised
// IR, every prim typed on this rank's shapes, no kStrategyAttr left.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/anf.h"
#include "parallel/layout.h"
#include "parallel/search.h"

namespace mycel::parallel {

struct SpmdOptions {
  int64_t devices = 1;      // the job's devices (world size)
  int64_t rank = 0;         // this process's rank
  size_t num_args = 0;      // the entry graph's parameters before the weights
  std::string world_group;  // the world group's name
  // Per weight: the layout (mesh shape, tensor map) its slice has from an earlier program,
  // or none (it is whole, the host's global shape typing it).
  std::vector<std::optional<std::pair<Shape, TensorMap>>> known;
  // Per entry argument (num_args of them, or none): the slice counts of each dimension of
  // the slice this rank is given (MindSpore's dataset strategy, full_batch=False), empty for
  // a whole argument. The program is compiled for the global shapes (the caller's
  // signature: the slice's times the counts); the pass types the argument as its slice.
  std::vector<std::vector<int64_t>> inputs;
  // auto_parallel: the search mode (search.h) that first chooses the strategies of the ops
  // the user did not shard, on `profile`; empty: semi_auto_parallel (no search).
  std::string search;
  CostProfile profile;
  // The planner: search only, record the plan and leave the program unsharded.
  bool plan_only = false;
  // The optimizer shard (enable_parallel_optimizer, MindSpore's parallel optimizer, ZeRO-3):
  // per weight (or none), whether it may keep only its slice of dimension 0 over the mesh
  // axes its readers leave it replicated along (a trainable weight of at least the
  // threshold's bytes: mycel.parallel.optimizer_shard decides). opt_shard_size is
  // optimizer_weight_shard_size: the devices one copy is spread over (-1: all the free ones).
  std::vector<bool> opt_shard;
  int64_t opt_shard_size = -1;
  // Per known weight: the mesh axes of its dimension 0 that are its optimizer shard (its
  // readers are given it gathered over them), empty for none.
  std::vector<Axes> known_opt;
  // Per weight (or none): the slice counts per dimension a parameter_plan (mycel.shard)
  // gives it, empty for none, and " (at file:line)" of the shard call for messages. The
  // weight is laid out so before any reader asks (each reader redistributes from there); a
  // weight that holds a slice already (known) keeps it.
  std::vector<std::vector<int64_t>> planned;
  std::vector<std::string> planned_where;
};

struct SpmdGroup {
  std::string name;
  std::vector<int64_t> ranks;  // in group order
};

struct SpmdResult {
  bool sharded = false;  // whether any op had a strategy (else nothing changed)
  std::optional<DeviceMesh> mesh;
  // Per weight (entry parameter num_args + i): its layout when it holds a slice, and the
  // axes of its optimizer shard (empty: none).
  std::vector<std::optional<TensorLayout>> weights;
  std::vector<Axes> opt_axes;
  std::vector<SpmdGroup> groups;   // to create before the first run, in this order
  std::optional<SearchPlan> plan;  // what the search chose (auto_parallel)
};

// Rewrites the program of `root` for this rank (above), after the strategy search when
// opts.search is set (search.h: it writes the strategies the rewrite then applies). ValueError for
// a strategy that does not fit (rules.h, with the user's file:line), and for a program it cannot
// rewrite yet (naming the node).
SpmdResult spmd_rewrite(ir::Module& m, ir::FuncGraph* root, const SpmdOptions& opts);

// The optimizer shard of a weight its readers use laid out as `use` (no partial axes): `use`
// with dimension 0 also split over the mesh axes `use` leaves free (the trailing ones whose
// sizes multiply to shard_size, else all of them, as MindSpore ignores a size that does not
// fit), and those axes; `use` and no axes when there are none or dimension 0's slice does not
// divide. Between steps the weight (and its optimizer state) holds this smaller slice; each
// reader gathers it back to `use` (AllGather over the axes, whose bprop reduce-scatters the
// gradient).
std::pair<TensorLayout, Axes> optimizer_shard_layout(const TensorLayout& use, int64_t shard_size);

// What the rewrite and the search share: whether a node's abstract is a tensor, its shape,
// whether a layout is whole (no split, no partial sums), and the whole layout of its tensor.
bool is_tensor(const ir::Node* n);
Shape shape_of(const ir::Node* n);
bool whole(const TensorLayout& l);
TensorLayout replicated(const TensorLayout& l);
// " (at file:line)" and the source excerpt of the user's call, for messages ("" without one).
std::string where(const ir::Node* n);

// The strategy a prim's attributes carry (ops/op_table.h, kStrategyAttr), or none; and its
// out_strategy, encoded after it the same way (a row count, each row's length, the
// entries), or none.
std::optional<std::vector<std::vector<int64_t>>> strategy_attr(const Attrs& attrs);
std::optional<std::vector<std::vector<int64_t>>> out_strategy_attr(const Attrs& attrs);

}  // namespace mycel::parallel
