// The kernel of the view ops: a copy of the input seen as the output (tensor/copy.cc does the
// copying).
#include "kernels/cpu/array.h"
#include "ops/op_semantics.h"

namespace mycel {

void cpu_copy_view(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& out = ctx.out[0];
  Tensor src = view_op(ctx.op, x, {out.dtype(), out.shape()}, ctx.attrs);
  if (src.defined()) {
    strided_copy(out, src);
  } else {
    // Reshape/Flatten of a layout that cannot be viewed: the output, in x's shape, is x's
    // row-major order.
    strided_copy(out.reshape(x.shape()), x);
  }
}

}  // namespace mycel
