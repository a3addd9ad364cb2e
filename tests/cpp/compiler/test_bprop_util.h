// Numerical checks of the backward rules (compiler/ad/bprop.h), after JAX's
// lax_autodiff_test: for one op call with float64 inputs x and a random cotangent dout,
// the rule's cotangents must equal the central finite differences of
//
//   f(x) = sum_k sum(op(x)[k] * dout[k])        (over the outputs k the case weighs)
//
// The rule runs as IR: a graph with parameters for the float inputs and dout (integer
// inputs are constants) emits the op with the IrBuilder, calls the rule and returns the
// cotangents in a make_tuple; the graph is verified as specialised and lifted IR and run
// with vm::Executable. f runs eagerly (run_op) on perturbed copies of the inputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "compiler/ad/bprop.h"
#include "ir/anf.h"
#include "runtime/eager.h"
#include "runtime/vm.h"

namespace mycel::bproptest {

using ir::Abstract;
using ir::IrBuilder;
using ir::Node;
using ir::Value;

struct In {
  Shape shape;
  double lo = -1.0, hi = 1.0;   // float64 inputs: uniform in [lo, hi)
  std::optional<Tensor> fixed;  // a given tensor (integer indices, labels): a constant
};

inline In f64(Shape s, double lo = -1.0, double hi = 1.0) { return {std::move(s), lo, hi, {}}; }
inline In fixed(Tensor t) { return {t.shape(), 0, 0, std::move(t)}; }
inline Tensor ints(DType dt, Shape shape, std::vector<int64_t> v) {
  Tensor t = Tensor::empty(shape, DType::Int64);
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t.cast(dt);
}

struct Case {
  std::string name;
  OpId op;
  std::vector<In> in;
  Attrs attrs;
  std::vector<int> weigh;  // outputs in f (empty: all float outputs)
  double tol = 1e-5;
  double eps = 1e-6;  // the finite-difference step
};

// Each family's finite-difference cases (test_bprop_<family>.cc); BpropTable checks that
// every rule has one.
std::vector<Case> elementwise_cases();
std::vector<Case> reduce_cases();
std::vector<Case> linalg_cases();
std::vector<Case> nn_cases();
std::vector<Case> array_cases();

inline Case C(std::string name, OpId op, std::vector<In> in, Attrs attrs = {},
              std::vector<int> weigh = {}, double tol = 1e-5, double eps = 1e-6) {
  return {std::move(name), op, std::move(in), std::move(attrs), std::move(weigh), tol, eps};
}

inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
inline std::string case_name(const testing::TestParamInfo<Case>& i) { return i.param.name; }

// A complex output weighs as Re(sum(conj(dout) * out)) (PyTorch's and MindSpore's
// convention: the cotangent of a complex value is dL/dre + i dL/dim).
inline double weighted_sum(const TensorList& outs, const std::vector<Tensor>& douts) {
  double s = 0;
  for (size_t k = 0; k < douts.size(); ++k) {
    if (!douts[k].defined()) continue;
    if (is_complex(outs[k].dtype())) {
      const Tensor o = outs[k].cast(DType::Complex128).contiguous();
      const Tensor d = douts[k].cast(DType::Complex128).contiguous();
      for (int64_t j = 0; j < o.numel(); ++j) {
        const complex128 a = o.data<complex128>()[j], w = d.data<complex128>()[j];
        s += a.real() * w.real() + a.imag() * w.imag();
      }
      continue;
    }
    for (int64_t j = 0; j < outs[k].numel(); ++j)
      s += outs[k].element_as_double(j) * douts[k].element_as_double(j);
  }
  return s;
}

inline TensorList run_fwd(const OpDef& op, const std::vector<Tensor>& xs, const Attrs& attrs) {
  std::vector<Tensor> copies;
  for (const Tensor& x : xs) copies.push_back(x.clone());  // BatchNorm writes its inputs
  return run_op(op, copies, attrs);
}

inline void check_case(const Case& c) {
  const OpDef& op = op_def(c.op);
  const Attrs attrs = make_attrs(op, c.attrs);
  std::mt19937_64 rng(0x5eed + c.name.size());
  std::vector<Tensor> xs;
  for (const In& in : c.in) {
    if (in.fixed) {
      xs.push_back(*in.fixed);
      continue;
    }
    Tensor t = Tensor::empty(in.shape, DType::Float64);
    std::uniform_real_distribution<double> u(in.lo, in.hi);
    for (int64_t j = 0; j < t.numel(); ++j) t.data<double>()[j] = u(rng);
    xs.push_back(t);
  }
  TensorList outs = run_fwd(op, xs, attrs);
  std::vector<Tensor> douts(outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    const DType ot = outs[k].dtype();
    bool weighed = c.weigh.empty() ? is_floating(ot) || is_complex(ot)
                                   : std::count(c.weigh.begin(), c.weigh.end(), k) > 0;
    if (!weighed) continue;
    std::normal_distribution<double> n;
    if (is_complex(ot)) {
      Tensor d = Tensor::empty(outs[k].shape(), DType::Complex128);
      for (int64_t j = 0; j < d.numel(); ++j) d.data<complex128>()[j] = {n(rng), n(rng)};
      douts[k] = d.cast(ot);
      continue;
    }
    Tensor d = Tensor::zeros(outs[k].shape(), DType::Float64);
    for (int64_t j = 0; j < d.numel(); ++j) d.data<double>()[j] = n(rng);
    douts[k] = d.cast(ot);
  }

  // The graph: params for float inputs, then dout; the rule's cotangents as a tuple.
  ir::Module m;
  ir::FuncGraph* g = m.new_graph("bprop_" + c.name);
  m.set_entry(g);
  ir::IrBuilder b(m, g);
  std::vector<Node*> ins;
  std::vector<Value> args;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (c.in[i].fixed) {
      ins.push_back(b.constant(xs[i]));
      continue;
    }
    ir::Parameter* p = m.add_param(g, std::string(1, static_cast<char>('a' + i)));
    p->set_abstract(Abstract::tensor(DType::Float64, xs[i].shape()));
    ins.push_back(p);
    args.push_back(Value::tensor(xs[i]));
  }
  ir::Parameter* dp = m.add_param(g, "dout");
  std::vector<Value> dvals;
  std::vector<ir::AbsPtr> dabs;
  for (size_t k = 0; k < outs.size(); ++k) {
    Tensor d = douts[k].defined() ? douts[k] : Tensor::zeros(outs[k].shape(), outs[k].dtype());
    dvals.push_back(Value::tensor(d));
    dabs.push_back(Abstract::tensor(d.dtype(), d.shape()));
  }
  bool multi = op.num_outputs != 1;
  dp->set_abstract(multi ? Abstract::tuple(dabs) : dabs[0]);
  args.push_back(multi ? Value::tuple(dvals) : dvals[0]);

