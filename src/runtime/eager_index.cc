// PYNATIVE indexing (see eager_index.h).
#include "runtime/eager_index.h"

#include <vector>

#include "runtime/eager.h"
#include "runtime/record.h"

namespace mycel {

namespace {

// Step 1 as a view of x, with the axes of a False made empty.
Tensor sliced(const Tensor& x, const IndexPlan& p) {
  Tensor v = p.slice ? sliced_view(x, p.spec) : x;
  for (int64_t ax : p.empty_axes) v = v.slice(ax, 0, 0, 1);
  return v;
}

// Flat positions of the true entries of a bool mask, as int64.
Tensor mask_positions(const Tensor& mask) {
  Tensor m = mask.cpu().contiguous();
  const bool* p = m.data<bool>();
  std::vector<int64_t> pos;
  for (int64_t i = 0; i < m.numel(); ++i) {
    if (p[i]) pos.push_back(i);
  }
  Tensor out = Tensor::empty({static_cast<int64_t>(pos.size())}, DType::Int64);
  std::copy(pos.begin(), pos.end(), out.data<int64_t>());
  return out;
}

Tensor gather(const Tensor& x, const Tensor& idx, int64_t axis) {
  Attrs a;
  a.set("axis", axis);
  const OpDef& op = op_def(OpId::Gather);
  const Tensor ins[2] = {x, idx};
  return run_op1(op, ins, make_attrs(op, a));
}

// The mask's leading dims flattened into one, so the positions index it.
Tensor flatten_leading(const Tensor& t, int64_t k) {
  Shape sh;
  sh.push_back(-1);
  for (int64_t i = k; i < t.ndim(); ++i) sh.push_back(t.dim(i));
  return t.reshape(sh);
}

// The view of row k of a masked write: the multi-index of the flat position `flat` over the
// mask's dims, applied from the first dim of `target`.
Tensor mask_row(const Tensor& target, const Tensor& mask, int64_t flat) {
  SmallVector<int64_t, 6> mi(static_cast<size_t>(mask.ndim()));
  for (int64_t d = mask.ndim(); d-- > 0;) {
    mi[d] = flat % mask.dim(d);
    flat /= mask.dim(d);
  }
  Tensor row = target;
  for (int64_t d = 0; d < mask.ndim(); ++d) row = row.select(0, mi[d]);
  return row;
}

}  // namespace

Tensor index_get(const Tensor& x, const IndexPlan& p, const Tensor& index) {
  Tensor v;
  if (p.slice && p.empty_axes.empty() && record::active()) {
    // The same view through the op, so that a PYNATIVE grad differentiates it.
    const OpDef& op = op_def(OpId::StridedSlice);
    v = run_op1(op, std::span<const Tensor>(&x, 1), make_attrs(op, p.slice_attrs()));
  } else {
    v = sliced(x, p);
  }
  switch (p.gather) {
    case IndexPlan::Gather::Index:
      return gather(v, index, p.axis);
    case IndexPlan::Gather::Mask:
      return gather(flatten_leading(v, p.mask_rank), mask_positions(index), 0);
    case IndexPlan::Gather::None:
      break;
  }
  return v;
}

void index_set(const Tensor& x, const IndexPlan& p, const Tensor& index, const Tensor& value) {
  const Tensor target = sliced(x, p);
  if (p.gather == IndexPlan::Gather::None) {
    target.copy_from(value.cast(x.dtype()));
    return;
  }
  // A tensor item: write through the rows it selects, one at a time. Each row of the leading
  // (flattened mask or indexed) axis is a view, so this writes into x.
  const bool masked = p.gather == IndexPlan::Gather::Mask;
  const Tensor positions =
      masked ? mask_positions(index) : index.cpu().cast(DType::Int64).contiguous().reshape({-1});
  const int64_t* pos = positions.data<int64_t>();
  const int64_t count = positions.numel();
  // The value broadcasts against the indexed result: the mask's dims flattened into one
  // leading dim of size count, or the indexed axis replaced by count (numpy's layout).
  Shape full;
  int64_t value_axis = 0;
  if (masked) {
    full.push_back(count);
    for (int64_t i = p.mask_rank; i < target.ndim(); ++i) full.push_back(target.dim(i));
  } else {
    full = target.shape();
    full[static_cast<size_t>(p.axis)] = count;
    value_axis = p.axis;
  }
  Tensor vb = value.cast(x.dtype()).expand(full, "setitem");
  for (int64_t k = 0; k < count; ++k) {
    Tensor row;
    if (masked) {
      row = mask_row(target, index, pos[k]);
    } else {
      const int64_t n = target.dim(p.axis), i = pos[k];
      MC_CHECK(i >= -n && i < n, Index, "index ", i, " is out of bounds for dimension ", p.axis,
               " with size ", n, ".");
      row = target.select(p.axis, i < 0 ? i + n : i);
    }
    row.copy_from(vb.select(value_axis, k));
  }
}

}  // namespace mycel
