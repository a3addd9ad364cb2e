// Backward rules of the nn family (ops/defs/nn.def): convolution and pooling through their
// backward prims, softmax and the cross entropies, the normalisations, dropout.
#include <string_view>

#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

// The forward attributes without `drop`, plus (name, shape) when name is given: the
// attributes of a backward prim that shares the forward op's.
Attrs derived(const Attrs& fwd, std::string_view drop, const char* name = nullptr,
              const Shape& shape = {}) {
  Attrs out;
  for (const auto& [k, v] : fwd.items())
    if (k != drop) out.set(k, v);
  if (name) out.set(name, std::vector<int64_t>(shape.begin(), shape.end()));
  return out;
}

const Shape& shape(const Node* n) { return IrBuilder::shape_of(n); }

// The axes of a Softmax / LogSoftmax (an int, or a tuple of contiguous ones: softmax_split).
std::vector<int64_t> softmax_axes(const Attrs& attrs) {
  const AttrValue& v = attrs.get("axis");
  if (const auto* list = std::get_if<std::vector<int64_t>>(&v)) return *list;
  return {std::get<int64_t>(v)};
}

// The softmax Jacobian-vector product: s * (g - sum(g * s, axes))
Node* softmax_jvp(IrBuilder& b, Node* s, Node* g, const std::vector<int64_t>& axes) {
  return b.mul(s, b.sub(g, b.reduce_sum(b.mul(g, s), axes, true)));
}
// Whether n is a zero the AD made for an output nobody used (a Fill of 0): its terms vanish.
bool is_zero_fill(const Node* n) {
  if (!n->is_cnode()) return false;
  auto* c = static_cast<const CNode*>(n);
  if (c->is_builtin(Builtin::GetItem) && c->input(1)->is_cnode() &&
      static_cast<const CNode*>(c->input(1))->is_builtin(Builtin::MakeTuple) &&
      c->input(2)->is_value()) {  // getitem(make_tuple(...), i): the AD's own tuple
    const Value& i = static_cast<const ValueNode*>(c->input(2))->value();
    if (i.is(ValueKind::Int))
      return is_zero_fill(
          static_cast<const CNode*>(c->input(1))->input(static_cast<size_t>(i.as_int()) + 1));
  }
  const PrimData* p = c->prim();
  return p != nullptr && p->op->id == OpId::Fill && p->attrs.get_float("value") == 0.0;
}

