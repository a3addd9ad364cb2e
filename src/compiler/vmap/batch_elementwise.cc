// Batching rules of the elementwise family (ops/defs/elementwise.def), and of the other ops
// that act on each element or each row alike.
#include <algorithm>

#include "compiler/vmap/batch.h"

namespace mycel::ir {

// One input, and an op that does the same to every element (or, for TopK and Dropout, the
// same to every row of the last axis, every element independently): the batch is one more
// leading axis.
Node* batch_unary(BatchArgs& a) { return a.call({a.in.begin(), a.in.end()}, a.attrs); }

// Broadcasting ops (binary arithmetic, comparisons, logic, Select): the per-example operands
// broadcast right-aligned, so each batched one is brought to the per-example output rank with
// 1s after its batch axis; unbatched ones broadcast against them as they are.
Node* batch_broadcast(BatchArgs& a) {
  int64_t r = 0;
  for (size_t i = 0; i < a.in.size(); ++i) r = std::max(r, a.rank(i));
  std::vector<Node*> xs;
  for (size_t i = 0; i < a.in.size(); ++i) xs.push_back(a.aligned(i, r));
  return a.call(xs, a.attrs);
}

}  // namespace mycel::ir
