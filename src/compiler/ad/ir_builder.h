// IrBuilder: emits nodes of the SPECIALISED IR (see ir/anf.h) into one graph. Every typed
// prim call of the compiler is made here, the specialiser's included (its emit_prim adds the
// user's source line to errors and orders effects around type_prim/emit_typed):
//
//   prim(op, inputs, attrs):
//     1. completes the attributes with the op's defaults (make_attrs);
//     2. promotes the inputs' metas as the op's flags say (promote_inputs) and inserts a
//        Cast prim (or casts a constant in place) for each input whose dtype changes;
//     3. infers the output metas (infer_op): user errors surface here, as in eager mode;
//     4. sets the node's abstract: a Tensor, or a Tuple of Tensors for multi-output ops
//        (take one out with getitem / tuple_get).
//
// The backward rules (compiler/ad/bprop*.cc) are written with it, and so will be the J
// transform: every node it makes is typed, so the result verifies with
// ir::verify({.specialized = true}) and runs on the VM without another specialisation.
#pragma once

#include <initializer_list>
#include <vector>

#include "ir/anf.h"
#include "ops/op_semantics.h"

namespace mycel::ir {

class IrBuilder {
 public:
  // Nodes carry `sp` as their source span (the specialiser's: the user's line).
  IrBuilder(Module& m, FuncGraph* g, SourceSpan sp = {}) : m_(m), g_(g), sp_(sp) {}
  Module& module() const { return m_; }
  FuncGraph* graph() const { return g_; }

  // ------------------------------------------------------------ core
  Node* prim(OpId op, std::vector<Node*> inputs, const Attrs& given = {});
  // prim() in two steps: type_prim does 1-3 (casts emitted, nothing else), emit_typed
  // makes the call node. Between them a caller may still change the (cast) inputs, e.g.
  // order them after an effect.
  struct Typed {
    std::vector<Node*> inputs;  // as the op takes them, cast where it promotes
    Attrs attrs;                // complete
    AbsPtr abs;                 // the output's abstract
  };
  Typed type_prim(const OpDef& op, std::vector<Node*> inputs, const Attrs& given);
  CNode* emit_typed(const OpDef& op, Typed t);
  Node* builtin(Builtin b, std::vector<Node*> args, AbsPtr abs);
  Node* constant(const Value& v);
  Node* constant(const Tensor& t) { return constant(Value::tensor(t)); }
  // A 0-d constant of like's dtype holding v (a broadcasting scalar operand).
  Node* scalar_like(double v, Node* like);
  // A constant of `like`'s dtype and shape filled with v (for a dynamic shape, an op on
  // `like`: its run-time shape).
  Node* full_like(double v, Node* like);
  Node* make_tuple(const std::vector<Node*>& items);
  // getitem(t, i) of a node whose abstract is a Tuple (multi-output ops).
  Node* tuple_get(Node* t, size_t i);
  Node* getitem(Node* t, size_t i) { return tuple_get(t, i); }

  // ------------------------------------------------------------ shorthands
  Node* add(Node* a, Node* b) { return prim(OpId::Add, {a, b}); }
  Node* sub(Node* a, Node* b) { return prim(OpId::Sub, {a, b}); }
  Node* mul(Node* a, Node* b) { return prim(OpId::Mul, {a, b}); }
  Node* div(Node* a, Node* b) { return prim(OpId::Div, {a, b}); }
  Node* pow(Node* a, Node* b) { return prim(OpId::Pow, {a, b}); }
  Node* neg(Node* x) { return prim(OpId::Neg, {x}); }
  Node* exp(Node* x) { return prim(OpId::Exp, {x}); }
  Node* log(Node* x) { return prim(OpId::Log, {x}); }
  Node* sqrt(Node* x) { return prim(OpId::Sqrt, {x}); }
  Node* square(Node* x) { return prim(OpId::Square, {x}); }
  Node* sign(Node* x) { return prim(OpId::Sign, {x}); }
  Node* sigmoid(Node* x) { return prim(OpId::Sigmoid, {x}); }
  Node* tanh(Node* x) { return prim(OpId::Tanh, {x}); }
  Node* sin(Node* x) { return prim(OpId::Sin, {x}); }
  Node* cos(Node* x) { return prim(OpId::Cos, {x}); }
  Node* erf(Node* x) { return prim(OpId::Erf, {x}); }
  // x * v, x + v with a scalar of x's dtype.
  Node* mul_scalar(Node* x, double v) { return mul(x, scalar_like(v, x)); }
  Node* add_scalar(Node* x, double v) { return add(x, scalar_like(v, x)); }
  Node* less(Node* a, Node* b) { return prim(OpId::Less, {a, b}); }
  Node* greater(Node* a, Node* b) { return prim(OpId::Greater, {a, b}); }
  Node* greater_equal(Node* a, Node* b) { return prim(OpId::GreaterEqual, {a, b}); }
  Node* equal(Node* a, Node* b) { return prim(OpId::Equal, {a, b}); }
  Node* logical_and(Node* a, Node* b) { return prim(OpId::LogicalAnd, {a, b}); }
  Node* select(Node* c, Node* x, Node* y) { return prim(OpId::Select, {c, x, y}); }
  Node* cast(Node* x, DType t);  // x itself when already t
  Node* zeros_like(Node* x) { return prim(OpId::ZerosLike, {x}); }
  Node* ones_like(Node* x) { return prim(OpId::OnesLike, {x}); }
  Node* reduce_sum(Node* x, std::vector<int64_t> axes, bool keep_dims = false);
  Node* reshape(Node* x, const Shape& shape);  // x itself when already of that shape
  Node* transpose(Node* x, std::vector<int64_t> perm);
  Node* broadcast_to(Node* x, const Shape& shape);  // x itself when already of that shape
  // x broadcast to `like`'s shape: broadcast_to, or for a dynamic shape (whose run-time size
  // only `like` knows) x + zeros_like(like).
  Node* broadcast_like(Node* x, Node* like);
  Node* matmul(Node* a, Node* b, bool ta = false, bool tb = false, bool batched = false);
  Node* concat(std::vector<Node*> xs, int64_t axis);
  // x[begin:end:strides] per axis (no masks).
  Node* strided_slice(Node* x, std::vector<int64_t> begin, std::vector<int64_t> end,
                      std::vector<int64_t> strides);

  // Reduces a gradient `dx` of a broadcast result back to `shape` (the input's): sums the
  // leading axes broadcasting added and the axes where shape has 1, then reshapes. Identity
  // when the shapes already agree.
  Node* sum_to(Node* dx, const Shape& shape);

  // The abstract's tensor meta of a node (internal error when not a tensor).
  static const Abstract& tensor_abs(const Node* n);
  static const Shape& shape_of(const Node* n) { return tensor_abs(n).shape; }
  static DType dtype_of(const Node* n) { return tensor_abs(n).dtype; }

 private:
  CNode* emit(std::vector<Node*> inputs, AbsPtr abs);
  Module& m_;
  FuncGraph* g_;
  SourceSpan sp_;
};

}  // namespace mycel::ir
