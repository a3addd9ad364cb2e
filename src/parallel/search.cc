#include "parallel/search.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "base/error.h"
#include "ops/op_table.h"
#include "parallel/rec_search.h"
#include "parallel/spmd.h"
#include "parallel/strategies.h"
#include "tensor/dtype.h"

namespace mycel::parallel {

using namespace ir;
namespace detail = compiler::detail;

std::unordered_set<FuncGraph*> forward_region(const detail::Walk& w) {
  std::unordered_set<FuncGraph*> fwd;
  for (CNode* c : w.nodes) {
    if (!c->is_builtin(Builtin::Vjp)) continue;
    const Value* fn = detail::const_value(c->input(1));
    if (fn == nullptr || !fn->is(ValueKind::Graph)) continue;
    for (FuncGraph* g : detail::walk(fn->as_graph()).graphs) fwd.insert(g);
  }
  if (fwd.empty()) fwd.insert(w.graphs.begin(), w.graphs.end());
  return fwd;
}

namespace {

TensorLayout summed(const TensorLayout& l) { return TensorLayout(l.mesh(), l.shape(), l.map()); }

// Whether the bprop of reader c needs the value of its weight input for the gradient of its
// other inputs (the backward then gathers an optimizer-sharded weight again, where such a
// gradient is wanted: Evaluate::opt_shard): not for BiasAdd, Add, Sub (their gradients pass
// the output's through) or Gather (the table's gradient needs the indices only).
bool bprop_reads_weight(const CNode* c) {
  const PrimData* p = c->prim();
  if (p == nullptr) return true;
  const OpId op = p->op->id;
  return op != OpId::BiasAdd && op != OpId::Add && op != OpId::Sub && op != OpId::Gather;
}

bool elementwise(RuleFamily f) {
  return f == RuleFamily::Unary || f == RuleFamily::Binary || f == RuleFamily::BiasAdd;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// One candidate of a searched op: its input and output layouts and its costs.
struct Cand {
  Strategy s;
  std::vector<TensorLayout> want, out;
  double compute = 0;  // one forward, seconds
  double act = 0;      // bytes of its output slices (kept for the backward)
};

struct SOp {
  CNode* c = nullptr;
  std::unique_ptr<Attrs> attrs;  // the prim's, without a strategy
  std::unique_ptr<OpCall> call;
  bool user = false;
  int64_t elem = 4;
  std::vector<Cand> cands;
};

// Where input i of a searched op comes from.
struct Source {
  enum Kind { Op, Arg, Weight, Other } kind = Other;
  int op = -1;
  size_t item = 0;
  bool through = false;  // through elementwise ops (partial sums resolved)
  const Node* node = nullptr;
};

struct Edge {
  int u, v;
  size_t item, input;
  bool through;
  std::vector<std::vector<double>> cost;  // [t][s], forward and backward
};

class Search;

// The cost of a plan, laying the program out as spmd_rewrite does (spmd.h): searched ops on
// their candidates' layouts, elementwise ops propagating (partial sums resolved, the input
// spanning the output leading), every other node and the outputs whole; each weight laid out
// by its first reader.
class Evaluate {
 public:
  Evaluate(const Search& s, const std::vector<int>& choice) : s_(s), choice_(choice) {}
  SearchPlan run();

 private:
  TensorLayout layout_of(const Node* n) const;
  bool undecided(const Node* x) const;
  bool shardable(const Node* x) const;
  void decide(const Node* x, const TensorLayout& l);
  void redist(const Node* x, const TensorLayout& from, const TensorLayout& to);
  void searched(CNode* c, size_t v);
  void propagate(CNode* c, const PrimData& p);
  void replicate(CNode* c);
  void set_out(CNode* c, const std::vector<TensorLayout>& out);
  // Weight x used as `use` holds `shard`, gathered over `axes`: its collectives.
  void opt_shard(const Node* x, const TensorLayout& use, const TensorLayout& shard,
                 const Axes& axes);

  const Search& s_;
  const std::vector<int>& choice_;
  SearchPlan plan_;
  std::unordered_map<const Node*, TensorLayout> lay_;
  std::unordered_map<const Node*, std::vector<TensorLayout>> items_;
  std::vector<std::pair<const Node*, TensorLayout>> weights_;  // in the order decided
};

class Search {
 public:
  Search(Module& m, FuncGraph* root, const SearchOptions& o)
      : m_(m), root_(root), o_(o), w_(detail::walk(root)), mesh_(search_mesh(o.devices)) {}

  SearchPlan run() {
    MC_CHECK(o_.mode == "sharding_propagation" || o_.mode == "dynamic_programming" || recursive(),
             Value,
             "auto_parallel: search_mode must be 'sharding_propagation', "
             "'dynamic_programming' or 'recursive_programming', but got '",
             o_.mode, "'");
    fwd_ = forward_region(w_);
    lay_out_args();
    collect();
    trace_edges();
    const CostProfile& p = o_.profile;
    std::vector<int> choice = choose(0);
    SearchPlan plan = evaluate(choice);
    if (p.max_device_memory > 0 && plan.memory_bytes > p.max_device_memory) {
      double least = plan.memory_bytes;
      double lambda = plan.step_s() / p.max_device_memory;
      for (int i = 0; i < 40 && plan.memory_bytes > p.max_device_memory; ++i, lambda *= 2) {
        choice = choose(lambda);
        plan = evaluate(choice);
        least = std::min(least, plan.memory_bytes);
      }
      MC_CHECK(plan.memory_bytes <= p.max_device_memory, Value, "auto_parallel: no plan on ",
               o_.devices, " devices fits max_device_memory (", p.max_device_memory / (1 << 20),
               " MB per device); the least the search found is ", least / (1 << 20), " MB");
    }
    write(choice);
    return plan;
  }

 private:
  // ------------------------------------------------------------ the model
  // The recursive search (rec_search.h) adds candidates as it refines them; the others
  // enumerate every candidate and cost every edge up front.
  bool recursive() const { return o_.mode == "recursive_programming"; }

  TensorLayout whole_layout(const Node* n) const {
    return TensorLayout(mesh_, shape_of(n), TensorMap(n->abstract()->shape.size()));
  }

  int weight_index(const Node* n) const {
    if (!n->is_param() || n->graph() != root_) return -1;
    const auto& ps = root_->params();
    auto i = static_cast<size_t>(std::find(ps.begin(), ps.end(), n) - ps.begin());
    return i >= o_.num_args && i < ps.size() ? static_cast<int>(i - o_.num_args) : -1;
  }

  // The entry arguments as the dataset strategy lays them out (and the parameters of the
  // function a vjp differentiates that receive them).
  void lay_out_args() {
    for (size_t i = 0; i < o_.inputs.size() && i < root_->params().size(); ++i) {
      const std::vector<int64_t>& row = o_.inputs[i];
      Node* x = root_->params()[i];
      if (row.empty() || !is_tensor(x)) continue;
      Shape matrix{o_.devices};
      for (int64_t k : row) matrix[0] /= k;
      matrix.insert(matrix.end(), row.begin(), row.end());
      std::vector<Axes> axes = matrix_axes(matrix, mesh_);
      TensorMap map;
      for (size_t d = 0; d < row.size(); ++d) map.push_back(axes[d + 1]);
      args_.insert_or_assign(x, TensorLayout(mesh_, shape_of(x), std::move(map)));
    }
    for (size_t i = 0; i < o_.planned.size() && o_.num_args + i < root_->params().size(); ++i) {
      const std::vector<int64_t>& row = o_.planned[i];
      Node* x = root_->params()[o_.num_args + i];
      if (row.empty() || !is_tensor(x) || row.size() != shape_of(x).size()) continue;
      int64_t used = 1;
      for (int64_t k : row) used *= k;
      if (used < 1 || o_.devices % used != 0) continue;  // the rewrite names the error
      Shape matrix{o_.devices / used};
      matrix.insert(matrix.end(), row.begin(), row.end());
      std::vector<Axes> axes;
      try {
        axes = matrix_axes(matrix, mesh_);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Value) throw;
        continue;  // not a coarsening of the search mesh: not costed
      }
      TensorMap map;
      for (size_t d = 0; d < row.size(); ++d) map.push_back(axes[d + 1]);
      planned_.insert_or_assign(x, TensorLayout(mesh_, shape_of(x), std::move(map)));
    }
    for (CNode* c : w_.nodes) {
      const Value* fn = c->is_builtin(Builtin::Vjp) ? detail::const_value(c->input(1)) : nullptr;
      if (fn == nullptr || !fn->is(ValueKind::Graph)) continue;
      const auto& params = fn->as_graph()->params();
      for (size_t k = 3; k < c->size() && k - 3 < params.size(); ++k) {
        auto it = args_.find(c->input(k));
        if (it != args_.end()) args_.insert_or_assign(params[k - 3], TensorLayout(it->second));
      }
    }
  }

  TensorLayout layout_of(const std::unordered_map<const Node*, TensorLayout>& lay,
                         const Node* n) const {
    auto it = lay.find(n);
    return it != lay.end() ? it->second : whole_layout(n);
  }

  // The searched ops of the forward region and their candidates.
  void collect() {
    for (CNode* c : w_.nodes) {
      const PrimData* p = c->prim();
      if (!fwd_.count(c->graph()) || p == nullptr) continue;
      RuleFamily f = rule_family(p->op->id);
      if (f == RuleFamily::None || (elementwise(f) && !p->attrs.has(kStrategyAttr))) continue;
      bool tensors = true;
      for (size_t i = 1; i < c->size(); ++i) tensors = tensors && is_tensor(c->input(i));
      if (!tensors) continue;
      auto op = std::make_unique<SOp>();
      op->c = c;
      op->attrs = std::make_unique<Attrs>();
      for (const auto& [k, v] : p->attrs.items()) {
        if (k != kStrategyAttr) op->attrs->set(k, v);
      }
      std::vector<Shape> shapes;
      for (size_t i = 1; i < c->size(); ++i) shapes.push_back(shape_of(c->input(i)));
      op->call = std::make_unique<OpCall>(OpCall{p->op->id, *op->attrs, shapes, where(c)});
      op->elem = static_cast<int64_t>(dtype_size(c->input(1)->abstract()->dtype));
      std::vector<Strategy> cands;
      if (std::optional<Strategy> s = strategy_attr(p->attrs)) {
        op->user = true;
        cands.push_back(*s);
      } else {
        try {
          if (recursive()) {
            cands.push_back(unsplit_strategy(*op->call, o_.devices));
          } else {
            cands = enumerate_strategies(*op->call, o_.devices);
            bound(*op, cands);
          }
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::Value) throw;
          continue;  // a call its rule rejects: left to the rewrite (whole)
        }
      }
      for (Strategy& s : cands) op->cands.push_back(candidate(*op, std::move(s)));
      index_[c] = static_cast<int>(ops_.size());
      ops_.push_back(std::move(op));
    }
  }

