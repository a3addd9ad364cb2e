// Size arithmetic that every shape maker shares: Tensor construction (and so the allocator),
// the eager and graph-mode inference of every op (runtime/eager.cc infer_op), rules that
// multiply or add dimensions (tile, concat, pad, reshape, conv and pooling sizes), the file
// loaders (MindRecord schemas, MINDIR abstracts) and the data engine's batch. A shape whose
// element count or byte size does not fit in 64 bits is a ValueError naming `what` (an op, a
// file) instead of a wrapped-around count: a 0-byte buffer that a kernel then overruns, a sum
// of nothing, a SIGFPE in a division by the wrapped count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tensor/shape.h"

namespace mycel {

// The element count; a negative dimension, or a count beyond INT64_MAX, is a ValueError. A
// shape with a 0 anywhere has 0 elements however large the rest (numpy accepts those).
int64_t checked_numel(const Shape& s, std::string_view what);
// The byte size for elements of `itemsize` bytes: at most INT64_MAX (numpy's limit for one
// array), else a ValueError. Costs one multiply-with-overflow per dimension: cheap enough for
// every op call.
int64_t checked_nbytes(const Shape& s, size_t itemsize, std::string_view what);
// a * b and a + b of sizes (a dimension times a multiple, a sum of dimensions), or a ValueError
// naming `what`, the operation and the operands.
int64_t checked_mul(int64_t a, int64_t b, std::string_view what);
int64_t checked_add(int64_t a, int64_t b, std::string_view what);

}  // namespace mycel
