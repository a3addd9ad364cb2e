// The Manager (ir/manager.h): every analysis is recomputed from scratch, lazily, on the
// first query after an edit. One walk from the root's output over every input (crossing
// into other graphs through free variables, into graphs through graph-valued ValueNodes)
// finds the graphs and, per graph, the CNodes it owns (also those only its nested graphs
// use); users, graphs_used and the direct free variables come from that walk.
//
// Free variables are closed over calls: fvs(g) = direct(g) + (fvs(h) - nodes of g) for
// every graph h that g refers to, to a fixpoint (recursion makes cycles). So a graph that
// refers to a closure over an outer graph's node is itself inside that outer graph.
// parent(g) is the innermost owner of one of g's free variables: the owner o whose own
// owners include all of g's other owners (outer graphs own outer FVs too).
#include "ir/manager.h"

#include <algorithm>

#include "base/error.h"
#include "ir/walk.h"

namespace mycel::ir {

namespace {
template <class T>
void push_unique(std::vector<T>& v, std::unordered_set<T>& seen, T x) {
  if (seen.insert(x).second) v.push_back(x);
}

// Recursion: g reaches itself through graphs_used, i.e. g is in a strongly connected
// component of more than one graph or uses itself. Tarjan's algorithm, iteratively: one pass
// over the graphs (a search per graph made this quadratic in long chains of ifs).
std::unordered_map<FuncGraph*, bool> find_recursion(
    const std::vector<FuncGraph*>& graphs,
    std::unordered_map<FuncGraph*, std::vector<FuncGraph*>>& used) {
  std::unordered_map<FuncGraph*, bool> rec;
  std::unordered_map<FuncGraph*, std::pair<size_t, size_t>> mark;  // index, lowlink
  std::unordered_set<FuncGraph*> on_stack;
  std::vector<FuncGraph*> scc_stack;
  std::vector<std::pair<FuncGraph*, size_t>> dfs;  // graph, next entry of used[graph]
  size_t counter = 0;
  for (FuncGraph* start : graphs) {
    if (mark.count(start)) continue;
    auto open = [&](FuncGraph* g) {
      mark[g] = {counter, counter};
      ++counter;
      scc_stack.push_back(g);
      on_stack.insert(g);
      dfs.push_back({g, 0});
    };
    open(start);
    while (!dfs.empty()) {
      auto& [g, i] = dfs.back();
      const std::vector<FuncGraph*>& uses = used[g];
      if (i < uses.size()) {
        FuncGraph* h = uses[i++];
        auto it = mark.find(h);
        if (it == mark.end()) {
          open(h);  // invalidates g and i
        } else if (on_stack.count(h)) {
          mark[g].second = std::min(mark[g].second, it->second.first);
        }
        continue;
      }
      FuncGraph* done = g;
      dfs.pop_back();
      size_t low = mark[done].second;
      if (!dfs.empty()) {
        size_t& parent_low = mark[dfs.back().first].second;
        parent_low = std::min(parent_low, low);
      }
      if (low != mark[done].first) continue;
      std::vector<FuncGraph*> comp;
      FuncGraph* x = nullptr;
      do {
        x = scc_stack.back();
        scc_stack.pop_back();
        on_stack.erase(x);
        comp.push_back(x);
      } while (x != done);
      for (FuncGraph* y : comp) {
        const std::vector<FuncGraph*>& u = used[y];
        rec[y] = comp.size() > 1 || std::find(u.begin(), u.end(), y) != u.end();
      }
    }
  }
  return rec;
}
}  // namespace

Manager::Manager(Module& m, FuncGraph* root) : module_(m), root_(root) {
  MC_ASSERT(root != nullptr && root->module() == &m, "Manager: root graph of another module");
  if (m.manager_ == nullptr) m.manager_ = this;
}

Manager::~Manager() {
  if (module_.manager_ == this) module_.manager_ = nullptr;
}

void Manager::ensure() {
  if (!stale_) return;
  ++stats_.recomputes;
  graphs_.clear();
  users_.clear();
  fvs_.clear();
  parent_.clear();
  children_.clear();
  used_.clear();
  recursive_.clear();

  // The walk.
  std::unordered_map<FuncGraph*, std::vector<CNode*>> owned;
  std::vector<FuncGraph*> found;
  graphs_.push_back(root_);
  walk_graphs(
      graphs_, /*cross=*/true, [](FuncGraph*) {},
      [&](Node* n) {
        if (!n->is_cnode()) return;
        auto* c = static_cast<CNode*>(n);
        owned[c->graph()].push_back(c);
        for (size_t i = 0; i < c->size(); ++i)
          if (Node* in = c->input(i)) users_[in].push_back({c, static_cast<int>(i)});
      });

  // graphs_used and the direct free variables.
  std::unordered_map<FuncGraph*, std::unordered_set<Node*>> fv_set;
  for (FuncGraph* g : graphs_) {
    std::vector<FuncGraph*>& used = used_[g];
    std::unordered_set<FuncGraph*> used_seen;
    std::vector<Node*>& fvs = fvs_[g];
    std::unordered_set<Node*>& fset = fv_set[g];
    auto visit = [&](Node* in) {
      if (in == nullptr) return;
      if (in->is_value()) {
        found.clear();
        graphs_in(static_cast<ValueNode*>(in)->value(), found);
        for (FuncGraph* f : found) push_unique(used, used_seen, f);
      } else if (in->graph() != g) {
        push_unique(fvs, fset, in);
      }
    };
    for (CNode* c : owned[g])
      for (Node* in : c->inputs()) visit(in);
    visit(g->output());
  }
  // Closed over the graphs each one refers to. A graph is found after the first graph that
  // refers to it, so sweeping in reverse finds most callees complete (one sweep for a chain
  // of calls; in discovery order a chain of n graphs, an unrolled loop, took n sweeps).
  for (bool changed = true; changed;) {
    changed = false;
    ++stats_.sweeps;
    for (auto gi = graphs_.rbegin(); gi != graphs_.rend(); ++gi) {
      FuncGraph* g = *gi;
      for (FuncGraph* h : used_[g]) {
        if (h == g) continue;
        auto it = fvs_.find(h);
        if (it == fvs_.end()) continue;
        std::vector<Node*> add;
        for (Node* x : it->second)
          if (x->graph() != g && !fv_set[g].count(x)) add.push_back(x);
        for (Node* x : add) {
          fv_set[g].insert(x);
          fvs_[g].push_back(x);
          changed = true;
        }
      }
    }
  }

  // Parents: the innermost owner.
  std::unordered_map<FuncGraph*, std::vector<FuncGraph*>> owners;
  for (FuncGraph* g : graphs_) {
    std::unordered_set<FuncGraph*> s;
    for (Node* x : fvs_[g]) push_unique(owners[g], s, x->graph());
  }
  for (FuncGraph* g : graphs_) {
    const std::vector<FuncGraph*>& mine = owners[g];
    FuncGraph* best = nullptr;
    size_t best_depth = 0;
    for (FuncGraph* o : mine) {
      auto it = owners.find(o);
      std::unordered_set<FuncGraph*> outer;
      if (it != owners.end()) outer.insert(it->second.begin(), it->second.end());
      bool encloses_rest = true;
      for (FuncGraph* p : mine) encloses_rest = encloses_rest && (p == o || outer.count(p));
      if (encloses_rest) {
        best = o;
        break;
      }
      // Invalid scoping (verify reports it): fall back to the deepest owner.
      if (best == nullptr || outer.size() > best_depth) {
        best = o;
        best_depth = outer.size();
      }
    }
    parent_[g] = best;
    if (best != nullptr) children_[best].push_back(g);
  }

  recursive_ = find_recursion(graphs_, used_);
  stale_ = false;
}

const std::vector<FuncGraph*>& Manager::graphs() {
  ensure();
  return graphs_;
}

const std::vector<std::pair<CNode*, int>>& Manager::users(Node* n) {
  static const std::vector<std::pair<CNode*, int>> kNone;
  ensure();
  auto it = users_.find(n);
  return it == users_.end() ? kNone : it->second;
}

const std::vector<Node*>& Manager::free_vars(FuncGraph* g) {
  static const std::vector<Node*> kNone;
  ensure();
  auto it = fvs_.find(g);
  return it == fvs_.end() ? kNone : it->second;
}

FuncGraph* Manager::parent(FuncGraph* g) {
  ensure();
  auto it = parent_.find(g);
  return it == parent_.end() ? nullptr : it->second;
}

const std::vector<FuncGraph*>& Manager::children(FuncGraph* g) {
  static const std::vector<FuncGraph*> kNone;
  ensure();
  auto it = children_.find(g);
  return it == children_.end() ? kNone : it->second;
}

const std::vector<FuncGraph*>& Manager::graphs_used(FuncGraph* g) {
  static const std::vector<FuncGraph*> kNone;
  ensure();
  auto it = used_.find(g);
  return it == used_.end() ? kNone : it->second;
}

bool Manager::is_recursive(FuncGraph* g) {
  ensure();
  auto it = recursive_.find(g);
  return it != recursive_.end() && it->second;
}

void Manager::replace(Node* old, Node* repl) {
  MC_ASSERT(old != nullptr && repl != nullptr);
  if (old == repl) return;
  ensure();
  std::vector<std::pair<CNode*, int>> uses = users(old);  // a copy: edits invalidate it
  for (auto& [user, i] : uses) user->set_input(static_cast<size_t>(i), repl);
  for (FuncGraph* g : graphs_)
    if (g->output() == old) g->set_output(repl);
  stale_ = true;
}

void Manager::set_edge(CNode* user, int i, Node* n) {
  MC_ASSERT(user != nullptr && i >= 0);
  user->set_input(static_cast<size_t>(i), n);
  stale_ = true;
}

void Manager::set_output(FuncGraph* g, Node* n) {
  MC_ASSERT(g != nullptr);
  g->set_output(n);
  stale_ = true;
}

void Manager::invalidate() { stale_ = true; }

}  // namespace mycel::ir
