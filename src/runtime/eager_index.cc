// PYNATIVE indexing (see eager_index.h).
#include "runtime/eager_index.h"

#include <algorithm>
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

Tensor run_with(OpId id, const Tensor& x, const char* name, const Shape& v) {
  Attrs a;
  a.set(name, std::vector<int64_t>(v.begin(), v.end()));
  const OpDef& op = op_def(id);
  return run_op1(op, std::span<const Tensor>(&x, 1), make_attrs(op, a));
}

// Index i of an advanced index, bounds-checked and made non-negative: a Gather of
// arange(size) (Gather's IndexError names the size), on the index's device.
Tensor checked_index(const Tensor& index, int64_t size) {
  Tensor r = Tensor::empty({size}, DType::Int64);
  for (int64_t k = 0; k < size; ++k) r.data<int64_t>()[k] = k;
  return gather(r.to(index.device()), index, 0);
}

// Several integer tensors, or one whose dims come first (indexing.h): the indexed axes of
// v brought first and flattened, gathered at the linear positions, B moved in place.
Tensor gather_flat(const Tensor& v, const IndexPlan& p, std::span<const Tensor> indices) {
  Tensor t = p.perm.empty() ? v : run_with(OpId::Transpose, v, "perm", p.perm);
  t = run_with(OpId::Reshape, t, "shape", p.flat_shape);
  Tensor lin;
  for (size_t k = 0; k < p.items.size(); ++k) {
    Tensor c = checked_index(indices[k], p.sizes[k]);
    if (p.flat_strides[k] != 1)
      c = run_op1(OpId::Mul, {c, Tensor::full({}, Scalar::from_int(p.flat_strides[k]), DType::Int64,
                                              c.device())});
    lin = lin.defined() ? run_op1(OpId::Add, {lin, c}) : c;
  }
  Tensor r = gather(t, lin, 0);
  return p.back_perm.empty() ? r : run_with(OpId::Transpose, r, "perm", p.back_perm);
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

Tensor index_get(const Tensor& x, const IndexPlan& p, std::span<const Tensor> indices) {
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
      return p.flat ? gather_flat(v, p, indices) : gather(v, indices[0], p.axis);
    case IndexPlan::Gather::Mask:
      return gather(flatten_leading(v, p.mask_rank), mask_positions(indices[0]), 0);
    case IndexPlan::Gather::None:
      break;
  }
  return v;
}

namespace {

// x[mask] = value: row by row over the true entries of the mask.
void mask_set(const Tensor& target, const IndexPlan& p, const Tensor& mask, const Tensor& value) {
  const Tensor positions = mask_positions(mask);
  const int64_t* pos = positions.data<int64_t>();
  const int64_t count = positions.numel();
  // The value broadcasts against the indexed result: the mask's dims flattened into one
  // leading dim of size count.
  Shape full;
  full.push_back(count);
  for (int64_t i = p.mask_rank; i < target.ndim(); ++i) full.push_back(target.dim(i));
  Tensor vb = value.cast(target.dtype()).expand(full, "setitem");
  for (int64_t k = 0; k < count; ++k) mask_row(target, mask, pos[k]).copy_from(vb.select(0, k));
}

// x[t1, t2, ...] = value: row by row over the positions of B, each row the view that
// selects the indexed axes at the indices there.
void advanced_set(const Tensor& target, const IndexPlan& p, std::span<const Tensor> indices,
                  const Tensor& value) {
  const Shape& b = p.index_shape;
  const size_t k = p.items.size();
  std::vector<Tensor> idx(k);
  for (size_t i = 0; i < k; ++i)
    idx[i] = indices[i].cpu().cast(DType::Int64).expand(b, "setitem").contiguous();
  // The result reading gives: B in place of the indexed axes (at p.axis), or first.
  Shape rest, full;
  for (int64_t d = 0; d < target.ndim(); ++d)
    if (std::find(p.axes.begin(), p.axes.end(), d) == p.axes.end()) rest.push_back(target.dim(d));
  const auto nb = static_cast<int64_t>(b.size());
  for (int64_t d = 0; d <= static_cast<int64_t>(rest.size()); ++d) {
    if (d == p.axis)
      for (int64_t e : b) full.push_back(e);
    if (d < static_cast<int64_t>(rest.size())) full.push_back(rest[static_cast<size_t>(d)]);
  }
  Tensor vb = value.cast(target.dtype()).expand(full, "setitem");
  if (p.axis > 0) {  // B first
    Shape perm;
    for (int64_t d = 0; d < nb; ++d) perm.push_back(p.axis + d);
    for (int64_t d = 0; d < p.axis; ++d) perm.push_back(d);
    for (int64_t d = p.axis + nb; d < static_cast<int64_t>(full.size()); ++d) perm.push_back(d);
    vb = vb.permute(perm, "setitem");
  }
  Shape flat = rest;
  flat.insert(flat.begin(), -1);
  vb = vb.contiguous().reshape(flat, "setitem");
  const int64_t count = vb.dim(0);
  for (int64_t j = 0; j < count; ++j) {
    Tensor row = target;
    for (size_t i = k; i-- > 0;) {  // the highest axis first, so the lower ones stay put
      const int64_t n = p.sizes[i], v = idx[i].data<int64_t>()[j];
      MC_CHECK(v >= -n && v < n, Index, "index ", v, " is out of bounds for dimension ", p.axes[i],
               " with size ", n, ".");
      row = row.select(p.axes[i], v < 0 ? v + n : v);
    }
    row.copy_from(vb.select(0, j));
  }
}

}  // namespace

void index_set(const Tensor& x, const IndexPlan& p, std::span<const Tensor> indices,
               const Tensor& value) {
  const Tensor target = sliced(x, p);
  switch (p.gather) {
    case IndexPlan::Gather::None:
      target.copy_from(value.cast(x.dtype()));
      return;
    case IndexPlan::Gather::Mask:
      mask_set(target, p, indices[0], value);
      return;
    case IndexPlan::Gather::Index:
      advanced_set(target, p, indices, value);
      return;
  }
}

}  // namespace mycel
