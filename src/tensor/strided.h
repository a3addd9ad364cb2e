// StridedLoop<K>: walks K operands of one shape with their own strides (0 for broadcast
// dimensions), handing the innermost dimension to a callback as one 1-d run:
//
//   inner(n, char* ptrs[K], const int64_t byte_strides[K])
//
// Dimensions that are contiguous in every operand are merged first, so a contiguous or
// broadcast-scalar case becomes one long run that the callback can vectorise. Rows of the
// outer dimensions can be split across threads with run(row_begin, row_end, ...).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "base/parallel.h"
#include "tensor/shape.h"

namespace mycel {

template <int K>
class StridedLoop {
 public:
  // strides[k] are element strides of operand k over `shape`; itemsize[k] its element size.
  StridedLoop(const Shape& shape, const std::array<const int64_t*, K>& strides,
              const std::array<int64_t, K>& itemsize, const std::array<char*, K>& base)
      : base_(base) {
    // Copy in reverse (innermost first), skipping size-1 dims.
    for (size_t i = shape.size(); i-- > 0;) {
      if (shape[i] == 1) continue;
      dims_.push_back(shape[i]);
      for (int k = 0; k < K; ++k) st_[k].push_back(strides[k][i] * itemsize[k]);
    }
    // Merge dim d into d-1 (the faster one) when every operand is contiguous across them.
    size_t out = 0;
    for (size_t d = 0; d < dims_.size(); ++d) {
      if (out > 0) {
        bool merge = true;
        for (int k = 0; k < K; ++k) merge &= st_[k][d] == st_[k][out - 1] * dims_[out - 1];
        if (merge) {
          dims_[out - 1] *= dims_[d];
          continue;
        }
      }
      dims_[out] = dims_[d];
      for (int k = 0; k < K; ++k) st_[k][out] = st_[k][d];
      ++out;
    }
    dims_.resize(out);
    for (int k = 0; k < K; ++k) st_[k].resize(out);
    if (dims_.empty()) {  // 0-d or all-ones: one element
      dims_.push_back(1);
      for (int k = 0; k < K; ++k) st_[k].push_back(0);
    }
  }

  int64_t inner_size() const { return dims_[0]; }
  int64_t rows() const {
    int64_t r = 1;
    for (size_t d = 1; d < dims_.size(); ++d) r *= dims_[d];
    return r;
  }
  int64_t inner_stride(int k) const { return st_[k][0]; }

  // run() over all rows, split across the threads in tasks of about grain_elems elements.
  template <class F>
  void run_parallel(int64_t grain_elems, const F& inner) const {
    const int64_t row_grain =
        std::max<int64_t>(1, grain_elems / std::max<int64_t>(1, inner_size()));
    parallel_for(0, rows(), row_grain, [&](int64_t b, int64_t e) { run(b, e, inner); });
  }

  template <class F>
  void run(int64_t row_begin, int64_t row_end, const F& inner) const {
    if (row_begin >= row_end) return;
    const size_t nd = dims_.size();
    SmallVector<int64_t, 6> idx(nd, 0);
    std::array<char*, K> ptr;
    // Position at row_begin.
    int64_t r = row_begin;
    for (size_t d = 1; d < nd; ++d) {
      idx[d] = r % dims_[d];
      r /= dims_[d];
    }
    for (int k = 0; k < K; ++k) {
      ptr[k] = base_[k];
      for (size_t d = 1; d < nd; ++d) ptr[k] += idx[d] * st_[k][d];
    }
    std::array<int64_t, K> inner_st;
    for (int k = 0; k < K; ++k) inner_st[k] = st_[k][0];
    for (int64_t row = row_begin; row < row_end; ++row) {
      inner(dims_[0], ptr.data(), inner_st.data());
      // Advance the odometer over dims 1..nd-1.
      for (size_t d = 1; d < nd; ++d) {
        if (++idx[d] < dims_[d]) {
          for (int k = 0; k < K; ++k) ptr[k] += st_[k][d];
          break;
        }
        for (int k = 0; k < K; ++k) ptr[k] -= (dims_[d] - 1) * st_[k][d];
        idx[d] = 0;
      }
    }
  }

 private:
  std::array<char*, K> base_;
  SmallVector<int64_t, 6> dims_;               // innermost first
  std::array<SmallVector<int64_t, 6>, K> st_;  // byte strides, innermost first
};

}  // namespace mycel
