// The eager (PYNATIVE) dispatcher: runs one op on concrete tensors, straight to its kernel.
//
//   run_op(op, inputs, attrs):
//     1. checks the input count;
//     2. casts inputs as the op's flags say (F_PROMOTE, F_PROMOTE1, F_FLOAT_IN);
//     3. infers output dtypes and shapes with the op's rule (user errors surface here);
//     4. for F_VIEW ops, returns a view of input 0 when the layout allows;
//     5. places the inputs on the op's device (place_inputs), casts them and makes them
//        contiguous unless the op is F_STRIDED;
//     6. allocates the outputs on that device and runs the kernel (launch_kernel).
//
// `attrs` must be complete (see make_attrs); run_op_user() validates user-given ones first.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ops/op_semantics.h"
#include "ops/op_table.h"

namespace mycel {

class ProcessGroups;
class CommWork;

// Tensors of one op call, inline for up to 4.
using TensorList = InlineVector<Tensor, 4>;

TensorList run_op(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs);
Tensor run_op1(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs);

// Convenience for C++ callers: run_op1(OpId::Add, {a, b}) with defaults for the attributes.
Tensor run_op1(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given = {});
TensorList run_op(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given = {});

// Steps 2-3 are promote_inputs and infer_op (ops/op_semantics.h), step 4 view_op.

// Steps 5-6 of run_op, which the graph executor runs too (its inputs are typed at compile
// time): places the inputs (place_inputs), casts input i to in[i].dtype when `in` is given
// (empty: no casts), makes them contiguous unless the op is F_STRIDED, runs the kernel with
// outputs from `out`, and writes what an F_INPLACE kernel wrote into a placed, cast or
// contiguous copy back into the caller's input; an F_UPDATE op's outputs are then its
// inputs themselves.
TensorList launch_op(const OpDef& op, std::span<const Tensor> inputs,
                     std::span<const TensorMeta> in, std::span<const TensorMeta> out,
                     const Attrs& attrs);
// launch_op for a caller that ran place_inputs itself: `copies` is what it filled (empty
// when the inputs themselves are in place), so nothing is placed or copied twice.
TensorList launch_placed(const OpDef& op, std::span<const Tensor> inputs,
                         std::span<const Tensor> copies, std::span<const TensorMeta> in,
                         std::span<const TensorMeta> out, const Attrs& attrs);

// Runs a kernel (the optimised one, or the reference) on inputs that are already cast and
// placed (all on one device), with outputs allocated there from `metas` (an F_UPDATE op's
// outputs are its first inputs). Tests call it with ref=true to compare the two.
TensorList run_kernel(const OpDef& op, std::span<const Tensor> inputs,
                      std::span<const TensorMeta> metas, const Attrs& attrs, bool ref = false);

// ---- devices -----------------------------------------------------------------------------
// The device for ops with no tensor input and where host inputs go: the host unless
// set_context(device_target="GPU") chose a device.
Device default_device();
void set_default_device(Device d);

// Where an op runs, with its inputs brought there:
//   - the default device when it is not the host: host inputs migrate to it in place
//     (Storage::migrate), so a parameter or a constant moves once and stays;
//   - else the device of the first input that is on one (host inputs are copied there);
//   - else the host.
// `copies` is left empty when the inputs themselves are all there (moved in place or
// already), the common case, which costs no reference counting; else it holds one tensor
// per input, the copies among them.
Device place_inputs(std::span<const Tensor> inputs, TensorList& copies);

// ---- process groups ---------------------------------------------------------------------
// The job's process groups (comm/process_groups.h), over which collective ops (F_COLLECTIVE)
// run: set by mycel.communication.init() and cleared by release(); nullptr outside a job.
// Held beside the default device as the execution context of this process; not owned.
void set_process_groups(ProcessGroups* groups);
ProcessGroups* process_groups();

// Runs the collective op (F_COLLECTIVE) on the job's communication queue and returns at
// once: its outputs (on the host; their contents are ready once `work` is done) and the work
// to wait on, which rethrows the op's error. Inference, group and argument errors are raised
// here, before anything is queued. Not recorded for autodiff (comm_func's async_op=True).
struct AsyncCollective {
  TensorList outputs;
  std::shared_ptr<CommWork> work;
};
AsyncCollective run_collective_async(const OpDef& op, std::span<const Tensor> inputs,
                                     const Attrs& attrs);

// Runs the kernel of ctx.op for ctx.device: the CPU kernel (or the reference with ref) on
// the host; the device's kernel on a device that has one; else the CPU kernel (reference)
// on host copies of the inputs, whose outputs, and inputs written in place, are copied
// back to the device. A device kernel never runs with ref: the reference is the oracle.
// A collective op's communicator is resolved here when ctx.comm is null: the group named by
// its `group` attribute (a RuntimeError when communication is not initialised, a ValueError
// when this rank has no such group).
void launch_kernel(const KernelContext& ctx, bool ref = false);

}  // namespace mycel