// The part of dx that flows through normalisation statistics over M elements (x-shaped,
// or null when every cotangent is an unused zero): with xc = x - mu,
//   mean (dm):  dx += dm / M
//   var  (dv):  dx += dv * 2 xc / M            (the biased variance)
//   rstd (dr):  dx += dr * (-r^3) xc / M       (r = 1 / sqrt(var + eps))
Node* stats_dx(IrBuilder& b, Node* x, Node* mu, Node* r, std::vector<Node*> dm, Node* dv, Node* dr,
               double m) {
  Node* acc = nullptr;
  auto add = [&](Node* t) {
    MC_CHECK(m > 0, Value,
             "For the gradient of a normalisation, the number of elements its "
             "statistics are taken over must be known at compile time, but x of shape ",
             shape(x), " is dynamic there.");
    acc = acc == nullptr ? t : b.add(acc, t);
  };
  for (Node* d : dm)
    if (!is_zero_fill(d)) add(b.broadcast_like(b.mul_scalar(d, 1.0 / m), x));
  Node* xc = nullptr;
  auto centred = [&] { return xc != nullptr ? xc : (xc = b.sub(x, mu)); };
  if (dv != nullptr && !is_zero_fill(dv)) add(b.mul(b.mul_scalar(dv, 2.0 / m), centred()));
  if (dr != nullptr && !is_zero_fill(dr)) {
    Node* r3 = b.mul(b.square(r), r);
    add(b.mul(b.mul_scalar(b.mul(dr, r3), -1.0 / m), centred()));
  }
  return acc;
}
// The second-order rule shared by BatchNormGrad and LayerNormGrad. Their forward, on views
// that broadcast against x (stats and params reshaped as needed), with N the normalised axes
// and xh = (x - mu) * r, g = dy * gam:
//   centred (training BN, LN): dx = r * (g - mean_N(g) - xh * mean_N(g * xh))
//   plain (inference BN):      dx = r * g
//   dgam = sum(dy * xh), dbeta = sum(dy)       (summed to the params' shape by the caller)
// With cotangents u (dx), v (dgam), w (dbeta), all broadcast to x's shape, ur = u * r:
//   centred: G = ur - mean_N(ur) - xh * mean_N(ur * xh)          (dL/dg)
//            H = v * dy - ur * mean_N(g * xh) - g * mean_N(ur * xh)  (dL/dxh)
//            R = u * (g - mean_N(g) - xh * mean_N(g * xh))        (dL/dr, explicit part)
//   plain:   G = ur, H = v * dy, R = u * g
//   ddy = G * gam + v * xh + w,  dgam = G * dy,  dx = H * r,  dmu = -H * r,
//   dr = R + H * (x - mu)
// Outputs are x-shaped; the caller sums them to each input's shape.
struct NormVjp {
  Node *ddy, *dx, *dgam, *dmu, *dr;
};
NormVjp norm_grad_vjp(IrBuilder& b, Node* dy, Node* x, Node* gam, Node* mu, Node* r, Node* u,
                      Node* v, Node* w, const std::vector<int64_t>& norm_axes, bool centred) {
  auto mean_n = [&](Node* t) {
    Attrs a;
    a.set("axis", norm_axes);
    a.set("keep_dims", true);
    return b.prim(OpId::ReduceMean, {t}, a);
  };
  Node* xc = b.sub(x, mu);
  Node* xh = b.mul(xc, r);
  Node* g = b.mul(dy, gam);
  Node* ur = b.mul(u, r);
  Node *G = ur, *H = b.mul(v, dy), *R = b.mul(u, g);
  if (centred) {
    Node* urxh = mean_n(b.mul(ur, xh));
    Node* gxh = mean_n(b.mul(g, xh));
    G = b.sub(b.sub(ur, mean_n(ur)), b.mul(xh, urxh));
    H = b.sub(H, b.add(b.mul(ur, gxh), b.mul(g, urxh)));
    R = b.mul(u, b.sub(b.sub(g, mean_n(g)), b.mul(xh, gxh)));
  }
  NormVjp o;
  o.ddy = b.add(b.add(b.mul(G, gam), b.mul(v, xh)), w);
  o.dgam = b.mul(G, dy);
  o.dx = b.mul(H, r);
  o.dmu = b.neg(o.dx);
  o.dr = b.add(R, b.mul(H, xc));
  return o;
}

}  // namespace

