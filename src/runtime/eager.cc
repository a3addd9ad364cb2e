#include "runtime/eager.h"

#include "comm/process_groups.h"
#include "kernels/kernel_table.h"
#include "runtime/op_profile.h"
#include "runtime/record.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {
Device g_default_device;
ProcessGroups* g_process_groups = nullptr;

// The CPU kernel on host copies of a device op's inputs; results copied back.
void launch_on_host(const KernelContext& ctx, bool ref) {
  const OpDef& op = ctx.op;
  TensorList hin, hout;
  for (const Tensor& t : ctx.in) hin.push_back(t.to(Device::cpu()));
  for (size_t i = 0; i < ctx.out.size(); ++i) {
    const Tensor& o = ctx.out[i];
    // An F_DYN_OUT kernel allocates the outputs it left undefined (run_kernel).
    hout.push_back((op.flags & F_UPDATE) ? hin[i]
                   : o.defined()         ? Tensor::empty(o.shape(), o.dtype())
                                         : Tensor());
  }
  KernelContext hctx{op, hin, hout, ctx.attrs, Device::cpu(), ctx.comm};
  (ref ? ref_kernel(op) : cpu_kernel(op))(hctx);
  if (op.flags & F_INPLACE) {
    for (size_t i = 0; i < hin.size(); ++i) ctx.in[i].copy_from(hin[i]);
  }
  for (size_t i = 0; i < hout.size(); ++i) {
    if (op.flags & F_UPDATE) continue;
    if (ctx.out[i].defined())
      ctx.out[i].copy_from(hout[i]);
    else
      ctx.out[i] = hout[i].to(ctx.device);
  }
}
}  // namespace

Device default_device() { return g_default_device; }

void set_default_device(Device d) {
  if (!d.is_cpu()) backend_for(d);  // a RuntimeError now if there is no such device
  g_default_device = d;
}

Device place_inputs(std::span<const Tensor> inputs, TensorList& copies) {
  Device dev = g_default_device;
  if (dev.is_cpu()) {
    for (const Tensor& t : inputs) {
      if (t.defined() && !t.device().is_cpu()) {
        dev = t.device();
        break;
      }
    }
  }
  copies.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (t.defined() && t.device() != dev) {
      if (dev == g_default_device && t.device().is_cpu()) {
        t.storage()->migrate(dev);
      } else {
        for (size_t j = copies.size(); j < i; ++j) copies.push_back(inputs[j]);
        copies.push_back(t.to(dev));
        continue;
      }
    }
    if (!copies.empty()) copies.push_back(t);
  }
  return dev;
}

void set_process_groups(ProcessGroups* groups) { g_process_groups = groups; }

ProcessGroups* process_groups() { return g_process_groups; }

namespace {
Communicator& communicator_for(const OpDef& op, const Attrs& attrs) {
  MC_CHECK(g_process_groups != nullptr, Runtime, "For '", op.name,
           "', the communication is not initialized: call mycel.communication.init() first, in a "
           "job started by python -m mycel.run (or mpirun).");
  return g_process_groups->group(attrs.get_str("group"));
}

// Where a communication op runs: a Send or Receive on the lane of its peer and direction,
// the others on the collective queue (comm/process_groups.h).
CommQueue& queue_for(const OpDef& op, const Attrs& attrs) {
  if (op.id == OpId::Send || op.id == OpId::Receive) {
    const bool send = op.id == OpId::Send;
    const int peer = static_cast<int>(attrs.get_int(send ? "dest_rank" : "src_rank"));
    return g_process_groups->p2p_queue(attrs.get_str("group"), peer, send);
  }
  return g_process_groups->queue();
}
}  // namespace

