// Parallel rules: what a sharding strategy means for one operator, and the layout of its
// output (MindSpore's OperatorInfo: check the strategy, infer the device matrix and the
// tensor maps; GSPMD's partial sums where the op reduces over a split dimension).
//
// A strategy (MindSpore's `in_strategy`) gives, for each tensor input, the number of slices
// of each of its dimensions: MatMul((1, 2), (2, 4)) on 8 devices cuts x's columns and w's rows
// in 2 and w's columns in 4. Every operator family sees its computation as a loop nest (its
// *loop dimensions*: MatMul's m, k, n; an elementwise op's output dimensions; a reduction's
// input dimensions) and each input dimension runs along one of them (or is whole, a
// broadcast dimension of size 1). The strategy fixes the split of each loop dimension; the
// op's device matrix is [r, splits...] with r = devices / product (MindSpore's repeated
// calculation: r groups of devices compute the same slices), the first axis most
// significant. That matrix is then laid onto the program's mesh (`common_mesh`): each of its
// axes takes the consecutive mesh axes whose sizes multiply to it, so ops whose matrices
// differ ([1, 2, 4] and [2, 4, 1] on 8 devices) meet on one mesh ([2, 2, 2]) and their
// layouts can be redistributed into each other.
//
// The per-device computation of every rule is the op itself on the device's slices, with
// `local_attrs` (a Reshape's target shape is the output's slice shape; other attributes
// unchanged); a ReduceMean over split dimensions is then multiplied by `local_scale` (the
// local mean counts a slice only).
//
// The families (one file each): rules_linalg.cc (MatMul with transpose_a/b, BatchMatMul with
// broadcast batch dimensions), rules_elementwise.cc (unary ops, binary ops with broadcasting,
// BiasAdd), rules_reduce.cc (ReduceSum/ReduceMean with or without keep_dims,
// Softmax/LogSoftmax), rules_shape.cc (Reshape where the split dimensions stay intact,
// Transpose), rules_nn.cc (LayerNorm, Gather, SoftmaxCrossEntropyWithLogits and its sparse
// form), rules_conv.cc (Conv2D, MaxPool, AvgPool; Flatten is a Reshape). `rule_family` is
// the table, a switch over OpId. Ops with several outputs
// (LayerNorm's y, mean and rstd) have a layout per output: `infer_layouts`.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "ops/op_table.h"
#include "parallel/layout.h"

