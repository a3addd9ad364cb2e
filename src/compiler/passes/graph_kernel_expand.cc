// graph_kernel_expand: training BatchNorm and BatchNormGrad as reductions and elementwise prims,
// and a dense bias moved past a reshape, where a neighbour fuses (graph_kernel_expand.h has the
// rewrites and the cost rules).
#include "compiler/passes/graph_kernel_expand.h"

#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "codegen/loop_ir.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

using Users = std::vector<std::pair<CNode*, int>>;

const Abstract* tensor_of(const Node* n) {
  const AbsPtr& a = n->abstract();
  return a && a->is_tensor() ? a.get() : nullptr;
}

// x's layout when c (a BatchNorm or BatchNormGrad on x) can expand: float32, NCHW (or [N, C]),
// static shape, every per-channel input float32 [C], more than one element per channel.
struct Geom {
  Shape k;                    // x's shape with 1 on the reduced axes
  Shape c;                    // [C]
  std::vector<int64_t> axes;  // all but 1
  double m = 0;               // elements per channel
};

bool geometry(const CNode* c, const Node* x, const std::vector<size_t>& per_channel, Geom* g) {
  const PrimData* p = c->prim();
  if (!p->attrs.get_bool("is_training") || p->attrs.get_str("data_format") != "NCHW") return false;
  const Abstract* xa = tensor_of(x);
  if (xa == nullptr || xa->dtype != DType::Float32 || xa->shape.size() < 2) return false;
  g->k = xa->shape;
  g->m = 1;
  for (size_t d = 0; d < xa->shape.size(); ++d) {
    if (xa->shape[d] <= 0) return false;
    if (d == 1) continue;
    g->axes.push_back(static_cast<int64_t>(d));
    g->m *= static_cast<double>(xa->shape[d]);
    g->k[d] = 1;
  }
  if (g->m < 2) return false;
  g->c = {xa->shape[1]};
  for (size_t i : per_channel) {
    const Abstract* a = tensor_of(c->input(i));
    if (a == nullptr || a->dtype != DType::Float32 || a->shape != g->c) return false;
  }
  return true;
}

// c's users, if every one is a getitem with a constant index; their users, by index.
bool getitem_users(Manager& mng, CNode* c, size_t n, std::vector<Users>* out) {
  out->assign(n, {});
  for (const auto& [u, i] : mng.users(c)) {
    (void)i;
    if (!u->is_builtin(Builtin::GetItem)) return false;
    std::optional<int64_t> idx = detail::const_int(u->input(2));
    if (!idx || *idx < 0 || static_cast<size_t>(*idx) >= n) return false;
    const Users& us = mng.users(u);
    (*out)[static_cast<size_t>(*idx)].insert((*out)[static_cast<size_t>(*idx)].end(), us.begin(),
                                             us.end());
  }
  return true;
}

bool any_fusible(const Users& us) {
  for (const auto& [u, i] : us)
    if (codegen::fusible(u)) return true;
  return false;
}

// The root tensor of a depend chain (a running statistic read after an ordering edge).
const Node* root_of(const Node* n) {
  while (n->is_cnode() && static_cast<const CNode*>(n)->is_builtin(Builtin::Depend))
    n = static_cast<const CNode*>(n)->input(1);
  return n;
}

// Whether the running statistics of BatchNorm c are read by nothing but c (and the depends
// that order c after their readers).
bool stats_private(Manager& mng, CNode* c) {
  for (size_t i = 4; i <= 5; ++i) {
    Node* r = const_cast<Node*>(root_of(c->input(i)));
    for (const auto& [u, j] : mng.users(r)) {
      (void)j;
      if (u != c && !u->is_builtin(Builtin::Depend)) return false;
    }
  }
  return true;
}

struct Expansion {
  CNode* node;
  bool forward;
  Geom geom;
  std::vector<Users> users;  // of each result, through its getitem
};

class Expander {
 public:
  Expander(Module& m, FuncGraph* g) : m_(m), g_(g) {}

  // Rewires the users of result i to `v`.
  static void rewire(const Users& us, Node* v) {
    for (const auto& [u, i] : us) u->set_input(static_cast<size_t>(i), v);
  }

  // depend(v, deps): v, ordered after deps. The fuser takes a node into a cluster only when
  // its outside inputs come before the cluster's first node (graph_kernel.cc); a per-channel
  // chain reads one sum through this, so that it starts after both sums.
  static Node* after(IrBuilder& b, Node* v, std::vector<Node*> deps) {
    deps.insert(deps.begin(), v);
    return b.builtin(Builtin::Depend, std::move(deps), v->abstract());
  }

