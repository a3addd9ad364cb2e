#include "ops/op_semantics.h"

#include "tensor/dynamic_shape.h"
#include "tensor/size.h"

namespace mycel {

void promote_inputs(const OpDef& op, std::span<TensorMeta> metas) {
  if (op.flags & (F_PROMOTE | F_PROMOTE1)) {
    size_t first = (op.flags & F_PROMOTE1) ? 1 : 0;
    if (metas.size() > first) {
      DType t = metas[first].dtype;
      for (size_t i = first + 1; i < metas.size(); ++i) {
        MC_CHECK(promotable(t, metas[i].dtype), Type, "For '", op.name,
                 "', type implicit conversion between ", t, " and ", metas[i].dtype,
                 " is not supported (uint16, uint32 and uint64 promote only with bool); cast "
                 "an input first.");
        t = promote_types(t, metas[i].dtype);
      }
      for (size_t i = first; i < metas.size(); ++i) metas[i].dtype = t;
    }
  }
  if (op.flags & F_FLOAT_IN) {
    for (auto& m : metas) {
      if (!is_floating(m.dtype) && !is_complex(m.dtype)) m.dtype = DType::Float32;
    }
  }
}

MetaList infer_op(const OpDef& op, std::span<const TensorMeta> inputs, const Attrs& attrs) {
  // Both modes come here: a variadic op (Concat, Stack) on an empty tuple under @jit reached
  // rules that read input 0.
  MC_CHECK(op.num_inputs != kVariadic || !inputs.empty(), Value, "For '", op.name,
           "', the input tuple must not be empty.");
  MetaList out;
  InferContext ctx{op, inputs, attrs, out};
  op.infer(ctx);
  MC_ASSERT(op.num_outputs == kVariadic || out.size() == static_cast<size_t>(op.num_outputs),
            op.name, ": rule produced ", out.size(), " outputs");
  // Every shape an op makes, in both modes, passes here: counts and byte sizes that do not fit
  // in 64 bits are ValueErrors naming the op (rules that multiply or add dimensions check
  // their own arithmetic with checked_mul/checked_add, so no wrapped value reaches this).
  // A dynamic shape (graph compilation only) is checked with its dynamic dimensions as 1,
  // and again with the run-time shapes when the executor infers the op at run time.
  for (const TensorMeta& m : out) {
    if (!is_dynamic(m.shape)) [[likely]] {
      checked_nbytes(m.shape, dtype_size(m.dtype), op.name);
    } else {
      Shape known = m.shape;
      for (int64_t& d : known) d = d < 0 ? 1 : d;
      checked_nbytes(known, dtype_size(m.dtype), op.name);
    }
  }
  return out;
}

}  // namespace mycel
