// The loop IR of graph kernels: one loop nest over an iteration space, computing a DAG of
// scalar values per point and storing or accumulating some of them.
//
// A GraphKernel graph (is_graph_kernel below, made by compiler/passes/graph_kernel.cc)
// holds prim calls of one shape family: every elementwise node has the iteration shape S (or,
// in a staged kernel, S's row shape: see row_dims), its parameters broadcast to S, and
// reductions reduce an S-shaped value. lower() turns it into a LoopKernel:
//
//   dims      S with size-1 dimensions dropped and neighbours merged where every operand
//             walks them as one (row-major; at least one dimension, [1] for a 0-d kernel)
//   inputs    one per graph parameter: dtype and element strides per dimension (0: the
//             dimension is broadcast)
//   values    SSA in order: Load of an input at the point, then one scalar op per prim node
//             (its dtype the node's); operands index earlier values; Reduced: a row
//             reduction's result at the point's row (staged kernels)
//   outputs   per graph result: the value and either a store at the point (strides of the
//             contiguous S) or a reduction (Sum/Mean/Max/Min) into an accumulator whose
//             strides are 0 on the reduced dimensions; `count` is the number of elements
//             each output element reduces (Mean divides by it)
//
// The kernel's contract is the op table's: it computes exactly what the graph's prims compute
// with their CPU kernels (the same formulas, NaN rules and saturating casts; see
// llvm_emit.cc), except that reductions may sum in another order (floats in double, as the
// CPU kernel does). text() is its canonical form, the key of the kernel cache (jit.h).
//
// What fuses is decided here, in one place (fusible(), which the pass asks): the unary, binary
// (BiasAdd too where its channel axis is the last: a matrix or NHWC),
// compare, logic, Select and Cast ops below and ReduceSum/Mean/Max/Min, on float32, float64,
// int32, int64 and bool as each op allows, every input of the node's own dtype (compares and
// Select's condition excepted); Exp, Sigmoid, Tanh, Erf and GeLU (both forms) on float32
// (mycel's own polynomials, emitted as the op kernels compute them).
// bfloat16 fuses as its op kernels compute it: values load into float32, each op computes in
// float32 and rounds its result to bfloat16 (nearest even, as tensor/half.h), so a fused chain
// equals the op-by-op one; the elementwise ops above but the integer-only ones, Cast to and
// from float32 only, ReduceSum/Mean (float32 sums in double, rounded once at the end). Float16,
// the other transcendental functions (Log, ...) and float64 ones (libm in the op kernels),
// integer division, Pow and bfloat16 Max/Min reductions stay unfused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/anf.h"
#include "tensor/dtype.h"

namespace mycel::codegen {

enum class LOp : uint8_t {
  Load,
  Neg,
  Abs,
  Sign,
  Square,
  Relu,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Not,  // unary
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  ReluGrad,
  And,
  Or,  // binary, same dtype out
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // compare: bool out
  Select,
  Cast,
  Exp,
  Sigmoid,
  Tanh,
  Erf,
  Gelu,      // GeLU{approximate="none"}: 0.5 x (1 + erf(x / sqrt2))
  GeluTanh,  // GeLU{approximate="tanh"}; Exp ... GeluTanh: float32 and bfloat16 only,
             // kernels/cpu/vmath.h's algorithms (llvm_emit.h)
  Reduced,   // a row reduction's result (output `a`) at the point's row: staged kernels
};
const char* lop_name(LOp op);

enum class Reduce : uint8_t { None, Sum, Mean, Max, Min };

struct LValue {
  LOp op = LOp::Load;
  DType dtype = DType::Float32;
  int32_t a = -1, b = -1, c = -1;  // operands (earlier values); Load: a is the input
};

struct LInput {
  DType dtype = DType::Float32;
  std::vector<int64_t> strides;  // per dimension of LoopKernel::dims
};

struct LOutput {
  int32_t value = -1;
  DType dtype = DType::Float32;  // of the stored result
  Reduce reduce = Reduce::None;
  std::vector<int64_t> strides;  // per dimension; 0 on reduced ones
  Shape shape;                   // the graph result's shape
  int64_t numel = 0;
  int64_t count = 1;  // elements reduced into each output element
  // A reduction read by other values of the kernel only (LOp::Reduced), not a graph result:
  // it has a (scratch) output buffer and an accumulator but is not returned.
  bool internal = false;
  // An input whose buffer this output is stored into (in place; -1: its own buffer): the
  // input has the output's dtype and strides and the output has an element per point, so
  // each point reads the input's element before storing over it and no point reads
  // another's (GeneratedKernel::run sets it for a dying input the executor donated;
  // llvm_emit.cc stores through that input's pointer).
  int32_t in_place = -1;
};

// The dtype of output o's accumulator (one per output element): floating sums (bfloat16's too)
// in float64; floating max/min in the integer of the float's width (ordered keys: llvm_emit.cc);
// everything else in its own dtype.
DType acc_dtype(const LOutput& o);

struct LoopKernel {
  std::vector<int64_t> dims;
  std::vector<LInput> inputs;
  std::vector<LValue> values;
  std::vector<LOutput> outputs;
  // Staged (row) kernels, where values read reductions of the kernel (LOp::Reduced): dims
  // [0, row_dims) are the rows, [row_dims, end) one row; every reduction reduces exactly the
  // row dimensions. Each row runs in stages: stage s loops over the row computing the values
  // of stage s (a value's stage: the most Reduced steps on a path to it) that its
  // reductions accumulate, finalises them (their results are then registers for later
  // stages), and the last stage stores the elementwise outputs; the row is read once from
  // memory and again from the cache (LayerNorm: mean, variance, output in one pass over
  // memory). 0: not staged.
  int row_dims = 0;
  // The kernel may run slices of dims[0] on several threads at once: no output reduces it.
  bool parallel_outer() const;
  // The elements of one step of dims[0].
  int64_t inner_elems() const;
  std::string text() const;
};

// GraphKernel graphs are named "GraphKernel#<n>" (printed GraphKernel_<n>, ir::sanitize_name):
// no Python function or method has a '#' in its name, so no user graph is taken for one.
inline constexpr std::string_view kGraphKernelPrefix = "GraphKernel#";
inline bool is_graph_kernel(const ir::FuncGraph* g) {
  return g->name().starts_with(kGraphKernelPrefix);
}

// Whether a reduction c reduces a row of its input S (the trailing axes [k, rank), k < rank,
// at most kMaxRowElems elements) keeping its dimensions (shape S with 1 on those axes), so
// that elementwise nodes of shape S can read its result in the same kernel (a staged kernel,
// LoopKernel::row_dims): k, else -1.
inline constexpr int64_t kMaxRowElems = 65536;
int row_axis(const ir::CNode* c);

// Whether the prim call c can be part of a graph kernel (op, dtypes, static shape, > 0
// elements); reductions are those with is_reduction.
bool fusible(const ir::CNode* c);
bool is_reduction(const ir::CNode* c);

// The loop kernel of GraphKernel graph g. Throws an internal error when g breaks the rules
// above (the pass made it, so that is a bug).
LoopKernel lower(ir::FuncGraph* g);

}  // namespace mycel::codegen
