// The IR: a functional graph in A-normal form (after MindSpore's MindIR and Myia).
//
// Grammar (also the text form the printer writes and ir/text.cc reads back):
//
//   module  := graph+                       the first graph is the entry
//   graph   := 'graph' '@'NAME '(' [param {',' param}] ')' '{' stmt* 'return' atom '}'
//   param   := '%'NAME [':' TYPE]
//   stmt    := '%'NAME '=' atom '(' [atom {',' atom}] ')' [':' TYPE]
//   atom    := '%'NAME                      a parameter or a CNode (maybe of an outer graph:
//                                           a free variable, captured by value)
//            | '@'NAME                      a graph (ValueNode)
//            | VALUE                        a constant, a prim (Mul, Transpose{perm=(1, 0)})
//                                           or a builtin (switch, make_tuple, partial, ...)
//
// Nodes:
//   CNode      an application: inputs[0] is the callee (prim, builtin, graph, or any node
//              that yields a function), inputs[1..] the arguments. Belongs to one graph.
//   Parameter  a formal argument of one graph.
//   ValueNode  a constant (ir/value.h). Belongs to no graph; may be shared.
//
// Control flow is higher-order data flow: `if c: A else: B` is
// `switch(c, @A, @B)()` (branches that capture variables are partial()s or closures over
// free variables); a loop is a graph that tail-calls itself. Every node carries the source
// span of the Python code it came from, used for error messages.
//
// Nodes carry only what defines them plus their abstract value (types and shapes, set by
// inference). Analyses (users, free variables, parents, recursion) live in the Manager
// (ir/manager.h). Nodes and graphs are owned by a Module: an arena freed as a whole.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ir/abstract.h"
#include "ir/value.h"

namespace mycel::ir {

// ---------------------------------------------------------------- source spans

// Where a node came from: a registered source file and 1-based line/column.
struct SourceSpan {
  int32_t file = -1;
  int32_t line = 0;
  int32_t col = 0;
  bool valid() const { return file >= 0 && line > 0; }
};

// Source files are registered once per process (thread-safe) so spans stay small.
int32_t register_source_file(const std::string& path, std::vector<std::string> lines);
const std::string& source_path(int32_t file);
// "file.py:12" (or "<unknown>")
std::string span_location(const SourceSpan& s);
// "  File \"file.py\", line 12\n    y = ops.matmul(a, b)\n" (empty if unknown)
std::string span_excerpt(const SourceSpan& s);

// ---------------------------------------------------------------- nodes

class FuncGraph;
class Module;

enum class NodeKind : uint8_t { CNode, Parameter, Value };

class Node {
 public:
  virtual ~Node() = default;
  NodeKind kind() const { return kind_; }
  bool is_cnode() const { return kind_ == NodeKind::CNode; }
  bool is_param() const { return kind_ == NodeKind::Parameter; }
  bool is_value() const { return kind_ == NodeKind::Value; }
  // The graph that owns the node (nullptr for ValueNodes): the graph it was made in, or the
  // graph that one was merged into (Module::merge_graph).
  FuncGraph* graph() const;
  uint32_t id() const { return id_; }  // unique within the module
  const SourceSpan& span() const { return span_; }
  void set_span(const SourceSpan& s) { span_ = s; }
  const AbsPtr& abstract() const { return abs_; }
  void set_abstract(AbsPtr a) { abs_ = std::move(a); }
  // The name hint used when printing (a Python variable name), may be empty.
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

 protected:
  Node(NodeKind k, FuncGraph* g, uint32_t id, SourceSpan s)
      : kind_(k), graph_(g), id_(id), span_(s) {}
  friend class Module;
  NodeKind kind_;
  FuncGraph* graph_;
  uint32_t id_;
  SourceSpan span_;
  AbsPtr abs_;
  std::string name_;
};

class CNode final : public Node {
 public:
  const std::vector<Node*>& inputs() const { return inputs_; }
  Node* input(size_t i) const { return inputs_[i]; }
  size_t size() const { return inputs_.size(); }
  Node* callee() const { return inputs_[0]; }
  // Edits go through the Manager when one is attached to the module, so that its side
  // tables stay current; these raw setters are for builders and the manager itself.
  void set_input(size_t i, Node* n);
  void set_inputs(std::vector<Node*> in);
  // The callee when it is a ValueNode holding a prim / builtin / graph, else null.
  const PrimData* prim() const;
  bool is_builtin(Builtin b) const;
  FuncGraph* called_graph() const;