namespace mycel::parallel {

// Slice counts per dimension, one row per tensor input.
using Strategy = std::vector<std::vector<int64_t>>;

// "((1,2),(2,4))", as MindSpore prints strategies.
std::string strategy_str(const Strategy& s);

// One call of an op: what the rules read. `where` (the user's source line, or empty) ends
// every error message.
struct OpCall {
  OpId op;
  const Attrs& attrs;
  std::vector<Shape> shapes;  // the global shapes of the tensor inputs
  std::string where;
};

enum class RuleFamily {
  None,
  MatMul,
  Unary,
  Binary,
  BiasAdd,
  Reduce,
  Softmax,
  Reshape,
  Transpose,
  LayerNorm,
  Gather,
  SoftmaxLoss,
  Conv2D,
  Pool
};

// The family of an op, None when it has no parallel rule.
RuleFamily rule_family(OpId op);

// What a strategy means: the split of each loop dimension and, per input and tensor
// dimension, the loop dimension it runs along (-1: whole).
struct LoopSpace {
  std::vector<int64_t> splits;
  std::vector<std::vector<int>> in_dims;
};

// The loop space of `call` under `s`; ValueError (naming the op, the strategy and the shapes)
// when the strategy does not fit: a row per tensor input and an entry per dimension, each
// entry at least 1 and dividing its dimension, equal splits of a shared dimension (MatMul's
// K, broadcast dimensions), a broadcast dimension of size 1 unsplit, the softmax axis
// unsplit.
LoopSpace loop_space(const OpCall& call, const Strategy& s);

// The op's device matrix for `devices` devices: [devices / product of splits, splits...];
// ValueError when the product exceeds or does not divide the device count.
Shape device_matrix(const OpCall& call, const LoopSpace& loops, int64_t devices);

// The mesh all the given device matrices (of one device count) are coarsenings of: the
// cumulative products of every matrix, merged, must form a divisibility chain; the mesh
// axes are the ratios along it (sizes above 1). ValueError naming two matrices that do not
// nest ([2,3] and [3,2]). A single device: the mesh [1].
DeviceMesh common_mesh(const std::vector<Shape>& matrices, int64_t devices);

// For each axis of `matrix`, the axes of `mesh` it covers (ValueError when `matrix` is not a
// coarsening of `mesh`).
std::vector<Axes> matrix_axes(const Shape& matrix, const DeviceMesh& mesh);

// The input layouts `s` gives on `mesh` (no partial axes).
std::vector<TensorLayout> strategy_layouts(const OpCall& call, const Strategy& s,
                                           const DeviceMesh& mesh);

// The output layouts of the op on inputs laid out as `in`, one per output (none partial;
// ValueError naming the op and the layouts when they are inconsistent, as a split K on one
// side only, or split the softmax axis, or a Reshape that would cut across a split
// dimension). An output is partial along the axes that split a dimension the op sums over.
std::vector<TensorLayout> infer_layouts(const OpCall& call, std::span<const TensorLayout> in);
// The same for an op with one output.
TensorLayout infer_layout(const OpCall& call, std::span<const TensorLayout> in);

// The layout an out_strategy row (slice counts per output dimension) asks for, from the
// output layout `got` the op's rule gives: each dimension keeps its axes and takes, to reach
// its count, first axes of `got`'s partial sums (a ReduceScatter instead of an AllReduce),
// then free mesh axes (a local split); the rest of the partial sums are summed. ValueError
// (naming the op, the row and the layout) when a count is no multiple of the dimension's
// splits or no axes make it up.
TensorLayout output_layout(const OpCall& call, const TensorLayout& got,
                           const std::vector<int64_t>& row);

// The input layouts of an elementwise op (unary, binary, BiasAdd) whose output is laid out as
// `out` (broadcast dimensions whole): how the pass propagates a layout through an op
// without a strategy.
std::vector<TensorLayout> elementwise_inputs(const OpCall& call, const TensorLayout& out);

// The attributes each device runs the op with, for the output layout `out` (a Reshape's
// target shape and a Conv2D's out_channel are its slice's).
Attrs local_attrs(const OpCall& call, const TensorLayout& out);

// What each device multiplies its local result by: 1 / (the splits of the reduced
// dimensions) for ReduceMean and SparseSoftmaxCrossEntropyWithLogits (a mean over the
// batch), else 1.
double local_scale(const OpCall& call, std::span<const TensorLayout> in);

// The families' parts (rules_<family>.cc); loop_space and infer_layout dispatch to them.
namespace rules {
std::string describe(const OpCall& call, const Strategy& s);  // op, strategy, shapes
std::string describe(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace matmul_loops(const OpCall& call, const Strategy& s);
TensorLayout matmul_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace elementwise_loops(const OpCall& call, const Strategy& s);
TensorLayout elementwise_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace bias_add_loops(const OpCall& call, const Strategy& s);
TensorLayout bias_add_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace reduce_loops(const OpCall& call, const Strategy& s);
TensorLayout reduce_layout(const OpCall& call, std::span<const TensorLayout> in);
std::vector<int> reduce_axes(const OpCall& call);  // normalised, sorted
LoopSpace softmax_loops(const OpCall& call, const Strategy& s);
TensorLayout softmax_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace reshape_loops(const OpCall& call, const Strategy& s);
TensorLayout reshape_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace transpose_loops(const OpCall& call, const Strategy& s);
TensorLayout transpose_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace layer_norm_loops(const OpCall& call, const Strategy& s);
std::vector<TensorLayout> layer_norm_layouts(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace gather_loops(const OpCall& call, const Strategy& s);
TensorLayout gather_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace conv2d_loops(const OpCall& call, const Strategy& s);
TensorLayout conv2d_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace pool_loops(const OpCall& call, const Strategy& s);
TensorLayout pool_layout(const OpCall& call, std::span<const TensorLayout> in);
LoopSpace softmax_loss_loops(const OpCall& call, const Strategy& s);
std::vector<TensorLayout> softmax_loss_layouts(const OpCall& call,
                                               std::span<const TensorLayout> in);
// The loop space of inputs whose dimension j of input i runs along loop dimension
// dims[i][j] (of n), or is whole (-1: it may not be split; `whole_why` says why, e.g.
// "broadcasts (size 1)"): the inputs that run along one loop dimension must split it alike.
LoopSpace loops_along(const OpCall& call, const Strategy& s, std::vector<std::vector<int>> dims,
                      size_t n, const char* whole_why);
// The layout of `shape`, whose dimension k runs along loop dimension k, when the inputs,
// laid out as `in`, run along `dims` (as loops_along): each dimension split as the inputs
// that run along it are (alike, else ValueError).
TensorLayout layout_along(const OpCall& call, std::span<const TensorLayout> in,
                          const std::vector<std::vector<int>>& dims, Shape shape,
                          const char* whole_why);
// The identity loop space of one input: loop dimension d is the input's dimension d, split
// as the strategy's only row says (its row count and entries checked).
LoopSpace identity_loops(const OpCall& call, const Strategy& s);
// Elementwise ops: per input and dimension, the output dimension it runs along (-1 where
// it broadcasts), and the output shape (when out_shape is given); BiasAdd's likewise.
std::vector<std::vector<int>> aligned_dims(const OpCall& call, Shape* out_shape);
std::vector<std::vector<int>> bias_dims(const OpCall& call);
// Checks the row count and every row (one entry per dimension, >= 1, dividing it).
void check_rows(const OpCall& call, const Strategy& s);
}  // namespace rules

}  // namespace mycel::parallel
