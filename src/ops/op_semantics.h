// What an op means, apart from any kernel or mode: the dtypes its kernel sees, its output
// types and shapes, and (for F_VIEW ops) how its output can be a view of its input. Both
// modes use these: the eager dispatcher (runtime/eager.h) and graph specialisation, the
// IrBuilder of autodiff and the MINDIR importer, so there is one definition of each rule.
#pragma once

#include <span>

#include "ops/op_table.h"

namespace mycel {

// The dtypes the kernel will see: inputs cast to their promoted common dtype (F_PROMOTE,
// F_PROMOTE1 from input 1), bool/integer inputs to float32 (F_FLOAT_IN). In place on `metas`.
void promote_inputs(const OpDef& op, std::span<TensorMeta> metas);

// The output metas from the op's inference rule on promoted inputs: a typed error naming
// the op for bad inputs or attributes, or for outputs whose size does not fit in 64 bits.
// `attrs` must be complete (make_attrs).
MetaList infer_op(const OpDef& op, std::span<const TensorMeta> inputs, const Attrs& attrs);

// The view hook of an F_VIEW op (defined with the kernels, kernels/cpu/array_view.cc): a view
// of x with the inferred output meta, or an undefined Tensor when the layout needs a copy.
Tensor view_op(const OpDef& op, const Tensor& x, const TensorMeta& out, const Attrs& attrs);

}  // namespace mycel