 private:
  friend class Module;
  CNode(FuncGraph* g, uint32_t id, SourceSpan s, std::vector<Node*> in)
      : Node(NodeKind::CNode, g, id, s), inputs_(std::move(in)) {}
  std::vector<Node*> inputs_;
};

class Parameter final : public Node {
 private:
  friend class Module;
  Parameter(FuncGraph* g, uint32_t id, SourceSpan s) : Node(NodeKind::Parameter, g, id, s) {}
};

class ValueNode final : public Node {
 public:
  const Value& value() const { return value_; }

 private:
  friend class Module;
  ValueNode(uint32_t id, SourceSpan s, Value v)
      : Node(NodeKind::Value, nullptr, id, s), value_(std::move(v)) {}
  Value value_;
};

// ---------------------------------------------------------------- graphs

// How Python calls the graph: names, defaults, *args/**kwargs. Graphs built by passes
// have plain positional signatures (no defaults, no varargs).
struct Signature {
  std::vector<std::string> names;              // one per parameter, in order
  std::vector<std::optional<Value>> defaults;  // per parameter
  int vararg = -1;        // index of the *args parameter (receives a tuple), or -1
  int kwarg = -1;         // index of the **kwargs parameter (receives a dict), or -1
  int kwonly_begin = -1;  // first keyword-only parameter, or -1
};

class FuncGraph {
 public:
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  Module* module() const { return module_; }
  const std::vector<Parameter*>& params() const { return params_; }
  Parameter* param(size_t i) const { return params_[i]; }
  Node* output() const { return output_; }  // the returned node
  void set_output(Node* n);
  const SourceSpan& span() const { return span_; }
  Signature& signature() { return sig_; }
  const Signature& signature() const { return sig_; }
  // Removes a parameter (passes that drop unused ones); its users must be gone.
  void remove_param(size_t i);
  void set_params(std::vector<Parameter*> p);

  // Flags the front end and passes set.
  bool is_loop = false;    // a loop header (a while/for turned into a recursive graph)
  bool no_inline = false;  // keep as a call (a recursive graph, a user request)
  // Nodes kept for their side effects although nothing uses their value: the front end's
  // expression statements (print(x), f(x)), in source order. They run in this order before
  // the output is evaluated; analyses and passes treat them as roots, like the output.
  std::vector<Node*> effects;
  uint32_t id() const { return id_; }
  // The graph that owns this graph's nodes: this one, or the one it was merged into
  // (Module::merge_graph), transitively.
  FuncGraph* owner() const;

 private:
  friend class Module;
  FuncGraph(Module* m, uint32_t id, std::string name, SourceSpan s)
      : name_(std::move(name)), module_(m), id_(id), span_(s) {}
  // Set by Module::merge_graph; owner() shortens chains of merges as it follows them.
  mutable FuncGraph* merged_ = nullptr;
  std::string name_;
  Module* module_;
  uint32_t id_;
  SourceSpan span_;
  std::vector<Parameter*> params_;
  Node* output_ = nullptr;
  Signature sig_;
};

// Owns every graph and node of one compilation unit. Smart constructors check invariants
// (inputs present and non-null, a CNode has a callee, a graph is of this module).
class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  FuncGraph* new_graph(std::string name, SourceSpan span = {});
  Parameter* add_param(FuncGraph* g, std::string name, SourceSpan span = {});
  CNode* cnode(FuncGraph* g, std::vector<Node*> inputs, SourceSpan span = {});
  ValueNode* value(Value v, SourceSpan span = {});
  // Shorthands for the common callee kinds.
  CNode* call_prim(FuncGraph* g, const OpDef& op, Attrs attrs, std::vector<Node*> args,
                   SourceSpan span = {});
  CNode* call_builtin(FuncGraph* g, Builtin b, std::vector<Node*> args, SourceSpan span = {});

