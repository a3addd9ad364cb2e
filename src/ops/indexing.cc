// Lowering of x[index] (see indexing.h).
#include "ops/indexing.h"

#include <vector>

#include "ops/op_table.h"

namespace mycel {

namespace {

using Kind = IndexItem::Kind;

// The axes of x the items index (a mask: its rank); checks there is one ellipsis at most.
int64_t consumed_axes(std::span<const IndexItem> items) {
  int64_t consumed = 0;
  bool ellipsis = false;
  for (const IndexItem& it : items) {
    switch (it.kind) {
      case Kind::NewAxis:
      case Kind::Bool:
        break;
      case Kind::Ellipsis:
        MC_CHECK(!ellipsis, Index, "an index can only have a single ellipsis ('...').");
        ellipsis = true;
        break;
      case Kind::Tensor:
        consumed += it.dtype == DType::Bool ? static_cast<int64_t>(it.shape.size()) : 1;
        break;
      default:
        ++consumed;
    }
  }
  return consumed;
}

// Builds the plan item by item: `out` is the current axis of the sliced result, `src` the
// axis of x the next item indexes.
class Lowering {
 public:
  Lowering(const Shape& x, IndexPlan& p) : x_(x), p_(p) {}

  void item(size_t i, const IndexItem& it, int64_t rest) {
    switch (it.kind) {
      case Kind::NewAxis:
      case Kind::Bool:
        if (it.kind == Kind::Bool && it.value == 0) p_.empty_axes.push_back(out_);
        p_.new_axis_mask |= entry(0, 1, 1);
        p_.slice = true;
        ++out_;
        return;
      case Kind::Ellipsis:
        p_.ellipsis_mask |= entry(0, 1, 1);
        out_ += rest;
        src_ += rest;
        return;
      case Kind::Slice: {
        MC_CHECK(it.step != 0, Value, "slice step cannot be zero");
        int64_t bit = entry(it.start, it.stop, it.step);
        if (!it.has_start) p_.begin_mask |= bit;
        if (!it.has_stop) p_.end_mask |= bit;
        p_.slice = true;
        ++out_;
        ++src_;
        return;
      }
      case Kind::Int: {
        const int64_t n = x_[static_cast<size_t>(src_)], v = it.value;
        if (!it.text.empty())
          MC_THROW(Index, "index ", it.text, " is out of bounds for dimension ", src_,
                   " with size ", n, ".");
        MC_CHECK(v >= -n && v < n, Index, "index ", v, " is out of bounds for dimension ", src_,
                 " with size ", n, ".");
        const int64_t k = v < 0 ? v + n : v;
        p_.shrink_axis_mask |= entry(k, k + 1, 1);
        p_.slice = true;
        ++src_;
        return;
      }
      case Kind::Tensor:
        tensor(i, it);
        return;
    }
  }

 private:
  // One StridedSlice entry; returns its mask bit.
  int64_t entry(int64_t b, int64_t e, int64_t s) {
    MC_CHECK(p_.begin.size() < 62, Index, "an index can have at most 62 items.");
    p_.begin.push_back(b);
    p_.end.push_back(e);
    p_.strides.push_back(s);
    return int64_t{1} << (p_.begin.size() - 1);
  }
  int64_t whole() {
    int64_t bit = entry(0, 0, 1);
    p_.begin_mask |= bit;
    p_.end_mask |= bit;
    return bit;
  }

  void tensor(size_t i, const IndexItem& it) {
    MC_CHECK(it.dtype == DType::Bool || is_integral(it.dtype), Index,
             "tensors used as indices must be integer or bool tensors, but got ", it.dtype, ".");
    MC_CHECK(p_.gather == IndexPlan::Gather::None, Index,
             "only one tensor index per indexing expression is supported.");
    if (it.dtype == DType::Bool) {
      MC_CHECK(out_ == 0, Index,
               "a bool mask index must come first (it masks the leading dimensions).");
      const auto rank = static_cast<int64_t>(it.shape.size());
      for (int64_t k = 0; k < rank; ++k) {
        MC_CHECK(it.shape[static_cast<size_t>(k)] == x_[static_cast<size_t>(src_ + k)], Index,
                 "the mask of shape ", it.shape, " does not match the indexed tensor of shape ",
                 Shape(x_.begin() + src_, x_.end()), ".");
      }
      for (int64_t k = 0; k < rank; ++k) whole();
      p_.gather = IndexPlan::Gather::Mask;
      p_.mask_rank = rank;
      p_.item = i;
      out_ += rank;
      src_ += rank;
      return;
    }
    whole();
    p_.gather = IndexPlan::Gather::Index;
    p_.axis = out_;
    p_.item = i;
    ++out_;
    ++src_;
  }

  const Shape& x_;
  IndexPlan& p_;
  int64_t out_ = 0, src_ = 0;
};

}  // namespace

SliceArgs IndexPlan::slice_args() const {
  return {begin,    end,           strides,       begin_mask,
          end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask};
}

Attrs IndexPlan::slice_attrs() const {
  Attrs a;
  a.set("begin", std::vector<int64_t>(begin.begin(), begin.end()));
  a.set("end", std::vector<int64_t>(end.begin(), end.end()));
  a.set("strides", std::vector<int64_t>(strides.begin(), strides.end()));
  a.set("begin_mask", begin_mask);
  a.set("end_mask", end_mask);
  a.set("ellipsis_mask", ellipsis_mask);
  a.set("new_axis_mask", new_axis_mask);
  a.set("shrink_axis_mask", shrink_axis_mask);
  return a;
}

IndexPlan lower_index(const Shape& x, std::span<const IndexItem> items) {
  const auto ndim = static_cast<int64_t>(x.size());
  const int64_t consumed = consumed_axes(items);
  MC_CHECK(consumed <= ndim, Index, "too many indices for a tensor of dimension ", ndim, ": got ",
           consumed, ".");
  IndexPlan p;
  Lowering l(x, p);
  for (size_t i = 0; i < items.size(); ++i) l.item(i, items[i], ndim - consumed);
  if (p.slice) p.spec = strided_slice_spec(x, p.slice_args(), "StridedSlice");
  return p;
}

}  // namespace mycel
