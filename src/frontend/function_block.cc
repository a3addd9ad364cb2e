// Blocks of the front end: on-the-fly SSA construction (Braun et al. 2013, "Simple and
// Efficient Construction of Static Single Assignment Form"), as MindSpore's FunctionBlock.
//
// read(b, x): x's definition in b; else, for a non-join block, its predecessor's (the node
// is used directly, as a free variable of b's graph); for a join, a phi parameter whose
// arguments are read in each predecessor and appended to that predecessor's tail call;
// joins not yet sealed (loop headers while the body is parsed) record the phi as incomplete
// and add the arguments when sealed. finish() removes trivial phis (every incoming value
// the same, or the phi itself) until none is left, and rewrites their uses.
#include <cstddef>
#include <unordered_map>
#include <unordered_set>

#include "frontend/parse_impl.h"

namespace mycel::frontend::detail {

Block* Parser::new_block(Scope* scope, Block* lexical, const std::string& suffix,
                         ir::SourceSpan s) {
  auto b = std::make_unique<Block>();
  b->g = new_graph(scope->name + "." + suffix, s);
  b->scope = scope;
  b->lexical = lexical;
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

Block* Parser::new_join(Scope* scope, const std::string& suffix, ir::SourceSpan s, bool sealed) {
  Block* b = new_block(scope, nullptr, suffix, s);
  b->join = true;
  b->sealed = sealed;
  return b;
}

void Parser::write(Block* b, const std::string& name, ir::Node* v) {
  if (v->is_cnode() && v->graph() == b->g && v->name().empty() && name[0] != '$') v->set_name(name);
  b->vars[name] = v;
}

ir::Node* Parser::read(Block* b, const std::string& name, ir::SourceSpan s) {
  auto it = b->vars.find(name);
  if (it != b->vars.end()) return it->second;
  Nest nest(*this, s);  // recurses into predecessors and enclosing blocks
  ir::Node* v = nullptr;
  if (b->join) {
    ir::Parameter* phi = m_.add_param(b->g, name[0] == '$' ? name.substr(1) : name, b->g->span());
    b->phis.push_back(phi);
    b->vars[name] = phi;  // before reading the predecessors: breaks cycles through loops
    if (!b->sealed) {
      b->incomplete.emplace_back(name, phi);
    } else {
      for (size_t k = 0; k < b->preds.size(); ++k) {
        ir::CNode* j = b->jumps[k];
        std::vector<ir::Node*> in = j->inputs();
        in.push_back(read(b->preds[k], name, s));
        j->set_inputs(std::move(in));
      }
    }
    return phi;
  }
  if (b->lexical != nullptr) {
    v = read(b->lexical, name, s);
  } else {
    // The entry of the function that owns the local: nothing assigned it on this path.
    fail(s, "UnboundLocalError: local variable '", name,
         "' is referenced before assignment, or is not assigned on every path that reaches "
         "this use (graph mode needs a value for it on each branch of an if, and before a "
         "loop that assigns it)");
  }
  b->vars[name] = v;
  return v;
}

void Parser::jump(Block* from, Block* to, ir::SourceSpan s) {
  MC_ASSERT(to->join && !to->sealed);
  ir::CNode* j = cnode(from->g, {graph_value(to->g, s)}, s);
  from->g->set_output(j);
  to->preds.push_back(from);
  to->jumps.push_back(j);
}

void Parser::seal(Block* b) {
  MC_ASSERT(b->join && !b->sealed);
  // Phis created while adding arguments stay incomplete (and are handled by this loop), so
  // every jump receives its arguments in phi (parameter) order.
  for (size_t i = 0; i < b->incomplete.size(); ++i) {
    auto [name, phi] = b->incomplete[i];
    for (size_t k = 0; k < b->preds.size(); ++k) {
      ir::Node* v = read(b->preds[k], name, phi->span());
      ir::CNode* j = b->jumps[k];
      std::vector<ir::Node*> in = j->inputs();
      in.push_back(v);
      j->set_inputs(std::move(in));
    }
  }
  b->incomplete.clear();
  b->sealed = true;
}

void Parser::note_bound(Block* b, ir::Node* v) {
  if (v->is_cnode() && v->graph() == b->g) bound_.push_back({b->g, v, b->g->effects.size()});
}

void Parser::keep_unread_bound_values(ir::FuncGraph* top) {
  if (bound_.empty()) return;
  // What the function's graphs read: from each reached graph's output and effects, through
  // inputs (free variables included) and the graphs that values name (blocks, closures).
  std::unordered_set<const ir::Node*> seen;
  std::unordered_set<const ir::FuncGraph*> graphs;
  std::vector<const ir::Node*> todo;
  auto reach = [&](const ir::FuncGraph* g) {
    if (!graphs.insert(g).second) return;
    if (g->output() != nullptr) todo.push_back(g->output());
    for (const ir::Node* e : g->effects) todo.push_back(e);
  };
  reach(top);
  while (!todo.empty()) {
    const ir::Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->is_cnode()) {
      for (const ir::Node* in : static_cast<const ir::CNode*>(n)->inputs()) todo.push_back(in);
    } else if (n->kind() == ir::NodeKind::Value) {
      const ir::Value& v = static_cast<const ir::ValueNode*>(n)->value();
      if (v.is(ir::ValueKind::Graph)) reach(v.as_graph());
    }
  }
  std::unordered_map<ir::FuncGraph*, size_t> added;
  for (const Bound& b : bound_) {
    if (seen.count(b.v)) continue;
    size_t& k = added[b.g];
    b.g->effects.insert(b.g->effects.begin() + static_cast<std::ptrdiff_t>(b.effects_at + k), b.v);
    ++k;
  }
}

void Parser::finish() {
  std::unordered_map<ir::Node*, ir::Node*> repl;
  auto resolve = [&](ir::Node* n) {
    for (auto it = repl.find(n); it != repl.end(); it = repl.find(n)) n = it->second;
    return n;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& bp : blocks_) {
      Block* b = bp.get();
      if (!b->join) continue;
      for (size_t k = 0; k < b->phis.size(); ++k) {
        ir::Parameter* phi = b->phis[k];
        if (repl.count(phi)) continue;
        ir::Node* same = nullptr;
        bool trivial = true;
        for (ir::CNode* j : b->jumps) {
          ir::Node* op = resolve(j->input(k + 1));
          if (op == phi || op == same) continue;
          if (same != nullptr) {
            trivial = false;
            break;
          }
          same = op;
        }
        if (trivial && same != nullptr) {
          repl[phi] = same;
          changed = true;
        }
      }
    }
  }
  if (repl.empty()) return;
  // Drop the removed phis and their arguments.
  for (auto& bp : blocks_) {
    Block* b = bp.get();
    if (!b->join) continue;
    std::vector<ir::Parameter*> kept;
    std::vector<size_t> keep_idx;
    for (size_t k = 0; k < b->phis.size(); ++k)
      if (!repl.count(b->phis[k])) {
        kept.push_back(b->phis[k]);
        keep_idx.push_back(k);
      }
    if (kept.size() == b->phis.size()) continue;
    for (ir::CNode* j : b->jumps) {
      std::vector<ir::Node*> in{j->input(0)};
      for (size_t k : keep_idx) in.push_back(j->input(k + 1));
      j->set_inputs(std::move(in));
    }
    b->g->set_params(kept);
    b->phis = std::move(kept);
  }
  for (ir::CNode* c : cnodes_)
    for (size_t i = 0; i < c->size(); ++i) {
      ir::Node* n = resolve(c->input(i));
      if (n != c->input(i)) c->set_input(i, n);
    }
  for (ir::FuncGraph* g : graphs_) {
    if (g->output() != nullptr) g->set_output(resolve(g->output()));
    for (ir::Node*& e : g->effects) e = resolve(e);
  }
}

}  // namespace mycel::frontend::detail
