// The specialiser's rules for op-table primitives: binding tensor inputs and call-time
// attributes, weak Python scalars, the casts an op's flags ask for, output inference, and
// the tensor forms of Python operators and indexing.
#include <algorithm>
#include <string>

#include "base/error.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/specialize_impl.h"
#include "ops/indexing.h"
#include "ops/op_semantics.h"
#include "ops/weak_scalar.h"

namespace mycel::ir::spec {

namespace {

// Whether a holds a dynamic dimension read from x.shape (what an error says when such a
// value must be constant).
bool holds_dim(const AbsPtr& a) {
  if (a->kind == AbsKind::Scalar) return a->dim;
  for (const AbsPtr& e : a->elems)
    if (holds_dim(e)) return true;
  return false;
}

// An attribute value from a constant.
AttrValue to_attr(const Value& v) {
  switch (v.kind()) {
    case ValueKind::None:
      return std::monostate{};
    case ValueKind::Bool:
      return v.as_bool();
    case ValueKind::Int:
      return v.as_int();
    case ValueKind::Float:
      return v.as_float();
    case ValueKind::Str:
      return v.as_str();
    case ValueKind::DType:
      return v.as_dtype();
    case ValueKind::Tuple:
    case ValueKind::List: {
      std::vector<int64_t> out;
      for (const Value& e : v.items()) {
        if (e.is_sequence()) {
          for (const Value& x : e.items()) {
            MC_CHECK(x.is(ValueKind::Int), Type, "expected a tuple of ints, but it holds ",
                     x.to_string(), ".");
            out.push_back(x.as_int());
          }
        } else {
          MC_CHECK(e.is(ValueKind::Int) || e.is(ValueKind::Bool), Type,
                   "expected a tuple of ints, but it holds ", e.to_string(), ".");
          out.push_back(e.as_int());
        }
      }
      return out;
    }
    default:
      break;
  }
  MC_THROW(Type, "an attribute cannot be ", v.to_string());
}

DType default_scalar_dtype(ValueKind k) {
  return k == ValueKind::Bool ? DType::Bool : k == ValueKind::Int ? DType::Int64 : DType::Float32;
}

ScalarKind scalar_kind(ValueKind k) {
  return k == ValueKind::Bool  ? ScalarKind::Bool
         : k == ValueKind::Int ? ScalarKind::Int
                               : ScalarKind::Float;
}

Scalar to_scalar(const Value& v) {
  if (v.is(ValueKind::Bool)) return Scalar::from_bool(v.as_bool());
  if (v.is(ValueKind::Int)) return Scalar::from_int(v.as_int());
  return Scalar::from_float(v.as_float());
}

// A constant nested sequence of numbers as a tensor (numpy's rules: float32 for floats).
bool flatten_numbers(const Value& v, Shape& shape, size_t depth, std::vector<Value>& out) {
  if (v.is_scalar()) {
    if (depth != shape.size()) return false;
    out.push_back(v);
    return true;
  }
  if (!v.is_sequence()) return false;
  int64_t n = static_cast<int64_t>(v.items().size());
  if (depth == shape.size())
    shape.push_back(n);
  else if (depth > shape.size() || shape[depth] != n)
    return false;
  for (const Value& e : v.items())
    if (!flatten_numbers(e, shape, depth + 1, out)) return false;
  return true;
}

}  // namespace

Node* Specializer::to_tensor(Ctx* c, Node* x, const DType* like, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (a->kind == AbsKind::Tensor) return x;
  if (a->kind == AbsKind::Scalar && a->stype != ValueKind::None && a->stype != ValueKind::Str) {
    DType t =
        like ? promote_with_scalar(*like, scalar_kind(a->stype)) : default_scalar_dtype(a->stype);
    if (a->value) return constant(Value::tensor(Tensor::scalar(to_scalar(*a->value), t)), sp);
    return emit_builtin(c, Builtin::ScalarToTensor, {x, constant(Value::dtype(t), sp)},
                        Abstract::tensor(t, {}), sp);
  }
  if (a->value && a->value->is_sequence()) {
    Shape shape;
    std::vector<Value> flat;
    if (flatten_numbers(*a->value, shape, 0, flat)) {
      bool any_float = false, all_bool = !flat.empty();
      for (const Value& v : flat) {
        any_float = any_float || v.is(ValueKind::Float);
        all_bool = all_bool && v.is(ValueKind::Bool);
      }
      DType t = any_float ? DType::Float32 : all_bool ? DType::Bool : DType::Int64;
      Tensor out = Tensor::empty(shape, t);
      for (size_t i = 0; i < flat.size(); ++i) {
        Tensor e = Tensor::scalar(to_scalar(flat[i]), t);
        out.reshape({static_cast<int64_t>(flat.size())})
            .slice(0, static_cast<int64_t>(i), static_cast<int64_t>(i) + 1, 1)
            .copy_from(e.reshape({1}));
      }
      return constant(Value::tensor(out), sp);
    }
  }
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List) {
    std::vector<Node*> items;
    for (Node* e : unpack(c, x, sp)) items.push_back(to_tensor(c, e, like, sp));
    MC_CHECK(!items.empty(), Type, "cannot make a tensor of an empty sequence");
    Attrs at;
    return emit_prim(c, op_def(OpId::Stack), at, items, sp);
  }
  MC_THROW(Type, "expected a tensor or a number, but got ", a->to_string());
}