  Cand candidate(const SOp& op, Strategy s) const {
    Cand k;
    k.want = strategy_layouts(*op.call, s, mesh_);
    k.out = infer_layouts(*op.call, k.want);
    k.s = std::move(s);
    k.compute = compute_seconds(*op.call, k.want, k.out, op.elem, o_.profile);
    for (const TensorLayout& l : k.out) k.act += slice_bytes(l, op.elem);
    return k;
  }

  Source source(Node* x) const {
    Source src;
    for (;;) {
      src.node = x;
      if (x->is_param()) {
        src.kind = weight_index(x) >= 0 ? Source::Weight : Source::Arg;
        return src;
      }
      if (!x->is_cnode()) return src;
      auto* c = static_cast<CNode*>(x);
      if (c->is_builtin(Builtin::GetItem)) {
        auto it = index_.find(c->input(1));
        std::optional<int64_t> k = detail::const_int(c->input(2));
        if (it == index_.end() || !k) return src;
        src.kind = Source::Op;
        src.op = it->second;
        src.item = static_cast<size_t>(*k);
        return src;
      }
      if (auto it = index_.find(c); it != index_.end()) {
        src.kind = Source::Op;
        src.op = it->second;
        return src;
      }
      const PrimData* p = c->prim();
      if (p == nullptr || !elementwise(rule_family(p->op->id)) || !is_tensor(c)) return src;
      Node* lead = nullptr;
      for (size_t i = 1; i < c->size() && lead == nullptr; ++i) {
        Node* in = c->input(i);
        if (is_tensor(in) && weight_index(in) < 0 && in->abstract()->shape == c->abstract()->shape)
          lead = in;
      }
      if (lead == nullptr) return src;
      src.through = true;
      x = lead;
    }
  }

