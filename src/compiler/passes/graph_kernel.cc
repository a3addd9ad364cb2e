// graph_kernel: connected elementwise and reduction prims of one shape family become a call of
// a GraphKernel graph, which the executor runs as one generated kernel (codegen/).
//
//   %a = Sub(%x, %m) : f32[4, 8]                 %k = @GraphKernel_0(%x, %m, %y) : tuple(...)
//   %b = Mul(%a, %a) : f32[4, 8]           ->    %a = getitem(%k, 0) : f32[4, 8]
//   %s = ReduceSum{axis=(1,)}(%b) : f32[4]       %s = getitem(%k, 1) : f32[4]
//   %c = Add(%a, %y) : f32[4, 8]                 %c = ... uses of %a, %s read the getitems
//
//   graph @GraphKernel_0(%x, %m, %y) { the same prims; return make_tuple(%a, %s) }
//   (one result: the call is that result, no make_tuple or getitem)
//
// First, training BatchNorm and BatchNormGrad whose neighbours fuse are written as reductions
// and elementwise prims (graph_kernel_expand.h). Then clusters grow greedily within each
// graph in a topological order that puts small values (per channel, per row) right after
// their inputs (reschedule() below). A node that
// codegen::fusible() accepts joins the cluster of one of its inputs when
//   - the node's shape (a reduction: its input's shape) is the cluster's shape S: every
//     elementwise member has shape S and only the cluster's inputs broadcast;
//   - that input is not a reduction, or it is a row reduction (codegen::row_axis: it reduces
//     the trailing axes [k, rank) of S, at most kMaxRowElems elements, keeping them as 1s) and
//     every reduction of the cluster and the node itself, if it reduces, reduce those same
//     axes: the cluster becomes a staged kernel (codegen::LoopKernel::row_dims) that runs
//     row by row, reading each row from memory once (LayerNorm, softmax: one kernel); other
//     reductions end the chains they take part in (their values are used outside only);
//   - a reduction joins a staged cluster only if it reduces the cluster's row axes;
//   - in a staged cluster, an elementwise node may also have S's row shape (S with 1 on the
//     row axes: a value per row, as rsqrt(variance + eps)), broadcast over the row;
//   - none of its other inputs is computed after the cluster's first node (so no path leaves
//     the cluster and comes back: the call cannot be part of a cycle);
//   - the cluster stays within kMaxNodes nodes and kMaxInputs inputs.
// A node that reads several clusters joins them all, merging them, when the union keeps these
// rules (its outside inputs computed before its first node); otherwise it joins the first it
// can, or starts a cluster of its own. Clusters of one node stay as they are. A member
// that is used outside the cluster (or is the graph's output) is a result of the call.
//
// Pre: specialised, lifted IR (the end of the pipeline, after autodiff, so backward chains fuse
// too). Post: the same, with GraphKernel graphs (codegen::is_graph_kernel) that hold only prim
// calls and a make_tuple; each computes what its nodes computed (its reference: the executor
// runs it op by op when no kernel was built).
#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "codegen/loop_ir.h"
#include "compiler/passes.h"
#include "compiler/passes/graph_kernel_expand.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr size_t kMaxNodes = 64;
constexpr size_t kMaxInputs = 24;
constexpr int64_t kHoistElems = 4096;

struct Cluster {
  std::vector<CNode*> nodes;  // in topological order
  std::unordered_set<const Node*> members;
  std::vector<Node*> inputs;  // external inputs, first use first
  Shape shape;
  size_t first = 0;  // position of the first node
  std::vector<const CNode*> reductions;
  int row = -1;  // a staged cluster: the first row axis (its reductions' row_axis)
};

const Shape& iter_shape(const CNode* c) {
  const Node* n = codegen::is_reduction(c) ? c->input(1) : c;
  return n->abstract()->shape;
}

class Fuser {
 public:
  Fuser(Module& m, Manager& mng, FuncGraph* g, int& counter)
      : m_(m), mng_(mng), g_(g), counter_(counter) {}

