// Shape and dtype rules of the elementwise family (ops/defs/elementwise.def).
//
// Inputs arrive promoted (F_PROMOTE / F_FLOAT_IN), so the rules only decide what is allowed
// and broadcast the shapes (numpy rules):
//   unary     same dtype and shape; the sign-type ops (Neg, Abs, Sign, Square, ReLU, ReLU6)
//             take numbers only, the float math ops always see floats.
//   logical   LogicalNot/And/Or take bool tensors only and give bool.
//   binary    the promoted dtype. Bool works where numpy defines it (Add and Maximum as or,
//             Mul and Minimum as and); Sub, Div, FloorDiv, Mod, FloorMod and Pow reject it.
//   bitwise   BitwiseAnd/Or/Xor: bool or integer inputs only, the promoted dtype out.
//   compare   bool out.
//   select    cond must be bool; cond, x and y broadcast together; x/y's promoted dtype.
//   cast      the `dtype` attribute; like: the input's meta; fill: from the attributes.
#include <algorithm>

#include "ops/complex_ops.h"
#include "ops/op_table.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

bool is_sign_op(OpId id) {
  switch (id) {
    case OpId::Neg:
    case OpId::Abs:
    case OpId::Sign:
    case OpId::Square:
    case OpId::ReLU:
    case OpId::ReLU6:
    case OpId::Floor:
    case OpId::Ceil:
    case OpId::Round:
    case OpId::Rint:
      return true;
    default:
      return false;
  }
}

bool bool_arith_ok(OpId id) {
  switch (id) {
    case OpId::Add:
    case OpId::Mul:
    case OpId::Maximum:
    case OpId::Minimum:
      return true;
    default:
      return false;
  }
}

// The broadcast of cond, x and y, or a ValueError naming all three shapes.
Shape broadcast3(const Shape& a, const Shape& b, const Shape& c, std::string_view op) {
  size_t n = std::max({a.size(), b.size(), c.size()});
  Shape out(n, 1);
  for (const Shape* s : {&a, &b, &c}) {
    size_t off = n - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = out[off + i];
      MC_CHECK(dims_broadcast(o, d), Value, "For '", op,
               "', the shapes of cond, x and y cannot broadcast: cond.shape = ", a,
               ", x.shape = ", b, ", y.shape = ", c, ".");
      o = broadcast_dim(o, d);
    }
  }
  return out;
}

// The elementwise ops with complex loops are listed in ops/complex_ops.h; the others refuse
// complex inputs with a TypeError naming the op and the dtype.
void check_complex_ok(const InferContext& ctx) {
  for (const TensorMeta& m : ctx.in) {
    MC_CHECK(!is_complex(m.dtype) || complex_elementwise_op(ctx.op.id), Type, "For '", ctx.op.name,
             "', complex inputs are not supported, but got dtype ", m.dtype, ".");
  }
}

}  // namespace

void infer_unary(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  check_complex_ok(ctx);
  if (is_complex(x.dtype)) {  // Abs gives the modulus, in the part dtype
    ctx.out.push_back(ctx.op.id == OpId::Abs ? TensorMeta{complex_part_dtype(x.dtype), x.shape}
                                             : x);
    return;
  }
  if (is_sign_op(ctx.op.id)) {
    MC_CHECK(x.dtype != DType::Bool, Type, "For '", ctx.op.name,
             "', the input must be a number tensor, but got dtype ", x.dtype, ".");
  } else {
    MC_ASSERT(is_floating(x.dtype), ctx.op.name, " input must arrive as a float");
  }
  if (ctx.op.id == OpId::GeLU) {
    const std::string& a = ctx.attrs.get_str("approximate");
    MC_CHECK(a == "tanh" || a == "none", Value, "For '", ctx.op.name,
             "', the 'approximate' must be 'tanh' or 'none', but got '", a, "'.");
  }
  ctx.out.push_back(x);
}

void infer_logical(InferContext& ctx) {
  bool ok = true;
  for (const TensorMeta& m : ctx.in) ok &= m.dtype == DType::Bool;
  if (ctx.in.size() == 1) {
    MC_CHECK(ok, Type, "For '", ctx.op.name, "', the input must be a bool tensor, but got dtype ",
             ctx.in[0].dtype, ".");
    ctx.out.push_back(ctx.in[0]);
    return;
  }
  MC_CHECK(ok, Type, "For '", ctx.op.name, "', the inputs must be bool tensors, but got x ",
           ctx.in[0].dtype, " and y ", ctx.in[1].dtype, ".");
  ctx.out.push_back({DType::Bool, broadcast_shapes(ctx.in[0].shape, ctx.in[1].shape, ctx.op.name)});
}

