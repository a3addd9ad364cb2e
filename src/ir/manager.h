// The Manager: analyses of a module kept in side tables, never on nodes.
//
//   users(n)          the (CNode, input index) pairs that use n
//   free_vars(g)      nodes of other graphs that g or its nested graphs use, in first-use
//                     order (a closure's captured values)
//   parent(g)         the innermost graph owning one of g's free variables (nullptr: top)
//   children(g)       graphs whose parent is g
//   graphs_used(g)    graphs g refers to through ValueNodes
//   is_recursive(g)   g can reach itself through graphs_used
//
// Built by attaching to a module (`Manager m(module, root)`); edits through replace() and
// set_edge() keep users current and mark the graph analyses stale, recomputed on demand.
// Detaches in its destructor.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/anf.h"

namespace mycel::ir {

class Manager {
 public:
  Manager(Module& m, FuncGraph* root);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  FuncGraph* root() const { return root_; }
  // The graphs reachable from the root, root first.
  const std::vector<FuncGraph*>& graphs();

  const std::vector<std::pair<CNode*, int>>& users(Node* n);
  const std::vector<Node*>& free_vars(FuncGraph* g);
  FuncGraph* parent(FuncGraph* g);
  const std::vector<FuncGraph*>& children(FuncGraph* g);
  const std::vector<FuncGraph*>& graphs_used(FuncGraph* g);
  bool is_recursive(FuncGraph* g);

  // Every use of `old` (and a graph output equal to `old`) now uses `repl`.
  void replace(Node* old, Node* repl);
  // user->inputs[i] = n
  void set_edge(CNode* user, int i, Node* n);
  void set_output(FuncGraph* g, Node* n);
  // Call after edits made directly on nodes (builders, bulk rewrites): recomputes all.
  void invalidate();

  // The work done so far, for tests that check it grows linearly with the program: each
  // recomputation of the analyses walks every reachable graph, and closing the free
  // variables over referenced graphs takes sweeps over them until nothing changes.
  struct Stats {
    size_t recomputes = 0;  // of the analyses (ensure() after an edit or invalidate())
    size_t sweeps = 0;      // over the graphs, closing free variables, in all recomputes
  };
  const Stats& stats() const { return stats_; }

 private:
  void ensure();
  Module& module_;
  FuncGraph* root_;
  bool stale_ = true;
  Stats stats_;
  std::vector<FuncGraph*> graphs_;
  std::unordered_map<Node*, std::vector<std::pair<CNode*, int>>> users_;
  std::unordered_map<FuncGraph*, std::vector<Node*>> fvs_;
  std::unordered_map<FuncGraph*, FuncGraph*> parent_;
  std::unordered_map<FuncGraph*, std::vector<FuncGraph*>> children_;
  std::unordered_map<FuncGraph*, std::vector<FuncGraph*>> used_;
  std::unordered_map<FuncGraph*, bool> recursive_;
};

}  // namespace mycel::ir
