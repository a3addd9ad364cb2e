// simplify: algebraic simplification, every rewrite checked against the abstracts so that
// broadcasting and dtype promotion are never lost. In each graph, in topological order:
//
//   Mul(x, 1), Mul(1, x), Div(x, 1)      -> x     when the result's dtype and shape are x's
//   Add(x, 0), Add(0, x), Sub(x, 0)      -> x     (1 / 0: a constant tensor, every element)
//   Neg(Neg(x))                          -> x
//   Cast(x, dt)                          -> x     when x already has dtype dt
//   Transpose(x, identity)               -> x
//   Transpose(Transpose(x, p), q)        -> Transpose(x, p∘q), or x when that is identity
//   R(x)                                 -> x     R a reshaping op (Reshape, ExpandDims,
//                                                 Squeeze, Flatten) or BroadcastTo/Tile,
//                                                 when the result has x's dtype and shape
//   R2(R1(x))                            -> Reshape(x, shape of R2)   R1, R2 reshaping ops
//                                                 (they only reinterpret row-major data)
//   OnesLike(x), ZerosLike(x)            -> Fill{x's dtype and shape, 1 or 0}: x's value is
//                                                 not needed (a gradient's seed), fold may
//                                                 make it a constant
//
// An op carrying a sharding strategy (kStrategyAttr: Primitive.shard, or a layout hint of
// mycel.shard, a Reshape to the same shape) is never rewritten or merged into another: it is
// where the parallel rewrite lays its tensor out.
//
// In a program with update ops, an operand that is a parameter of the root (a weight or an
// input, maybe read through depend) or a tensor an op writes in place (OpDef::writes; an
// update's output is its variable: detail::storage_root) is not taken for the result: the
// op's fresh value must not alias a tensor that an update writes later. Nor is an op whose
// own result an update writes rewritten: the write would go into the operand, which other
// readers hold (`z = y * 2; w = z + 0; ops.assign(w, x)` must leave z alone).
//
// Exactness: every rewrite gives bit-identical results, except x + 0.0 -> x, which keeps
// the sign of a -0.0 element of x (IEEE gives +0.0 there).
// Pre: specialised IR. Post: the same program; rewritten nodes keep their abstracts.
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"
#include "ops/op_table.h"
#include "tensor/dynamic_shape.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr int64_t kMaxScanNumel = int64_t{1} << 16;

// Tensor abstracts of the same dtype and shape.
// Two dynamic shapes that print alike may differ at run time (a Tile of a dynamic axis keeps
// its -1), so they are never the same type.
bool same_type(const Node* a, const Node* b) {
  const AbsPtr& x = a->abstract();
  const AbsPtr& y = b->abstract();
  return x != nullptr && y != nullptr && x->kind == AbsKind::Tensor && y->kind == AbsKind::Tensor &&
         x->dtype == y->dtype && x->shape == y->shape && !is_dynamic(x->shape);
}

// n is a constant tensor whose every element equals v.
bool is_splat(const Node* n, double v) {
  const Value* c = detail::const_value(n);
  if (c == nullptr || !c->is(ValueKind::Tensor)) return false;
  const Tensor& t = c->as_tensor();
  if (t.numel() > kMaxScanNumel || is_complex(t.dtype())) return false;  // no complex splats
  for (int64_t i = 0; i < t.numel(); ++i)
    if (t.element_as_double(i) != v) return false;
  return true;
}

bool is_reshaping(OpId id) {
  return id == OpId::Reshape || id == OpId::ExpandDims || id == OpId::Squeeze ||
         id == OpId::Flatten;
}

ValueNode* prim_value(Module& m, const OpDef& op, const Attrs& given, SourceSpan span) {
  Value v = Value::prim(op, make_attrs(op, given));
  ValueNode* n = m.value(v, span);
  n->set_abstract(Abstract::constant(v));
  return n;
}