// Conv2D(x, w): dx = Conv2DBackpropInput(dout, w, input_size = x.shape)
//               dw = Conv2DBackpropFilter(dout, x, filter_size = w.shape)
Grads bprop_conv2d(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* dx = b.prim(OpId::Conv2DBackpropInput, {a.dout, a.in[1]},
                    derived(a.attrs, "", "input_size", shape(a.in[0])));
  Node* dw = b.prim(OpId::Conv2DBackpropFilter, {a.dout, a.in[0]},
                    derived(a.attrs, "", "filter_size", shape(a.in[1])));
  return {dx, dw};
}
// Conv2DBackpropInput(dy, w) is linear in each input (the transpose of Conv2D in x):
//   ddy = Conv2D(g, w), dw = Conv2DBackpropFilter(dy, g, filter_size = w.shape)
Grads bprop_conv2d_backprop_input(BpropArgs& a) {
  IrBuilder& b = a.b;
  Attrs conv = derived(a.attrs, "input_size");
  Node* ddy = b.prim(OpId::Conv2D, {a.dout, a.in[1]}, conv);
  Node* dw = b.prim(OpId::Conv2DBackpropFilter, {a.in[0], a.dout},
                    derived(conv, "", "filter_size", shape(a.in[1])));
  return {ddy, dw};
}
// Conv2DBackpropFilter(dy, x): ddy = Conv2D(x, g), dx = Conv2DBackpropInput(dy, g, x.shape)
Grads bprop_conv2d_backprop_filter(BpropArgs& a) {
  IrBuilder& b = a.b;
  Attrs conv = derived(a.attrs, "filter_size");
  Node* ddy = b.prim(OpId::Conv2D, {a.in[1], a.dout}, conv);
  Node* dx = b.prim(OpId::Conv2DBackpropInput, {a.in[0], a.dout},
                    derived(conv, "", "input_size", shape(a.in[1])));
  return {ddy, dx};
}
// MaxPool: dx = MaxPoolGrad(x, out, dout)
Grads bprop_max_pool(BpropArgs& a) {
  return {a.b.prim(OpId::MaxPoolGrad, {a.in[0], a.out, a.dout}, a.attrs)};
}
// MaxPoolGrad(x, out, dy) is linear in dy with x's argmax fixed (piecewise constant in x, so
// x's cotangent is zero almost everywhere; out only gives the geometry): ddy =
// MaxPoolGradGrad(x, out, g), g read at each window's argmax.
Grads bprop_max_pool_grad(BpropArgs& a) {
  return {nullptr, nullptr, a.b.prim(OpId::MaxPoolGradGrad, {a.in[0], a.in[1], a.dout}, a.attrs)};
}
// MaxPoolGradGrad(x, out, ddx) is the transpose of MaxPoolGrad in its last input: dddx =
// MaxPoolGrad(x, out, g); x and out as above.
Grads bprop_max_pool_grad_grad(BpropArgs& a) {
  return {nullptr, nullptr, a.b.prim(OpId::MaxPoolGrad, {a.in[0], a.in[1], a.dout}, a.attrs)};
}
// AvgPool: dx = AvgPoolGrad(x, out, dout)
Grads bprop_avg_pool(BpropArgs& a) {
  return {a.b.prim(OpId::AvgPoolGrad, {a.in[0], a.out, a.dout}, a.attrs)};
}
// AvgPoolGrad(x, out, dy) is linear in dy (the transpose of AvgPool): ddy = AvgPool(g);
// x and out only give the geometry.
Grads bprop_avg_pool_grad(BpropArgs& a) {
  return {nullptr, nullptr, a.b.prim(OpId::AvgPool, {a.dout}, a.attrs)};
}

// Softmax: dx = out * (dout - sum(dout * out, axis))
Grads bprop_softmax(BpropArgs& a) {
  if (shape(a.in[0]).empty()) return {a.b.zeros_like(a.in[0])};
  return {softmax_jvp(a.b, a.out, a.dout, softmax_axes(a.attrs))};
}
// LogSoftmax: dx = dout - exp(out) * sum(dout, axis)
Grads bprop_log_softmax(BpropArgs& a) {
  IrBuilder& b = a.b;
  if (shape(a.in[0]).empty()) return {b.zeros_like(a.in[0])};
  return {b.sub(a.dout, b.mul(b.exp(a.out), b.reduce_sum(a.dout, softmax_axes(a.attrs), true)))};
}
// SparseSoftmaxCrossEntropyWithLogits(logits [N, C], labels [N]):
//   loss (is_grad false):  dlogits = dout * (softmax(logits) - onehot(labels)) / N, the op
//                          itself with is_grad
//   grad (is_grad true):   out = (softmax(logits) - onehot) / N, so
//                          dlogits = softmax_jvp(softmax(logits), dout) / N
// labels get none.
Grads bprop_sparse_softmax_ce(BpropArgs& a) {
  IrBuilder& b = a.b;
  if (!a.attrs.get_bool("is_grad")) {
    Attrs g;
    g.set("is_grad", true);
    Node* grad = b.prim(OpId::SparseSoftmaxCrossEntropyWithLogits, {a.in[0], a.in[1]}, g);
    return {b.mul(grad, a.dout), nullptr};
  }
  Attrs ax;
  ax.set("axis", std::vector<int64_t>{-1});
  Node* s = b.prim(OpId::Softmax, {a.in[0]}, ax);
  double n = static_cast<double>(shape(a.in[0])[0]);
  return {b.mul_scalar(softmax_jvp(b, s, a.dout, {-1}), 1.0 / n), nullptr};
}
// SoftmaxCrossEntropyWithLogits(logits, labels) -> (loss [N], grad [N, C]),
// loss = -sum(labels * log_softmax(logits), 1), grad = softmax(logits) - labels:
//   dlogits = dloss[:, None] * (s * sum(labels, 1) - labels) + softmax_jvp(s, dgrad)
//   (s = softmax(logits) = grad + labels; the first term is dloss * grad when the labels
//   rows sum to 1)
//   dlabels = -dloss[:, None] * log_softmax(logits) - dgrad
Grads bprop_softmax_ce(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* logits = a.in[0];
  Node* dloss = b.tuple_get(a.dout, 0);
  Node* dgrad = b.tuple_get(a.dout, 1);
  Node* grad = b.tuple_get(a.out, 1);
  const Shape& ls = shape(logits);
  Node* dl = b.reshape(dloss, {ls[0], 1});
  Node* s = b.add(grad, a.in[1]);  // softmax(logits)
  Node* sum_y = b.reduce_sum(a.in[1], {1}, true);
  Node* dlogits = b.add(b.mul(dl, b.sub(b.mul(s, sum_y), a.in[1])), softmax_jvp(b, s, dgrad, {1}));
  Attrs ax;
  ax.set("axis", int64_t{1});
  Node* lsm = b.prim(OpId::LogSoftmax, {logits}, ax);
  Node* dlabels = b.sub(b.neg(b.mul(dl, lsm)), dgrad);
  return {dlogits, dlabels};
}

