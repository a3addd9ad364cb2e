// The op table: every primitive declared once.
//
// Each family file in ops/defs/*.def holds one line per op:
//
//   OP(Name, n_in, n_out, infer, kernel, ref, grad, flags, [WRITES(i, ...)] ATTR(...)...)
//
//   n_in, n_out  tensor inputs / outputs; kVariadic for a list input (Concat) or a count
//                decided by attributes (Split)
//   infer        shape/dtype rule, infer_<family>.cc:  void(InferContext&)
//   kernel       optimised CPU kernel, kernels/cpu/:   void(const KernelContext&)
//   ref          naive reference kernel, kernels/ref/: the oracle the kernel is tested against
//   grad         the backward rule, compiler/ad/bprop_<family>.cc (e.g. bprop_neg), or NODIFF
//   flags        F_* below, or'ed; 0 for none
//   WRITES(i...) the inputs an F_INPLACE kernel writes beyond an F_UPDATE op's first
//                n_out (OpDef::writes)
//   ATTR(name, kind, default, Init|Call)
//
// This layer binds only the infer column. Each layer above binds the columns it owns, from
// the same lines: the kernels layer the kernel and ref columns (kernels/kernel_table.h), the
// compiler the grad column (compiler/ad/bprop.h).
//
// From these lines come the OpId enum, the table, the Python primitive classes
// (mycel.ops.operations) and the op-table test, which fails on any op that lacks a rule, a
// kernel, a reference or a test case. Hooks are plain functions named in the line, resolved
// at link time (each layer's library is linked alone with the layers below it as part of the
// build, so a named hook that is not written fails there): no registration at
// static-initialisation time.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "base/inline_vector.h"
#include "ops/attrs.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace mycel {

class Communicator;  // comm/communicator.h

enum class OpId : uint16_t {
#define OP(name, ...) name,
#include "ops/defs/all.def"
#undef OP
};

inline constexpr int kVariadic = -1;

enum OpFlags : uint32_t {
  F_STRIDED = 1u << 0,     // the kernel reads strided inputs; no contiguous copy first
  F_PROMOTE = 1u << 1,     // inputs are cast to their promoted common dtype first
  F_PROMOTE1 = 1u << 2,    // as F_PROMOTE for inputs 1.. (input 0 is left alone: Select's cond)
  F_FLOAT_IN = 1u << 3,    // bool/integer inputs are cast to float32 first (Exp, Div, Mean...)
  F_RANDOM = 1u << 4,      // draws from the global Philox generator
  F_INPLACE = 1u << 5,     // also writes some inputs (OpDef::writes names them)
  F_VIEW = 1u << 6,        // eager mode may return a view of input 0 instead of running it
  F_UPDATE = 1u << 7,      // output i is input i, updated in place (with F_INPLACE): Assign, SGD
  F_COLLECTIVE = 1u << 8,  // communicates over the `group` attribute's process group
                           // (ops/defs/comm.def): KernelContext::comm is set; an effect
  F_DYN_OUT = 1u << 9,     // some output dimensions depend on the input values (Unique,
                           // MaskedSelect, NonZero): the rule gives them as kDynamicDim and
                           // the kernel allocates those outputs (see KernelContext::out)
};

// Calls with effects beyond their result, which the compiler never merges, drops or runs at
// compile time: random draws, in-place writes, communication.
inline constexpr uint32_t kEffectFlags = F_RANDOM | F_INPLACE | F_COLLECTIVE;

enum class Grad : uint8_t { DIFF, NODIFF };

// A tensor's type without its data: what inference works on.
struct TensorMeta {
  DType dtype = DType::Float32;
  Shape shape;
};

struct OpDef;

// Outputs of inference: inline for up to 4 (no allocation on the eager path).
using MetaList = InlineVector<TensorMeta, 4>;

struct InferContext {
  const OpDef& op;
  std::span<const TensorMeta> in;
  const Attrs& attrs;
  MetaList& out;  // the rule appends one entry per output
};

