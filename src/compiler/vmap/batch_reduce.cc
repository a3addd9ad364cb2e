// Batching rules of the ops that take axes (reductions, scans, sorts, softmax, Split, OneHot):
// the per-example axes shift past the batch axis; an empty axis list (every axis) becomes
// the list of the per-example axes, so the batch axis is never reduced.
#include "compiler/vmap/batch.h"

namespace mycel::ir {

namespace {

std::vector<int64_t> shifted(const std::vector<int64_t>& axes, int64_t rank, bool empty_is_all) {
  std::vector<int64_t> r;
  if (axes.empty() && empty_is_all)
    for (int64_t d = 0; d < rank; ++d) r.push_back(d + 1);
  for (int64_t ax : axes) r.push_back(batched_axis(ax, rank));
  return r;
}

}  // namespace

// ReduceSum & co.: axis (Ints, empty: all). A 0-d example reduces over nothing, which an empty
// list cannot say of the batched [B]: it reduces a size-1 axis added for it instead.
Node* batch_reduce(BatchArgs& a) {
  Attrs at = a.attrs;
  if (a.rank(0) == 0) {
    at.set("axis", std::vector<int64_t>{1});
    at.set("keep_dims", false);
    return a.call({a.b.reshape(a.in[0], {a.size, 1})}, at);
  }
  at.set("axis", shifted(a.attrs.get_ints("axis"), a.rank(0), true));
  return a.call({a.in[0]}, at);
}

// Softmax: axis (Ints, never empty).
Node* batch_softmax(BatchArgs& a) {
  Attrs at = a.attrs;
  at.set("axis", shifted(a.attrs.get_ints("axis"), a.rank(0), false));
  return a.call({a.in[0]}, at);
}

// One Int axis of the input (Argmax, CumSum, Sort, LogSoftmax, Split, ...). A 0-d example is
// taken as one element along a size-1 axis (its per-example results are 0-d too).
Node* batch_axis(BatchArgs& a) {
  Attrs at = a.attrs;
  IrBuilder& b = a.b;
  if (a.rank(0) == 0) {
    at.set("axis", int64_t{1});
    Node* y = a.call({b.reshape(a.in[0], {a.size, 1})}, at);
    if (y->abstract()->kind != AbsKind::Tuple) return b.reshape(y, {a.size});
    std::vector<Node*> el;
    for (size_t j = 0; j < y->abstract()->elems.size(); ++j)
      el.push_back(b.reshape(b.tuple_get(y, j), {a.size}));
    return b.make_tuple(el);
  }
  at.set("axis", batched_axis(a.attrs.get_int("axis"), a.rank(0)));
  return a.call({a.in[0]}, at);
}

// OneHot: axis counts in the output, one rank more than the indices; -1 stays last.
Node* batch_one_hot(BatchArgs& a) {
  Attrs at = a.attrs;
  const int64_t ax = a.attrs.get_int("axis");
  if (ax != -1) at.set("axis", batched_axis(ax, a.rank(0) + 1));
  return a.call({a.in[0]}, at);
}

}  // namespace mycel::ir