// BatchNorm(x, scale, bias, mean, variance) -> (y, mean, var, saved_mean, saved_invstd):
//   dx, dscale, dbias = BatchNormGrad(dy, x, scale, saved_mean, saved_invstd)
//   training: + the statistics' cotangents through the batch mean and (biased) variance
//   (stats_dx), which grad of grad needs: BatchNormGrad's own rule sends cotangents to them.
// Inference: dx = dy * scale * invstd. The running statistics get no gradient.
Grads bprop_batch_norm(BpropArgs& a) {
  IrBuilder& b = a.b;
  Attrs g = derived(a.attrs, "momentum");
  Node* r = b.prim(
      OpId::BatchNormGrad,
      {b.tuple_get(a.dout, 0), a.in[0], a.in[1], b.tuple_get(a.out, 3), b.tuple_get(a.out, 4)}, g);
  Node* dx = b.tuple_get(r, 0);
  if (a.attrs.get_bool("is_training")) {
    const Shape& xs = shape(a.in[0]);
    Shape cs(xs.size(), 1);
    cs[1] = xs[1];
    // A zero cotangent stays as it is (unreshaped), so that stats_dx sees it is zero and adds
    // nothing: reshaped, it was not recognised, and each BatchNorm of a training step computed
    // five x-sized elementwise ops that add zero.
    auto view = [&](Node* t) { return is_zero_fill(t) ? t : b.reshape(t, cs); };
    double m = 1;
    for (size_t d = 0; d < xs.size() && m > 0; ++d)  // m < 0: a dynamic count
      if (d != 1) m = xs[d] < 0 ? -1.0 : m * static_cast<double>(xs[d]);
    Node* extra = stats_dx(b, a.in[0], view(b.tuple_get(a.out, 3)), view(b.tuple_get(a.out, 4)),
                           {view(b.tuple_get(a.dout, 1)), view(b.tuple_get(a.dout, 3))},
                           view(b.tuple_get(a.dout, 2)), view(b.tuple_get(a.dout, 4)), m);
    if (extra != nullptr) dx = b.add(dx, extra);
  }
  return {dx, b.tuple_get(r, 1), b.tuple_get(r, 2), nullptr, nullptr};
}
// LayerNorm(x, gamma, beta) -> (y, mean, rstd):
//   dx, dgamma, dbeta = LayerNormGrad(dy, x, gamma, mean, rstd)
//   dx += the cotangents of mean and rstd through the statistics (stats_dx)
Grads bprop_layer_norm(BpropArgs& a) {
  IrBuilder& b = a.b;
  Attrs g = derived(a.attrs, "epsilon");
  Node* r = b.prim(
      OpId::LayerNormGrad,
      {b.tuple_get(a.dout, 0), a.in[0], a.in[1], b.tuple_get(a.out, 1), b.tuple_get(a.out, 2)}, g);
  Node* dx = b.tuple_get(r, 0);
  const Shape& xs = shape(a.in[0]);
  int64_t bna = a.attrs.get_int("begin_norm_axis");
  if (bna < 0) bna += static_cast<int64_t>(xs.size());
  double m = 1;
  for (size_t d = static_cast<size_t>(bna); d < xs.size() && m > 0; ++d)
    m = xs[d] < 0 ? -1.0 : m * static_cast<double>(xs[d]);
  Node* extra = stats_dx(b, a.in[0], b.tuple_get(a.out, 1), b.tuple_get(a.out, 2),
                         {b.tuple_get(a.dout, 1)}, nullptr, b.tuple_get(a.dout, 2), m);
  if (extra != nullptr) dx = b.add(dx, extra);
  return {dx, b.tuple_get(r, 1), b.tuple_get(r, 2)};
}

