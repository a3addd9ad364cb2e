// Shape and dtype rules of the reduce family (ops/defs/reduce.def).
//
// ReduceSum/Mean/Max/Min/Prod: `axis` lists the axes to reduce (empty: all of them; negative
// axes count from the end; a 0-d tensor accepts 0 and -1); each reduced axis becomes 1 with
// keep_dims, else it is dropped. Dtypes follow MindSpore: Sum and Prod of Bool give Int64,
// of integers the same integer dtype; Mean sees floats only (F_FLOAT_IN); Max and Min keep the
// dtype. Max and Min have no identity, so reducing an empty extent is a ValueError (as numpy).
//
// Argmax/Argmin: one axis, output_type Int32 or Int64, an empty axis is a ValueError.
#include <algorithm>

#include "ops/op_table.h"
#include "tensor/dynamic_shape.h"

namespace mycel {

namespace {

std::string axis_str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace

void infer_reduce(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const std::string_view op = ctx.op.name;
  const int64_t nd = static_cast<int64_t>(x.shape.size());
  const std::vector<int64_t>& axis = ctx.attrs.get_ints("axis");
  const bool keep = ctx.attrs.get_bool("keep_dims");

  SmallVector<bool, 8> reduced(static_cast<size_t>(nd), axis.empty());
  bool seen0d = false;
  for (int64_t a : axis) {
    int64_t n = normalize_axis(a, nd, op);
    bool& slot = nd == 0 ? seen0d : reduced[static_cast<size_t>(n)];
    MC_CHECK(!slot, Value, "For '", op, "', the 'axis' must not repeat an axis, but got ",
             axis_str(axis), " for an input of shape ", x.shape, ".");
    slot = true;
  }
  int64_t count = 1;
  Shape out;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      const int64_t n = x.shape[static_cast<size_t>(d)];
      count = n < 0 || count < 0 ? kDynamicDim : count * n;
      if (keep) out.push_back(1);
    } else {
      out.push_back(x.shape[static_cast<size_t>(d)]);
    }
  }

  DType dt = x.dtype;
  switch (ctx.op.id) {
    case OpId::ReduceSum:
    case OpId::ReduceProd:
      if (dt == DType::Bool) dt = DType::Int64;
      break;
    case OpId::ReduceMean:
      MC_ASSERT(is_floating(dt) || is_complex(dt), "ReduceMean input must arrive as a float");
      break;
    case OpId::ReduceMax:
    case OpId::ReduceMin:
      MC_CHECK(!is_complex(dt), Type, "For '", op,
               "', complex inputs are not supported (complex numbers have no order), but got "
               "dtype ",
               dt, ".");
      MC_CHECK(count != 0, Value, "For '", op,
               "', cannot reduce an empty extent: the input of shape ", x.shape,
               " has no elements along axis ", axis_str(axis), ", and '", op, "' has no identity.");
      break;
    default:
      MC_ASSERT(false, "infer_reduce on ", op);
  }
  ctx.out.push_back({dt, std::move(out)});
}

void infer_arg_reduce(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const std::string_view op = ctx.op.name;
  const int64_t nd = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalize_axis(ctx.attrs.get_int("axis"), nd, op);
  const DType ot = ctx.attrs.get_dtype("output_type");
  MC_CHECK(ot == DType::Int32 || ot == DType::Int64, Type, "For '", op,
           "', the 'output_type' must be Int32 or Int64, but got ", ot, ".");
  Shape out;
  if (nd > 0) {
    const int64_t n = x.shape[static_cast<size_t>(axis)];
    MC_CHECK(n != 0, Value, "For '", op, "', cannot reduce an empty axis: the input of shape ",
             x.shape, " has size 0 along axis ", axis, ".");
    out = x.shape;
    if (ctx.attrs.get_bool("keep_dims"))
      out[static_cast<size_t>(axis)] = 1;
    else
      out.erase(out.begin() + axis);
  }
  ctx.out.push_back({ot, std::move(out)});
}

}  // namespace mycel
