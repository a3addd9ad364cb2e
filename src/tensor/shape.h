// Shapes and strides, and the checks every op shares: axis normalisation, broadcasting,
// element counts. Strides are in elements, not bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "base/small_vector.h"

namespace mycel {

using Shape = SmallVector<int64_t, 6>;

int64_t numel(const Shape& s);
Shape contiguous_strides(const Shape& s);
std::string shape_str(const Shape& s);  // "[2, 3]", "[]" for a 0-d shape
std::ostream& operator<<(std::ostream& os, const Shape& s);

// Maps axis in [-ndim, ndim) to [0, ndim); otherwise a ValueError naming op and arg.
int64_t normalize_axis(int64_t axis, int64_t ndim, std::string_view op,
                       std::string_view arg = "axis");

// The broadcast of two shapes (numpy rules), or a ValueError naming op and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op);

// Strides that read a tensor of shape `from` (with strides `strides`) as the broadcast shape
// `to`: broadcast dimensions get stride 0. `from` must broadcast to `to`.
Shape broadcast_strides(const Shape& from, const Shape& strides, const Shape& to);

}  // namespace mycel
