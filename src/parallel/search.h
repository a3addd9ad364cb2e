// The strategy search of automatic parallelism (parallel_mode="auto_parallel"): a strategy
// for every op of the network that has a parallel rule, chosen on the cost model
// (cost_model.h), then applied by the one rewrite (spmd.h) as if the user had set it with
// Primitive.shard.
//
// Where: inside spmd_rewrite, first (PipelineOptions::before_ad: the specialised program
// with its calls inlined, before autodiff), on the forward region (the function a vjp
// differentiates, or the whole program). It writes kStrategyAttr onto every searched op;
// ops the user sharded keep their strategies.
//
// The model of the program: the *searched ops* are the calls of ops with a rule other than
// the elementwise ones (MatMul, BatchMatMul, reductions, Softmax, LayerNorm, Gather, Reshape,
// Transpose, Conv2D, pools, the losses), each with its candidates (strategies.h, all on the
// search mesh); the elementwise ops (unary, binary, BiasAdd) are merged into their producers
// (Alpa): a layout passes through them, its partial sums resolved. An *edge* runs from a
// searched op u to a searched op v when one of v's inputs is u's output, possibly through
// elementwise ops (the input spanning their output). Costs, in seconds of a training step:
//   own(v, s)      3 × compute on the slices, the redistribution of entry arguments (as the
//                  dataset strategy lays them out) to s, and the gradient AllReduce of the
//                  weights s reads over the axes they are replicated along (with the
//                  optimizer shard: its gathers and ReduceScatter too, SearchOptions)
//                  (+ λ × memory);
//   edge(u,t,v,s)  2 × (resolving u's partial sums when it passes elementwise ops, then the
//                  redistribution of u's output under t to v's input under s): the forward
//                  move and its transpose in the backward.
//
//   sharding_propagation  (MindSpore's) from the ops the user sharded, in breadth-first
//                  order over the edges, each reached op takes the candidate of least own
//                  cost plus the edge costs to its decided neighbours; with no sharded op,
//                  the op of most flops starts with its cheapest candidate. Ops no edge
//                  reaches start anew, in program order.
//   dynamic_programming  a Viterbi over the searched ops in topological order:
//                  best(v, s) = own(v, s) + Σ over in-edges (u → v) of
//                  min_t [best(u, t) + edge(u, t, v, s)], then backtracked from the ops no
//                  edge leaves. Exact on chains and trees (an MLP; a transformer block once its
//                  elementwise ops are merged, but for its residual stream); where a value
//                  has several readers (fan-out) its subtree counts at its first reader, and
//                  the later readers add the cheapest edge from any of its candidates (a lower
//                  bound); its strategy is the one its first reader chose.
//   recursive_programming  (rec_search.h, for graphs too large for the above) no
//                  enumeration: each op starts unsplit and, one prime factor of the devices
//                  at a time, keeps its strategy or refines one loop dimension by the factor,
//                  greedily against its neighbours; edge costs computed on demand.
// The candidates are bounded by set_algo_parameters (CostProfile's fully_use_devices,
// slice_align and approx_keep: `allowed`, `approximate`).
// Memory is a hard limit (CostProfile::max_device_memory): a plan over it is searched again
// with memory weighted into the costs (λ doubling) until it fits, else a ValueError naming
// the limit and the least memory found. Every plan is then costed exactly
// (`evaluate`, which lays the program out as spmd_rewrite does). Ties go to the earlier
// candidate: plans are deterministic.
#pragma once

#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/passes/pass_util.h"
#include "ir/anf.h"
#include "parallel/cost_model.h"