std::vector<int64_t> normalized_perm(const std::vector<int64_t>& p) {
  std::vector<int64_t> r(p);
  for (int64_t& a : r)
    if (a < 0) a += static_cast<int64_t>(p.size());
  return r;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// One rewrite of c; returns whether it changed anything.
// `keep`: the graph whose parameters are never taken for a result (null: none); `written`:
// the tensors (depends stripped) that ops write in place, never taken for a result either.
// Whether x is a call of an op that carries a sharding strategy (kept as it is).
bool sharded(const Node* x) {
  const PrimData* p = x->is_cnode() ? static_cast<const CNode*>(x)->prim() : nullptr;
  return p != nullptr && p->attrs.has(kStrategyAttr);
}

bool simplify_node(Module& m, detail::Rewriter& rw, CNode* c, const FuncGraph* keep,
                   const std::unordered_set<const Node*>& written) {
  const PrimData* p = c->prim();
  if (p == nullptr || sharded(c)) return false;
  OpId id = p->op->id;
  auto to = [&](Node* x) {
    // A weight or input of the entry (read through depend or not) stays computed: the
    // result is a fresh value that a later in-place update of the weight must not change.
    const Node* r = detail::storage_root(x);
    if (keep != nullptr && r->is_param() && r->graph() == keep) return false;
    if (written.count(r) != 0 || written.count(c) != 0) return false;
    rw.replace(c, x);
    return true;
  };
  switch (id) {
    case OpId::Mul:
      if (is_splat(c->input(2), 1) && same_type(c, c->input(1))) return to(c->input(1));
      if (is_splat(c->input(1), 1) && same_type(c, c->input(2))) return to(c->input(2));
      return false;
    case OpId::Div:
      if (is_splat(c->input(2), 1) && same_type(c, c->input(1))) return to(c->input(1));
      return false;
    case OpId::Add:
      if (is_splat(c->input(2), 0) && same_type(c, c->input(1))) return to(c->input(1));
      if (is_splat(c->input(1), 0) && same_type(c, c->input(2))) return to(c->input(2));
      return false;
    case OpId::Sub:
      if (is_splat(c->input(2), 0) && same_type(c, c->input(1))) return to(c->input(1));
      return false;
    case OpId::Neg:
      if (CNode* inner = detail::as_prim_call(c->input(1), OpId::Neg))
        if (same_type(c, inner->input(1))) return to(inner->input(1));
      return false;
    case OpId::Cast:
      if (same_type(c, c->input(1))) return to(c->input(1));
      return false;
    case OpId::Transpose: {
      std::vector<int64_t> q = normalized_perm(p->attrs.get_ints("perm"));
      if (is_identity(q) && same_type(c, c->input(1))) return to(c->input(1));
      CNode* inner = detail::as_prim_call(c->input(1), OpId::Transpose);
      if (inner == nullptr || sharded(inner)) return false;
      std::vector<int64_t> pp = normalized_perm(inner->prim()->attrs.get_ints("perm"));
      if (pp.size() != q.size()) return false;
      std::vector<int64_t> r(q.size());
      for (size_t i = 0; i < q.size(); ++i) r[i] = pp[static_cast<size_t>(q[i])];
      Node* x = inner->input(1);
      if (is_identity(r) && same_type(c, x)) return to(x);
      Attrs a;
      a.set("perm", r);
      c->set_input(0, prim_value(m, *p->op, a, c->callee()->span()));
      c->set_input(1, x);
      return true;
    }
    case OpId::BroadcastTo:
    case OpId::Tile:
      if (same_type(c, c->input(1))) return to(c->input(1));
      return false;
    case OpId::OnesLike:
    case OpId::ZerosLike: {
      // Only x's type is read: a Fill of it, independent of x's value.
      const AbsPtr& a = c->abstract();
      if (a == nullptr || a->kind != AbsKind::Tensor || is_dynamic(a->shape)) return false;
      Attrs at;
      at.set("dtype", a->dtype);
      at.set("shape", std::vector<int64_t>(a->shape.begin(), a->shape.end()));
      at.set("value", id == OpId::OnesLike ? 1.0 : 0.0);
      c->set_inputs({prim_value(m, op_def(OpId::Fill), at, c->callee()->span())});
      return true;
    }
    default:
      break;
  }
  if (!is_reshaping(id)) return false;
  if (same_type(c, c->input(1))) return to(c->input(1));
  CNode* inner = c->input(1)->is_cnode() ? static_cast<CNode*>(c->input(1)) : nullptr;
  if (inner == nullptr || inner->prim() == nullptr || !is_reshaping(inner->prim()->op->id) ||
      sharded(inner))
    return false;
  if (c->abstract() == nullptr || c->abstract()->kind != AbsKind::Tensor) return false;
  Node* x = inner->input(1);
  if (same_type(c, x)) return to(x);
  if (id != OpId::Reshape) {
    std::vector<int64_t> shape(c->abstract()->shape.begin(), c->abstract()->shape.end());
    Attrs a;
    a.set("shape", shape);
    c->set_input(0, prim_value(m, op_def(OpId::Reshape), a, c->callee()->span()));
  }
  c->set_input(1, x);
  return true;
}

}  // namespace

bool simplify(Module& m, FuncGraph* root) {
  detail::RewritePass pass(m, root);
  const FuncGraph* keep = nullptr;  // the root's parameters, when the program updates state
  const std::unordered_set<const Node*> written = detail::written_storages(pass.w.nodes);
  for (CNode* c : pass.w.nodes)
    if (c->prim() != nullptr && (c->prim()->op->flags & F_UPDATE) != 0) keep = root;
  return pass.run([&](CNode* c) {
    return c->prim() != nullptr && c->size() >= 2 && simplify_node(m, pass.rw, c, keep, written);
  });
}

}  // namespace mycel::compiler
