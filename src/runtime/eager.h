// The eager (PYNATIVE) dispatcher: runs one op on concrete tensors, straight to its kernel.
//
//   run_op(op, inputs, attrs):
//     1. checks the input count;
//     2. casts inputs as the op's flags say (F_PROMOTE, F_PROMOTE1, F_FLOAT_IN);
//     3. infers output dtypes and shapes with the op's rule (user errors surface here);
//     4. for F_VIEW ops, returns a view of input 0 when the layout allows;
//     5. makes inputs contiguous unless the op is F_STRIDED;
//     6. allocates the outputs and runs the kernel.
//
// `attrs` must be complete (see make_attrs); run_op_user() validates user-given ones first.
#pragma once

#include <span>
#include <vector>

#include "ops/op_semantics.h"
#include "ops/op_table.h"

namespace mycel {

// Tensors of one op call, inline for up to 4.
using TensorList = InlineVector<Tensor, 4>;

TensorList run_op(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs);
Tensor run_op1(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs);

// Convenience for C++ callers: run_op1(OpId::Add, {a, b}) with defaults for the attributes.
Tensor run_op1(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given = {});
TensorList run_op(OpId id, std::initializer_list<Tensor> inputs, const Attrs& given = {});

// Steps 2-3 are promote_inputs and infer_op (ops/op_semantics.h), step 4 view_op.

// Runs a kernel (the optimised one, or the reference) on inputs that are already cast, with
// outputs allocated from `metas` (an F_UPDATE op's outputs are its first inputs). Tests call
// it with ref=true to compare the two.
TensorList run_kernel(const OpDef& op, std::span<const Tensor> inputs,
                      std::span<const TensorMeta> metas, const Attrs& attrs, bool ref = false);

}  // namespace mycel