  void trace_edges() {
    sources_.resize(ops_.size());
    for (size_t v = 0; v < ops_.size(); ++v) {
      const SOp& op = *ops_[v];
      for (size_t i = 1; i < op.c->size(); ++i) {
        Source src = source(op.c->input(i));
        sources_[v].push_back(src);
        if (src.kind != Source::Op || src.op == static_cast<int>(v)) continue;
        const SOp& u = *ops_[static_cast<size_t>(src.op)];
        if (src.item >= u.cands[0].out.size() ||
            u.cands[0].out[src.item].shape() != op.cands[0].want[i - 1].shape())
          continue;
        Edge e{src.op, static_cast<int>(v), src.item, i - 1, src.through, {}};

        edges_.push_back(std::move(e));
      }
    }
    // The values read whole: by nodes without a rule, and as outputs of the region.
    sinks_.resize(ops_.size());
    auto sink = [&](Node* x) {
      if (!is_tensor(x)) return;
      Source src = source(x);
      if (src.kind == Source::Op) sinks_[static_cast<size_t>(src.op)].push_back(src);
    };
    for (CNode* c : w_.nodes) {
      if (!fwd_.count(c->graph()) || index_.count(c)) continue;
      const PrimData* p = c->prim();
      if ((p != nullptr && rule_family(p->op->id) != RuleFamily::None) ||
          (c->is_builtin(Builtin::GetItem) && index_.count(c->input(1))))
        continue;
      for (size_t i = 1; i < c->size(); ++i) sink(c->input(i));
    }
    for (FuncGraph* g : w_.graphs) {
      if (fwd_.count(g)) sink(g->output());
    }
    // The elementwise ops merged into their producers: their compute on its output slice.
    merged_.resize(ops_.size());
    for (CNode* c : w_.nodes) {
      const PrimData* p = c->prim();
      if (!fwd_.count(c->graph()) || index_.count(c) || p == nullptr ||
          !elementwise(rule_family(p->op->id)) || !is_tensor(c))
        continue;
      Source src = source(c);
      if (src.kind == Source::Op)
        merged_[static_cast<size_t>(src.op)].push_back({src, c->size() - 1});
    }
    if (!recursive()) {
      approximate();
      for (Edge& e : edges_) edge_costs(e);
    }
  }

  // Whether candidate s of `op` is within the bounds of set_algo_parameters (cost_model.h):
  // every device used (fully_use_devices; the recursive search applies it per level), and a
  // MatMul's split last dimensions in slices a multiple of slice_align.
  bool allowed(const SOp& op, const Strategy& s) const {
    const CostProfile& p = o_.profile;
    if (p.fully_use_devices && !recursive()) {
      int64_t used = 1;
      for (int64_t k : loop_space(*op.call, s).splits) used *= k;
      if (used != o_.devices) return false;
    }
    if (p.slice_align > 0 && rule_family(op.call->op) == RuleFamily::MatMul) {
      for (size_t i = 0; i < s.size(); ++i) {
        const int64_t split = s[i].empty() ? 1 : s[i].back();
        if (split > 1 && (op.call->shapes[i].back() / split) % p.slice_align != 0) return false;
      }
    }
    return true;
  }