namespace mycel::parallel {

// The graphs of the forward region: those a vjp differentiates (and the graphs they reach),
// or every graph of the walk when there is no vjp.
std::unordered_set<ir::FuncGraph*> forward_region(const compiler::detail::Walk& w);

struct SearchOptions {
  std::string mode;  // "sharding_propagation" | "dynamic_programming" | "recursive_programming"
  int64_t devices = 1;
  size_t num_args = 0;  // the entry graph's parameters before the weights
  // Per entry argument: the slice counts of its dataset strategy, empty when whole.
  std::vector<std::vector<int64_t>> inputs;
  CostProfile profile;
  // The optimizer shard (ZeRO-3, SpmdOptions::opt_shard and opt_shard_size): per weight
  // whether it may hold only its optimizer_shard_layout (spmd.h) of the layout its readers
  // use. Costed as the rewrite runs it: per forward reader an AllGather of the shard before
  // the use and another in the backward where its bprop needs the weight (the gathered
  // weight lives only around its use; SearchPlan::opt_gathers),
  // the gradient's ReduceScatter (the AllGather's bprop), then the gradient AllReduce over
  // the axes the shard is still replicated along; memory: the shard × (2 + optimizer
  // states) instead of the used slice's.
  std::vector<bool> opt_shard;
  int64_t opt_shard_size = -1;
  // Per weight (or none): the slice counts of its parameter_plan (SpmdOptions::planned),
  // empty for none. The weight holds that layout (on the search mesh, where its device
  // matrix is a coarsening of it, else the plan is not costed) and each reader's
  // redistribution from it is costed as an entry argument's is.
  std::vector<std::vector<int64_t>> planned;
};

struct PlannedOp {
  std::string op;             // "MatMul"
  std::vector<Shape> shapes;  // the global shapes of its inputs
  Strategy strategy;
  bool user = false;  // set by Primitive.shard, not searched
};

struct SearchPlan {
  std::string mode;
  int64_t devices = 1;
  std::vector<PlannedOp> ops;  // in program order
  double compute_s = 0;        // per training step, on one device
  double comm_s = 0;           // redistribution, forward and backward
  double grad_s = 0;           // the gradient AllReduces of replicated weights
  double opt_shard_s = 0;      // the optimizer shard's AllGathers and ReduceScatters
  double memory_bytes = 0;     // per device
  // The weights' bytes each device holds between steps (the optimizer shard's slices where
  // it cuts them) and how many weights hold an optimizer shard.
  double weight_bytes = 0;
  int64_t opt_shard_weights = 0;
  // The optimizer shard's collectives per step: how many AllGathers (the forward's, and the
  // backward's again where the reader's bprop reads the weight for the gradient of another
  // input that depends on a weight: not for BiasAdd, Add, Sub or Gather; the entry
  // arguments are not differentiated) and ReduceScatters, and the bytes of their inputs on
  // one device.
  int64_t opt_gathers = 0, opt_scatters = 0;
  double opt_gather_bytes = 0, opt_scatter_bytes = 0;
  Shape mesh;  // the search mesh's axes (search_mesh)
  // comm_s and grad_s by collective ("AllGather", ...; "AllReduce (gradients)"), seconds.
  std::map<std::string, double> collective_s;
  // The bytes each device sends per step, by the mesh axes of the groups ("(axis 0)").
  std::map<std::string, double> axis_bytes;
  double step_s() const { return compute_s + comm_s + grad_s + opt_shard_s; }
  // One line per op ("MatMul [8,6] [6,16] ((1,1),(1,4))", " user" when set by the user),
  // then the predicted step time (ms), its parts (the optimizer shard's only when a weight
  // holds one) and the memory per device (MB).
  std::string to_string() const;
  // All of it as one JSON object (the planner's file, python -m mycel.parallel.plan): mode,
  // devices, mesh, ops [{op, shapes, strategy, user}], step_ms, compute_ms,
  // redistribution_ms, gradient_allreduce_ms, optimizer_shard_ms, collectives_ms {kind:
  // ms}, axis_bytes {axes: bytes}, memory_bytes, weight_bytes, optimizer_shard {weights,
  // all_gathers, all_gather_bytes, reduce_scatters, reduce_scatter_bytes}.
  std::string to_json() const;
};

// Chooses the strategies (above) and writes them onto the ops of the forward region of
// `root`. ValueError for an unknown mode or a memory limit no plan meets.
SearchPlan search_strategies(ir::Module& m, ir::FuncGraph* root, const SearchOptions& opts);

}  // namespace mycel::parallel
