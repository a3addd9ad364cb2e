// Numerical checks of the nn family's backward rules (see test_bprop_util.h).
#include "test_bprop_util.h"

namespace mycel::bproptest {
namespace {

using V = std::vector<int64_t>;

Attrs conv(int64_t oc, V k, const char* pad_mode = "valid", V pad = {0}, V stride = {1},
           V dilation = {1}, int64_t group = 1) {
  Attrs a;
  a.set("out_channel", oc);
  a.set("kernel_size", std::move(k));
  a.set("pad_mode", std::string(pad_mode));
  a.set("pad", std::move(pad));
  a.set("stride", std::move(stride));
  a.set("dilation", std::move(dilation));
  a.set("group", group);
  return a;
}

Attrs pool(V k, V s, const char* pad_mode = "valid", bool count_pad = true) {
  Attrs a;
  a.set("kernel_size", std::move(k));
  a.set("strides", std::move(s));
  a.set("pad_mode", std::string(pad_mode));
  a.set("count_include_pad", count_pad);
  return a;
}

Attrs with(Attrs a, const char* k, AttrValue v) {
  a.set(k, std::move(v));
  return a;
}

}  // namespace

std::vector<Case> nn_cases() {
  std::vector<Case> c;
  c.push_back(
      C("Conv2D_valid", OpId::Conv2D, {f64({1, 2, 5, 5}), f64({3, 2, 3, 3})}, conv(3, {3, 3})));
  c.push_back(C("Conv2D_pad_stride", OpId::Conv2D, {f64({2, 2, 5, 6}), f64({3, 2, 3, 2})},
                conv(3, {3, 2}, "pad", {1, 1, 0, 1}, {2, 2})));
  c.push_back(C("Conv2D_same_dilation", OpId::Conv2D, {f64({1, 2, 6, 6}), f64({2, 2, 2, 2})},
                conv(2, {2, 2}, "same", {0}, {1}, {2, 2})));
  c.push_back(C("Conv2D_group", OpId::Conv2D, {f64({1, 4, 4, 4}), f64({4, 2, 3, 3})},
                conv(4, {3, 3}, "valid", {0}, {1}, {1}, 2)));
  c.push_back(C("Conv2DBackpropInput", OpId::Conv2DBackpropInput,
                {f64({1, 3, 3, 3}), f64({3, 2, 3, 3})},
                with(conv(3, {3, 3}), "input_size", V{1, 2, 5, 5})));
  c.push_back(C("Conv2DBackpropFilter", OpId::Conv2DBackpropFilter,
                {f64({1, 3, 3, 3}), f64({1, 2, 5, 5})},
                with(conv(3, {3, 3}), "filter_size", V{3, 2, 3, 3})));
  c.push_back(C("MaxPool_2x2", OpId::MaxPool, {f64({1, 2, 4, 4})}, pool({2, 2}, {2, 2})));
  c.push_back(
      C("MaxPool_same_3x3", OpId::MaxPool, {f64({2, 1, 5, 4})}, pool({3, 3}, {1, 1}, "same")));
  c.push_back(C("AvgPool_2x2", OpId::AvgPool, {f64({1, 2, 4, 4})}, pool({2, 2}, {2, 2})));
  c.push_back(C("AvgPool_same_nopad", OpId::AvgPool, {f64({1, 2, 5, 5})},
                pool({3, 3}, {2, 2}, "same", false)));
  // MaxPoolGrad and MaxPoolGradGrad: linear in their last input (the argmax is fixed by x; x
  // and out get no cotangent), checked on it; overlapping windows and padding included.
  auto max_grads = [&](const char* n, Shape x, Shape y, Attrs a) {
    c.push_back(C(std::string("MaxPoolGrad_") + n, OpId::MaxPoolGrad, {f64(x), f64(y), f64(y)}, a));
    c.push_back(
        C(std::string("MaxPoolGradGrad_") + n, OpId::MaxPoolGradGrad, {f64(x), f64(y), f64(x)}, a));
  };
  max_grads("2x2", {1, 2, 4, 4}, {1, 2, 2, 2}, pool({2, 2}, {2, 2}));
  max_grads("same_3x3_overlap", {2, 1, 5, 4}, {2, 1, 5, 4}, pool({3, 3}, {1, 1}, "same"));
  max_grads("pad_3x3_s2", {1, 2, 5, 6}, {1, 2, 3, 3},
            with(pool({3, 3}, {2, 2}, "pad"), "pad", V{1}));
  c.push_back(C("AvgPoolGrad", OpId::AvgPoolGrad,
                {f64({1, 2, 4, 4}), f64({1, 2, 2, 2}), f64({1, 2, 2, 2})}, pool({2, 2}, {2, 2})));
  c.push_back(C("Softmax_last", OpId::Softmax, {f64({3, 4})}));
  c.push_back(C("Softmax_axis0", OpId::Softmax, {f64({3, 4, 2})}, with({}, "axis", V{0})));
  c.push_back(C("LogSoftmax_last", OpId::LogSoftmax, {f64({3, 4})}));
  c.push_back(
      C("LogSoftmax_axis1", OpId::LogSoftmax, {f64({2, 3, 4})}, with({}, "axis", int64_t{1})));
  Tensor labels = ints(DType::Int32, {3}, {0, 3, 1});
  c.push_back(C("SparseSoftmaxCE", OpId::SparseSoftmaxCrossEntropyWithLogits,
                {f64({3, 4}), fixed(labels)}));
  c.push_back(C("SparseSoftmaxCE_is_grad", OpId::SparseSoftmaxCrossEntropyWithLogits,
                {f64({3, 4}), fixed(ints(DType::Int64, {3}, {2, 2, 0}))},
                with({}, "is_grad", true)));
  c.push_back(C("SoftmaxCE", OpId::SoftmaxCrossEntropyWithLogits, {f64({3, 4}), f64({3, 4})}));
  c.push_back(C("SoftmaxCE_loss_only", OpId::SoftmaxCrossEntropyWithLogits,
                {f64({3, 4}), f64({3, 4}, 0, 1)}, {}, {0}));
  auto bn = [&](const char* n, Shape x, bool training) {
    c.push_back(C(n, OpId::BatchNorm,
                  {f64(x), f64({x[1]}), f64({x[1]}), f64({x[1]}), f64({x[1]}, 0.5, 1.5)},
                  with({}, "is_training", training), {0}));
  };
  bn("BatchNorm_train_2d", {4, 3}, true);
  bn("BatchNorm_train_4d", {2, 3, 2, 2}, true);
  bn("BatchNorm_infer_4d", {2, 3, 2, 2}, false);
  auto ln = [&](const char* n, Shape x, int64_t bna, int64_t bpa, Shape p) {
    Attrs a;
    a.set("begin_norm_axis", bna);
    a.set("begin_params_axis", bpa);
    c.push_back(C(n, OpId::LayerNorm, {f64(x), f64(p), f64(p)}, a, {0}));
  };
  ln("LayerNorm_last", {2, 3, 4}, -1, -1, {4});
  ln("LayerNorm_axis1", {2, 3, 4}, 1, 1, {3, 4});
  ln("LayerNorm_norm1_params2", {2, 3, 4}, 1, 2, {4});
  // The gradients' own rules (second order): every input, statistics included, and every
  // output weighed.
  auto bng = [&](const char* n, Shape x, bool training) {
    Shape p{x[1]};
    c.push_back(C(n, OpId::BatchNormGrad, {f64(x), f64(x), f64(p), f64(p), f64(p, 0.5, 1.5)},
                  with({}, "is_training", training)));
  };
  bng("BatchNormGrad_train_4d", {2, 3, 2, 2}, true);
  bng("BatchNormGrad_train_2d", {4, 3}, true);
  bng("BatchNormGrad_infer_4d", {2, 3, 2, 2}, false);
  auto lng = [&](const char* n, Shape x, int64_t bna, int64_t bpa, Shape p, Shape st) {
    Attrs a;
    a.set("begin_norm_axis", bna);
    a.set("begin_params_axis", bpa);
    c.push_back(C(n, OpId::LayerNormGrad, {f64(x), f64(x), f64(p), f64(st), f64(st, 0.5, 1.5)}, a));
  };
  lng("LayerNormGrad_last", {2, 3, 4}, -1, -1, {4}, {2, 3, 1});
  lng("LayerNormGrad_axis1", {2, 3, 4}, 1, 1, {3, 4}, {2, 1, 1});
  lng("LayerNormGrad_norm1_params2", {2, 3, 4}, 1, 2, {4}, {2, 1, 1});
  c.push_back(C("Dropout_keep1", OpId::Dropout, {f64({2, 3})}, with({}, "keep_prob", 1.0), {0}));
  return c;
}

namespace {

class BpropNN : public testing::TestWithParam<Case> {};
TEST_P(BpropNN, MatchesFiniteDifferences) { check_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bprop, BpropNN, testing::ValuesIn(nn_cases()), case_name);

// Dropout with keep_prob < 1 draws a new mask per run, so no finite differences: the rule
// must give dx = dout * mask / keep_prob with the mask of the same forward call.
TEST(BpropNNDropout, UsesTheForwardMask) {
  ir::Module m;
  ir::FuncGraph* g = m.new_graph("dropout");
  ir::IrBuilder b(m, g);
  ir::Parameter* x = m.add_param(g, "x");
  x->set_abstract(Abstract::tensor(DType::Float64, {4, 8}));
  ir::Parameter* d = m.add_param(g, "d");
  auto t = Abstract::tensor(DType::Float64, {4, 8});
  d->set_abstract(Abstract::tuple({t, t}));
  Attrs attrs = make_attrs(op_def(OpId::Dropout), with({}, "keep_prob", 0.25));
  Node* out = b.prim(OpId::Dropout, {x}, attrs);
  std::vector<Node*> in{x};
  ir::BpropArgs ba{b, in, out, d, attrs};
  std::vector<Node*> grads = ir::bprop_rule(OpId::Dropout)(ba);
  ASSERT_EQ(grads.size(), 1u);
  g->set_output(b.make_tuple({b.tuple_get(out, 1), grads[0]}));
  ir::verify(g, {.specialized = true, .lifted = true});
  Tensor xv = Tensor::full({4, 8}, Scalar::from_float(1.0), DType::Float64);
  Tensor dv = Tensor::empty({4, 8}, DType::Float64);
  for (int64_t i = 0; i < dv.numel(); ++i) dv.data<double>()[i] = 0.5 + static_cast<double>(i);
  Value r = vm::Executable::compile(g)->run(
      {Value::tensor(xv), Value::tuple({Value::tensor(dv), Value::tensor(dv)})}, nullptr);
  const Tensor &mask = r.items()[0].as_tensor(), &dx = r.items()[1].as_tensor();
  int kept = 0;
  for (int64_t i = 0; i < dv.numel(); ++i) {
    double mk = mask.element_as_double(i);
    ASSERT_TRUE(mk == 0.0 || mk == 1.0);
    kept += mk == 1.0;
    EXPECT_DOUBLE_EQ(dx.element_as_double(i), dv.element_as_double(i) * mk / 0.25);
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 32);
}

// In training, BatchNorm's batch statistics are outputs too; when nothing uses them their
// cotangents are the AD's zero Fills, and the rule must add nothing for them: dx is
// BatchNormGrad's alone, with no x-sized Sub/Mul/Add computing zeros (ResNet-18's training
// step ran 100 such ops when the zero test missed the reshaped cotangents).
TEST(BpropNNBatchNorm, ZeroStatisticsCotangentsAddNoOps) {
  ir::Module m;
  ir::FuncGraph* g = m.new_graph("batch_norm");
  ir::IrBuilder b(m, g);
  const Shape xs{2, 3, 2, 2}, cs{3};
  std::vector<Node*> in;
  const char* names[] = {"x", "scale", "bias", "mean", "variance"};
  for (const char* name : names) {
    ir::Parameter* p = m.add_param(g, name);
    p->set_abstract(Abstract::tensor(DType::Float64, in.empty() ? xs : cs));
    in.push_back(p);
  }
  ir::Parameter* dy = m.add_param(g, "dy");
  dy->set_abstract(Abstract::tensor(DType::Float64, xs));
  Attrs fill;
  fill.set("dtype", DType::Float64);
  fill.set("shape", std::vector<int64_t>{3});
  fill.set("value", 0.0);
  std::vector<Node*> d{dy};
  for (int i = 0; i < 4; ++i) d.push_back(b.prim(OpId::Fill, {}, fill));
  Attrs attrs = make_attrs(op_def(OpId::BatchNorm), with({}, "is_training", true));
  Node* out = b.prim(OpId::BatchNorm, in, attrs);
  ir::BpropArgs ba{b, in, out, b.make_tuple(d), attrs};
  std::vector<Node*> grads = ir::bprop_rule(OpId::BatchNorm)(ba);
  ASSERT_EQ(grads.size(), 5u);
  g->set_output(b.make_tuple({grads[0], grads[1], grads[2]}));
  int elementwise = 0, bn_grad = 0;
  for (const ir::CNode* c : m.toposort(g)) {
    const ir::PrimData* p = c->prim();
    if (p == nullptr) continue;
    bn_grad += p->op->id == OpId::BatchNormGrad;
    elementwise += p->op->id == OpId::Sub || p->op->id == OpId::Mul || p->op->id == OpId::Add ||
                   p->op->id == OpId::Square;
  }
  EXPECT_EQ(bn_grad, 1);
  EXPECT_EQ(elementwise, 0);
}

}  // namespace
}  // namespace mycel::bproptest
