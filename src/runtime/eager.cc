#include "runtime/eager.h"

namespace mycel {

void promote_inputs(const OpDef& op, std::span<TensorMeta> metas) {
  if (op.flags & (F_PROMOTE | F_PROMOTE1)) {
    size_t first = (op.flags & F_PROMOTE1) ? 1 : 0;
    if (metas.size() > first) {
      DType t = metas[first].dtype;
      for (size_t i = first + 1; i < metas.size(); ++i) t = promote_types(t, metas[i].dtype);
      for (size_t i = first; i < metas.size(); ++i) metas[i].dtype = t;
    }
  }
  if (op.flags & F_FLOAT_IN) {
    for (auto& m : metas) {
      if (!is_floating(m.dtype)) m.dtype = DType::Float32;
    }
  }
}

namespace {
void check_arity(const OpDef& op, size_t n) {
  MC_CHECK(op.num_inputs == kVariadic || static_cast<size_t>(op.num_inputs) == n, Type, "For '",
           op.name, "', expected ", op.num_inputs, " tensor input", op.num_inputs == 1 ? "" : "s",
           ", but got ", n, ".");
  MC_CHECK(op.num_inputs != kVariadic || n > 0, Value, "For '", op.name,
           "', the input tuple must not be empty.");
}
}  // namespace

std::vector<TensorMeta> infer_op(const OpDef& op, std::span<const TensorMeta> inputs,
                                 const Attrs& attrs) {
  std::vector<TensorMeta> out;
  out.reserve(op.num_outputs > 0 ? static_cast<size_t>(op.num_outputs) : 4);
  InferContext ctx{op, inputs, attrs, out};
  op.infer(ctx);
  MC_ASSERT(op.num_outputs == kVariadic || out.size() == static_cast<size_t>(op.num_outputs),
            op.name, ": rule produced ", out.size(), " outputs");
  return out;
}

std::vector<Tensor> run_kernel(const OpDef& op, std::span<const Tensor> inputs,
                               const std::vector<TensorMeta>& metas, const Attrs& attrs,
                               bool ref) {
  std::vector<Tensor> outs;
  outs.reserve(metas.size());
  for (const TensorMeta& m : metas) outs.push_back(Tensor::empty(m.shape, m.dtype));
  KernelContext ctx{op, inputs, outs, attrs};
  (ref ? op.ref : op.kernel)(ctx);
  return outs;
}

std::vector<Tensor> run_op(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  check_arity(op, inputs.size());
  std::vector<TensorMeta> metas(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    MC_CHECK(inputs[i].defined(), Type, "For '", op.name, "', input ", i, " is not a tensor.");
    metas[i].dtype = inputs[i].dtype();
    metas[i].shape = inputs[i].shape();
  }
  promote_inputs(op, metas);
  std::vector<TensorMeta> out = infer_op(op, metas, attrs);

  if ((op.flags & F_VIEW) && out.size() == 1 && metas[0].dtype == inputs[0].dtype()) {
    Tensor v = view_op(op, inputs[0], out[0], attrs);
    if (v.defined()) return {v};
  }

  // Cast and lay out the inputs as the kernel expects them.
  std::vector<Tensor> ins(inputs.begin(), inputs.end());
  for (size_t i = 0; i < ins.size(); ++i) {
    if (ins[i].dtype() != metas[i].dtype) ins[i] = ins[i].cast(metas[i].dtype);
    if (!(op.flags & F_STRIDED)) ins[i] = ins[i].contiguous();
  }
  std::vector<Tensor> outs = run_kernel(op, ins, out, attrs);
  if (op.flags & F_INPLACE) {
    // The kernel wrote into ins[i]; where that was a cast or contiguous copy, write it back.
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i].same(inputs[i])) inputs[i].copy_from(ins[i]);
    }
  }
  return outs;
}

Tensor run_op1(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  std::vector<Tensor> outs = run_op(op, inputs, attrs);
  MC_ASSERT(!outs.empty());
  return outs[0];
}

std::vector<Tensor> run_op(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given) {
  const OpDef& op = op_def(id);
  return run_op(op, std::span<const Tensor>(inputs.begin(), inputs.size()), make_attrs(op, given));
}

Tensor run_op1(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given) {
  return run_op(id, inputs, given)[0];
}

}  // namespace mycel