  bool run() {
    std::vector<CNode*> order = reschedule(m_.toposort(g_));
    std::unordered_set<const Node*> effects(g_->effects.begin(), g_->effects.end());
    for (size_t i = 0; i < order.size(); ++i) pos_[order[i]] = i;
    for (size_t i = 0; i < order.size(); ++i) {
      CNode* c = order[i];
      if (effects.count(c) || !codegen::fusible(c)) continue;
      row_ = -1;
      int target = pick(c);
      if (target < 0) {
        row_ = -1;
        target = static_cast<int>(clusters_.size());
        clusters_.push_back({});
        clusters_.back().shape = iter_shape(c);
        clusters_.back().first = i;
      }
      add(clusters_[static_cast<size_t>(target)], c);
      clusters_[static_cast<size_t>(target)].row = row_;
      cluster_of_[c] = target;
    }
    // Users before any edit: rewriting a cluster changes only the inputs of later ones.
    bool changed = false;
    for (Cluster& cl : clusters_) {
      if (cl.nodes.size() < 2) continue;
      for (CNode* c : cl.nodes) users_[c] = mng_.users(c);
    }
    for (Cluster& cl : clusters_)
      if (cl.nodes.size() >= 2) changed = rewrite(cl) || changed;
    return changed;
  }

 private:
  // `order` rescheduled for the position rule (fits: a cluster's outside inputs come before
  // its first node), which a plain DFS order can defeat: it may place a per-channel value
  // (computed from reductions: an expanded BatchNorm's statistics) after the first node of
  // the large chain that reads it, which then splits. Small nodes (kHoistElems elements or
  // fewer, at most 1/16 of the graph's largest value) move:
  //   - those of constants and parameters alone that do not fuse (Reshape(w)): to the front;
  //   - fusible ones of those alone (Cast(Reshape(w))): just before their first user, so
  //     they join its cluster, whose first node they do not move up (to the front too when
  //     a large node reads them);
  //   - the others: just after their last input.
  // Large nodes keep their order. The result is still a topological order.
  static std::vector<CNode*> reschedule(const std::vector<CNode*>& order) {
    auto numel = [](const Node* n) -> int64_t {
      const AbsPtr& a = n->abstract();
      if (!a || !a->is_tensor()) return -1;
      int64_t k = 1;
      for (int64_t d : a->shape) k *= d < 0 ? 0 : d;
      return k;
    };
    int64_t largest = 0;
    for (const CNode* c : order) largest = std::max(largest, numel(c));
    const int64_t small = std::min<int64_t>(kHoistElems, largest / 16);
    enum Kind : uint8_t { Large, Front, Lazy, Early };
    std::unordered_map<const Node*, Kind> kind;
    for (const CNode* c : order) kind[c] = Large;
    std::unordered_map<const Node*, size_t> waiting;  // Early nodes: inputs not yet placed
    std::unordered_map<const Node*, std::vector<CNode*>> users;
    for (CNode* c : order) {
      int64_t k = numel(c);
      if (k < 0 || k > small) continue;
      bool alone = true;  // reads only Front and Lazy nodes (and nodes outside `order`)
      for (size_t i = 1; i < c->size(); ++i)
        if (auto it = kind.find(c->input(i)); it != kind.end())
          alone = alone && (it->second == Front || it->second == Lazy);
      if (alone) {
        kind[c] = codegen::fusible(c) ? Lazy : Front;
        continue;
      }
      kind[c] = Early;
      size_t wait = 0;
      for (size_t i = 1; i < c->size(); ++i)
        if (auto it = kind.find(c->input(i));
            it != kind.end() && it->second != Front && it->second != Lazy) {
          users[c->input(i)].push_back(c);
          ++wait;
        }
      waiting[c] = wait;
    }
    // A Lazy node a large node reads goes to the front after all (with its Lazy inputs): just
    // before that reader it could come after the first node of the reader's chain.
    std::function<void(Node*)> to_front = [&](Node* n) {
      auto it = kind.find(n);
      if (it == kind.end() || it->second != Lazy) return;
      it->second = Front;
      auto* c = static_cast<CNode*>(n);
      for (size_t i = 1; i < c->size(); ++i) to_front(c->input(i));
    };
    for (CNode* c : order)
      if (kind[c] == Large)
        for (size_t i = 1; i < c->size(); ++i) to_front(c->input(i));
    std::vector<CNode*> out;
    std::unordered_set<const Node*> placed;
    // Places c after its unplaced Lazy inputs (recursively), then the Early users it readies.
    std::function<void(CNode*)> place = [&](CNode* c) {
      if (placed.count(c)) return;
      for (size_t i = 1; i < c->size(); ++i)
        if (auto it = kind.find(c->input(i)); it != kind.end() && it->second == Lazy)
          place(static_cast<CNode*>(c->input(i)));
      if (!placed.insert(c).second) return;
      out.push_back(c);
      if (auto it = users.find(c); it != users.end())
        for (CNode* u : it->second)
          if (--waiting[u] == 0) place(u);
    };
    for (CNode* c : order)
      if (kind[c] == Front) place(c);
    for (CNode* c : order) place(c);
    return out;
  }

