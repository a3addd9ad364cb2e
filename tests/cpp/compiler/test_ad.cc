// The K transform and expand_vjp: the IR K produces for small graphs (text), and gradients
// of whole programs after the pipeline, run on the executor and checked analytically.
#include <cmath>

#include "compiler/ad/ad.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/pipeline.h"
#include "pass_test_util.h"
#include "runtime/vm.h"

namespace mycel::passtest {
namespace {

using ir::Abstract;
using ir::Builtin;
using ir::FuncCandidate;
using ir::IrBuilder;
using ir::Node;
using ir::Value;

// K(g) copies the forward and returns B_g, which reads the forward's %b, %x, %y as free
// variables (lift makes them partial(@B_g, ...)); Tanh's rule is dout * (1 - out^2).
TEST(AdK, ForwardCopyAndBackwardOfAPrimChain) {
  PassCase c(R"(
    graph @g(%x: f32[2], %y: f32[2]) {
      %a = Mul(%x, %y) : f32[2]
      %b = Tanh(%a) : f32[2]
      return %b
    }
  )");
  ir::KTransform k(c.m);
  ir::FuncGraph* kg = k.k_graph(c.root);
  EXPECT_EQ(ir::print_graph(kg), dedent(R"(
    graph @K_g(%x: f32[2], %y: f32[2]) {
      %a = Mul(%x, %y) : f32[2]
      %b = Tanh(%a) : f32[2]
      %1 = make_tuple(%b, @B_g) : tuple(f32[2], func)
      return %1
    }

    graph @B_g(%dout: f32[2]) {
      %2 = Square(%b) : f32[2]
      %3 = Sub(tensor<f32[]>(1.0), %2) : f32[2]
      %4 = Mul(%dout, %3) : f32[2]
      %5 = Mul(%4, %y) : f32[2]
      %6 = Mul(%4, %x) : f32[2]
      %7 = make_tuple(%5, %6) : tuple(f32[2], f32[2])
      return %7
    }
  )"));
}

TEST(AdK, CotangentAbstracts) {
  using ir::cot_abs;
  EXPECT_EQ(cot_abs(Abstract::tensor(DType::Float32, {2}))->to_string(), "f32[2]");
  // an integer tensor's cotangent has its dtype (MindSpore's rule); a bool tensor has none
  EXPECT_EQ(cot_abs(Abstract::tensor(DType::Int64, {2}))->to_string(), "i64[2]");
  EXPECT_EQ(cot_abs(Abstract::tensor(DType::Bool, {2}))->to_string(), "none");
  EXPECT_EQ(cot_abs(Abstract::tuple({Abstract::tensor(DType::Float64, {}),
                                     Abstract::scalar(ir::ValueKind::Int)}))
                ->to_string(),
            "tuple(f64[], none)");
  EXPECT_FALSE(ir::differentiable(Abstract::tuple({Abstract::tensor(DType::Bool, {})})));
}

// entry(x) = vjp(@g, (), x)[1](ones) for g built by `body`; optimised, run on x.
template <class Body>
double grad_at(double x0, Body body) {
  ir::Module m;
  ir::FuncGraph* g = m.new_graph("g");
  ir::Parameter* x = m.add_param(g, "x");
  x->set_abstract(Abstract::tensor(DType::Float64, {}));
  IrBuilder b(m, g);
  g->set_output(body(b, x));
  ir::FuncGraph* e = m.new_graph("entry");
  m.set_entry(e);
  ir::Parameter* ex = m.add_param(e, "x");
  ex->set_abstract(x->abstract());
  IrBuilder eb(m, e);
  Node* gref = eb.constant(Value::graph(g));
  gref->set_abstract(Abstract::func({FuncCandidate{Value::graph(g), {}, nullptr}}));
  Node* empty = eb.constant(Value::tuple({}));
  ir::AbsPtr bp = Abstract::func({FuncCandidate{Value::builtin(Builtin::Vjp), {}, nullptr}});
  Node* t = eb.builtin(Builtin::Vjp, {gref, empty, ex}, Abstract::tuple({x->abstract(), bp}));
  Node* f = eb.tuple_get(t, 1);
  Node* one = eb.constant(Tensor::scalar(Scalar::from_float(1.0), DType::Float64));
  ir::CNode* d = m.cnode(e, {f, one});
  d->set_abstract(Abstract::tuple({x->abstract()}));
  e->set_output(eb.tuple_get(d, 0));
  compiler::PipelineOptions opts;
  opts.verify_each = true;
  compiler::optimize(m, e, opts);
  EXPECT_EQ(ir::print_graph(e).find("vjp"), std::string::npos);
  auto exe = vm::Executable::compile(e);
  Value r =
      exe->run({Value::tensor(Tensor::scalar(Scalar::from_float(x0), DType::Float64))}, nullptr);
  return r.as_tensor().element_as_double(0);
}

TEST(AdExpand, GradientsOfStraightLinePrograms) {
  // d/dx tanh(x) * x = (1 - tanh^2) x + tanh
  double x = 0.7, t = std::tanh(x);
  EXPECT_NEAR(grad_at(x, [](IrBuilder& b, Node* v) { return b.mul(b.tanh(v), v); }),
              (1 - t * t) * x + t, 1e-14);
  // d/dx exp(sin(x)) / x
  auto f = [](IrBuilder& b, Node* v) { return b.div(b.exp(b.sin(v)), v); };
  double want = std::exp(std::sin(x)) * (std::cos(x) * x - 1) / (x * x);
  EXPECT_NEAR(grad_at(x, f), want, 1e-14);
  // A value used three times accumulates its adjoints: d/dx x*x*x = 3x^2
  EXPECT_NEAR(grad_at(x, [](IrBuilder& b, Node* v) { return b.mul(b.mul(v, v), v); }), 3 * x * x,
              1e-14);
}

}  // namespace
}  // namespace mycel::passtest