  // A per-channel [C] input as shape k: the K-shaped value it was reshaped from when it is
  // one (an expanded BatchNorm's saved statistics: computed before the gradient's chains).
  Node* per_channel(IrBuilder& b, Node* v, const Shape& k) {
    if (CNode* r = detail::as_prim_call(v, OpId::Reshape)) {
      const Abstract* in = tensor_of(r->input(1));
      if (in != nullptr && in->shape == k && in->dtype == DType::Float32) return r->input(1);
    }
    return reshape(b, v, k);
  }

  // One node per constant and per reshaped input: a cluster's inputs are counted
  // (graph_kernel.cc, kMaxInputs), and the same value twice would count twice.
  Node* f64(IrBuilder& b, double v) {
    Node*& n = consts_[v];
    if (n == nullptr) n = b.constant(Tensor::scalar(Scalar::from_float(v), DType::Float64));
    return n;
  }
  Node* reshape(IrBuilder& b, Node* v, const Shape& k) {
    Node*& n = reshapes_[{v, std::vector<int64_t>(k.begin(), k.end())}];
    if (n == nullptr) n = b.reshape(v, k);
    return n;
  }

  void forward(const Expansion& e) {
    CNode* c = e.node;
    IrBuilder b(m_, g_, c->span());
    const Geom& G = e.geom;
    const Attrs& at = c->prim()->attrs;
    double eps = at.get_float("epsilon"), mom = at.get_float("momentum");
    Node* x = c->input(1);
    Node* x64 = b.cast(x, DType::Float64);
    Node* s1 = b.reduce_sum(x64, G.axes, true);
    Node* s2 = b.reduce_sum(b.square(x64), G.axes, true);
    Node* mean = b.div(after(b, s1, {s2}), f64(b, G.m));  // (one per-channel chain: after both)
    Node* var = b.sub(b.div(s2, f64(b, G.m)), b.square(mean));
    var = b.prim(OpId::Maximum, {var, f64(b, 0.0)});
    Node* inv = b.div(f64(b, 1.0), b.sqrt(b.add(var, f64(b, eps))));
    Node* sc = b.cast(reshape(b, c->input(2), G.k), DType::Float64);
    Node* bi = b.cast(reshape(b, c->input(3), G.k), DType::Float64);
    Node* a = b.mul(inv, sc);
    Node* a32 = b.cast(a, DType::Float32);
    Node* b32 = b.cast(b.sub(bi, b.mul(b.mul(mean, inv), sc)), DType::Float32);
    Node* y = b.add(b.mul(x, a32), b32);
    // Running statistics, as the op kernel updates them (in double).
    auto running = [&](size_t i, Node* batch) {
      Node* r = b.cast(reshape(b, c->input(i), G.k), DType::Float64);
      Node* v = b.add(b.mul(r, f64(b, 1 - mom)), batch);
      v = b.reshape(b.cast(v, DType::Float32), G.c);
      assigns_.push_back(b.prim(OpId::Assign, {c->input(i), v}));
    };
    running(4, b.mul(mean, f64(b, mom)));
    running(5, b.mul(b.mul(var, f64(b, mom)), f64(b, G.m / (G.m - 1))));
    Node* mean32 = b.reshape(b.cast(mean, DType::Float32), G.c);
    rewire(e.users[0], y);
    rewire(e.users[1], mean32);
    rewire(e.users[2], b.reshape(b.cast(var, DType::Float32), G.c));
    rewire(e.users[3], mean32);
    rewire(e.users[4], b.reshape(b.cast(inv, DType::Float32), G.c));
  }

  void backward(const Expansion& e) {
    CNode* c = e.node;
    IrBuilder b(m_, g_, c->span());
    const Geom& G = e.geom;
    Node *dy = c->input(1), *x = c->input(2);
    Node* mean = per_channel(b, c->input(4), G.k);
    Node* inv32 = per_channel(b, c->input(5), G.k);
    // One pass: dy * (x - mean) and dy summed per channel (in double, rounded once).
    Node* sdt = b.reduce_sum(b.mul(dy, b.sub(x, mean)), G.axes, true);
    Node* sdy = b.reduce_sum(dy, G.axes, true);
    Node* sdt64 = b.cast(after(b, sdt, {sdy}), DType::Float64);
    Node* sdy64 = b.cast(after(b, sdy, {sdt}), DType::Float64);
    Node* inv = b.cast(inv32, DType::Float64);
    Node* sc = b.cast(reshape(b, c->input(3), G.k), DType::Float64);
    Node* k = b.mul(sc, inv);
    Node* nk = b.neg(k);
    Node* k0 = b.cast(b.div(b.mul(nk, sdy64), f64(b, G.m)), DType::Float32);
    Node* k1 = b.cast(b.div(b.mul(b.mul(b.mul(nk, inv), inv), sdt64), f64(b, G.m)), DType::Float32);
    // k read after the sums, so that k dy is computed in dx's kernel: before the statistics
    // kernel took it (k is known early) and stored it, an x-sized pass out and back in.
    Node* k32 = after(b, b.cast(k, DType::Float32), {sdy, sdt});
    Node* dx = b.add(b.add(b.mul(k32, dy), k0), b.mul(k1, b.sub(x, mean)));
    rewire(e.users[0], dx);
    rewire(e.users[1], b.reshape(b.cast(b.mul(sdt64, inv), DType::Float32), G.c));
    rewire(e.users[2], b.reshape(sdy, G.c));
  }