namespace {
// uint16/uint32/uint64 and complex tensors: the device kernels are not built for them (only
// copies, and casts among the real dtypes, are), so their ops run on the host with copies,
// except where the device's dtype rule says its kernel takes them (kernels/kernel_table.h:
// on CUDA the complex ops and FFTN).
bool has_host_only_dtype(const KernelContext& ctx) {
  auto host_only = [&](const Tensor& t) {
    return t.defined() && !device_takes_dtype(ctx.op, ctx.device.type, t.dtype());
  };
  for (const Tensor& t : ctx.in)
    if (host_only(t)) return true;
  for (const Tensor& t : ctx.out)
    if (host_only(t)) return true;
  return false;
}

// launch_kernel once a collective's communicator is known.
void launch_now(const KernelContext& ctx, bool ref) {
  if (ctx.device.is_cpu()) {
    (ref ? ref_kernel(ctx.op) : cpu_kernel(ctx.op))(ctx);
    return;
  }
  KernelFn k =
      ref || has_host_only_dtype(ctx) ? nullptr : dispatch_device_kernel(ctx.op, ctx.device.type);
  if (k)
    k(ctx);
  else
    launch_on_host(ctx, ref);
}
}  // namespace

void launch_kernel(const KernelContext& ctx, bool ref) {
  if (!(ctx.op.flags & F_COLLECTIVE)) {
    launch_now(ctx, ref);
    return;
  }
  KernelContext with = ctx;
  if (with.comm == nullptr) with.comm = &communicator_for(ctx.op, ctx.attrs);
  // Behind asynchronous work already queued, never before it (comm/work_queue.h).
  CommQueue& q = queue_for(ctx.op, ctx.attrs);
  if (q.idle()) {
    launch_now(with, ref);
  } else {
    q.submit([&] { launch_now(with, ref); })->wait();
  }
}

namespace {
// Steps 1-2 of run_op: the input count and tensors checked, their types as the op casts them.
MetaList input_metas(const OpDef& op, std::span<const Tensor> inputs) {
  const size_t n = inputs.size();
  MC_CHECK(op.num_inputs == kVariadic || static_cast<size_t>(op.num_inputs) == n, Type, "For '",
           op.name, "', expected ", op.num_inputs, " tensor input", op.num_inputs == 1 ? "" : "s",
           ", but got ", n, ".");
  MC_CHECK(op.num_inputs != kVariadic || n > 0, Value, "For '", op.name,
           "', the input tuple must not be empty.");
  MetaList metas(n);
  for (size_t i = 0; i < n; ++i) {
    MC_CHECK(inputs[i].defined(), Type, "For '", op.name, "', input ", i, " is not a tensor.");
    metas[i].dtype = inputs[i].dtype();
    metas[i].shape = inputs[i].shape();
  }
  promote_inputs(op, metas);
  return metas;
}
}  // namespace

AsyncCollective run_collective_async(const OpDef& op, std::span<const Tensor> inputs,
                                     const Attrs& attrs) {
  MC_CHECK(op.flags & F_COLLECTIVE, Type, "For '", op.name,
           "', only communication ops run asynchronously.");
  MetaList out = infer_op(op, input_metas(op, inputs), attrs);
  Communicator* comm = &communicator_for(op, attrs);
  auto job = std::make_shared<std::tuple<TensorList, TensorList, Attrs>>();
  auto& [ins, outs, at] = *job;
  for (const Tensor& t : inputs) ins.push_back(t.to(Device::cpu()).contiguous());
  for (const TensorMeta& m : out) outs.push_back(Tensor::empty(m.shape, m.dtype));
  at = attrs;
  AsyncCollective r;
  r.outputs = outs;
  r.work = queue_for(op, attrs).submit([job, comm, &op] {
    auto& [i, o, a] = *job;
    launch_now(KernelContext{op, i, o, a, Device::cpu(), comm}, false);
  });
  return r;
}

namespace {
// An op's output storage. The allocator's "out of memory" names neither the op nor the shape
// (ops.pad of a tensor by 2**40 said only "cannot allocate 17592186044440 bytes"): its
// failure is rethrown naming both.
Tensor alloc_output(const OpDef& op, const TensorMeta& m, Device dev) {
  try {
    return Tensor::empty(m.shape, m.dtype, dev);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Runtime) throw;
    MC_THROW(Runtime, "For '", op.name, "', cannot allocate the output of shape ", m.shape,
             " and dtype ", m.dtype, ": ", e.what());
  }
}
}  // namespace