void infer_binary(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const TensorMeta& y = ctx.in[1];
  MC_ASSERT(x.dtype == y.dtype, ctx.op.name, " inputs must arrive promoted");
  check_complex_ok(ctx);
  MC_CHECK(x.dtype != DType::Bool || bool_arith_ok(ctx.op.id), Type, "For '", ctx.op.name,
           "', bool inputs are not supported (use LogicalAnd/LogicalOr/LogicalNot or cast "
           "first), but got x ",
           x.dtype, " and y ", y.dtype, ".");
  ctx.out.push_back({x.dtype, broadcast_shapes(x.shape, y.shape, ctx.op.name)});
}

void infer_bitwise(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const TensorMeta& y = ctx.in[1];
  MC_ASSERT(x.dtype == y.dtype, ctx.op.name, " inputs must arrive promoted");
  MC_CHECK(!is_floating(x.dtype) && !is_complex(x.dtype), Type, "For '", ctx.op.name,
           "', the inputs must be bool or integer tensors, but got x ", x.dtype, " and y ", y.dtype,
           " (promoted to ", x.dtype, ").");
  ctx.out.push_back({x.dtype, broadcast_shapes(x.shape, y.shape, ctx.op.name)});
}

void infer_compare(InferContext& ctx) {
  check_complex_ok(ctx);  // Equal/NotEqual only: complex numbers have no order
  ctx.out.push_back({DType::Bool, broadcast_shapes(ctx.in[0].shape, ctx.in[1].shape, ctx.op.name)});
}

void infer_select(InferContext& ctx) {
  const TensorMeta& c = ctx.in[0];
  const TensorMeta& x = ctx.in[1];
  const TensorMeta& y = ctx.in[2];
  MC_CHECK(c.dtype == DType::Bool, Type, "For '", ctx.op.name,
           "', the cond must be a bool tensor, but got dtype ", c.dtype, ".");
  MC_ASSERT(x.dtype == y.dtype, ctx.op.name, " inputs must arrive promoted");
  ctx.out.push_back({x.dtype, broadcast3(c.shape, x.shape, y.shape, ctx.op.name)});
}

void infer_complex_part(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const OpId id = ctx.op.id;
  if (is_complex(x.dtype)) {
    ctx.out.push_back({id == OpId::Conj ? x.dtype : complex_part_dtype(x.dtype), x.shape});
    return;
  }
  const bool to_float = id == OpId::Angle || id == OpId::ComplexAbs;
  MC_CHECK(!to_float || !is_bool(x.dtype), Type, "For '", ctx.op.name,
           "', the input must be a number tensor, but got dtype ", x.dtype, ".");
  ctx.out.push_back({to_float && !is_floating(x.dtype) ? DType::Float32 : x.dtype, x.shape});
}

void infer_complex(InferContext& ctx) {
  const TensorMeta& re = ctx.in[0];
  const TensorMeta& im = ctx.in[1];
  MC_CHECK(re.dtype == DType::Float32 || re.dtype == DType::Float64, Type, "For '", ctx.op.name,
           "', the real and imag parts must be float32 or float64 tensors, but got ", re.dtype,
           " (the inputs promoted) for shapes ", re.shape, " and ", im.shape, ".");
  ctx.out.push_back(
      {complex_dtype_of(re.dtype), broadcast_shapes(re.shape, im.shape, ctx.op.name)});
}

void infer_cast(InferContext& ctx) {
  ctx.out.push_back({ctx.attrs.get_dtype("dtype"), ctx.in[0].shape});
}

void infer_like(InferContext& ctx) { ctx.out.push_back(ctx.in[0]); }

void infer_fill(InferContext& ctx) {
  const std::vector<int64_t>& dims = ctx.attrs.get_ints("shape");
  Shape shape(dims.begin(), dims.end());
  for (int64_t d : dims) {
    MC_CHECK(d >= 0, Value, "For '", ctx.op.name,
             "', the shape must not have negative dimensions, but got ", shape, ".");
  }
  ctx.out.push_back({ctx.attrs.get_dtype("dtype"), shape});
}

}  // namespace mycel
