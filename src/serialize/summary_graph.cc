#include "serialize/summary_graph.h"

#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "ir/builtins.h"
#include "ir/walk.h"
#include "ops/op_table.h"
#include "src/serialize/summary.pb.h"  // generated in the build tree

namespace mycel::serialize {

namespace {

using namespace ir;
namespace pb = mindspore::irpb;

class GraphWriter {
 public:
  explicit GraphWriter(const SummaryGraphSpec& spec) : spec_(spec) {}

  std::string run() {
    FuncGraph* entry = spec_.entry;
    MC_ASSERT(entry != nullptr, "summary graph: no entry graph");
    MC_ASSERT(entry->params().size() == spec_.num_inputs + spec_.weight_names.size(),
              "summary graph: the entry has ", entry->params().size(), " parameters for ",
              spec_.num_inputs, " inputs and ", spec_.weight_names.size(), " weights");
    out_.set_name(spec_.name);
    for (size_t i = 0; i < entry->params().size(); ++i) {
      Parameter* p = entry->param(i);
      std::string name = i < spec_.num_inputs
                             ? unique(p->name(), "input")
                             : unique(spec_.weight_names[i - spec_.num_inputs], "weight");
      names_[p] = name;
      out_.add_parameters()->set_name(name);
    }
    std::vector<FuncGraph*> graphs{entry};
    walk_graphs(
        graphs, false, [](FuncGraph*) {}, [](Node*) {});
    for (FuncGraph* g : graphs) write_graph(g, g == entry);
    if (Node* o = entry->output()) out_.add_outputs()->set_name(name_of(o));
    std::string bytes;
    MC_CHECK(out_.SerializeToString(&bytes), Value,
             "summary graph: the graph is too large for a protobuf message (2 GiB at most)");
    return bytes;
  }

 private:
  void write_graph(FuncGraph* g, bool is_entry) {
    std::vector<Node*> roots{g->output()};
    roots.insert(roots.end(), g->effects.begin(), g->effects.end());
    const std::string scope = is_entry ? std::string() : graph_name(g);
    for (CNode* c : toposort(g, roots)) {
      pb::GraphProto::Node* n = out_.add_node();
      n->set_op_type(op_type(c));
      n->set_name(name_of(c));
      n->set_full_name(scope.empty() ? n->name() : scope + "/" + n->name());
      if (!scope.empty()) n->set_scope(scope);
      for (size_t i = 1; i < c->inputs().size(); ++i)
        if (Node* in = c->input(i)) n->add_input()->set_name(name_of(in));
    }
  }

  std::string op_type(const CNode* c) {
    if (const PrimData* p = c->prim()) return p->op->name;
    Node* callee = c->callee();
    if (callee != nullptr && callee->is_value()) {
      const Value& v = static_cast<ValueNode*>(callee)->value();
      if (v.is(ValueKind::Builtin)) return builtin_name(v.as_builtin());
    }
    if (FuncGraph* g = c->called_graph()) return "graph:" + graph_name(g);
    return "call";
  }

  std::string graph_name(FuncGraph* g) {
    auto it = graph_names_.find(g);
    if (it != graph_names_.end()) return it->second;
    return graph_names_[g] = unique(g->name(), "graph");
  }

  // A node's name, made on first use: a CNode by its op, a parameter of an inner graph by its
  // hint, a constant as a const_vals entry.
  std::string name_of(Node* n) {
    auto it = names_.find(n);
    if (it != names_.end()) return it->second;
    std::string name;
    if (n->is_cnode()) {
      name = unique(n->name().empty() ? op_type(static_cast<CNode*>(n)) : n->name(), "node");
    } else if (n->is_param()) {
      name = unique(n->name(), "param");
      out_.add_parameters()->set_name(name);
    } else {
      name = unique("const", "const");
      out_.add_const_vals()->set_key(name);
    }
    return names_[n] = name;
  }

  std::string unique(const std::string& hint, const char* fallback) {
    std::string base = hint.empty() ? fallback : hint;
    std::string name = base;
    for (int k = 1; !used_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  const SummaryGraphSpec& spec_;
  pb::GraphProto out_;
  std::unordered_map<Node*, std::string> names_;
  std::unordered_map<FuncGraph*, std::string> graph_names_;
  std::unordered_set<std::string> used_;
};

}  // namespace

std::string summary_graph(const SummaryGraphSpec& spec) { return GraphWriter(spec).run(); }

}  // namespace mycel::serialize
