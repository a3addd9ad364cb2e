#include "ir/anf.h"

#include <mutex>

#include "base/error.h"
#include "ir/manager.h"
#include "ir/source_files.h"
#include "ir/walk.h"

namespace mycel::ir {

// ---------------------------------------------------------------- source files

namespace {
struct SourceFile {
  std::string path;
  std::vector<std::string> lines;
  bool library = false;  // mycel's own code (ir/source_files.h)
};
std::mutex g_src_mu;
std::deque<SourceFile>& source_files() {
  static std::deque<SourceFile> files;
  return files;
}
}  // namespace

int32_t register_source_file(const std::string& path, std::vector<std::string> lines) {
  std::lock_guard<std::mutex> lock(g_src_mu);
  auto& files = source_files();
  for (size_t i = 0; i < files.size(); ++i)
    if (files[i].path == path && files[i].lines == lines) return static_cast<int32_t>(i);
  files.push_back({path, std::move(lines)});
  return static_cast<int32_t>(files.size() - 1);
}

void mark_library_file(int32_t file) {
  std::lock_guard<std::mutex> lock(g_src_mu);
  auto& files = source_files();
  if (file >= 0 && static_cast<size_t>(file) < files.size())
    files[static_cast<size_t>(file)].library = true;
}

bool is_library_span(const SourceSpan& s) {
  if (!s.valid()) return false;
  std::lock_guard<std::mutex> lock(g_src_mu);
  auto& files = source_files();
  return static_cast<size_t>(s.file) < files.size() && files[static_cast<size_t>(s.file)].library;
}

const std::string& source_path(int32_t file) {
  std::lock_guard<std::mutex> lock(g_src_mu);
  static const std::string unknown = "<unknown>";
  auto& files = source_files();
  if (file < 0 || static_cast<size_t>(file) >= files.size()) return unknown;
  return files[static_cast<size_t>(file)].path;  // deque: stable references
}

std::string span_location(const SourceSpan& s) {
  if (!s.valid()) return "<unknown>";
  return source_path(s.file) + ":" + std::to_string(s.line);
}

std::string span_excerpt(const SourceSpan& s) {
  if (!s.valid()) return "";
  std::lock_guard<std::mutex> lock(g_src_mu);
  auto& files = source_files();
  if (static_cast<size_t>(s.file) >= files.size()) return "";
  const SourceFile& f = files[static_cast<size_t>(s.file)];
  std::string out = "  File \"" + f.path + "\", line " + std::to_string(s.line) + "\n";
  if (static_cast<size_t>(s.line) <= f.lines.size()) {
    std::string line = f.lines[static_cast<size_t>(s.line - 1)];
    size_t b = line.find_first_not_of(" \t");
    size_t e = line.find_last_not_of(" \t\r\n");
    if (b != std::string::npos) out += "    " + line.substr(b, e - b + 1) + "\n";
  }
  return out;
}

// ---------------------------------------------------------------- nodes

void CNode::set_input(size_t i, Node* n) {
  MC_ASSERT(i < inputs_.size() && n != nullptr);
  inputs_[i] = n;
}

void CNode::set_inputs(std::vector<Node*> in) {
  MC_ASSERT(!in.empty());
  for (Node* n : in) MC_ASSERT(n != nullptr);
  inputs_ = std::move(in);
}

const PrimData* CNode::prim() const {
  Node* c = inputs_[0];
  if (!c->is_value()) return nullptr;
  const Value& v = static_cast<ValueNode*>(c)->value();
  return v.is(ValueKind::Prim) ? &v.as_prim() : nullptr;
}

bool CNode::is_builtin(Builtin b) const {
  Node* c = inputs_[0];
  if (!c->is_value()) return false;
  const Value& v = static_cast<ValueNode*>(c)->value();
  return v.is(ValueKind::Builtin) && v.as_builtin() == b;
}

FuncGraph* CNode::called_graph() const {
  Node* c = inputs_[0];
  if (!c->is_value()) return nullptr;
  const Value& v = static_cast<ValueNode*>(c)->value();
  return v.is(ValueKind::Graph) ? v.as_graph() : nullptr;
}

void FuncGraph::set_output(Node* n) {
  MC_ASSERT(n != nullptr);
  output_ = n;
}

void FuncGraph::remove_param(size_t i) {
  MC_ASSERT(i < params_.size());
  params_.erase(params_.begin() + static_cast<std::ptrdiff_t>(i));
  if (i < sig_.names.size()) sig_.names.erase(sig_.names.begin() + static_cast<std::ptrdiff_t>(i));
  if (i < sig_.defaults.size())
    sig_.defaults.erase(sig_.defaults.begin() + static_cast<std::ptrdiff_t>(i));
}

void FuncGraph::set_params(std::vector<Parameter*> p) {
  for (Parameter* q : p) MC_ASSERT(q != nullptr && q->graph() == this);
  params_ = std::move(p);
  sig_.names.resize(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) sig_.names[i] = params_[i]->name();
  sig_.defaults.assign(params_.size(), std::nullopt);
  sig_.vararg = sig_.kwarg = sig_.kwonly_begin = -1;
}

// ---------------------------------------------------------------- module

Module::~Module() = default;

FuncGraph* Module::new_graph(std::string name, SourceSpan span) {
  graphs_.push_back(
      std::unique_ptr<FuncGraph>(new FuncGraph(this, next_graph_id_++, std::move(name), span)));
  if (entry_ == nullptr) entry_ = graphs_.back().get();
  return graphs_.back().get();
}

Parameter* Module::add_param(FuncGraph* g, std::string name, SourceSpan span) {
  MC_ASSERT(g != nullptr && g->module() == this);
  auto* p = new Parameter(g, next_id_++, span);
  nodes_.push_back(std::unique_ptr<Node>(p));
  p->set_name(name);
  g->params_.push_back(p);
  g->sig_.names.push_back(std::move(name));
  g->sig_.defaults.emplace_back(std::nullopt);
  return p;
}

CNode* Module::cnode(FuncGraph* g, std::vector<Node*> inputs, SourceSpan span) {
  MC_ASSERT(g != nullptr && g->module() == this);
  MC_ASSERT(!inputs.empty());
  for (Node* n : inputs) MC_ASSERT(n != nullptr);
  auto* c = new CNode(g, next_id_++, span, std::move(inputs));
  nodes_.push_back(std::unique_ptr<Node>(c));
  return c;
}

ValueNode* Module::value(Value v, SourceSpan span) {
  auto* n = new ValueNode(next_id_++, span, std::move(v));
  nodes_.push_back(std::unique_ptr<Node>(n));
  return n;
}

CNode* Module::call_prim(FuncGraph* g, const OpDef& op, Attrs attrs, std::vector<Node*> args,
                         SourceSpan span) {
  args.insert(args.begin(), value(Value::prim(op, std::move(attrs)), span));
  return cnode(g, std::move(args), span);
}

CNode* Module::call_builtin(FuncGraph* g, Builtin b, std::vector<Node*> args, SourceSpan span) {
  int arity = builtin_arity(b);
  MC_ASSERT(arity < 0 || static_cast<size_t>(arity) == args.size());
  args.insert(args.begin(), value(Value::builtin(b), span));
  return cnode(g, std::move(args), span);
}

void Module::merge_graph(FuncGraph* from, FuncGraph* into) {
  MC_ASSERT(from != nullptr && into != nullptr && from->module() == this && into->module() == this);
  MC_ASSERT(from->merged_ == nullptr && into->merged_ == nullptr && from != into, "merge_graph: @",
            from->name(), " into @", into->name(), ": both must own their nodes and differ");
  MC_ASSERT(from != entry_, "merge_graph: the entry graph @", from->name());
  from->merged_ = into;
  merged_ = true;
}

void Module::settle_merges() {
  if (!merged_) return;
  for (const std::unique_ptr<Node>& n : nodes_)
    if (n->graph_ != nullptr) n->graph_ = n->graph_->owner();
  merged_ = false;
}

std::vector<FuncGraph*> Module::reachable_graphs(FuncGraph* root) const {
  std::vector<FuncGraph*> graphs{root};
  walk_graphs(
      graphs, /*cross=*/false, [](FuncGraph*) {}, [](Node*) {});
  return graphs;
}

std::vector<CNode*> Module::toposort(FuncGraph* g) const {
  Node* out = g->output();
  return ir::toposort(g, std::span<Node* const>(&out, 1));
}

}  // namespace mycel::ir