  // The cluster c may join, or -1.
  int pick(CNode* c) {
    // The clusters c reads, earliest first: c joins all of them, merging them, if it can
    // (Adam's m and v chains meet in the parameter's update), else the first one it can.
    std::vector<int> cands;
    for (size_t i = 1; i < c->size(); ++i)
      if (auto it = cluster_of_.find(c->input(i)); it != cluster_of_.end())
        if (std::find(cands.begin(), cands.end(), it->second) == cands.end())
          cands.push_back(it->second);
    if (cands.size() > 1) {
      std::vector<int> group = cands;
      std::sort(group.begin(), group.end(), [&](int x, int y) {
        return clusters_[static_cast<size_t>(x)].first < clusters_[static_cast<size_t>(y)].first;
      });
      if (fits(c, group)) {
        merge(group);
        return group[0];
      }
    }
    for (int cand : cands)
      if (fits(c, {cand})) return cand;
    return -1;
  }

  // Whether c can join the union of the clusters `group` (the earliest first); sets row_.
  bool fits(const CNode* c, const std::vector<int>& group) {
    const Cluster& head = clusters_[static_cast<size_t>(group[0])];
    auto member = [&](const Node* x) {
      auto it = cluster_of_.find(x);
      return it != cluster_of_.end() &&
             std::find(group.begin(), group.end(), it->second) != group.end();
    };
    size_t nodes = 1, first = head.first;
    int row = -1;  // the union's row axis if c joins
    for (int g : group) {
      const Cluster& cl = clusters_[static_cast<size_t>(g)];
      if (cl.shape != head.shape || (cl.row >= 0 && row >= 0 && cl.row != row)) return false;
      if (cl.row >= 0) row = cl.row;
      nodes += cl.nodes.size();
      first = std::min(first, cl.first);
    }
    if (nodes > kMaxNodes) return false;
    std::vector<const Node*> inputs;  // the union's external inputs
    // An outside input must be computed before the union's first node (no path leaves it and
    // comes back).
    auto outside = [&](const Node* x) {
      if (auto p = pos_.find(x); p != pos_.end() && p->second >= first) return false;
      if (std::find(inputs.begin(), inputs.end(), x) == inputs.end()) inputs.push_back(x);
      return true;
    };
    for (int g : group)
      for (const Node* x : clusters_[static_cast<size_t>(g)].inputs)
        if (!member(x) && !outside(x)) return false;
    for (size_t j = 1; j < c->size(); ++j) {
      const Node* x = c->input(j);
      if (!member(x)) {
        if (!outside(x)) return false;
        continue;
      }
      auto* xc = static_cast<const CNode*>(x);
      if (codegen::is_reduction(xc)) {  // reads a reduction: a row one, or it ends chains
        int k = codegen::row_axis(xc);
        if (k < 0 || (row >= 0 && row != k)) return false;
        row = k;
      }
    }
    // Shape S, or (an elementwise node of a staged cluster) S's row shape: a value per row.
    const Shape& s = iter_shape(c);
    if (head.shape != s && (row < 0 || codegen::is_reduction(c) || s != row_shape(head.shape, row)))
      return false;
    if (row >= 0) {
      if (codegen::is_reduction(c) && codegen::row_axis(c) != row) return false;
      for (int g : group)
        for (const CNode* r : clusters_[static_cast<size_t>(g)].reductions)
          if (codegen::row_axis(r) != row) return false;
    }
    if (inputs.size() > kMaxInputs) return false;
    row_ = row;
    return true;
  }

