// Lowering of x[index] (see indexing.h).
#include "ops/indexing.h"

#include <algorithm>
#include <string>
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
    MC_CHECK(
        p_.gather != IndexPlan::Gather::Mask && !(it.dtype == DType::Bool && !p_.items.empty()),
        Index, "a bool mask index cannot be combined with other tensor indices.");
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
    p_.items.push_back(i);
    p_.axes.push_back(out_);
    p_.sizes.push_back(x_[static_cast<size_t>(src_)]);
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

namespace {

bool integer_tensor(const IndexItem& it) {
  return it.kind == Kind::Tensor && it.dtype != DType::Bool;
}

// numpy: the advanced indices (the integer tensors, and the ints beside them) not next to
// each other in the index put B first (x[0, :, t]).
bool advanced_apart(std::span<const IndexItem> items) {
  auto advanced = [](const IndexItem& it) { return integer_tensor(it) || it.kind == Kind::Int; };
  size_t first = items.size(), last = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (advanced(items[i])) {
      first = std::min(first, i);
      last = i;
    }
  }
  for (size_t i = first; i < last; ++i) {
    if (!advanced(items[i])) return true;
  }
  return false;
}

// B, the index tensors' shapes broadcast (numpy's IndexError when they do not).
Shape index_broadcast(const IndexPlan& p, std::span<const IndexItem> items) {
  Shape b;
  for (size_t i : p.items) {
    const Shape& s = items[i].shape;
    while (b.size() < s.size()) b.insert(b.begin(), 1);
    const size_t off = b.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = b[off + d];
      if (o == 1) {
        o = s[d];
      } else if (s[d] != 1 && s[d] != o) {
        std::string shapes;
        for (size_t j : p.items) shapes += str(" ", items[j].shape);
        MC_THROW(Index,
                 "shape mismatch: indexing tensors could not be broadcast together with "
                 "shapes",
                 shapes, ".");
      }
    }
  }
  return b;
}

// The Index step's layout: B's place, and for more than one tensor or a B that comes first,
// the transposes and the flattened shape (indexing.h).
void plan_advanced(IndexPlan& p, const Shape& x, std::span<const IndexItem> items) {
  p.index_shape = index_broadcast(p, items);
  p.front = advanced_apart(items);
  p.axis = p.front ? 0 : p.axes[0];
  p.flat = p.items.size() > 1 || p.front;
  if (!p.flat) return;
  const Shape& y = p.slice ? p.spec.out_shape : x;  // the sliced result's shape
  for (int64_t d : y)
    MC_CHECK(d >= 0, Index, "indexing with several tensors (or one after a slice, None or ",
             "'...' that follows an int) needs a static shape, but got ", y, ".");
  const auto rank = static_cast<int64_t>(y.size());
  Shape perm(p.axes.begin(), p.axes.end()), rest;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(p.axes.begin(), p.axes.end(), d) == p.axes.end()) {
      perm.push_back(d);
      rest.push_back(y[static_cast<size_t>(d)]);
    }
  }
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && perm[static_cast<size_t>(d)] == d;
  if (!identity) p.perm = perm;
  int64_t n = 1;
  p.flat_strides.resize(p.sizes.size(), 1);
  for (size_t k = p.sizes.size(); k-- > 0;) {
    p.flat_strides[k] = n;
    n *= p.sizes[k];
  }
  p.flat_shape = rest;
  p.flat_shape.insert(p.flat_shape.begin(), n);
  if (!p.front && p.axis > 0) {
    // B + rest -> rest[:axis] + B + rest[axis:]
    const auto nb = static_cast<int64_t>(p.index_shape.size());
    for (int64_t d = 0; d < p.axis; ++d) p.back_perm.push_back(nb + d);
    for (int64_t d = 0; d < nb; ++d) p.back_perm.push_back(d);
    for (int64_t d = nb + p.axis; d < nb + static_cast<int64_t>(rest.size()); ++d)
      p.back_perm.push_back(d);
  }
}

}  // namespace

IndexPlan lower_index(const Shape& x, std::span<const IndexItem> items) {
  const auto ndim = static_cast<int64_t>(x.size());
  const int64_t consumed = consumed_axes(items);
  MC_CHECK(consumed <= ndim, Index, "too many indices for a tensor of dimension ", ndim, ": got ",
           consumed, ".");
  IndexPlan p;
  Lowering l(x, p);
  for (size_t i = 0; i < items.size(); ++i) l.item(i, items[i], ndim - consumed);
  if (p.slice) p.spec = strided_slice_spec(x, p.slice_args(), "StridedSlice");
  if (p.gather == IndexPlan::Gather::Index) plan_advanced(p, x, items);
  return p;
}

}  // namespace mycel