  // The candidates of each op within its bounds; the unsplit one alone when none is.
  void bound(SOp& op, std::vector<Strategy>& cands) const {
    std::vector<Strategy> kept;
    for (Strategy& s : cands) {
      if (allowed(op, s)) kept.push_back(std::move(s));
    }
    if (kept.empty()) kept.push_back(std::move(cands.front()));
    cands = std::move(kept);
  }

  // set_algo_parameters(enable_algo_approxi=True): each op keeps the approx_keep candidates
  // of least own cost (min{S, 1/epsilon}, MindSpore's), in their enumeration order.
  void approximate() {
    const auto keep = static_cast<size_t>(o_.profile.approx_keep);
    if (keep == 0) return;
    for (size_t v = 0; v < ops_.size(); ++v) {
      SOp& op = *ops_[v];
      if (op.cands.size() <= keep) continue;
      std::vector<size_t> order(op.cands.size());
      std::vector<double> cost(op.cands.size());
      for (size_t s = 0; s < order.size(); ++s) {
        order[s] = s;
        cost[s] = own(v, s, 0);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return cost[a] < cost[b]; });
      order.resize(keep);
      std::sort(order.begin(), order.end());
      std::vector<Cand> kept;
      for (size_t s : order) kept.push_back(std::move(op.cands[s]));
      op.cands = std::move(kept);
    }
  }

  // The seconds of a training step op u's candidate t brings besides its own compute: the
  // elementwise ops merged into it, on its output's slice, and making its output whole where
  // it is read whole (sinks_), forward and backward.
  double merged_seconds(size_t u, size_t t) const {
    double c = 0;
    const SOp& op = *ops_[u];
    for (const auto& [src, inputs] : merged_[u]) {
      if (src.item >= op.cands[t].out.size()) continue;
      const double n = static_cast<double>(op.cands[t].out[src.item].slice_numel());
      const double bytes = n * static_cast<double>((inputs + 1) * static_cast<size_t>(op.elem));
      c += kTrainComputeFactor *
           std::max(n / o_.profile.peak_flops, bytes / o_.profile.mem_bandwidth);
    }
    return c + to_whole(u, t);
  }

  // Making u's output under t whole where it is read whole (sinks_), forward and backward.
  double to_whole(size_t u, size_t t) const {
    double c = 0;
    const SOp& op = *ops_[u];
    for (const Source& src : sinks_[u]) {
      if (src.item >= op.cands[t].out.size()) continue;
      const TensorLayout& l = op.cands[t].out[src.item];
      c += 2 * redistribution_seconds(l, replicated(l), op.elem, o_.profile);
    }
    return c;
  }

  // edge(u, t, v, s) for every pair, each distinct pair of layouts planned once.
  void edge_costs(Edge& e) {
    const SOp& u = *ops_[static_cast<size_t>(e.u)];
    const SOp& v = *ops_[static_cast<size_t>(e.v)];
    std::vector<TensorLayout> froms, tos;
    std::vector<double> resolve;
    std::vector<size_t> from_id =
        intern(u.cands.size(), froms, [&](size_t t) { return u.cands[t].out[e.item]; });
    for (TensorLayout& l : froms) {
      double r = 0;
      if (e.through && !l.partial().empty()) {
        r = redistribution_seconds(l, summed(l), v.elem, o_.profile);
        l = summed(l);
      }
      resolve.push_back(r);
    }
    std::vector<size_t> to_id =
        intern(v.cands.size(), tos, [&](size_t s) { return v.cands[s].want[e.input]; });
    std::vector<std::vector<double>> memo(froms.size(), std::vector<double>(tos.size(), -1));
    e.cost.assign(u.cands.size(), std::vector<double>(v.cands.size(), 0));
    for (size_t t = 0; t < u.cands.size(); ++t) {
      for (size_t s = 0; s < v.cands.size(); ++s) {
        double& m = memo[from_id[t]][to_id[s]];
        if (m < 0)
          m = resolve[from_id[t]] +
              redistribution_seconds(froms[from_id[t]], tos[to_id[s]], v.elem, o_.profile);
        e.cost[t][s] = 2 * m;
      }
    }
  }

  // The distinct layouts of(0 .. n-1) into `distinct`, and each one's index there.
  template <class F>
  static std::vector<size_t> intern(size_t n, std::vector<TensorLayout>& distinct, F of) {
    std::map<std::string, size_t> ids;
    std::vector<size_t> id;
    for (size_t i = 0; i < n; ++i) {
      TensorLayout l = of(i);
      auto [it, fresh] = ids.emplace(l.to_string(), distinct.size());
      if (fresh) distinct.push_back(std::move(l));
      id.push_back(it->second);
    }
    return id;
  }