Node* Specializer::emit_prim(Ctx* c, const OpDef& op, Attrs attrs, std::vector<Node*> inputs,
                             const SourceSpan& sp) {
  // A Parameter is read where an op uses it (MindSpore's Load at the use): `a = self.p`
  // bound before an effect and used after it sees the new value, as in PYNATIVE mode; so is
  // a tensor an update has written (written_).
  if (c->state != nullptr)
    for (Node*& in : inputs)
      if (read_after_effects(in)) in = after_state(c, in, sp);
  for (Node* n : inputs)
    MC_ASSERT(n->abstract() && n->abstract()->kind == AbsKind::Tensor, "prim input not a tensor");
  IrBuilder b(out_, c->out, sp);
  IrBuilder::Typed t;
  try {
    if (op.num_inputs != kVariadic)
      MC_CHECK(inputs.size() == static_cast<size_t>(op.num_inputs), Type, "expected ",
               op.num_inputs, " tensor inputs, but got ", inputs.size(), ".");
    t = b.type_prim(op, std::move(inputs), attrs);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) throw;
    std::string m = e.message();
    if (m.rfind("For '", 0) != 0) m = str("For '", op.name, "', ", m);
    fail(e.kind(), sp, m);
  }
  // An update (Assign, optimizer steps) writes its first n_out inputs after the state and
  // is the state for what follows.
  const bool update = (op.flags & F_UPDATE) != 0;
  if (update)
    for (size_t i = 0; i < t.inputs.size() && i < static_cast<size_t>(op.num_outputs); ++i)
      t.inputs[i] = after_state(c, t.inputs[i], sp);
  if (update || op.writes != 0)
    for (size_t i = 0; i < t.inputs.size(); ++i)
      if ((update && i < static_cast<size_t>(op.num_outputs)) || writes_input(op, i)) {
        // A tensor known at compile time (a global Tensor, or one made on the host while
        // specialising) is a constant of the compiled program: written, it would keep the
        // value across calls, and its reads (constants) would not see the write.
        const AbsPtr& a = t.inputs[i]->abstract();
        if (a != nullptr && a->is_const() && a->value->is(ValueKind::Tensor))
          fail(ErrorKind::Type, sp,
               str("For '", op.name, "', input ", i,
                   " is written in place but is a tensor known at compile time (a global "
                   "Tensor, or one created in the function from constants): graph mode "
                   "compiles it as a constant. Write a Parameter, or a tensor the function "
                   "computes (ops.zeros, ops.zeros_like), instead."));
        mark_written(t.inputs[i]);
      }
  // Inside a recomputed Cell: the mark, unless the primitive has its own (Primitive.recompute)
  // or the op draws random numbers, writes or communicates (their outputs are kept).
  if (c->recompute != 0 && (op.flags & kEffectFlags) == 0 && !t.attrs.has(kRecomputeAttr))
    t.attrs.set(kRecomputeAttr, c->recompute);
  Node* var = update && !t.inputs.empty() ? t.inputs[0] : nullptr;
  CNode* r = b.emit_typed(op, std::move(t));
  if (update) took_effect(c, r);
  // A computed tensor written by Assign/AssignAdd reads as the update from now on (updated_).
  if (op.id == OpId::Assign || op.id == OpId::AssignAdd) note_update(var, r);
  return r;
}

