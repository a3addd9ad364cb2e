// Gather(params, indices) along `axis` with `batch_dims` leading dimensions shared by both,
// seen as flat blocks: params as [batch, outer, n, inner] and indices as [batch, k], so that
//   out[b, o, j, :] = params[b, o, indices[b, j], :]      (out as [batch, outer, k, inner])
// with n = params.dim(axis). The CPU and CUDA Gather kernels (kernels/cpu/array_index.cc,
// kernels/cuda/array_index.cc) both walk this layout; the reference kernel (kernels/ref/)
// indexes element by element on its own, as the oracle. Host code.
#pragma once

#include <cstdint>
#include <string_view>

#include "tensor/tensor.h"

namespace mycel {

struct GatherLayout {
  int64_t axis = 0;  // normalised
  int64_t batch = 1, outer = 1, n = 1, inner = 1, k = 1;
};

// The layout of a Gather call: axis checked (naming `op`) and normalised, a negative
// batch_dims counted from indices' rank (the op's infer rule has checked its range).
inline GatherLayout gather_layout(const Tensor& params, const Tensor& indices, int64_t axis,
                                  int64_t batch_dims, std::string_view op) {
  GatherLayout l;
  const int64_t pn = params.ndim();
  l.axis = normalize_axis(axis, pn, op);
  const int64_t bd = batch_dims < 0 ? batch_dims + indices.ndim() : batch_dims;
  for (int64_t d = 0; d < bd; ++d) l.batch *= params.dim(d);
  for (int64_t d = bd; d < l.axis; ++d) l.outer *= params.dim(d);
  for (int64_t d = l.axis + 1; d < pn; ++d) l.inner *= params.dim(d);
  for (int64_t d = bd; d < indices.ndim(); ++d) l.k *= indices.dim(d);
  l.n = params.dim(l.axis);
  return l;
}

// OneHot(indices, depth, axis): the new axis of length depth goes in at `axis` of the output
// (-1: last), so indices are seen as [outer, inner] around it and the output as
// [outer, depth, inner]: out[o, indices[o, i], i] = on_value. Used by the CPU and CUDA OneHot
// kernels (the op's infer rule has checked axis).
struct OneHotLayout {
  int64_t outer = 1, inner = 1;
};

inline OneHotLayout one_hot_layout(const Tensor& indices, int64_t axis) {
  if (axis < 0) axis = indices.ndim();
  OneHotLayout l;
  for (int64_t d = 0; d < axis; ++d) l.outer *= indices.dim(d);
  for (int64_t d = axis; d < indices.ndim(); ++d) l.inner *= indices.dim(d);
  return l;
}

}  // namespace mycel