  // Weight w read laid out as `use`: the layout it holds between steps and the axes of its
  // optimizer shard (none: not sharded; SearchOptions::opt_shard).
  std::pair<TensorLayout, Axes> held(const TensorLayout& use, int w) const {
    if (w < 0 || static_cast<size_t>(w) >= o_.opt_shard.size() ||
        !o_.opt_shard[static_cast<size_t>(w)] || o_.devices <= 1 || !use.partial().empty())
      return {use, {}};
    return optimizer_shard_layout(use, o_.opt_shard_size);
  }
  // The optimizer shard's collectives of one reader of a weight held as `shard` and used as
  // `use`, gathered over `axes`, as the search weighs them: the forward's AllGather, the
  // backward's again (Evaluate counts it only where the rewrite gathers again: an upper
  // bound here), the gradient's ReduceScatter.
  double gather_seconds(const TensorLayout& shard, const TensorLayout& use, const Axes& axes,
                        int64_t elem) const {
    const int64_t g = mesh_.group_size(axes);
    return 2 * collective_seconds(MoveKind::AllGather, g, slice_bytes(shard, elem), o_.profile,
                                  axes) +
           collective_seconds(MoveKind::ReduceScatter, g, slice_bytes(use, elem), o_.profile, axes);
  }
  // The gradient AllReduce of a weight laid out as l, over the axes it is replicated along.
  double grad_seconds(const TensorLayout& l, int64_t elem) const {
    const Axes rep = replicated_axes(l);
    return collective_seconds(MoveKind::AllReduce, mesh_.group_size(rep), slice_bytes(l, elem),
                              o_.profile, rep);
  }
  // The mesh axes no dimension of l is split along.
  Axes replicated_axes(const TensorLayout& l) const {
    Axes rep;
    for (int a = 0; a < mesh_.ndim(); ++a) {
      if (l.dim_of(a) < 0) rep.push_back(a);
    }
    return rep;
  }
  double weight_bytes(const TensorLayout& l, int64_t elem) const {
    return slice_bytes(l, elem) * (2 + o_.profile.optimizer_factor);
  }

  // own(v, s) + λ × its memory.
  double own(size_t v, size_t s, double lambda) const {
    const SOp& op = *ops_[v];
    const Cand& k = op.cands[s];
    double t = kTrainComputeFactor * k.compute + merged_seconds(v, s), mem = k.act;
    for (size_t i = 0; i < sources_[v].size(); ++i) {
      const Source& src = sources_[v][i];
      if (src.kind == Source::Weight) {
        // A planned weight holds its plan's layout; the reader redistributes from it.
        auto pl = planned_.find(src.node);
        const TensorLayout& hold = pl != planned_.end() ? pl->second : k.want[i];
        if (pl != planned_.end())
          t += 2 * redistribution_seconds(hold, k.want[i], op.elem, o_.profile);
        auto [shard, axes] = held(hold, weight_index(src.node));
        if (!axes.empty()) t += gather_seconds(shard, hold, axes, op.elem);
        t += grad_seconds(shard, op.elem);
        mem += weight_bytes(shard, op.elem);
      } else if (src.kind == Source::Arg) {
        auto it = args_.find(src.node);
        if (it != args_.end())
          t += 2 * redistribution_seconds(it->second, k.want[i], op.elem, o_.profile);
      }
    }
    return t + lambda * mem;
  }

  // ------------------------------------------------------------ the searches
  std::vector<int> choose(double lambda) {
    if (recursive()) return partition(lambda);
    return o_.mode == "dynamic_programming" ? viterbi(lambda) : propagate(lambda);
  }

  // The recursive search's questions (rec_search.h), answered on this model.
  class Rec final : public RecCosts {
   public:
    Rec(Search& s, double lambda) : s_(s), lambda_(lambda) {}
    std::vector<int> refine(size_t v, int c, int64_t factor) override {
      SOp& op = *s_.ops_[v];
      std::vector<int> out;
      for (Strategy& r :
           refine_strategy(*op.call, op.cands[static_cast<size_t>(c)].s, factor, s_.o_.devices)) {
        if (!s_.allowed(op, r)) continue;
        auto it =
            std::find_if(op.cands.begin(), op.cands.end(), [&](const Cand& k) { return k.s == r; });
        if (it == op.cands.end()) {
          op.cands.push_back(s_.candidate(op, std::move(r)));
          it = op.cands.end() - 1;
        }
        out.push_back(static_cast<int>(it - op.cands.begin()));
      }
      return out;
    }
    double own(size_t v, int c) const override {
      return s_.own(v, static_cast<size_t>(c), lambda_);
    }
    double edge(size_t e, int t, int s) override {
      auto key = std::make_tuple(e, t, s);
      auto it = s_.edge_memo_.find(key);
      if (it != s_.edge_memo_.end()) return it->second;
      const Edge& ed = s_.edges_[e];
      const TensorLayout& from =
          s_.ops_[static_cast<size_t>(ed.u)]->cands[static_cast<size_t>(t)].out[ed.item];
      const TensorLayout& to =
          s_.ops_[static_cast<size_t>(ed.v)]->cands[static_cast<size_t>(s)].want[ed.input];
      const int64_t elem = s_.ops_[static_cast<size_t>(ed.v)]->elem;
      double r = 0;
      if (ed.through && !from.partial().empty()) {
        TensorLayout sum = summed(from);
        r = redistribution_seconds(from, sum, elem, s_.o_.profile) +
            redistribution_seconds(sum, to, elem, s_.o_.profile);
      } else {
        r = redistribution_seconds(from, to, elem, s_.o_.profile);
      }
      return s_.edge_memo_[key] = 2 * r;
    }

   private:
    Search& s_;
    double lambda_;
  };

  std::vector<int> partition(double lambda) {
    Rec rec(*this, lambda);
    return recursive_partition(graph(), rec, mesh_.shape());
  }

