// print_graph: the text form of ir/anf.h (read back by ir/text.cc).
//
// Graphs are printed root first in Module::reachable_graphs order (graphs reached only
// through free-variable nodes are appended). A graph's statements are its CNodes in
// topological order from its output, followed by those of its CNodes that only nested
// graphs use (free variables of the nested graphs), so every node is defined once.
// Names: one namespace of %names for the whole text (parameters and CNodes: the name hint,
// else a number; clashes get ".1", ".2" suffixes) and one of @names for graphs, so a free
// variable reads as the outer graph's name. Printing is deterministic: it depends on the
// graph structure only, which is what makes print(parse(text)) == text.
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/anf.h"
#include "ir/walk.h"

namespace mycel::ir {

namespace {

class Printer {
 public:
  Printer(FuncGraph* root, bool types) : root_(root), types_(types) {}

  std::string run() {
    collect();
    // Names: graphs, then parameters and statements in print order.
    for (FuncGraph* g : graphs_) {
      graph_names_[g] =
          unique(g->name().empty() ? std::string("g") : sanitize_name(g->name()), graph_used_);
    }
    for (FuncGraph* g : graphs_) {
      for (Parameter* p : g->params()) name_node(p);
      for (CNode* c : stmts_[g]) name_node(c);
    }
    std::ostringstream os;
    for (size_t k = 0; k < graphs_.size(); ++k) {
      if (k) os << '\n';
      print_one(os, graphs_[k]);
    }
    return os.str();
  }

 private:
  static std::string unique(const std::string& base, std::unordered_set<std::string>& used) {
    std::string name = base;
    for (int k = 1; used.count(name); ++k) name = base + "." + std::to_string(k);
    used.insert(name);
    return name;
  }

  const std::string& name_node(Node* n) {
    auto it = node_names_.find(n);
    if (it != node_names_.end()) return it->second;
    std::string base = sanitize_name(n->name());
    bool digits = !base.empty() && base.find_first_not_of("0123456789") == std::string::npos;
    std::string name;
    if (base.empty() || digits) {
      do name = std::to_string(++counter_);
      while (node_used_.count(name));
      node_used_.insert(name);
    } else {
      name = unique(base, node_used_);
    }
    return node_names_[n] = name;
  }

  // The graphs to print and each one's statements. A walk over every node reachable from the
  // printed graphs crosses into other graphs through free variables: a CNode of graph h used
  // from another graph (as an input or as the output) is a root of h's statements.
  void collect() {
    graphs_ = root_->module()->reachable_graphs(root_);
    std::unordered_map<FuncGraph*, std::vector<Node*>> extra;
    auto note = [&](Node* in, FuncGraph* user) {
      if (in != nullptr && in->is_cnode() && in->graph() != user) extra[in->graph()].push_back(in);
    };
    walk_graphs(
        graphs_, /*cross=*/true, [&](FuncGraph* g) { note(g->output(), g); },
        [&](Node* n) {
          if (!n->is_cnode()) return;
          auto* c = static_cast<CNode*>(n);
          for (auto it = c->inputs().rbegin(); it != c->inputs().rend(); ++it)
            note(*it, c->graph());
        });
    for (FuncGraph* g : graphs_) {
      std::vector<Node*> roots;
      if (g->output() != nullptr) roots.push_back(g->output());
      for (Node* e : extra[g]) roots.push_back(e);
      stmts_[g] = toposort(g, roots);
    }
  }

  // Graphs by their unique @names (a graph outside the printed set: its own, sanitised).
  std::string value_text(const Value& v) const {
    return v.to_string([this](const FuncGraph* g) {
      auto it = graph_names_.find(g);
      return it != graph_names_.end() ? it->second : sanitize_name(g->name());
    });
  }

  void print_atom(std::ostringstream& os, Node* n) {
    if (n == nullptr) {
      os << "<null>";
    } else if (n->is_value()) {
      os << value_text(static_cast<ValueNode*>(n)->value());
    } else {
      os << '%' << name_node(n);
    }
  }

  void print_type(std::ostringstream& os, Node* n, const char* sep) {
    if (types_ && n->abstract()) os << sep << n->abstract()->to_string();
  }

  void print_one(std::ostringstream& os, FuncGraph* g) {
    os << "graph @" << graph_names_[g] << '(';
    for (size_t i = 0; i < g->params().size(); ++i) {
      if (i) os << ", ";
      print_atom(os, g->param(i));
      print_type(os, g->param(i), ": ");
    }
    os << ") {\n";
    for (CNode* c : stmts_[g]) {
      os << "  %" << name_node(c) << " = ";
      print_atom(os, c->inputs().empty() ? nullptr : c->input(0));
      os << '(';
      for (size_t i = 1; i < c->size(); ++i) {
        if (i > 1) os << ", ";
        print_atom(os, c->input(i));
      }
      os << ')';
      print_type(os, c, " : ");
      os << '\n';
    }
    os << "  return ";
    print_atom(os, g->output());
    os << "\n}\n";
  }

  FuncGraph* root_;
  bool types_;
  std::vector<FuncGraph*> graphs_;
  std::unordered_map<FuncGraph*, std::vector<CNode*>> stmts_;
  std::unordered_map<const FuncGraph*, std::string> graph_names_;
  std::unordered_set<std::string> graph_used_;
  std::unordered_map<Node*, std::string> node_names_;
  std::unordered_set<std::string> node_used_;
  int counter_ = 0;
};

}  // namespace

std::string sanitize_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out;
}

std::string print_graph(FuncGraph* root, bool types) {
  if (root == nullptr) return "<null graph>\n";
  return Printer(root, types).run();
}

}  // namespace mycel::ir
