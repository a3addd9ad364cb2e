// Helpers of the executor tests: build specialised IR by hand (abstracts set on every node,
// prim output abstracts from the op's own inference rule), deterministic tensors, a fake
// RuntimeHost, and running a function on a thread with a small C++ stack.
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ir/anf.h"
#include "runtime/eager.h"
#include "runtime/vm.h"

namespace mycel::vmtest {

using ir::AbsPtr;
using ir::Abstract;
using ir::Builtin;
using ir::FuncGraph;
using ir::Node;
using ir::Value;
using ir::ValueKind;

struct Builder {
  ir::Module m;

  FuncGraph* graph(const std::string& name, const std::vector<AbsPtr>& params) {
    FuncGraph* g = m.new_graph(name);
    for (size_t i = 0; i < params.size(); ++i) {
      ir::Parameter* p = m.add_param(g, str("p", i));
      p->set_abstract(params[i]);
    }
    if (m.entry() == nullptr) m.set_entry(g);
    return g;
  }
  Node* c(const Value& v) {
    Node* n = m.value(v);
    n->set_abstract(Abstract::constant(v));
    return n;
  }
  Node* ref(FuncGraph* g) { return c(Value::graph(g)); }
  static void set_callee_abstract(ir::CNode* n) {
    auto* v = static_cast<ir::ValueNode*>(n->callee());
    v->set_abstract(Abstract::constant(v->value()));
  }
  // A prim call whose abstract comes from the op's inference rule on the inputs' abstracts.
  Node* prim(FuncGraph* g, OpId id, std::vector<Node*> in, const Attrs& given = {},
             ir::SourceSpan span = {}) {
    const OpDef& op = op_def(id);
    Attrs attrs = make_attrs(op, given);
    std::vector<TensorMeta> metas;
    for (Node* n : in) metas.push_back(n->abstract()->meta());
    promote_inputs(op, metas);
    MetaList out = infer_op(op, metas, attrs);
    ir::CNode* n = m.call_prim(g, op, attrs, std::move(in), span);
    set_callee_abstract(n);
    if (op.num_outputs == 1) {
      n->set_abstract(Abstract::tensor(out[0].dtype, out[0].shape));
    } else {
      std::vector<AbsPtr> elems;
      for (const TensorMeta& t : out) elems.push_back(Abstract::tensor(t.dtype, t.shape));
      n->set_abstract(Abstract::tuple(std::move(elems)));
    }
    return n;
  }
  Node* builtin(FuncGraph* g, Builtin b, std::vector<Node*> in, AbsPtr abs = Abstract::any(),
                ir::SourceSpan span = {}) {
    ir::CNode* n = m.call_builtin(g, b, std::move(in), span);
    set_callee_abstract(n);
    n->set_abstract(std::move(abs));
    return n;
  }
  Node* call(FuncGraph* g, Node* fn, std::vector<Node*> args, AbsPtr abs = Abstract::any(),
             ir::SourceSpan span = {}) {
    args.insert(args.begin(), fn);
    Node* n = m.cnode(g, std::move(args), span);
    n->set_abstract(std::move(abs));
    return n;
  }
  Node* param(FuncGraph* g, size_t i) { return g->param(i); }
};

inline AbsPtr f32(Shape s) { return Abstract::tensor(DType::Float32, std::move(s)); }
inline AbsPtr i64(Shape s) { return Abstract::tensor(DType::Int64, std::move(s)); }
inline AbsPtr int_abs() { return Abstract::scalar(ValueKind::Int); }
inline AbsPtr bool_abs() { return Abstract::scalar(ValueKind::Bool); }

// Deterministic values in [-2, 2).
inline Tensor make_tensor(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  float* p = t.data<float>();
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  return t;
}

inline bool bit_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

inline Value tv(const Tensor& t) { return Value::tensor(t); }

// Collects print output; py_execute calls `fn` when set.
struct FakeHost : vm::RuntimeHost {
  std::string printed;
  std::vector<std::vector<Value>> calls;
  Value result;
  void print(const std::string& text) override { printed += text; }
  Value call(const Value& fn, const std::vector<Value>& args) override {
    std::vector<Value> all{fn};
    all.insert(all.end(), args.begin(), args.end());
    calls.push_back(all);
    return result;
  }
};

// Runs f() on a new thread whose C++ stack is `bytes` big; rethrows what f throws.
template <class F>
void run_with_stack(size_t bytes, F f) {
  struct Ctx {
    F* f;
    std::exception_ptr err;
  } ctx{&f, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto body = [](void* p) -> void* {
    auto* c = static_cast<Ctx*>(p);
    try {
      (*c->f)();
    } catch (...) {
      c->err = std::current_exception();
    }
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&t, &attr, body, &ctx), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  if (ctx.err) std::rethrow_exception(ctx.err);
}

}  // namespace mycel::vmtest