  // Moves the clusters group[1..] into group[0] (the earliest), nodes in topological order.
  void merge(const std::vector<int>& group) {
    Cluster& head = clusters_[static_cast<size_t>(group[0])];
    for (size_t i = 1; i < group.size(); ++i) {
      Cluster& b = clusters_[static_cast<size_t>(group[i])];
      for (CNode* n : b.nodes) {
        head.nodes.push_back(n);
        head.members.insert(n);
        cluster_of_[n] = group[0];
      }
      head.reductions.insert(head.reductions.end(), b.reductions.begin(), b.reductions.end());
      head.first = std::min(head.first, b.first);
      b = Cluster{};
    }
    std::sort(head.nodes.begin(), head.nodes.end(),
              [&](const CNode* x, const CNode* y) { return pos_.at(x) < pos_.at(y); });
    head.inputs.clear();
    for (CNode* n : head.nodes)
      for (size_t j = 1; j < n->size(); ++j) {
        Node* x = n->input(j);
        if (!head.members.count(x) &&
            std::find(head.inputs.begin(), head.inputs.end(), x) == head.inputs.end())
          head.inputs.push_back(x);
      }
  }

  // S with 1 on the row axes [row, rank): the shape of a value per row.
  static Shape row_shape(const Shape& S, int row) {
    Shape r = S;
    for (size_t d = static_cast<size_t>(row); d < r.size(); ++d) r[d] = 1;
    return r;
  }

  static void add(Cluster& cl, CNode* c) {
    for (size_t j = 1; j < c->size(); ++j) {
      Node* x = c->input(j);
      if (!cl.members.count(x) &&
          std::find(cl.inputs.begin(), cl.inputs.end(), x) == cl.inputs.end())
        cl.inputs.push_back(x);
    }
    cl.nodes.push_back(c);
    cl.members.insert(c);
    if (codegen::is_reduction(c)) cl.reductions.push_back(c);
  }

  bool used_outside(const Cluster& cl, CNode* c) {
    if (g_->output() == c) return true;
    for (const auto& [user, i] : users_[c])
      if (!cl.members.count(user)) return true;
    return false;
  }

  bool rewrite(Cluster& cl) {
    std::vector<CNode*> results;
    for (CNode* c : cl.nodes)
      if (used_outside(cl, c)) results.push_back(c);
    if (results.empty()) return false;
    std::string name(codegen::kGraphKernelPrefix);
    name += std::to_string(counter_++);
    // The external inputs are taken as they are now (an earlier cluster's results are
    // getitems).
    detail::outline(m_, g_, cl.nodes, results, name, users_);
    return true;
  }

  Module& m_;
  Manager& mng_;
  FuncGraph* g_;
  int& counter_;
  std::unordered_map<const Node*, size_t> pos_;
  std::vector<Cluster> clusters_;
  int row_ = -1;  // pick()'s verdict: the row axis of the cluster it picked (-1: not staged)
  std::unordered_map<const Node*, int> cluster_of_;
  detail::UserMap users_;
};

}  // namespace

bool graph_kernel(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  int counter = 0;
  for (const auto& g : m.graphs()) counter += codegen::is_graph_kernel(g.get());
  std::vector<FuncGraph*> graphs = mng->graphs();
  bool changed = false;
  // BatchNorm and its gradient as prims where their neighbours fuse (graph_kernel_expand.h).
  for (FuncGraph* g : graphs)
    if (!codegen::is_graph_kernel(g)) changed = expand_for_graph_kernel(m, *mng, g) || changed;
  if (changed) mng->invalidate();
  for (FuncGraph* g : graphs)
    if (!codegen::is_graph_kernel(g)) changed = Fuser(m, *mng, g, counter).run() || changed;
  if (changed) mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