  std::vector<int> viterbi(double lambda) const {
    std::vector<size_t> counts;
    for (const auto& op : ops_) counts.push_back(op->cands.size());
    return parallel::viterbi(
        graph(), counts, [&](size_t v, size_t s) { return own(v, s, lambda); },
        [&](size_t e, size_t t, size_t s) { return edges_[e].cost[t][s]; });
  }

  // The searched ops and their edges, as rec_search.h's searches read them.
  RecGraph graph() const {
    RecGraph g;
    g.ops = ops_.size();
    for (const auto& op : ops_) g.fixed.push_back(op->user);
    for (const Edge& e : edges_)
      g.edges.emplace_back(static_cast<size_t>(e.u), static_cast<size_t>(e.v));
    g.refine_only = o_.profile.fully_use_devices;
    return g;
  }

  std::vector<int> propagate(double lambda) const {
    const size_t n = ops_.size();
    std::vector<int> choice(n, -1);
    std::vector<std::vector<size_t>> near(n);  // the edges at each op
    for (size_t e = 0; e < edges_.size(); ++e) {
      near[static_cast<size_t>(edges_[e].u)].push_back(e);
      near[static_cast<size_t>(edges_[e].v)].push_back(e);
    }
    std::deque<size_t> queue;
    for (size_t v = 0; v < n; ++v) {
      if (ops_[v]->user) {
        choice[v] = 0;
        queue.push_back(v);
      }
    }
    // The cheapest candidate of v given its decided neighbours.
    auto decide = [&](size_t v) {
      double least = kInf;
      for (size_t s = 0; s < ops_[v]->cands.size(); ++s) {
        double c = own(v, s, lambda);
        for (size_t e : near[v]) {
          const Edge& ed = edges_[e];
          const bool out = static_cast<size_t>(ed.u) == v;
          const int w = choice[static_cast<size_t>(out ? ed.v : ed.u)];
          if (w < 0) continue;
          c += out ? ed.cost[s][static_cast<size_t>(w)] : ed.cost[static_cast<size_t>(w)][s];
        }
        if (c < least) {
          least = c;
          choice[v] = static_cast<int>(s);
        }
      }
      queue.push_back(v);
    };
    if (queue.empty() && n > 0) {
      size_t start = 0;
      double most = -1;
      for (size_t v = 0; v < n; ++v) {
        const Cand& k = ops_[v]->cands[0];
        double f = k.compute;
        if (f > most) {
          most = f;
          start = v;
        }
      }
      decide(start);
    }
    for (size_t next = 0;;) {
      while (!queue.empty()) {
        size_t u = queue.front();
        queue.pop_front();
        std::vector<size_t> reach;
        for (size_t e : near[u]) {
          const Edge& ed = edges_[e];
          reach.push_back(static_cast<size_t>(static_cast<size_t>(ed.u) == u ? ed.v : ed.u));
        }
        std::sort(reach.begin(), reach.end());
        for (size_t v : reach) {
          if (choice[v] < 0) decide(v);
        }
      }
      while (next < n && choice[next] >= 0) ++next;
      if (next == n) break;
      decide(next);
    }
    return choice;
  }

  // ------------------------------------------------------------ the exact cost
  SearchPlan evaluate(const std::vector<int>& choice) const {
    return Evaluate(*this, choice).run();
  }

  void write(const std::vector<int>& choice) {
    for (size_t v = 0; v < ops_.size(); ++v) {
      SOp& op = *ops_[v];
      if (op.user) continue;
      const Strategy& s = op.cands[static_cast<size_t>(choice[v])].s;
      std::vector<int64_t> code{static_cast<int64_t>(s.size())};
      for (const auto& row : s) code.push_back(static_cast<int64_t>(row.size()));
      for (const auto& row : s) code.insert(code.end(), row.begin(), row.end());
      Attrs a = op.c->prim()->attrs;
      a.set(kStrategyAttr, code);
      Value prim = Value::prim(*op.c->prim()->op, std::move(a));
      ValueNode* callee = m_.value(prim, op.c->input(0)->span());
      callee->set_abstract(Abstract::constant(prim));
      op.c->set_input(0, callee);
    }
  }

  Module& m_;
  FuncGraph* root_;
  const SearchOptions& o_;
  detail::Walk w_;
  DeviceMesh mesh_;
  std::unordered_set<FuncGraph*> fwd_;
  std::unordered_map<const Node*, TensorLayout> args_;     // entry arguments not whole
  std::unordered_map<const Node*, TensorLayout> planned_;  // weights with a parameter_plan
  std::vector<std::unique_ptr<SOp>> ops_;
  std::unordered_map<const Node*, int> index_;  // CNode -> its searched op
  std::vector<std::vector<Source>> sources_;
  std::vector<Edge> edges_;
  std::vector<std::vector<Source>> sinks_;  // per op: where its output is read whole
  // Per op: the elementwise ops merged into it (where they read its output, their inputs).
  std::vector<std::vector<std::pair<Source, size_t>>> merged_;
  // The recursive search's edge costs, by (edge, producer's candidate, consumer's).
  std::map<std::tuple<size_t, int, int>, double> edge_memo_;

  friend class Evaluate;
};

}  // namespace

SearchPlan search_strategies(Module& m, FuncGraph* root, const SearchOptions& opts) {
  return Search(m, root, opts).run();
}

}  // namespace mycel::parallel