  // The running statistics' Assigns, ordered before the graph's result.
  void keep_assigns() {
    if (assigns_.empty()) return;
    IrBuilder b(m_, g_);
    std::vector<Node*> in{g_->output()};
    in.insert(in.end(), assigns_.begin(), assigns_.end());
    g_->set_output(b.builtin(Builtin::Depend, in, g_->output()->abstract()));
  }

 private:
  Module& m_;
  FuncGraph* g_;
  std::vector<Node*> assigns_;
  std::map<double, Node*> consts_;
  std::map<std::pair<Node*, std::vector<int64_t>>, Node*> reshapes_;
};

}  // namespace

namespace {

// Reshape(BiasAdd(a, b)) -> Add(Reshape(a), b) (graph_kernel_expand.h).
bool bias_add_through_reshape(Module& m, Manager& mng, FuncGraph* g) {
  std::vector<std::pair<CNode*, Users>> todo;
  for (CNode* c : m.toposort(g)) {
    if (detail::as_prim_call(c, OpId::Reshape) == nullptr) continue;
    CNode* ba = detail::as_prim_call(c->input(1), OpId::BiasAdd);
    if (ba == nullptr || !codegen::fusible(ba)) continue;
    const Abstract *xa = tensor_of(ba), *ra = tensor_of(c);
    if (xa == nullptr || ra == nullptr || xa->shape.size() != 2 || ra->shape.empty() ||
        ra->shape.back() != xa->shape[1] || mng.users(ba).size() != 1)
      continue;
    const Users& us = mng.users(c);
    if (any_fusible(us)) todo.emplace_back(c, us);  // (cost rule: a user fuses)
  }
  for (auto& [c, us] : todo) {
    IrBuilder b(m, g, c->span());
    auto* ba = static_cast<CNode*>(c->input(1));
    Node* y = b.add(b.reshape(ba->input(1), tensor_of(c)->shape), ba->input(2));
    for (const auto& [u, i] : us) u->set_input(static_cast<size_t>(i), y);
    if (g->output() == c) g->set_output(y);
  }
  return !todo.empty();
}

}  // namespace

bool expand_for_graph_kernel(Module& m, Manager& mng, FuncGraph* g) {
  bool moved = bias_add_through_reshape(m, mng, g);
  if (moved) mng.invalidate();
  std::vector<Expansion> todo;
  for (CNode* c : m.toposort(g)) {
    const PrimData* p = c->prim();
    if (p == nullptr) continue;
    Expansion e{c, p->op->id == OpId::BatchNorm, {}, {}};
    if (e.forward) {
      if (!geometry(c, c->input(1), {2, 3, 4, 5}, &e.geom) || !getitem_users(mng, c, 5, &e.users))
        continue;
      // Cost rule: y feeds a node that fuses.
      if (!any_fusible(e.users[0]) || !stats_private(mng, c)) continue;
    } else if (p->op->id == OpId::BatchNormGrad) {
      if (!geometry(c, c->input(2), {3, 4, 5}, &e.geom) || !getitem_users(mng, c, 3, &e.users))
        continue;
      const Abstract* dy = tensor_of(c->input(1));
      if (dy == nullptr || dy->dtype != DType::Float32 ||
          dy->shape != tensor_of(c->input(2))->shape)
        continue;
      // Cost rule: dy comes from a node that fuses, or dx feeds one.
      bool made = c->input(1)->is_cnode() && codegen::fusible(static_cast<CNode*>(c->input(1)));
      if (!made && !any_fusible(e.users[0])) continue;
    } else {
      continue;
    }
    todo.push_back(std::move(e));
  }
  if (todo.empty()) return moved;
  Expander x(m, g);
  for (const Expansion& e : todo) e.forward ? x.forward(e) : x.backward(e);
  x.keep_assigns();
  return true;
}

}  // namespace mycel::compiler