  const std::deque<std::unique_ptr<FuncGraph>>& graphs() const { return graphs_; }
  // Every node ever made in the module, dead ones included (the arena).
  const std::deque<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  FuncGraph* entry() const { return entry_; }
  void set_entry(FuncGraph* g) { entry_ = g; }

  // Moves every node of `from` (its parameters and CNodes, those merged into it before
  // included) into `into`, in O(1): their graph() is `into` from now on. For inlining a
  // graph called once: its statements become the caller's instead of being copied (copying
  // them made flattening a chain of n such calls O(n^2)); the caller then replaces the
  // parameters' uses with the arguments, the call's with the old output. `from` keeps its
  // parameter list and output but owns nothing: it must no longer be used. Until
  // settle_merges(), graph() follows the merge (amortised O(1)).
  void merge_graph(FuncGraph* from, FuncGraph* into);
  // Points every node moved by merge_graph at its owner directly (one pass over the
  // arena), so that later reads follow no merge; a no-op when nothing was merged.
  void settle_merges();

  // Graphs reachable from `root` through graph-valued ValueNodes (graphs_in of ir/walk.h),
  // root first, each once.
  std::vector<FuncGraph*> reachable_graphs(FuncGraph* root) const;
  // Nodes of g reachable from its output (free variables of other graphs excluded), in
  // topological order (inputs before users): ir::toposort from the output. Parameters are
  // not included.
  std::vector<CNode*> toposort(FuncGraph* g) const;

  // The module's manager, if one is attached (ir/manager.h); edits notify it.
  class Manager* manager() const {
    return manager_;
  }

 private:
  friend class Manager;
  uint32_t next_id_ = 0;
  uint32_t next_graph_id_ = 0;
  std::deque<std::unique_ptr<FuncGraph>> graphs_;
  std::deque<std::unique_ptr<Node>> nodes_;
  FuncGraph* entry_ = nullptr;
  class Manager* manager_ = nullptr;
  bool merged_ = false;  // merge_graph since the last settle_merges
};

inline FuncGraph* FuncGraph::owner() const {
  if (merged_ == nullptr) return const_cast<FuncGraph*>(this);
  FuncGraph* root = merged_;
  while (root->merged_ != nullptr) root = root->merged_;
  for (const FuncGraph* g = this; g->merged_ != root;) {  // path compression
    FuncGraph* next = g->merged_;
    g->merged_ = root;
    g = next;
  }
  return root;
}

inline FuncGraph* Node::graph() const { return graph_ == nullptr ? nullptr : graph_->owner(); }

// ---------------------------------------------------------------- text, checks

// The module's graphs reachable from `root` in the text form above; with `types`, each
// statement is followed by ": <abstract>" where known.
std::string print_graph(FuncGraph* root, bool types = true);
// A name hint as the text form (and MINDIR files) write it: [A-Za-z0-9_.], others '_'.
std::string sanitize_name(const std::string& s);
// Parses the text form into `m` and returns the entry (first) graph. Prims are looked up
// in the op table; attributes in braces. Throws ValueError naming line:col on bad text.
FuncGraph* parse_graph(Module& m, const std::string& text);

// Checks the invariants every pass must keep; throws an internal error naming the graph,
// node and rule on violation:
//   - every CNode input is non-null; a CNode has a callee;
//   - a CNode's inputs are ValueNodes, parameters/CNodes of its own graph, or nodes of a
//     graph that encloses it (free variables); parameters belong to their graph;
//   - the output is set; graphs reachable through ValueNodes belong to the module;
//   - with `specialized`: every node has an abstract, builtins that specialisation removes
//     (getattr, make_kwarg, unpack_call, polymorphic operators on tensors) are gone, and
//     prim calls have their tensor inputs only, with complete attributes;
//   - with `lifted`: no graph has free variables (the executor's input).
struct VerifyOptions {
  bool specialized = false;
  bool lifted = false;
};
void verify(FuncGraph* root, VerifyOptions opts = {});

}  // namespace mycel::ir
