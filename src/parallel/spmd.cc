#include "parallel/spmd.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/passes/pass_util.h"
#include "ops/op_semantics.h"
#include "parallel/redistribution.h"
#include "parallel/rules.h"

namespace mycel::parallel {

using namespace ir;

namespace {

// The rows encoded from v[at] on (a row count, each row's length, the entries); `at` moves
// past them.
Strategy decode_rows(const std::vector<int64_t>& v, size_t& at) {
  MC_ASSERT(at < v.size() && v[at] >= 0 && at + 1 + static_cast<size_t>(v[at]) <= v.size(),
            "bad strategy");
  size_t rows = static_cast<size_t>(v[at]), next = at + 1 + rows;
  Strategy s;
  for (size_t r = 0; r < rows; ++r) {
    size_t len = static_cast<size_t>(v[at + 1 + r]);
    MC_ASSERT(next + len <= v.size(), "bad strategy");
    s.emplace_back(v.begin() + static_cast<std::ptrdiff_t>(next),
                   v.begin() + static_cast<std::ptrdiff_t>(next + len));
    next += len;
  }
  at = next;
  return s;
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> strategy_attr(const Attrs& attrs) {
  if (!attrs.has(kStrategyAttr)) return std::nullopt;
  size_t at = 0;
  return decode_rows(attrs.get_ints(kStrategyAttr), at);
}

std::optional<std::vector<std::vector<int64_t>>> out_strategy_attr(const Attrs& attrs) {
  if (!attrs.has(kStrategyAttr)) return std::nullopt;
  const std::vector<int64_t>& v = attrs.get_ints(kStrategyAttr);
  size_t at = 0;
  decode_rows(v, at);
  if (at == v.size()) return std::nullopt;
  return decode_rows(v, at);
}

bool is_tensor(const Node* n) { return n->abstract() && n->abstract()->is_tensor(); }

Shape shape_of(const Node* n) {
  const auto& s = n->abstract()->shape;
  return Shape(s.begin(), s.end());
}

bool whole(const TensorLayout& l) {
  if (!l.partial().empty()) return false;
  for (const Axes& a : l.map()) {
    if (!a.empty()) return false;
  }
  return true;
}

TensorLayout replicated(const TensorLayout& l) {
  return TensorLayout(l.mesh(), l.shape(), TensorMap(l.shape().size()));
}

std::pair<TensorLayout, Axes> optimizer_shard_layout(const TensorLayout& use, int64_t shard_size) {
  const DeviceMesh& mesh = use.mesh();
  if (use.ndim() == 0) return {use, {}};
  Axes free;
  for (int a = 0; a < mesh.ndim(); ++a) {
    if (use.dim_of(a) < 0 && !use.is_partial(a) && mesh.shape()[static_cast<size_t>(a)] > 1)
      free.push_back(a);
  }
  Axes take = free;
  if (shard_size > 0) {
    Axes tail;
    int64_t k = 1;
    for (auto it = free.rbegin(); it != free.rend() && k < shard_size; ++it) {
      tail.insert(tail.begin(), *it);
      k *= mesh.shape()[static_cast<size_t>(*it)];
    }
    if (k == shard_size) take = std::move(tail);
  }
  const int64_t g = mesh.group_size(take);
  if (take.empty() || (use.shape()[0] / use.splits(0)) % g != 0) return {use, {}};
  TensorMap map = use.map();
  map[0].insert(map[0].end(), take.begin(), take.end());
  return {TensorLayout(mesh, use.shape(), std::move(map)), take};
}

std::string where(const Node* c) {
  if (!c->span().valid()) return "";
  return str(" (at ", span_location(c->span()), ")\n", span_excerpt(c->span()));
}

namespace {

Attrs without_strategy(const Attrs& a) {
  Attrs out;
  for (const auto& [k, v] : a.items()) {
    if (k != kStrategyAttr) out.set(k, v);
  }
  return out;
}

class Spmd {
 public:
  Spmd(Module& m, FuncGraph* root, const SpmdOptions& o)
      : m_(m), root_(root), o_(o), mng_(m, root), w_(compiler::detail::walk(root)) {}

  SpmdResult run() {
    find_mesh();
    if (!res_.sharded) return std::move(res_);
    lay_out_inputs();
    find_forward();
    const size_t nw = root_->params().size() - o_.num_args;
    res_.weights.assign(nw, std::nullopt);
    res_.opt_axes.assign(nw, {});
    decided_.assign(nw, false);
    for (size_t i = 0; i < nw && i < o_.known.size(); ++i) {
      if (!o_.known[i]) continue;
      Node* w = root_->params()[o_.num_args + i];
      MC_CHECK(o_.known[i]->first == mesh_->shape(), Value, "semi_auto_parallel: a weight of ",
               "shape ", shape_str(shape_of(w)), " holds its slice on the device mesh ",
               shape_str(o_.known[i]->first),
               " of an earlier program, but this program's "
               "strategies give the mesh ",
               shape_str(mesh_->shape()));
      TensorLayout held(*mesh_, shape_of(w), o_.known[i]->second);
      if (i < o_.known_opt.size() && !o_.known_opt[i].empty()) {
        // Its readers use it without the optimizer shard's axes.
        TensorMap use = held.map();
        for (int a : o_.known_opt[i]) std::erase(use[0], a);
        use_.insert_or_assign(w, TensorLayout(*mesh_, held.shape(), std::move(use)));
        res_.opt_axes[i] = o_.known_opt[i];
      }
      decide(w, held);
    }
    for (size_t i = 0; i < nw; ++i) {  // a parameter_plan: the weight's layout, set
      if (const std::vector<int64_t>* row = plan_of(i)) {
        Node* w = root_->params()[o_.num_args + i];
        decide(w, planned_layout(w, *row, plan_what(i)), true);
      }
    }
    for (CNode* c : w_.nodes) {
      if (!forward_.count(c->graph())) continue;
      rw_.update_inputs(c);
      visit_forward(c);
    }
    rw_.finish(w_.graphs);
    for (FuncGraph* g : w_.graphs) {
      if (!forward_.count(g) || !is_tensor(g->output())) continue;
      TensorLayout l = layout_of(g->output());
      if (!whole(l)) g->set_output(redistribute(g, g->output(), l, replicated(l)));
    }
    share_with_updates();
    for (CNode* c : w_.nodes) {
      if (forward_.count(c->graph())) continue;
      rw_.update_inputs(c);
      retype(c);
    }
    rw_.finish(w_.graphs);
    mng_->invalidate();
    return std::move(res_);
  }

 private:
  // ------------------------------------------------------------ analysis
  // The mesh every strategy's device matrix lies on.
  void find_mesh() {
    std::vector<Shape> matrices;
    for (CNode* c : w_.nodes) {
      const PrimData* p = c->prim();
      if (p == nullptr) continue;
      std::optional<Strategy> s = strategy_attr(p->attrs);
      if (!s) continue;
      Attrs attrs = without_strategy(p->attrs);
      OpCall call = op_call(c, attrs);
      matrices.push_back(device_matrix(call, loop_space(call, *s), o_.devices));
    }
    for (size_t i = 0; i < o_.inputs.size(); ++i) {
      if (!o_.inputs[i].empty()) matrices.push_back(input_matrix(i));
    }
    for (size_t i = 0; i < o_.planned.size(); ++i) {
      if (plan_of(i)) matrices.push_back(slice_matrix(*plan_of(i), plan_what(i)));
    }
    if (std::find(o_.opt_shard.begin(), o_.opt_shard.end(), true) != o_.opt_shard.end() &&
        o_.devices > 1) {
      // The optimizer shard spreads a weight over shard_size devices: a mesh axis of that size
      // (ZeRO-3 needs a mesh even without strategies), or the known weights' mesh.
      std::optional<Shape> known;
      for (const auto& k : o_.known) {
        if (k) known = k->first;
      }
      const int64_t k = o_.opt_shard_size;
      if (known) {
        matrices.push_back(*known);
      } else if (k > 1 && k < o_.devices && o_.devices % k == 0) {
        matrices.push_back({o_.devices / k, k});
      } else {
        matrices.push_back({o_.devices});
      }
    }
    if (matrices.empty()) {
      // Weights sliced by an earlier program: this one reads them on their mesh.
      for (const auto& k : o_.known) {
        if (k) mesh_.emplace(k->first);
      }
      if (!mesh_) return;
    } else {
      mesh_.emplace(common_mesh(matrices, o_.devices));
    }
    res_.sharded = true;
    res_.mesh = mesh_;
  }

  // Entry argument i's dataset strategy: its check, and its device matrix [devices /
  // product, counts...].
  Shape input_matrix(size_t i) {
    const std::vector<int64_t>& row = o_.inputs[i];
    const Node* x = root_->params()[i];
    MC_CHECK(is_tensor(x) && row.size() == x->abstract()->shape.size(), Value,
             "semi_auto_parallel: the dataset strategy of input ", i, " has ", row.size(),
             " entries, but the input ", x->abstract()->to_string(), " has ",
             is_tensor(x) ? x->abstract()->shape.size() : 0, " dimensions");
    return slice_matrix(row, str("the dataset strategy of input ", i));
  }

  // The device matrix [devices / product, counts...] of slice counts per dimension (`what`
  // names them in the ValueError when they do not divide the devices).
  Shape slice_matrix(const std::vector<int64_t>& row, const std::string& what) {
    int64_t used = 1;
    for (int64_t k : row) {
      MC_CHECK(k >= 1, Value, "semi_auto_parallel: ", what,
               " must have positive slice counts, but got ", shape_str(row));
      used *= k;
    }
    MC_CHECK(used <= o_.devices && o_.devices % used == 0, Value, "semi_auto_parallel: ", what, " ",
             shape_str(row), " cuts it into ", used, " slices, which does not divide the ",
             o_.devices, " devices of the job");
    Shape m{o_.devices / used};
    m.insert(m.end(), row.begin(), row.end());
    return m;
  }

  // The layout on the mesh of slice counts per dimension of n (a parameter_plan's).
  TensorLayout planned_layout(const Node* n, const std::vector<int64_t>& row,
                              const std::string& what) {
    std::vector<Axes> axes = matrix_axes(slice_matrix(row, what), *mesh_);
    TensorMap map;
    for (size_t d = 0; d < row.size(); ++d) map.push_back(axes[d + 1]);
    MC_CHECK(row.size() == shape_of(n).size(), Value, "semi_auto_parallel: ", what, " ",
             shape_str(row), " has ", row.size(), " entries, but the parameter has shape ",
             shape_str(shape_of(n)));
    return TensorLayout(*mesh_, shape_of(n), std::move(map));
  }

  // The parameter_plan of weight i (mycel.shard), none when it has none or holds a slice
  // already (an earlier program laid it out).
  const std::vector<int64_t>* plan_of(size_t i) const {
    if (i >= o_.planned.size() || o_.planned[i].empty()) return nullptr;
    if (i < o_.known.size() && o_.known[i]) return nullptr;
    return &o_.planned[i];
  }
  std::string plan_what(size_t i) const {
    return str("the parameter_plan of weight ", i,
               i < o_.planned_where.size() ? o_.planned_where[i] : std::string());
  }

  // Each entry argument given as a slice is laid out as its dataset strategy says, its
  // parameter typed as the slice (the program was compiled for the global shape).
  void lay_out_inputs() {
    for (size_t i = 0; i < o_.inputs.size(); ++i) {
      const std::vector<int64_t>& row = o_.inputs[i];
      if (row.empty()) continue;
      Node* x = root_->params()[i];
      std::vector<Axes> axes = matrix_axes(input_matrix(i), *mesh_);
      TensorMap map;
      for (size_t d = 0; d < row.size(); ++d) map.push_back(axes[d + 1]);
      TensorLayout l(*mesh_, shape_of(x), std::move(map));
      if (!whole(l)) sliced(x, l);
    }
    // The function a vjp differentiates takes them as its parameters.
    for (CNode* c : w_.nodes) {
      const Value* fn =
          c->is_builtin(Builtin::Vjp) ? compiler::detail::const_value(c->input(1)) : nullptr;
      if (fn == nullptr || !fn->is(ValueKind::Graph)) continue;
      const auto& params = fn->as_graph()->params();
      for (size_t k = 3; k < c->size() && k - 3 < params.size(); ++k) {
        auto it = lay_.find(c->input(k));
        if (it != lay_.end()) sliced(params[k - 3], TensorLayout(it->second));
      }
    }
  }

  // x (an entry argument or weight), typed with its global shape, holds its slice under l.
  void sliced(Node* x, const TensorLayout& l) {
    const Shape local = l.slice_shape();
    x->set_abstract(
        Abstract::tensor(x->abstract()->dtype, mycel::Shape(local.begin(), local.end())));
    changed_.insert(x);
    lay_.insert_or_assign(x, l);
  }

  // The graphs a vjp differentiates (and those they reach), or all of them.
  void find_forward() {
    for (CNode* c : w_.nodes) {
      if (!c->is_builtin(Builtin::Vjp)) continue;
      const Value* fn = compiler::detail::const_value(c->input(1));
      MC_CHECK(fn != nullptr && fn->is(ValueKind::Graph), Value,
               "semi_auto_parallel: the function differentiated here is not known at compile "
               "time",
               where(c));
    }
    forward_ = forward_region(w_);
    for (CNode* c : w_.nodes) {
      MC_CHECK(!(forward_.count(c->graph()) && c->is_builtin(Builtin::Vjp) &&
                 forward_.size() != w_.graphs.size()),
               Value,
               "semi_auto_parallel: a gradient inside the differentiated function "
               "(higher-order gradients) is not supported yet",
               where(c));
    }
  }

  OpCall op_call(const CNode* c, const Attrs& attrs) {
    std::vector<Shape> shapes;
    for (size_t i = 1; i < c->size(); ++i) {
      MC_CHECK(is_tensor(c->input(i)), Value, "For '", c->prim()->op->name,
               "', semi_auto_parallel shards tensor inputs only", where(c));
      shapes.push_back(global_shape(c->input(i)));
    }
    return OpCall{c->prim()->op->id, attrs, std::move(shapes), where(c)};
  }

  // ------------------------------------------------------------ layouts
  int weight_index(const Node* n) const {
    if (!n->is_param() || n->graph() != root_) return -1;
    const auto& ps = root_->params();
    auto it = std::find(ps.begin(), ps.end(), n);
    auto i = static_cast<size_t>(it - ps.begin());
    return i >= o_.num_args && it != ps.end() ? static_cast<int>(i - o_.num_args) : -1;
  }
  bool undecided(const Node* n) const {
    int w = weight_index(n);
    return w >= 0 && !decided_[static_cast<size_t>(w)];
  }
  // n holds its slice under l (none: whole). `read`: l is how a reader in the forward region
  // uses it, which the optimizer shard may cut further; the reader then gathers it back.
  void decide(Node* n, const std::optional<TensorLayout>& l, bool read = false) {
    int w = weight_index(n);
    MC_ASSERT(w >= 0 && !decided_[static_cast<size_t>(w)], "weight decided twice");
    const auto i = static_cast<size_t>(w);
    decided_[i] = true;
    std::optional<TensorLayout> held = l;
    if (read && shardable(n)) {
      TensorLayout use = l ? *l : layout_of(n);
      auto [cut, axes] = optimizer_shard_layout(use, o_.opt_shard_size);
      if (!axes.empty()) {
        use_.insert_or_assign(n, use);
        res_.opt_axes[i] = std::move(axes);
        held = std::move(cut);
      }
    }
    if (!held || whole(*held)) return;
    res_.weights[i] = *held;
    sliced(n, *held);
  }
  // Whether weight n may hold an optimizer shard (SpmdOptions::opt_shard).
  bool shardable(const Node* n) const {
    int w = weight_index(n);
    return w >= 0 && static_cast<size_t>(w) < o_.opt_shard.size() &&
           o_.opt_shard[static_cast<size_t>(w)] && is_tensor(n);
  }

  // The weights c reads that hold an optimizer shard, each gathered (just before this use)
  // to the layout its readers use; a first read by an op without a strategy uses it whole.
  void gather_weights(CNode* c) {
    const PrimData* p = c->prim();
    const bool has_strategy = p != nullptr && strategy_attr(p->attrs);
    for (size_t i = 1; i < c->size(); ++i) {
      Node* x = c->input(i);
      if (!has_strategy && undecided(x) && shardable(x)) decide(x, std::nullopt, true);
      auto it = use_.find(x);
      if (it == use_.end()) continue;
      Node* g = gather(c, x, it->second);
      if (!whole(it->second)) lay_.insert_or_assign(g, it->second);
      c->set_input(i, g);
    }
  }

  Shape global_shape(const Node* n) const {
    auto it = lay_.find(n);
    return it != lay_.end() ? it->second.shape() : shape_of(n);
  }
  TensorLayout layout_of(const Node* n) const {
    auto it = lay_.find(n);
    if (it != lay_.end()) return it->second;
    return TensorLayout(*mesh_, shape_of(n), TensorMap(n->abstract()->shape.size()));
  }

  // ------------------------------------------------------------ redistribution
  std::string group_of(const Axes& axes) {
    std::vector<int64_t> ranks = mesh_->group(o_.rank, axes);
    std::string name = o_.world_group;
    bool world = static_cast<int64_t>(ranks.size()) == o_.devices;
    for (size_t i = 0; world && i < ranks.size(); ++i) world = ranks[i] == static_cast<int64_t>(i);
    if (!world) {
      name = "spmd_group";
      for (int64_t r : ranks) name += "_" + std::to_string(r);
      auto same = [&](const SpmdGroup& g) { return g.name == name; };
      if (std::none_of(res_.groups.begin(), res_.groups.end(), same))
        res_.groups.push_back({name, ranks});
    }
    return name;
  }

  // Weight x, holding an optimizer shard, laid out as `to` for `reader`. The gather waits
  // (depend) for the reader's first other computed input, so that it runs just before its
  // use, not at the start (the weights are ready at once); its collectives are marked
  // recomputed (kRecomputeAttr, compiler/passes/recompute.cc), so the whole copy dies after
  // its forward use and the backward gathers the shard again where it needs the weight
  // (ZeRO-3), instead of keeping every gathered weight from the forward to the backward.
  Node* gather(CNode* reader, Node* x, const TensorLayout& to) {
    FuncGraph* g = reader->graph();
    Node* from = x;
    for (size_t i = 1; i < reader->size(); ++i) {
      Node* a = reader->input(i);
      if (a == x || !a->is_cnode() || !is_tensor(a) || weight_index(a) >= 0) continue;
      IrBuilder b(m_, g, x->span());
      from = b.builtin(Builtin::Depend, {x, a}, x->abstract());
      break;
    }
    regather_ = true;
    Node* out = redistribute(g, from, layout_of(x), to);
    regather_ = false;
    return out;
  }

  // x (laid out as `from`) laid out as `to`, by the collectives of the plan.
  Node* redistribute(FuncGraph* g, Node* x, const TensorLayout& from, const TensorLayout& to) {
    if (from == to) return x;
    IrBuilder b(m_, g, x->span());
    for (const Move& mv : plan_redistribution(from, to, 4)) x = move(b, x, mv);
    return x;
  }

  Node* move(IrBuilder& b, Node* x, const Move& mv) {
    const int64_t g = mesh_->group_size(mv.axes);
    const std::string group = group_of(mv.axes);
    Attrs a;
    a.set("group", group);
    if (regather_) a.set(kRecomputeAttr, int64_t{-1});
    switch (mv.kind) {
      case MoveKind::AllReduce:
        a.set("op", std::string("sum"));
        return b.prim(OpId::AllReduce, {x}, a);
      case MoveKind::AllGather:
        a.set("rank_size", g);
        return along_front(b, x, mv.dim, OpId::AllGather, a);
      case MoveKind::ReduceScatter:
        a.set("op", std::string("sum"));
        a.set("rank_size", g);
        return along_front(b, x, mv.dim, OpId::ReduceScatter, a);
      case MoveKind::AllToAll:
        a.set("split_count", g);
        a.set("split_dim", static_cast<int64_t>(mv.dim));
        a.set("concat_dim", static_cast<int64_t>(mv.concat_dim));
        return b.prim(OpId::AlltoAll, {x}, a);
      case MoveKind::Split: {
        Shape s = shape_of(x);
        std::vector<int64_t> begin(s.size(), 0), end(s.begin(), s.end()), step(s.size(), 1);
        auto d = static_cast<size_t>(mv.dim);
        int64_t len = s[d] / g, k = mesh_->group_index(o_.rank, mv.axes);
        begin[d] = k * len;
        end[d] = (k + 1) * len;
        return b.strided_slice(x, begin, end, step);
      }
      case MoveKind::Partial:
        break;
    }
    MC_ASSERT(false, "spmd: no target layout is partial");
    return x;
  }

  // The collective `op` (which works on dimension 0) applied along dimension d.
  Node* along_front(IrBuilder& b, Node* x, int d, OpId op, const Attrs& a) {
    if (d == 0) return b.prim(op, {x}, a);
    const auto nd = static_cast<int64_t>(shape_of(x).size());
    std::vector<int64_t> perm{d}, back(static_cast<size_t>(nd));
    for (int64_t i = 0; i < nd; ++i) {
      if (i != d) perm.push_back(i);
    }
    for (size_t i = 0; i < perm.size(); ++i)
      back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    return b.transpose(b.prim(op, {b.transpose(x, perm)}, a), back);
  }

  // ------------------------------------------------------------ the forward region
  void visit_forward(CNode* c) {
    if (item(c)) return;
    gather_weights(c);
    const PrimData* p = c->prim();
    if (p != nullptr) {
      if (std::optional<Strategy> s = strategy_attr(p->attrs)) return sharded(c, *s);
      bool split = false;
      for (size_t i = 1; i < c->size(); ++i)
        split = split || (is_tensor(c->input(i)) && lay_.count(c->input(i)));
      if (split && rule_family(p->op->id) != RuleFamily::None) return propagate(c);
    }
    replicate_inputs(c);
  }

  void sharded(CNode* c, const Strategy& s) {
    Attrs attrs = without_strategy(c->prim()->attrs);
    OpCall call = op_call(c, attrs);
    std::vector<TensorLayout> want = strategy_layouts(call, s, *mesh_);
    std::vector<Node*> in;
    for (size_t i = 0; i < want.size(); ++i) {
      Node* x = c->input(i + 1);
      if (undecided(x)) decide(x, want[i], true);
      in.push_back(use_.count(x) ? gather(c, x, want[i])
                                 : redistribute(c->graph(), x, layout_of(x), want[i]));
    }
    std::vector<TensorLayout> out = infer_layouts(call, want);
    std::optional<TensorLayout> target;
    if (std::optional<Strategy> os = out_strategy_attr(c->prim()->attrs)) {
      MC_CHECK(os->size() == 1 && out.size() == 1, Value, "For '", c->prim()->op->name,
               "', the out_strategy needs one row per output (", out.size(), "), but has ",
               os->size(), where(c));
      target = output_layout(call, out[0], (*os)[0]);
    }
    emit(c, std::move(in), call, want, out, target);
  }

  void propagate(CNode* c) {
    OpCall call = op_call(c, c->prim()->attrs);
    std::vector<Node*> in;
    std::vector<TensorLayout> cur;
    for (size_t i = 1; i < c->size(); ++i) {
      Node* x = c->input(i);
      TensorLayout l = layout_of(x);
      TensorLayout summed(l.mesh(), l.shape(), l.map());
      in.push_back(redistribute(c->graph(), x, l, summed));
      cur.push_back(summed);
    }
    std::optional<std::vector<TensorLayout>> out;
    try {
      out = infer_layouts(call, cur);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Value) throw;
    }
    if (!out) out = match_lead(c, call, in, cur);
    for (size_t i = 0; i < in.size(); ++i) {
      if (undecided(c->input(i + 1))) decide(c->input(i + 1), std::nullopt);
    }
    emit(c, std::move(in), call, cur, *out);
  }

  // Elementwise ops: the layout of the input spanning the output, the others redistributed
  // (an undecided weight takes its part); else every input whole.
  std::vector<TensorLayout> match_lead(CNode* c, const OpCall& call, std::vector<Node*>& in,
                                       std::vector<TensorLayout>& cur) {
    RuleFamily f = rule_family(call.op);
    const Shape out_shape = shape_of(c);
    for (size_t i = 0; i < cur.size() && f != RuleFamily::MatMul; ++i) {
      if (whole(cur[i]) || cur[i].shape() != out_shape) continue;
      if (f != RuleFamily::Unary && f != RuleFamily::Binary && f != RuleFamily::BiasAdd) break;
      std::vector<TensorLayout> want = elementwise_inputs(call, cur[i]);
      for (size_t j = 0; j < in.size(); ++j) {
        Node* x = c->input(j + 1);
        if (undecided(x)) {
          decide(x, want[j]);
          in[j] = x;
        } else {
          in[j] = redistribute(c->graph(), in[j], cur[j], want[j]);
        }
        cur[j] = want[j];
      }
      return infer_layouts(call, cur);
    }
    for (size_t j = 0; j < in.size(); ++j) {
      in[j] = redistribute(c->graph(), in[j], cur[j], replicated(cur[j]));
      cur[j] = replicated(cur[j]);
    }
    return infer_layouts(call, cur);
  }

  // The op on this rank's slices; its output's layout (an op with several outputs: the
  // layout of each item, read by the getitems of its result, `items`).
  void emit(CNode* c, std::vector<Node*> in, const OpCall& call,
            std::span<const TensorLayout> in_layouts, const std::vector<TensorLayout>& out,
            const std::optional<TensorLayout>& target = std::nullopt) {
    IrBuilder b(m_, c->graph(), c->span());
    Node* r = b.prim(call.op, std::move(in), local_attrs(call, out[0]));
    if (op_def(call.op).num_outputs != 1) {
      items_.insert_or_assign(r, out);
      return rw_.replace(c, r);
    }
    double k = local_scale(call, in_layouts);
    if (k != 1.0) r = b.mul_scalar(r, k);
    if (target) {  // the out_strategy's layout
      r = redistribute(c->graph(), r, out[0], *target);
      if (!whole(*target)) lay_.insert_or_assign(r, *target);
      return rw_.replace(c, r);
    }
    if (!whole(out[0])) lay_.insert_or_assign(r, out[0]);
    rw_.replace(c, r);
  }

  // getitem(r, k) of an op with several outputs: item k's layout and slice type.
  bool item(CNode* c) {
    if (!c->is_builtin(Builtin::GetItem)) return false;
    auto it = items_.find(c->input(1));
    std::optional<int64_t> k = compiler::detail::const_int(c->input(2));
    if (it == items_.end() || !k) return false;
    const auto i = static_cast<size_t>(*k);
    MC_ASSERT(i < it->second.size(), "spmd: item ", i, " of ", it->second.size());
    c->set_abstract(c->input(1)->abstract()->elems[i]);
    if (!whole(it->second[i])) lay_.insert_or_assign(c, it->second[i]);
    return true;
  }

  // Any other node of the forward region reads whole tensors.
  void replicate_inputs(CNode* c) {
    for (size_t i = 1; i < c->size(); ++i) {
      Node* x = c->input(i);
      MC_CHECK(!items_.count(x), Value, "semi_auto_parallel cannot yet pass the outputs of '",
               static_cast<CNode*>(x)->prim()->op->name, "' on as a tuple: read them one by one",
               where(c));
      if (!is_tensor(x)) continue;
      if (undecided(x)) decide(x, std::nullopt);
      TensorLayout l = layout_of(x);
      if (!whole(l)) c->set_input(i, redistribute(c->graph(), x, l, replicated(l)));
    }
  }

  // ------------------------------------------------------------ outside the forward region
  static Node* behind_depend(Node* n) {
    while (compiler::detail::is_builtin_call(n, Builtin::Depend))
      n = static_cast<CNode*>(n)->input(1);
    return n;
  }

  // An update (optimizer step) gives the layout of the weight it updates to the other
  // weights of that shape it reads (its state).
  void share_with_updates() {
    for (CNode* c : w_.nodes) {
      const PrimData* p = c->prim();
      if (forward_.count(c->graph()) || p == nullptr || !(p->op->flags & F_UPDATE)) continue;
      Node* target = behind_depend(c->input(1));
      auto it = lay_.find(target);
      if (weight_index(target) < 0 || it == lay_.end()) continue;
      for (size_t i = 2; i < c->size(); ++i) {
        Node* x = behind_depend(c->input(i));
        if (undecided(x) && is_tensor(x) && shape_of(x) == it->second.shape())
          decide(x, it->second);
      }
    }
  }

  void retype(CNode* c) {
    bool inputs_changed = false;
    for (size_t i = 0; i < c->size(); ++i) inputs_changed |= changed_.count(c->input(i)) > 0;
    if (const PrimData* p = c->prim()) {
      MC_CHECK(!p->attrs.has(kStrategyAttr), Value, "For '", p->op->name,
               "', semi_auto_parallel shards ops of the network only (the function a "
               "gradient is taken of, or the whole program without gradients)",
               where(c));
      if (inputs_changed) retype_prim(c, *p);
      return;
    }
    if (compiler::detail::is_builtin_call(c->input(0), Builtin::GetItem) &&
        compiler::detail::is_builtin_call(static_cast<CNode*>(c->input(0))->input(1),
                                          Builtin::Vjp)) {
      return bprop_call(c, static_cast<CNode*>(static_cast<CNode*>(c->input(0))->input(1)));
    }
    if (!inputs_changed) return;
    AbsPtr a;
    if (c->is_builtin(Builtin::MakeTuple)) {
      std::vector<AbsPtr> items;
      for (size_t i = 1; i < c->size(); ++i) items.push_back(c->input(i)->abstract());
      a = Abstract::tuple(std::move(items));
    } else if (c->is_builtin(Builtin::Depend)) {
      a = c->input(1)->abstract();
    } else if (c->is_builtin(Builtin::GetItem)) {
      std::optional<int64_t> k = compiler::detail::const_int(c->input(2));
      const Abstract& t = *c->input(1)->abstract();
      if (k && t.kind == AbsKind::Tuple && *k >= 0 && static_cast<size_t>(*k) < t.elems.size())
        a = t.elems[static_cast<size_t>(*k)];
    } else if (c->is_builtin(Builtin::Vjp)) {
      return;  // (forward output, bprop): the output is whole, unchanged
    }
    MC_CHECK(a != nullptr, Value,
             "semi_auto_parallel cannot yet rewrite this use of sliced "
             "weights outside the network (a node of ",
             c->abstract()->to_string(), ")", where(c));
    c->set_abstract(a);
    changed_.insert(c);
  }

  void retype_prim(CNode* c, const PrimData& p) {
    std::vector<TensorMeta> metas;
    for (size_t i = 1; i < c->size(); ++i) {
      const Abstract& a = *c->input(i)->abstract();
      metas.push_back({a.dtype, a.shape});
    }
    MetaList out = infer_op(*p.op, metas, p.attrs);
    if (out.size() == 1 && p.op->num_outputs == 1) {
      c->set_abstract(Abstract::tensor(out[0].dtype, out[0].shape));
    } else {
      std::vector<AbsPtr> items;
      for (const TensorMeta& t : out) items.push_back(Abstract::tensor(t.dtype, t.shape));
      c->set_abstract(Abstract::tuple(std::move(items)));
    }
    changed_.insert(c);
  }

  // bprop(sens) of vjp(fn, weights, args...): the sensitivity divided by the devices, the
  // cotangents (args..., weights...) typed on the slices and summed over the axes their
  // tensors are replicated along.
  void bprop_call(CNode* c, CNode* vjp) {
    IrBuilder b(m_, c->graph(), c->span());
    MC_CHECK(c->size() == 2 && is_tensor(c->input(1)), Value,
             "semi_auto_parallel: the network's output must be one tensor (the loss) to be "
             "differentiated",
             where(c));
    c->set_input(1, b.mul_scalar(c->input(1), 1.0 / static_cast<double>(mesh_->size())));
    std::vector<Node*> of;  // the tensors the cotangents are of
    for (size_t i = 3; i < vjp->size(); ++i) of.push_back(vjp->input(i));
    Node* wt = vjp->input(2);
    MC_CHECK(compiler::detail::is_builtin_call(wt, Builtin::MakeTuple), Value,
             "semi_auto_parallel: the weights a gradient is taken of must be a tuple of "
             "Parameters",
             where(c));
    for (size_t i = 1; i < static_cast<CNode*>(wt)->size(); ++i)
      of.push_back(static_cast<CNode*>(wt)->input(i));
    std::vector<AbsPtr> items;
    for (Node* x : of) items.push_back(x->abstract());
    c->set_abstract(Abstract::tuple(items));
    changed_.insert(c);
    std::vector<Node*> out;
    for (size_t k = 0; k < of.size(); ++k) {
      Node* item = b.tuple_get(c, k);
      Node* x = behind_depend(of[k]);
      if (is_tensor(item) && used(c, k)) {
        Axes rep;
        const auto it = lay_.find(x);
        for (int a = 0; a < mesh_->ndim(); ++a) {
          if (it == lay_.end() || it->second.dim_of(a) < 0) rep.push_back(a);
        }
        if (mesh_->group_size(rep) > 1) {
          Attrs at;
          at.set("group", group_of(rep));
          at.set("op", std::string("sum"));
          item = b.prim(OpId::AllReduce, {item}, at);
        }
      }
      out.push_back(item);
    }
    Node* t = b.make_tuple(out);
    changed_.insert(t);
    rw_.replace(c, t);
  }

  // Whether item k of c's result is read (a getitem of it, or c itself used otherwise).
  bool used(CNode* c, size_t k) {
    for (CNode* u : w_.nodes) {
      for (size_t i = 1; i < u->size(); ++i) {
        if (u->input(i) != c) continue;
        if (!u->is_builtin(Builtin::GetItem) || i != 1) return true;
        std::optional<int64_t> j = compiler::detail::const_int(u->input(2));
        if (!j || static_cast<size_t>(*j) == k) return true;
      }
    }
    return false;
  }

  Module& m_;
  FuncGraph* root_;
  SpmdOptions o_;
  compiler::detail::PassManager mng_;
  compiler::detail::Walk w_;
  compiler::detail::Rewriter rw_;
  SpmdResult res_;
  std::optional<DeviceMesh> mesh_;
  std::unordered_set<FuncGraph*> forward_;
  std::unordered_map<const Node*, TensorLayout> lay_;  // absent: whole on every device
  // Weights holding an optimizer shard: the layout their readers are given (gathered).
  std::unordered_map<const Node*, TensorLayout> use_;
  bool regather_ = false;  // while gather() builds moves
  // The ops with several outputs, each item's layout.
  std::unordered_map<const Node*, std::vector<TensorLayout>> items_;
  std::vector<bool> decided_;                // per weight
  std::unordered_set<const Node*> changed_;  // nodes whose abstract changed
};

}  // namespace

SpmdResult spmd_rewrite(Module& m, FuncGraph* root, const SpmdOptions& opts) {
  std::optional<SearchPlan> plan;
  if (!opts.search.empty()) {
    SearchOptions so{opts.search,  opts.devices,   opts.num_args,       opts.inputs,
                     opts.profile, opts.opt_shard, opts.opt_shard_size, {}};
    // A weight laid out by an earlier program keeps its slice: its plan does not apply.
    for (size_t w = 0; w < opts.planned.size(); ++w)
      so.planned.push_back(w < opts.known.size() && opts.known[w] ? std::vector<int64_t>{}
                                                                  : opts.planned[w]);
    plan = search_strategies(m, root, so);
    if (opts.plan_only) {
      SpmdResult r;
      r.plan = std::move(plan);
      return r;
    }
  }
  SpmdResult r = Spmd(m, root, opts).run();
  r.plan = std::move(plan);
  return r;
}

}  // namespace mycel::parallel