  Node* out = b.prim(c.op, ins, c.attrs);
  ir::BpropFn rule = ir::bprop_rule(c.op);
  ASSERT_NE(rule, nullptr) << op.name << " has no rule";
  // The rule sees the call's inputs as the kernel does (after the builder's casts).
  ASSERT_TRUE(out->is_cnode());
  const auto& call_in = static_cast<ir::CNode*>(out)->inputs();
  std::vector<Node*> cin(call_in.begin() + 1, call_in.end());
  ir::BpropArgs ba{b, cin, out, dp, attrs};
  std::vector<Node*> grads = rule(ba);
  ASSERT_EQ(grads.size(), ins.size()) << "one cotangent per input";
  std::vector<Node*> ret;
  std::vector<size_t> which;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (c.in[i].fixed) {  // a constant: no cotangent when the kernel sees it as bool
      DType dt = IrBuilder::dtype_of(cin[i]);
      if (is_bool(dt)) {
        EXPECT_EQ(grads[i], nullptr) << "bool input " << i << " gets no cotangent";
      } else if (!is_floating(dt) && grads[i]) {
        // an integer input's (compiler/ad/ad.h), which the K transform casts to its dtype
        EXPECT_EQ(grads[i]->abstract()->shape, IrBuilder::shape_of(cin[i])) << "cotangent " << i;
      }
      continue;
    }
    if (!grads[i]) continue;  // checked below: float inputs without one are listed
    const Abstract& ga = *grads[i]->abstract();
    EXPECT_EQ(ga.kind, ir::AbsKind::Tensor);
    EXPECT_EQ(ga.dtype, DType::Float64) << "cotangent " << i;
    EXPECT_EQ(ga.shape, xs[i].shape()) << "cotangent " << i;
    ret.push_back(grads[i]);
    which.push_back(i);
  }
  g->set_output(b.make_tuple(ret));
  ir::verify(g, {.specialized = true, .lifted = true});
  auto exe = vm::Executable::compile(g);
  Value res = exe->run(args, nullptr);
  ASSERT_EQ(res.items().size(), which.size());

  const double eps = c.eps;
  for (size_t r = 0; r < which.size(); ++r) {
    size_t i = which[r];
    Tensor got = res.items()[r].as_tensor();
    for (int64_t j = 0; j < xs[i].numel(); ++j) {
      std::vector<Tensor> xp = xs, xm = xs;
      xp[i] = xs[i].clone();
      xm[i] = xs[i].clone();
      xp[i].data<double>()[j] += eps;
      xm[i].data<double>()[j] -= eps;
      double fd = (weighted_sum(run_fwd(op, xp, attrs), douts) -
                   weighted_sum(run_fwd(op, xm, attrs), douts)) /
                  (2 * eps);
      double v = got.element_as_double(j);
      ASSERT_NEAR(v, fd, c.tol * std::max(1.0, std::fabs(fd)))
          << c.name << ": input " << i << " element " << j;
    }
  }
}

}  // namespace mycel::bproptest