// What a kernel sees. Every tensor in `in` and `out` is on `device`: a CPU kernel runs only
// with the host, a device kernel (kernels/cuda) only with its device, and queues its work on
// that device's stream without waiting for it. A collective op (F_COLLECTIVE) also gets the
// communicator of its `group` attribute, which the runtime resolves from the job's process
// groups (runtime/eager.h); other ops get nullptr.
struct KernelContext {
  const OpDef& op;
  std::span<const Tensor> in;  // contiguous unless the op has F_STRIDED
  // Allocated, contiguous, shapes and dtypes from infer; except, for an F_DYN_OUT op, the
  // outputs whose inferred shape has a dynamic dimension: those are undefined and the kernel
  // sets them (alloc_output), of the inferred dtype and a shape that the inferred one
  // matches (run_kernel checks both).
  std::span<Tensor> out;
  const Attrs& attrs;
  Device device;
  Communicator* comm = nullptr;
};

// An F_DYN_OUT kernel's output i, allocated on ctx.device once its shape is known.
Tensor& alloc_output(const KernelContext& ctx, size_t i, const Shape& shape, DType dtype);

using InferFn = void (*)(InferContext&);
using KernelFn = void (*)(const KernelContext&);

struct OpDef {
  OpId id;
  const char* name;
  int num_inputs;   // or kVariadic
  int num_outputs;  // or kVariadic
  InferFn infer;
  Grad grad;
  uint32_t flags;
  std::span<const AttrSpec> attrs;
  // The inputs the kernel writes in place, bit i for input i: an F_UPDATE op's first
  // num_outputs inputs, and those its .def line names with WRITES(i, ...) (ApplyMomentum's
  // accumulation, BatchNorm's running statistics). The compiler orders every reader of such
  // an input before the write (compiler/passes/order_updates.cc).
  uint32_t writes;
};

inline bool writes_input(const OpDef& op, size_t i) { return i < 32 && ((op.writes >> i) & 1u); }

std::span<const OpDef> op_table();
inline constexpr size_t kNumOps = 0
#define OP(name, ...) +1
#include "ops/defs/all.def"
#undef OP
    ;

const OpDef& op_def(OpId id);
const OpDef* find_op(std::string_view name);  // nullptr if no such op

// Validates user-given attributes against the op's declaration: TypeError for unknown names
// or wrong kinds. make_attrs also fills in defaults (TypeError for missing required ones).
// Any op may also carry kStrategyAttr: the sharding strategy of semi-automatic parallelism
// (Primitive.shard, parallel/rules.h), Ints of the row count, each row's length, then the
// entries. Kernels ignore it; the parallel pass (parallel/spmd.h) consumes it.
inline constexpr const char* kStrategyAttr = "in_strategy";
// Any op may also carry kRecomputeAttr (an Int): whether its output is recomputed in the
// backward instead of kept (compiler/passes/recompute.cc). 0: never (Primitive.recompute(
// False)); -1: always (Primitive.recompute()); 2 * scope + output_recompute (>= 2): made
// inside the call `scope` of a Cell marked by Cell.recompute(), whose outputs are kept unless
// output_recompute. Kernels ignore it.
inline constexpr const char* kRecomputeAttr = "recompute";
// An F_RANDOM op also carries kRandomStreamAttr (an Int), set when its Python primitive is
// made: the instance whose position in its seeds' stream the kernels advance
// (tensor/random.h; every node compiled from that primitive shares it). Absent (0): no
// instance, every call starts the stream anew.
inline constexpr const char* kRandomStreamAttr = "random_stream";
// What a random kernel draws from: next_random_stream for the op's seed attributes (named
// `seed` and `seed2`) and its instance.
RandomStream op_random_stream(const KernelContext& ctx, std::string_view seed,
                              std::string_view seed2, uint64_t count);
void check_attrs(const OpDef& op, const Attrs& given);
Attrs make_attrs(const OpDef& op, const Attrs& given);

// The inference rules named in the .def files (the kernels: kernels/kernel_table.h).
#define OP(name, nin, nout, infer, ...) void infer(InferContext&);
#include "ops/defs/all.def"
#undef OP

}  // namespace mycel
