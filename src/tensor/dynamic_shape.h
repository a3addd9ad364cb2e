// Dynamic shapes (Cell.set_inputs with None dimensions, jit(input_signature=...)). Only graph
// compilation sees them: a dimension known only at run time is kDynamicDim in the abstract
// shapes that specialisation infers; tensors always have known dimensions. The inference
// rules take them where the output does not need the value (that output dimension is then
// dynamic too; broadcast_shapes treats one against 1 as dynamic and against a known d > 1 as
// d), rules that need the value refuse them with check_static_dims, and the executor infers
// the ops that see them again on the run-time shapes (runtime/vm.h), checking the result
// against the compiled shape.
#pragma once

#include <cstdint>
#include <string_view>

#include "tensor/shape.h"

namespace mycel {

inline constexpr int64_t kDynamicDim = -1;
bool is_dynamic(const Shape& s);  // any dynamic dimension
// Two dimensions that may be equal at run time: equal, or one of them dynamic.
inline bool dims_agree(int64_t a, int64_t b) { return a == b || a < 0 || b < 0; }
// Whether two dimensions broadcast (numpy rules, dynamic ones as broadcast_shapes), and the
// dimension they broadcast to.
inline bool dims_broadcast(int64_t a, int64_t b) { return dims_agree(a, b) || a == 1 || b == 1; }
inline int64_t broadcast_dim(int64_t a, int64_t b) { return a == 1 || (a < 0 && b != 1) ? b : a; }
// Same rank and every pair of dimensions agrees (an equality check of shapes that may be
// dynamic).
bool shapes_agree(const Shape& a, const Shape& b);
// Whether the known shape `s` is an instance of `pattern` (same rank; pattern's known
// dimensions equal).
bool shape_matches(const Shape& pattern, const Shape& s);
// A ValueError naming op when any of s's dimensions in [from, to) is dynamic: rules whose
// output depends on a dimension's value (a spatial size, a split axis) call it.
void check_static_dims(const Shape& s, size_t from, size_t to, std::string_view op,
                       std::string_view what);

}  // namespace mycel
