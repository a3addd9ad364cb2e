// Batching rules of the Parameter updates (ops/defs/optim.def).
//
// Assign and AssignAdd with a batched variable: each example owns its slice of the variable
// along the batch axis (MindSpore's vmap of in-place updates, where in_axes gives the
// Parameter's leading axis as the batch), so the batched update is the same call on the
// whole variable, with the value brought to the variable's layout (aligned when batched,
// broadcast when unbatched). The variable reaches the rule either as it is (in_axes 0) or as
// a Transpose of it (another axis), a view, so the write lands in the Parameter's storage in
// both cases. An unbatched variable with a batched value would have all the examples write
// one shared variable, and a variable made batched by broadcasting an unbatched one would
// have them write the same memory: both stay errors.
#include "base/error.h"
#include "compiler/passes/pass_util.h"
#include "compiler/vmap/batch.h"

namespace mycel::ir {

Node* batch_assign(BatchArgs& a) {
  const bool shared =
      !a.is_batched(0) || compiler::detail::as_prim_call(a.in[0], OpId::BroadcastTo) != nullptr;
  MC_CHECK(!shared, Value, "vmap: cannot batch '", a.op.name,
           "': the value is batched but the variable it updates is not (the examples of a "
           "batch cannot share a Parameter they update); batch the Parameter too (in_axes)");
  return a.call({a.in[0], a.aligned(1, a.rank(0))}, a.attrs);
}

}  // namespace mycel::ir
