#include "compiler/ad/ir_builder.h"

#include <algorithm>
#include <utility>

#include "base/error.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir {

const Abstract& IrBuilder::tensor_abs(const Node* n) {
  MC_ASSERT(n && n->abstract() && n->abstract()->kind == AbsKind::Tensor,
            "IrBuilder: expected a tensor node");
  return *n->abstract();
}

CNode* IrBuilder::emit(std::vector<Node*> inputs, AbsPtr abs) {
  CNode* n = m_.cnode(g_, std::move(inputs), sp_);
  n->set_abstract(std::move(abs));
  return n;
}

Node* IrBuilder::constant(const Value& v) {
  ValueNode* n = m_.value(v, sp_);
  n->set_abstract(Abstract::constant(v));
  return n;
}

Node* IrBuilder::builtin(Builtin b, std::vector<Node*> args, AbsPtr abs) {
  args.insert(args.begin(), constant(Value::builtin(b)));
  return emit(std::move(args), std::move(abs));
}

IrBuilder::Typed IrBuilder::type_prim(const OpDef& op, std::vector<Node*> inputs,
                                      const Attrs& given) {
  Typed t{std::move(inputs), make_attrs(op, given), nullptr};
  MC_ASSERT(op.num_inputs == kVariadic || t.inputs.size() == static_cast<size_t>(op.num_inputs),
            "IrBuilder: ", op.name, " takes ", op.num_inputs, " inputs, got ", t.inputs.size());
  std::vector<TensorMeta> metas;
  metas.reserve(t.inputs.size());
  for (Node* n : t.inputs) metas.push_back(tensor_abs(n).meta());
  std::vector<TensorMeta> want = metas;
  promote_inputs(op, want);
  MetaList outs = infer_op(op, want, t.attrs);
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    if (want[i].dtype != metas[i].dtype) t.inputs[i] = cast(t.inputs[i], want[i].dtype);
  }
  if (outs.size() == 1 && op.num_outputs == 1) {
    t.abs = Abstract::tensor(outs[0].dtype, outs[0].shape);
  } else {
    std::vector<AbsPtr> el;
    for (const TensorMeta& m : outs) el.push_back(Abstract::tensor(m.dtype, m.shape));
    t.abs = Abstract::tuple(std::move(el));
  }
  return t;
}

CNode* IrBuilder::emit_typed(const OpDef& op, Typed t) {
  t.inputs.insert(t.inputs.begin(), constant(Value::prim(op, std::move(t.attrs))));
  return emit(std::move(t.inputs), std::move(t.abs));
}

Node* IrBuilder::prim(OpId id, std::vector<Node*> inputs, const Attrs& given) {
  const OpDef& op = op_def(id);
  return emit_typed(op, type_prim(op, std::move(inputs), given));
}

Node* IrBuilder::cast(Node* x, DType t) {
  const Abstract& a = tensor_abs(x);
  if (a.dtype == t) return x;
  if (a.value && a.value->is(ValueKind::Tensor)) return constant(a.value->as_tensor().cast(t));
  Attrs ca;
  ca.set("dtype", t);
  const OpDef& op = op_def(OpId::Cast);
  return emit({constant(Value::prim(op, make_attrs(op, ca))), x}, Abstract::tensor(t, a.shape));
}

Node* IrBuilder::scalar_like(double v, Node* like) {
  return constant(Tensor::scalar(Scalar::from_float(v), dtype_of(like)));
}

Node* IrBuilder::full_like(double v, Node* like) {
  if (is_dynamic(shape_of(like)))
    return v == 0.0 ? zeros_like(like) : mul_scalar(ones_like(like), v);
  return constant(Tensor::full(shape_of(like), Scalar::from_float(v), dtype_of(like)));
}

Node* IrBuilder::make_tuple(const std::vector<Node*>& items) {
  std::vector<AbsPtr> el;
  for (Node* n : items) el.push_back(n->abstract());
  return builtin(Builtin::MakeTuple, items, Abstract::tuple(std::move(el)));
}

Node* IrBuilder::tuple_get(Node* t, size_t i) {
  const AbsPtr& a = t->abstract();
  MC_ASSERT(a && a->kind == AbsKind::Tuple && i < a->elems.size(),
            "IrBuilder: getitem of a non-tuple or out of range");
  return builtin(Builtin::GetItem, {t, constant(Value::integer(static_cast<int64_t>(i)))},
                 a->elems[i]);
}

Node* IrBuilder::reduce_sum(Node* x, std::vector<int64_t> axes, bool keep_dims) {
  Attrs a;
  a.set("axis", std::move(axes));
  a.set("keep_dims", keep_dims);
  return prim(OpId::ReduceSum, {x}, a);
}

Node* IrBuilder::reshape(Node* x, const Shape& shape) {
  if (shape_of(x) == shape) return x;
  // A dynamic dimension is -1 in Reshape's target, which allows one (the gradients of
  // reshapes keep the shapes they were given, so their targets have at most the input's).
  MC_CHECK(std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }) <= 1, Value,
           "For 'Reshape', a gradient needs x reshaped to ", shape,
           ", which has more than one dynamic dimension; dynamic shapes support one dynamic "
           "dimension through reshapes.");
  Attrs a;
  a.set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  return prim(OpId::Reshape, {x}, a);
}

Node* IrBuilder::transpose(Node* x, std::vector<int64_t> perm) {
  Attrs a;
  a.set("perm", std::move(perm));
  return prim(OpId::Transpose, {x}, a);
}

Node* IrBuilder::broadcast_to(Node* x, const Shape& shape) {
  if (shape_of(x) == shape) return x;
  MC_ASSERT(!is_dynamic(shape), "IrBuilder::broadcast_to a dynamic shape ", shape,
            ": use broadcast_like");
  Attrs a;
  a.set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  return prim(OpId::BroadcastTo, {x}, a);
}

Node* IrBuilder::broadcast_like(Node* x, Node* like) {
  const Shape& to = shape_of(like);
  if (!is_dynamic(to)) return broadcast_to(x, to);
  if (shape_of(x) == to) return x;
  return add(x, zeros_like(like));
}

Node* IrBuilder::matmul(Node* a, Node* b, bool ta, bool tb, bool batched) {
  Attrs at;
  at.set("transpose_a", ta);
  at.set("transpose_b", tb);
  return prim(batched ? OpId::BatchMatMul : OpId::MatMul, {a, b}, at);
}

Node* IrBuilder::concat(std::vector<Node*> xs, int64_t axis) {
  Attrs a;
  a.set("axis", axis);
  return prim(OpId::Concat, std::move(xs), a);
}

Node* IrBuilder::strided_slice(Node* x, std::vector<int64_t> begin, std::vector<int64_t> end,
                               std::vector<int64_t> strides) {
  Attrs a;
  a.set("begin", std::move(begin));
  a.set("end", std::move(end));
  a.set("strides", std::move(strides));
  return prim(OpId::StridedSlice, {x}, a);
}

Node* IrBuilder::sum_to(Node* dx, const Shape& shape) {
  const Shape& from = shape_of(dx);
  if (from == shape) return dx;
  MC_ASSERT(from.size() >= shape.size(), "sum_to: target has a higher rank");
  size_t lead = from.size() - shape.size();
  std::vector<int64_t> axes;
  for (size_t d = 0; d < from.size(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && from[d] != 1)) axes.push_back(static_cast<int64_t>(d));
  }
  Node* r = axes.empty() ? dx : reduce_sum(dx, axes, false);
  return reshape(r, shape);
}

}  // namespace mycel::ir