namespace {
// Whether keyword k is input name `names` ("x" or "x|input": the spellings MindSpore's
// versions use).
bool names_input(const std::string& names, const std::string& k) {
  size_t start = 0;
  while (true) {
    size_t end = names.find('|', start);
    if (names.compare(start, end == std::string::npos ? std::string::npos : end - start, k) == 0)
      return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

// Tensor inputs given by keyword (P.MatMul()(x=a, y=b); MindSpore's input names, `names`, in
// the op's input order): moved to their positions in `args`, so that the call is the
// positional one. Keywords naming call-time attributes stay in `kw`; any other keyword is a
// TypeError naming the op and the names it takes.
void bind_input_keywords(const OpDef& op, const std::vector<std::string>& names,
                         std::vector<Node*>& args, KwNodes& kw) {
  const size_t n = op.num_inputs == kVariadic ? 1 : static_cast<size_t>(op.num_inputs);
  std::vector<Node*> slots(std::max(n, args.size()), nullptr);
  std::copy(args.begin(), args.end(), slots.begin());
  KwNodes rest;
  bool moved = false;
  for (auto& [k, v] : kw) {
    auto it = std::find_if(names.begin(), names.end(),
                           [&](const std::string& s) { return names_input(s, k); });
    const size_t i = static_cast<size_t>(it - names.begin());
    if (it != names.end() && i >= n) {  // MindSpore's name of a call-time attribute
      size_t j = n;
      for (const AttrSpec& s : op.attrs)
        if (s.when == AttrWhen::Call && j++ == i) rest.emplace_back(s.name, v);
      MC_CHECK(j > i, Type, "For '", op.name, "', input name '", k, "' has no attribute.");
      continue;
    }
    if (it == names.end()) {
      bool attr = std::any_of(op.attrs.begin(), op.attrs.end(), [&](const AttrSpec& s) {
        return s.when == AttrWhen::Call && s.name == k;
      });
      if (!attr) {
        std::string valid;
        for (size_t j = 0; j < names.size(); ++j) {
          std::string one = names[j];
          std::replace(one.begin(), one.end(), '|', '/');
          valid += (valid.empty() ? "'" : ", '") + one + "'";
        }
        for (const AttrSpec& s : op.attrs)
          if (s.when == AttrWhen::Call)
            valid += std::string(valid.empty() ? "'" : ", '") + s.name + "'";
        MC_THROW(Type, "For '", op.name, "', got an unexpected keyword argument '", k,
                 "'; its call takes ", valid.empty() ? std::string("no keyword arguments") : valid,
                 ".");
      }
      rest.emplace_back(k, v);
      continue;
    }
    MC_CHECK(slots[i] == nullptr, Type, "For '", op.name, "', got multiple values for input '", k,
             "'.");
    slots[i] = v;
    moved = true;
  }
  kw = std::move(rest);
  if (!moved) return;
  for (size_t i = 0; i < n; ++i)
    MC_CHECK(slots[i] != nullptr, Type, "For '", op.name, "', missing input '",
             i < names.size() ? names[i] : std::to_string(i), "'.");
  args.assign(slots.begin(), slots.end());
}
}  // namespace

Node* Specializer::prim_call(Ctx* c, const PrimData& p, std::vector<Node*> args, KwNodes kw,
                             const SourceSpan& sp) {
  const OpDef& op = *p.op;
  if (!kw.empty()) {
    try {
      bind_input_keywords(op, host_.op_input_names(op.name), args, kw);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      fail(e.kind(), sp, e.message());
    }
  }
  std::vector<Node*> raw;
  size_t next = 0;
  if (op.num_inputs == kVariadic) {
    MC_CHECK(!args.empty() && (args[0]->abstract()->kind == AbsKind::Tuple ||
                               args[0]->abstract()->kind == AbsKind::List),
             Type, "For '", op.name, "', the input must be a tuple or list of tensors.");
    raw = unpack(c, args[0], sp);
    next = 1;
  } else {
    size_t n = static_cast<size_t>(op.num_inputs);
    MC_CHECK(args.size() >= n, Type, "For '", op.name, "', expected ", n, " input",
             n == 1 ? "" : "s", ", but got ", args.size(), ".");
    raw.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
    next = n;
  }
  const DType* like = nullptr;
  for (Node* x : raw)
    if (x->abstract()->kind == AbsKind::Tensor) {
      like = &x->abstract()->dtype;
      break;
    }
  DType like_copy = like ? *like : DType::Float32;
  std::vector<Node*> inputs;
  for (size_t i = 0; i < raw.size(); ++i) {
    try {
      // The weak-scalar rule of both modes (ops/weak_scalar.h).
      const bool follow = like != nullptr && weak_scalar_follows_tensor(op, i);
      inputs.push_back(to_tensor(c, raw[i], follow ? &like_copy : nullptr, sp));
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      fail(e.kind(), sp, str("For '", op.name, "', input ", i, ": ", e.message()));
    }
  }
  Attrs merged = p.attrs;
  std::vector<const AttrSpec*> call_specs;
  for (const AttrSpec& s : op.attrs)
    if (s.when == AttrWhen::Call) call_specs.push_back(&s);
  size_t extra = args.size() - next;
  MC_CHECK(extra <= call_specs.size(), Type, "For Operator[", op.name,
           "], the number of inputs should be less than or equal to ", next + call_specs.size(),
           ", but got ", args.size(), " (too many arguments).");
  auto set_attr = [&](const std::string& name, Node* v) {
    MC_CHECK(
        v->abstract()->value.has_value(), Type, "For '", op.name, "', the argument '", name,
        "' must be known at compile time in graph mode, but it is ", v->abstract()->to_string(),
        holds_dim(v->abstract()) ? " (it holds a dynamic dimension of a tensor's shape, known "
                                   "only at run time; a -1 entry or ops.flatten keep one dynamic "
                                   "dimension)"
                                 : "");
    AttrValue av = to_attr(*v->abstract()->value);
    if (!std::holds_alternative<std::monostate>(av)) merged.set(name, std::move(av));
  };
  for (size_t i = 0; i < extra; ++i) set_attr(call_specs[i]->name, args[next + i]);
  for (auto& [k, v] : kw) set_attr(k, v);
  // make_attrs runs in emit_prim, whose errors name the op and the user's line.
  return emit_prim(c, op, std::move(merged), std::move(inputs), sp);
}

Node* Specializer::binary_tensor_op(Ctx* c, Builtin b, Node* x, Node* y, const SourceSpan& sp) {
  OpId id;
  switch (b) {
    case Builtin::Add:
      id = OpId::Add;
      break;
    case Builtin::Sub:
      id = OpId::Sub;
      break;
    case Builtin::Mul:
      id = OpId::Mul;
      break;
    case Builtin::TrueDiv:
      id = OpId::Div;
      break;
    case Builtin::FloorDiv:
      id = OpId::FloorDiv;
      break;
    case Builtin::Mod:
      id = OpId::FloorMod;
      break;
    case Builtin::Pow:
      id = OpId::Pow;
      break;
    case Builtin::Lt:
      id = OpId::Less;
      break;
    case Builtin::Le:
      id = OpId::LessEqual;
      break;
    case Builtin::Gt:
      id = OpId::Greater;
      break;
    case Builtin::Ge:
      id = OpId::GreaterEqual;
      break;
    case Builtin::Eq:
      id = OpId::Equal;
      break;
    case Builtin::Ne:
      id = OpId::NotEqual;
      break;
    case Builtin::BitAnd:
      id = OpId::LogicalAnd;
      break;
    case Builtin::BitOr:
      id = OpId::LogicalOr;
      break;
    case Builtin::BitXor:  // two bools (binary_rule sends the rest to Tensor.bitwise_xor)
      id = OpId::NotEqual;
      break;
    case Builtin::MatMul:
      id = OpId::MatMul;
      break;
    default:
      MC_THROW(Type, "unsupported operand types for ", builtin_name(b), ": '",
               x->abstract()->to_string(), "' and '", y->abstract()->to_string(), "'");
  }
  const DType* like =
      x->abstract()->kind == AbsKind::Tensor ? &x->abstract()->dtype : &y->abstract()->dtype;
  DType lk = *like;
  Node* tx = to_tensor(c, x, &lk, sp);
  Node* ty = to_tensor(c, y, &lk, sp);
  if (id == OpId::LogicalAnd || id == OpId::LogicalOr) {
    MC_CHECK(tx->abstract()->dtype == DType::Bool && ty->abstract()->dtype == DType::Bool, Type,
             "For '", op_def(id).name, "', both operands must be bool tensors, but got ",
             tx->abstract()->dtype, " and ", ty->abstract()->dtype, ".");
  }
  if (id == OpId::MatMul &&
      !(tx->abstract()->shape.size() == 2 && ty->abstract()->shape.size() == 2))
    id = OpId::BatchMatMul;
  const OpDef& op = op_def(id);
  return emit_prim(c, op, {}, {tx, ty}, sp);
}

Node* Specializer::unary_tensor_op(Ctx* c, Builtin b, Node* x, const SourceSpan& sp) {
  if (b == Builtin::Pos) return x;
  const DType t = x->abstract()->dtype;
  if (b == Builtin::Invert && t != DType::Bool) {
    // ~ on integers: bitwise not, -x - 1 (wrapping, so exact in every width).
    MC_CHECK(is_integral(t), Type,
             "For 'Invert', the operand of ~ must be a bool or integer tensor, but got ", t, ".");
    Node* neg = emit_prim(c, op_def(OpId::Neg), {}, {x}, sp);
    Node* one = constant(Value::tensor(Tensor::scalar(to_scalar(Value::integer(1)), t)), sp);
    return emit_prim(c, op_def(OpId::Sub), {}, {neg, one}, sp);
  }
  const OpDef& op = op_def(b == Builtin::Neg ? OpId::Neg : OpId::LogicalNot);
  return emit_prim(c, op, {}, {x}, sp);
}

namespace {

bool runtime_int(const AbsPtr& a) {
  return a->kind == AbsKind::Scalar && a->stype == ValueKind::Int && !a->value;
}

// A list or tuple of ints, some known only at run time (mycel.mutable([2, 1, 0])): an index
// tensor made at run time.
bool runtime_int_seq(const AbsPtr& a) {
  if (!(a->kind == AbsKind::List || a->kind == AbsKind::Tuple) || a->elems.empty()) return false;
  for (const AbsPtr& e : a->elems)
    if (!(e->kind == AbsKind::Scalar && e->stype == ValueKind::Int)) return false;
  return true;
}

// The item of a constant index entry (int, bool, slice, None, ...); false for what makes a
// tensor item (a constant tensor or sequence of numbers).
bool constant_item(const Value& v, IndexItem& it) {
  using Kind = IndexItem::Kind;
  if (v.is(ValueKind::Bool)) {
    // numpy: True adds an axis of size 1, as None (a bool is not the integer 1 here).
    MC_CHECK(v.as_bool(), Index,
             "x[False] selects no element (an axis of size 0); graph mode does not support it");
    it.kind = Kind::Bool;
    it.value = 1;
  } else if (v.is(ValueKind::Int)) {
    it.kind = Kind::Int;
    it.value = v.as_int();
  } else if (v.is_none()) {
    it.kind = Kind::NewAxis;
  } else if (v.is(ValueKind::Ellipsis)) {
    it.kind = Kind::Ellipsis;
  } else if (v.is(ValueKind::Slice)) {
    const SliceData& s = v.as_slice();
    it.kind = Kind::Slice;
    it.has_start = !s.start.is_none();
    it.has_stop = !s.stop.is_none();
    it.start = it.has_start ? s.start.as_int() : 0;
    it.stop = it.has_stop ? s.stop.as_int() : 0;
    it.step = s.step.is_none() ? 1 : s.step.as_int();
  } else if (v.is(ValueKind::Tensor) || v.is_sequence()) {
    return false;
  } else {
    MC_THROW(Index, "unsupported tensor index ", v.to_string(), " in graph mode");
  }
  return true;
}

}  // namespace

// x[idx]: the items described to the lowering (ops/indexing.h), its plan emitted as prims.
// Graph mode needs static shapes: no bool mask, no False; a tensor item may also be an int
// known only at run time (a loop counter), a 0-d index; several integer tensors index
// together (numpy's advanced indexing).
Node* Specializer::tensor_index(Ctx* c, Node* x, Node* idx, const SourceSpan& sp) {
  const AbsPtr& ia = idx->abstract();
  std::vector<Node*> nodes = ia->kind == AbsKind::Tuple ? unpack(c, idx, sp) : std::vector{idx};
  std::vector<IndexItem> items(nodes.size());
  std::vector<Node*> indices;  // the tensor items, as tensors
  for (size_t i = 0; i < nodes.size(); ++i) {
    const AbsPtr& e = nodes[i]->abstract();
    if (e->value && constant_item(*e->value, items[i])) continue;
    MC_CHECK(e->value || e->kind == AbsKind::Tensor || runtime_int(e) || runtime_int_seq(e), Index,
             "tensor indices must be known at compile time (ints, slices, None, ...) "
             "or an integer tensor, but got ",
             e->to_string());
    Node* t = to_tensor(c, nodes[i], nullptr, sp);
    MC_CHECK(t->abstract()->dtype != DType::Bool, Index,
             "boolean mask indexing gives a shape known only at run time; graph mode needs "
             "static shapes (use ops.masked_fill / ops.select instead)");
    items[i].kind = IndexItem::Kind::Tensor;
    items[i].dtype = t->abstract()->dtype;
    items[i].shape = t->abstract()->shape;
    indices.push_back(t);
  }
  IndexPlan p = lower_index(x->abstract()->shape, items);
  auto gather = [&](Node* t, Node* index, int64_t axis) {
    Attrs at;
    at.set("axis", axis);
    return emit_prim(c, op_def(OpId::Gather), at, {t, index}, sp);
  };
  auto ints = [](const Shape& v) { return std::vector<int64_t>(v.begin(), v.end()); };
  auto transpose = [&](Node* t, const Shape& perm) {
    if (perm.empty()) return t;
    Attrs at;
    at.set("perm", ints(perm));
    return emit_prim(c, op_def(OpId::Transpose), at, {t}, sp);
  };
  Node* y = x;
  if (p.slice) y = emit_prim(c, op_def(OpId::StridedSlice), p.slice_attrs(), {x}, sp);
  if (p.gather != IndexPlan::Gather::Index) return y;
  if (!p.flat) return gather(y, indices[0], p.axis);
  // Several integer tensors, or one whose dims come first (ops/indexing.h): the indexed axes
  // brought first and flattened, gathered at the linear positions (each index checked by a
  // Gather of arange(size)), B moved in place.
  Attrs rs;
  rs.set("shape", ints(p.flat_shape));
  y = emit_prim(c, op_def(OpId::Reshape), rs, {transpose(y, p.perm)}, sp);
  Node* lin = nullptr;
  for (size_t k = 0; k < p.items.size(); ++k) {
    Tensor r = Tensor::empty({p.sizes[k]}, DType::Int64);
    for (int64_t i = 0; i < p.sizes[k]; ++i) r.data<int64_t>()[i] = i;
    Node* ck = gather(constant(Value::tensor(r), sp), indices[k], 0);
    if (p.flat_strides[k] != 1) {
      Node* stride = constant(
          Value::tensor(Tensor::scalar(Scalar::from_int(p.flat_strides[k]), DType::Int64)), sp);
      ck = emit_prim(c, op_def(OpId::Mul), {}, {ck, stride}, sp);
    }
    lin = lin == nullptr ? ck : emit_prim(c, op_def(OpId::Add), {}, {lin, ck}, sp);
  }
  return transpose(gather(y, lin, 0), p.back_perm);
}

Node* Specializer::tensor_setitem(Ctx* c, Node* x, Node* idx, Node* v, const SourceSpan& sp) {
  MC_THROW(Type,
           "assigning into a tensor (x[i] = v) is not supported in graph mode yet; use "
           "ops.select or ops.tensor_scatter_update");
}

}  // namespace mycel::ir::spec