namespace mycel::parallel {
namespace {

int64_t elem_of(const Node* n) { return static_cast<int64_t>(dtype_size(n->abstract()->dtype)); }

TensorLayout Evaluate::layout_of(const Node* n) const {
  auto it = lay_.find(n);
  return it != lay_.end() ? it->second : s_.whole_layout(n);
}

bool Evaluate::shardable(const Node* x) const {
  const int w = s_.weight_index(x);
  return w >= 0 && static_cast<size_t>(w) < s_.o_.opt_shard.size() &&
         s_.o_.opt_shard[static_cast<size_t>(w)] && s_.o_.devices > 1 && is_tensor(x);
}

bool Evaluate::undecided(const Node* x) const {
  if (s_.weight_index(x) < 0) return false;
  return std::none_of(weights_.begin(), weights_.end(),
                      [&](const auto& w) { return w.first == x; });
}

void Evaluate::decide(const Node* x, const TensorLayout& l) {
  weights_.emplace_back(x, l);
  if (!whole(l)) lay_.insert_or_assign(x, l);
}

void Evaluate::redist(const Node* x, const TensorLayout& from, const TensorLayout& to) {
  // The forward move and its transpose in the backward.
  for (const MoveCost& m : redistribution_costs(from, to, elem_of(x), s_.o_.profile)) {
    plan_.comm_s += 2 * m.seconds;
    if (m.group <= 1 || m.kind == MoveKind::Split || m.kind == MoveKind::Partial) continue;
    plan_.collective_s[move_name(m.kind)] += 2 * m.seconds;
    plan_.axis_bytes[s_.mesh_.axes_str(m.axes)] += 2 * m.sent;
  }
}

void Evaluate::set_out(CNode* c, const std::vector<TensorLayout>& out) {
  const int64_t elem = elem_of(c->input(1));
  for (const TensorLayout& l : out) plan_.memory_bytes += slice_bytes(l, elem);
  if (out.size() != 1) {
    items_.insert_or_assign(c, out);
  } else if (!whole(out[0])) {
    lay_.insert_or_assign(c, out[0]);
  }
}

void Evaluate::searched(CNode* c, size_t v) {
  const SOp& op = *s_.ops_[v];
  const Cand& k = op.cands[static_cast<size_t>(choice_[v])];
  for (size_t i = 0; i < k.want.size(); ++i) {
    Node* x = c->input(i + 1);
    if (undecided(x)) {
      decide(x, k.want[i]);
    } else {
      redist(x, layout_of(x), k.want[i]);
    }
  }
  plan_.compute_s += kTrainComputeFactor * k.compute;
  set_out(c, k.out);
  plan_.ops.push_back({op_def(op.call->op).name, op.call->shapes, k.s, op.user});
}

void Evaluate::propagate(CNode* c, const PrimData& p) {
  std::vector<Shape> shapes;
  for (size_t i = 1; i < c->size(); ++i) shapes.push_back(layout_of(c->input(i)).shape());
  OpCall call{p.op->id, p.attrs, shapes, ""};
  std::vector<TensorLayout> cur;
  for (size_t i = 1; i < c->size(); ++i) {
    // The rewrite gives a weight that may hold an optimizer shard, first read by an op
    // without a strategy, whole to that reader (spmd.h, gather_weights).
    if (undecided(c->input(i)) && shardable(c->input(i)))
      decide(c->input(i), s_.whole_layout(c->input(i)));
    TensorLayout l = layout_of(c->input(i));
    redist(c->input(i), l, summed(l));
    cur.push_back(summed(l));
  }
  std::optional<std::vector<TensorLayout>> out;
  try {
    out = infer_layouts(call, cur);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Value) throw;
  }
  const Shape out_shape = shape_of(c);
  for (size_t i = 0; !out && i < cur.size() && elementwise(rule_family(call.op)); ++i) {
    if (whole(cur[i]) || cur[i].shape() != out_shape) continue;
    std::vector<TensorLayout> want = elementwise_inputs(call, cur[i]);
    for (size_t j = 0; j < cur.size(); ++j) {
      if (undecided(c->input(j + 1)) && !shardable(c->input(j + 1))) {
        decide(c->input(j + 1), want[j]);
      } else {
        redist(c->input(j + 1), cur[j], want[j]);
      }
    }
    cur = want;
    out = infer_layouts(call, cur);
  }
  if (!out) {
    for (size_t j = 0; j < cur.size(); ++j) {
      redist(c->input(j + 1), cur[j], replicated(cur[j]));
      cur[j] = replicated(cur[j]);
    }
    out = infer_layouts(call, cur);
  }
  for (size_t j = 1; j < c->size(); ++j) {
    if (undecided(c->input(j))) decide(c->input(j), replicated(cur[j - 1]));
  }
  plan_.compute_s +=
      kTrainComputeFactor * compute_seconds(call, cur, *out, elem_of(c->input(1)), s_.o_.profile);
  set_out(c, *out);
}

void Evaluate::opt_shard(const Node* x, const TensorLayout& use, const TensorLayout& shard,
                         const Axes& axes) {
  // Each reader in the forward region gathers the weight (spmd.h, gather_weights), and the
  // backward again where the reader's bprop reads it to pass a gradient to another input.
  int64_t readers = 0, regathers = 0;
  std::unordered_set<const Node*> graded;  // forward values a weight's gradient flows through
  for (CNode* c : s_.w_.nodes) {
    if (!s_.fwd_.count(c->graph())) continue;
    bool reads = false, other = false;
    for (size_t i = 1; i < c->size(); ++i) {
      const Node* in = c->input(i);
      const bool g = s_.weight_index(in) >= 0 || graded.count(in) > 0;
      if (g) graded.insert(c);
      if (in == x) {
        reads = true;
      } else {
        other = other || g;
      }
    }
    if (!reads) continue;
    ++readers;
    regathers += bprop_reads_weight(c) && other ? 1 : 0;
  }
  const int64_t elem = elem_of(x), g = s_.mesh_.group_size(axes);
  const double gathers = static_cast<double>(readers + regathers);
  const double r = static_cast<double>(readers), gd = static_cast<double>(g);
  const double shard_b = slice_bytes(shard, elem), use_b = slice_bytes(use, elem);
  const double ag = collective_seconds(MoveKind::AllGather, g, shard_b, s_.o_.profile, axes);
  const double rs = collective_seconds(MoveKind::ReduceScatter, g, use_b, s_.o_.profile, axes);
  plan_.opt_shard_s += gathers * ag + r * rs;
  plan_.opt_shard_weights += 1;
  plan_.opt_gathers += readers + regathers;
  plan_.opt_scatters += readers;
  plan_.opt_gather_bytes += gathers * shard_b;
  plan_.opt_scatter_bytes += r * use_b;
  plan_.collective_s["AllGather (optimizer shard)"] += gathers * ag;
  plan_.collective_s["ReduceScatter (optimizer shard)"] += r * rs;
  // Each device sends (g-1) shards in an AllGather, (g-1)/g of the used slice in a
  // ReduceScatter.
  plan_.axis_bytes[s_.mesh_.axes_str(axes)] +=
      gathers * (gd - 1) * shard_b + r * (gd - 1) / gd * use_b;
}

void Evaluate::replicate(CNode* c) {
  for (size_t i = 1; i < c->size(); ++i) {
    Node* x = c->input(i);
    if (!is_tensor(x)) continue;
    if (undecided(x)) decide(x, s_.whole_layout(x));
    auto it = lay_.find(x);
    if (it != lay_.end()) redist(x, it->second, replicated(it->second));
  }
  if (is_tensor(c))
    plan_.memory_bytes +=
        static_cast<double>(elem_of(c)) * static_cast<double>(s_.whole_layout(c).slice_numel());
}

SearchPlan Evaluate::run() {
  plan_.mode = s_.o_.mode;
  plan_.devices = s_.o_.devices;
  for (const auto& [x, l] : s_.args_) {
    if (!whole(l)) lay_.insert_or_assign(x, l);
  }
  // Weights with a parameter_plan hold it before any reader asks (spmd.h).
  for (const Node* x : s_.root_->params()) {
    auto it = s_.planned_.find(x);
    if (it != s_.planned_.end()) decide(x, it->second);
  }
  for (CNode* c : s_.w_.nodes) {
    if (!s_.fwd_.count(c->graph())) continue;
    if (c->is_builtin(Builtin::GetItem)) {
      auto it = items_.find(c->input(1));
      std::optional<int64_t> k = detail::const_int(c->input(2));
      if (it != items_.end() && k && static_cast<size_t>(*k) < it->second.size()) {
        const TensorLayout& l = it->second[static_cast<size_t>(*k)];
        if (!whole(l)) lay_.insert_or_assign(c, l);
        continue;
      }
    }
    if (auto it = s_.index_.find(c); it != s_.index_.end()) {
      searched(c, static_cast<size_t>(it->second));
      continue;
    }
    const PrimData* p = c->prim();
    bool split = false, tensors = true;
    for (size_t i = 1; i < c->size(); ++i) {
      split = split || lay_.count(c->input(i)) > 0;
      tensors = tensors && is_tensor(c->input(i));
    }
    if (p != nullptr && split && tensors && rule_family(p->op->id) != RuleFamily::None) {
      propagate(c, *p);
    } else {
      replicate(c);
    }
  }
  for (FuncGraph* g : s_.w_.graphs) {
    if (!s_.fwd_.count(g) || !is_tensor(g->output())) continue;
    auto it = lay_.find(g->output());
    if (it != lay_.end()) redist(g->output(), it->second, replicated(it->second));
  }
  plan_.mesh = s_.mesh_.shape();
  for (auto& [x, l] : weights_) {
    auto [shard, axes] = s_.held(l, s_.weight_index(x));
    if (!axes.empty()) opt_shard(x, l, shard, axes);
    l = shard;
    plan_.weight_bytes += slice_bytes(l, elem_of(x));
    const double t = s_.grad_seconds(l, elem_of(x));
    plan_.grad_s += t;
    if (Axes rep = s_.replicated_axes(l); t > 0) {
      // Ring AllReduce: each device sends 2(p-1)/p of its slice.
      const double p = static_cast<double>(s_.mesh_.group_size(rep));
      plan_.collective_s["AllReduce (gradients)"] += t;
      plan_.axis_bytes[s_.mesh_.axes_str(rep)] += 2 * (p - 1) / p * slice_bytes(l, elem_of(x));
    }
    plan_.memory_bytes += s_.weight_bytes(l, elem_of(x));
  }
  return std::move(plan_);
}

}  // namespace
}  // namespace mycel::parallel