TensorList run_kernel(const OpDef& op, std::span<const Tensor> inputs,
                      std::span<const TensorMeta> metas, const Attrs& attrs, bool ref) {
  Device dev = inputs.empty() ? g_default_device : inputs[0].device();
  TensorList outs;
  bool dynamic = false;
  for (size_t i = 0; i < metas.size(); ++i) {
    // An update op's outputs are its first inputs, written in place; an output whose shape
    // depends on the values is left to the kernel (F_DYN_OUT).
    if (is_dynamic(metas[i].shape)) {
      MC_ASSERT(op.flags & F_DYN_OUT, op.name, ": output ", i, " has the dynamic shape ",
                metas[i].shape, " at run time");
      dynamic = true;
      outs.push_back(Tensor());
      continue;
    }
    outs.push_back((op.flags & F_UPDATE) ? inputs[i] : alloc_output(op, metas[i], dev));
  }
  KernelContext ctx{op, inputs, outs, attrs, dev};
  launch_kernel(ctx, ref);
  if (dynamic) {
    for (size_t i = 0; i < metas.size(); ++i)
      MC_ASSERT(outs[i].defined() && outs[i].dtype() == metas[i].dtype &&
                    shape_matches(metas[i].shape, outs[i].shape()),
                op.name, ": the kernel's output ", i, " is not an instance of ", metas[i].dtype,
                metas[i].shape);
  }
  return outs;
}

namespace {
TensorList run(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  MetaList metas = input_metas(op, inputs);
  MetaList out = infer_op(op, metas, attrs);

  if ((op.flags & F_VIEW) && out.size() == 1 && metas[0].dtype == inputs[0].dtype()) {
    Tensor v = view_op(op, inputs[0], out[0], attrs);
    if (v.defined()) {
      TensorList r;
      r.push_back(std::move(v));
      record::emit(op, attrs, inputs, r);
      return r;
    }
  }

  record::before_write(op, inputs);
  TensorList outs = launch_op(op, inputs, metas, out, attrs);
  record::emit(op, attrs, inputs, outs);
  return outs;
}

}  // namespace

TensorList launch_op(const OpDef& op, std::span<const Tensor> inputs,
                     std::span<const TensorMeta> in, std::span<const TensorMeta> out,
                     const Attrs& attrs) {
  TensorList copies;
  place_inputs(inputs, copies);
  return launch_placed(op, inputs, copies, in, out, attrs);
}

TensorList launch_placed(const OpDef& op, std::span<const Tensor> inputs,
                         std::span<const Tensor> copies, std::span<const TensorMeta> in,
                         std::span<const TensorMeta> out, const Attrs& attrs) {
  // Cast and lay out the placed inputs as the kernel expects them.
  TensorList ins;
  std::span<const Tensor> placed = copies.empty() ? inputs : copies;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor x = in.empty() ? placed[i] : placed[i].cast(in[i].dtype);  // itself if it matches
    ins.push_back((op.flags & F_STRIDED) ? std::move(x) : x.contiguous());
  }
  TensorList outs = run_kernel(op, ins, out, attrs);
  if (op.flags & F_INPLACE) {
    // The kernel wrote into ins[i]; where that was a copy, write it back.
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i].same(inputs[i])) inputs[i].copy_from(ins[i]);
    }
    if (op.flags & F_UPDATE) {  // the outputs are the updated inputs themselves
      for (size_t i = 0; i < outs.size(); ++i) outs[i] = inputs[i];
    }
  }
  return outs;
}

TensorList run_op(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  if (OpProfile* prof = OpProfile::active()) [[unlikely]] {
    OpProfile::Stamp t0;
    TensorList outs = run(op, inputs, attrs);
    prof->add(op.name, outs, t0);
    return outs;
  }
  return run(op, inputs, attrs);
}

Tensor run_op1(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  TensorList outs = run_op(op, inputs, attrs);
  MC_ASSERT(!outs.empty());
  return std::move(outs[0]);
}

TensorList run_op(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given) {
  const OpDef& op = op_def(id);
  return run_op(op, std::span<const Tensor>(inputs.begin(), inputs.size()), make_attrs(op, given));
}

Tensor run_op1(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given) {
  return run_op(id, inputs, given)[0];
}

}  // namespace mycel
