// The cost model of the strategy search, in seconds (distributed.md §4.3), calibrated on
// this machine (python -m mycel.parallel.calibrate writes a CostProfile as JSON).
//
//   compute      max(flops / peak_flops, bytes / mem_bandwidth) of the op on this device's
//                slices; flops per family: MatMul/BatchMatMul 2·|out|·k, Conv2D
//                2·|out|·(c_in·kh·kw) of the slice, elementwise |out|, reductions and pools
//                |in|, Softmax/LogSoftmax 5·|x|, LayerNorm 8·|x|, the softmax losses 6·|logits|,
//                Gather, Reshape and Transpose none (bytes only); bytes: every input and
//                output slice read or written once. A training step runs it 3 times (the
//                forward, then the two products of the backward): kTrainComputeFactor.
//   collectives  over a group of p devices, for a message of s bytes per device, the best
//                of the algorithms below with latency α and bandwidth 1/β of the mesh axes the
//                groups span (below; MPICH's and Open
//                MPI's algorithms for a power-of-2 p; bench/simgrid_bench.py checks each
//                against SimGrid's SMPI simulation of that library algorithm at 64 to 1,024
//                ranks):
//                  AllReduce      ring 2(p-1)(α + s/p·β); recursive doubling ⌈log2 p⌉(α + sβ);
//                                 halving-doubling (Rabenseifner: a reduce-scatter by
//                                 recursive halving, then an all-gather by recursive
//                                 doubling) 2⌈log2 p⌉α + 2(p-1)/p·sβ
//                  AllGather      ring (p-1)(α + sβ); recursive doubling ⌈log2 p⌉α + (p-1)sβ
//                  ReduceScatter  ring (p-1)(α + s/p·β); recursive halving ⌈log2 p⌉α +
//                                 (p-1)/p·sβ
//                  AllToAll       pairwise (p-1)(α + s/p·β); Bruck ⌈log2 p⌉(α + s/2·β)
//                  Broadcast      binomial tree ⌈log2 p⌉(α + sβ); scatter then all-gather
//                                 (van de Geijn) 2⌈log2 p⌉α + 2(p-1)/p·sβ
//                (no redistribution broadcasts; broadcast_algorithms serves the check and
//                callers that do)
//                Split and Partial are local (0). The redistribution of an edge is the sum
//                over the moves of plan_redistribution (redistribution.h); in a training
//                step it runs twice (the forward move and its transpose in the backward).
//   memory       per device: the parameters' slices (the optimizer shard's, where it cuts
//                them: search.h) × (1 + 1 gradient + optimizer_factor states), plus the
//                forward's activations kept for the backward (every op output's slice); a
//                hard limit where max_device_memory > 0.
//
// α and β per mesh axis: axis_alpha[a] and axis_beta[a] for mesh axis a (Axes' numbering:
// 0 the outermost), the scalar alpha and beta for an axis they do not reach (empty: every
// axis the scalars, bit for bit the costs of a one-level profile). A collective whose groups
// span several axes is costed with the slowest of them: the largest α and the largest β of
// those axes (a ring over a node hierarchy runs at its slowest link; a conservative bound
// for the tree algorithms). calibrate measures one level (every rank here shares the
// loopback), so its profile gives each axis the same fitted α and β; a second level (between
// hosts) would be measured by running calibrate across two launchers.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parallel/redistribution.h"
#include "parallel/rules.h"

namespace mycel::parallel {

struct CostProfile {
  double peak_flops = 1e10;      // FLOP/s of a large MatMul
  double mem_bandwidth = 5e9;    // bytes/s of a large elementwise op
  double alpha = 1e-4;           // s, a collective step's latency
  double beta = 1e-9;            // s per byte sent
  double optimizer_factor = 1;   // optimizer states per parameter (Momentum: 1)
  double max_device_memory = 0;  // bytes per device, 0: no limit
  // Not costs but bounds of the search's candidates (mycel.set_algo_parameters, search.h):
  bool fully_use_devices = false;  // only candidates that use every device
  int64_t approx_keep = 0;         // candidates kept per op (1/algo_approxi_epsilon), 0: all
  int64_t slice_align = 0;         // a MatMul's split last dimensions: slices a multiple, 0: off
  // Per mesh axis (the header's comment): latency and byte cost; missing axes: alpha, beta.
  std::vector<double> axis_alpha;
  std::vector<double> axis_beta;

  // The (α, β) of a collective whose groups span `axes`: the largest of theirs (the scalar
  // alpha and beta for none).
  std::pair<double, double> link(const Axes& axes) const;
};

// A profile from its numbers in the order of the fields above (what Python passes; the
// JSON profile's keys are the field names), 6 (the search's bounds at their defaults) or
// 9 + 2k: the bounds, then k per-axis latencies (axis_alpha) and k per-axis byte costs
// (axis_beta); empty: the defaults. ValueError for another length, a rate, latency or byte
// cost not positive (the per-axis ones too), or a negative factor, limit or bound.
CostProfile profile_from(const std::vector<double>& v);

// The forward and backward run the op's compute this many times in a training step.
inline constexpr double kTrainComputeFactor = 3;

// The flops of the op on the slices: `in` and `out` are the slice shapes (layout.h).
double op_flops(const OpCall& call, std::span<const Shape> in, std::span<const Shape> out);

// max(flops / peak, bytes / bandwidth) of the op on the slices of `in` and `out`.
double compute_seconds(const OpCall& call, std::span<const TensorLayout> in,
                       std::span<const TensorLayout> out, int64_t elem_bytes, const CostProfile& p);

// One algorithm of a collective, costed: its name (the table above: "ring", "doubling",
// "halving-doubling", "halving", "pairwise", "Bruck", "binomial", "scatter-allgather") and
// its seconds.
struct AlgorithmCost {
  const char* name;
  double seconds;
};

// A collective of `kind` over groups of `g` devices spanning the mesh axes `axes` (their
// α and β: CostProfile::link; none: the scalar alpha and beta), each holding `s` bytes
// before it: each algorithm of the table above, in its order. Split and Partial: none (they
// are local); g <= 1: none. collective_seconds is the least of them (0 when none), what the
// search uses.
std::vector<AlgorithmCost> algorithm_seconds(MoveKind kind, int64_t g, double s,
                                             const CostProfile& p, const Axes& axes = {});
double collective_seconds(MoveKind kind, int64_t g, double s, const CostProfile& p,
                          const Axes& axes = {});

// A broadcast of s bytes from one device to a group of g over `axes`: the table's two
// algorithms, and the lesser of them.
std::vector<AlgorithmCost> broadcast_algorithms(int64_t g, double s, const CostProfile& p,
                                                const Axes& axes = {});
double broadcast_seconds(int64_t g, double s, const CostProfile& p, const Axes& axes = {});

// One move of a redistribution, costed: its kind, the mesh axes of its groups and their size,
// the bytes each device sends (Move::bytes) and the seconds (collective_seconds over those
// axes).
struct MoveCost {
  MoveKind kind;
  Axes axes;
  int64_t group = 1;
  double sent = 0;
  double seconds = 0;
};
// The moves of plan_redistribution(from, to), each costed on the layout it applies to.
std::vector<MoveCost> redistribution_costs(const TensorLayout& from, const TensorLayout& to,
                                           int64_t elem_bytes, const CostProfile& p);
// Their seconds, summed.
double redistribution_seconds(const TensorLayout& from, const TensorLayout& to, int64_t elem_bytes,
                              const CostProfile& p);

// The bytes of one device's slice of `l`.
double slice_bytes(const TensorLayout& l, int64_t elem_bytes);

}  // namespace mycel::parallel
