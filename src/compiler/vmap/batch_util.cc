// What the batching rules share (batch.h): the BatchArgs helpers, axis moves, folding the batch
// into a leading axis, the generic per-example rule, and the table built from
// compiler/vmap/defs/*.def.
#include <array>

#include "base/error.h"
#include "compiler/vmap/batch.h"

namespace mycel::ir {

int64_t BatchArgs::rank(size_t i) const {
  return static_cast<int64_t>(IrBuilder::shape_of(in[i]).size()) - (batched[i] ? 1 : 0);
}

Node* BatchArgs::full(size_t i) const {
  if (batched[i]) return in[i];
  Shape s = IrBuilder::shape_of(in[i]);
  Shape one = s;
  one.insert(one.begin(), 1);
  s.insert(s.begin(), size);
  return b.broadcast_to(b.reshape(in[i], one), s);
}

Node* BatchArgs::aligned(size_t i, int64_t r) const {
  if (!batched[i]) return in[i];
  const Shape& s = IrBuilder::shape_of(in[i]);
  const int64_t have = static_cast<int64_t>(s.size()) - 1;
  if (have >= r) return in[i];
  Shape t{s[0]};
  for (int64_t k = have; k < r; ++k) t.push_back(1);
  for (auto it = s.begin() + 1; it != s.end(); ++it) t.push_back(*it);
  return b.reshape(in[i], t);
}

Node* BatchArgs::call(std::vector<Node*> inputs, const Attrs& at) const {
  return b.prim(op.id, std::move(inputs), at);
}

Node* move_axis(IrBuilder& b, Node* x, int64_t from, int64_t to) {
  if (from == to) return x;
  const int64_t r = static_cast<int64_t>(IrBuilder::shape_of(x).size());
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return b.transpose(x, perm);
}

int64_t batched_axis(int64_t axis, int64_t rank) {
  MC_CHECK(axis >= -rank && axis < std::max<int64_t>(rank, 1), Value, "vmap: axis ", axis,
           " is out of range for a per-example rank of ", rank);
  return (axis < 0 ? axis + rank : axis) + 1;
}

Node* fold_batch(IrBuilder& b, Node* x) {
  const Shape& s = IrBuilder::shape_of(x);
  MC_ASSERT(s.size() >= 2, "vmap: folding the batch of a value of rank ", s.size());
  Shape t{s[0] * s[1]};
  for (auto it = s.begin() + 2; it != s.end(); ++it) t.push_back(*it);
  return b.reshape(x, t);
}

Node* unfold_batch(IrBuilder& b, Node* x, int64_t size) {
  const Shape& s = IrBuilder::shape_of(x);
  Shape t{size, size == 0 ? 0 : s[0] / size};
  for (auto it = s.begin() + 1; it != s.end(); ++it) t.push_back(*it);
  return b.reshape(x, t);
}

// The generic rule: the call once per example (inputs sliced at b, unbatched ones as they
// are), each output's results stacked on a new axis 0. For ops whose batched form the table
// cannot express more cheaply (a mean over the batch that must stay per example, gradients
// summed over leading axes that must not include the batch).
Node* batch_loop(BatchArgs& a) {
  IrBuilder& b = a.b;
  MC_CHECK(a.size > 0, Value, "vmap: ", a.op.name,
           " is batched example by example, which needs a "
           "batch size of at least 1");
  std::vector<std::vector<Node*>> outs;
  bool multi = false;
  for (int64_t k = 0; k < a.size; ++k) {
    std::vector<Node*> xs;
    for (size_t i = 0; i < a.in.size(); ++i) {
      if (!a.batched[i]) {
        xs.push_back(a.in[i]);
        continue;
      }
      Attrs s;
      const size_t r = IrBuilder::shape_of(a.in[i]).size();
      std::vector<int64_t> begin(r, 0), end(r, 0), strides(r, 1);
      begin[0] = k;
      end[0] = k + 1;
      s.set("begin", begin);
      s.set("end", end);
      s.set("strides", strides);
      s.set("end_mask", static_cast<int64_t>(((int64_t{1} << r) - 1) & ~int64_t{1}));
      s.set("shrink_axis_mask", int64_t{1});
      xs.push_back(b.prim(OpId::StridedSlice, {a.in[i]}, s));
    }
    Node* y = a.call(xs, a.attrs);
    multi = y->abstract()->kind == AbsKind::Tuple;
    std::vector<Node*> ys;
    if (multi) {
      for (size_t j = 0; j < y->abstract()->elems.size(); ++j) ys.push_back(b.tuple_get(y, j));
    } else {
      ys.push_back(y);
    }
    outs.push_back(std::move(ys));
  }
  std::vector<Node*> stacked;
  for (size_t j = 0; j < outs[0].size(); ++j) {
    std::vector<Node*> col;
    for (auto& o : outs) col.push_back(o[j]);
    Attrs st;
    st.set("axis", int64_t{0});
    stacked.push_back(b.prim(OpId::Stack, col, st));
  }
  return multi ? b.make_tuple(stacked) : stacked[0];
}

// ---------------------------------------------------------------- the table

namespace {

struct Entry {
  BatchFn fn = nullptr;
  const char* why = nullptr;
};

constexpr std::array<Entry, kNumOps> make_table() {
  std::array<Entry, kNumOps> t{};
#define VMAP(op, rule) t[static_cast<size_t>(OpId::op)].fn = &rule;
#define NOVMAP(op, reason) t[static_cast<size_t>(OpId::op)].why = reason;
#include "compiler/vmap/defs/all.def"
#undef NOVMAP
#undef VMAP
  return t;
}

constexpr std::array<Entry, kNumOps> kTable = make_table();

}  // namespace

BatchFn batch_rule(OpId op) { return kTable[static_cast<size_t>(op)].fn; }
const char* no_batch_reason(OpId op) { return kTable[static_cast<size_t>(op)].why; }

}  // namespace mycel::ir