// BatchNormGrad(dy, x, scale, saved_mean, saved_invstd) -> (dx, dscale, dbias): the
// [C] inputs and cotangents are viewed as [1, C, 1...] (see norm_grad_vjp).
Grads bprop_batch_norm_grad(BpropArgs& a) {
  IrBuilder& b = a.b;
  const Shape& xs = shape(a.in[1]);
  Shape cs(xs.size(), 1);
  cs[1] = xs[1];
  const Shape c{xs[1]};
  auto view = [&](Node* t) { return b.reshape(t, cs); };
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < static_cast<int64_t>(xs.size()); ++d)
    if (d != 1) axes.push_back(d);
  Node* u = b.tuple_get(a.dout, 0);
  Node* v = view(b.tuple_get(a.dout, 1));
  Node* w = view(b.tuple_get(a.dout, 2));
  NormVjp o = norm_grad_vjp(b, a.in[0], a.in[1], view(a.in[2]), view(a.in[3]), view(a.in[4]), u, v,
                            w, axes, a.attrs.get_bool("is_training"));
  auto to_c = [&](Node* t) { return b.reshape(b.sum_to(t, cs), c); };
  return {o.ddy, o.dx, to_c(o.dgam), to_c(o.dmu), to_c(o.dr)};
}

// LayerNormGrad(dy, x, gamma, mean, rstd) -> (dx, dgamma, dbeta): gamma ([begin_params_axis:]
// of x) and the statistics (x's shape with the normalised axes 1) broadcast as they are.
Grads bprop_layer_norm_grad(BpropArgs& a) {
  IrBuilder& b = a.b;
  const Shape& xs = shape(a.in[1]);
  const int64_t nd = static_cast<int64_t>(xs.size());
  int64_t bna = a.attrs.get_int("begin_norm_axis");
  if (bna < 0) bna += nd;
  std::vector<int64_t> axes;
  for (int64_t d = bna; d < nd; ++d) axes.push_back(d);
  NormVjp o = norm_grad_vjp(b, a.in[0], a.in[1], a.in[2], a.in[3], a.in[4], b.tuple_get(a.dout, 0),
                            b.tuple_get(a.dout, 1), b.tuple_get(a.dout, 2), axes, true);
  return {o.ddy, o.dx, b.sum_to(o.dgam, shape(a.in[2])), b.sum_to(o.dmu, shape(a.in[3])),
          b.sum_to(o.dr, shape(a.in[4]))};
}

// Dropout(x) -> (y, mask), y = x * mask / keep_prob: dx = dy * mask / keep_prob
Grads bprop_dropout(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* mask = b.tuple_get(a.out, 1);
  return {b.mul_scalar(b.mul(b.tuple_get(a.dout, 0), mask), 1.0 / a.attrs.get_float("keep_prob"))};
}
}  // namespace mycel::ir
