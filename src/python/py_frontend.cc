// Debug hooks of the front end: _mycel._parse_ir(fn) prints the generic IR that
// frontend::parse_function builds for a Python function (tests and IR inspection).
#include <sstream>

#include <pybind11/stl.h>

#include "frontend/parse.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

// One effect node as an expression ("print(%x, 1)"): the printer shows graphs from their
// outputs only, and effects are not reachable from there.
void render(std::ostringstream& os, ir::Node* n, ir::FuncGraph* g, int depth) {
  if (n->is_value()) {
    os << static_cast<ir::ValueNode*>(n)->value().to_string();
  } else if (n->is_param() || n->graph() != g || depth > 6) {
    os << '%' << (n->name().empty() ? std::to_string(n->id()) : n->name());
  } else {
    auto* c = static_cast<ir::CNode*>(n);
    render(os, c->input(0), g, depth + 1);
    os << '(';
    for (size_t i = 1; i < c->size(); ++i) {
      if (i > 1) os << ", ";
      render(os, c->input(i), g, depth + 1);
    }
    os << ')';
  }
}

}  // namespace

void bind_frontend(pyb::module_& m) {
  // The IR text of fn's parse (checked by ir::verify first); graphs with effects are followed by
  // "effects @g: e1; e2".
  m.def(
      "_parse_ir",
      [](pyb::handle fn, bool types, bool verify) {
        ir::Module mod;
        ir::FuncGraph* g = frontend::parse_function(mod, fn);
        if (verify) ir::verify(g);
        std::ostringstream os;
        os << ir::print_graph(g, types);
        for (const auto& gp : mod.graphs()) {
          if (gp->effects.empty()) continue;
          os << "\neffects @" << gp->name() << ": ";
          for (size_t i = 0; i < gp->effects.size(); ++i) {
            if (i) os << "; ";
            render(os, gp->effects[i], gp.get(), 0);
          }
        }
        return os.str();
      },
      pyb::arg("fn"), pyb::arg("types") = false, pyb::arg("verify") = true);
  // The parse as data, for tests: {"signature": (names, defaults (text or None), vararg,
  // kwarg, kwonly_begin), "graphs": [{"name", "line", "col", "is_loop", "params": [(name,
  // line, col)], "nodes": [(callee text, name hint, line, col)], "free_vars": [name hints of
  // nodes of other graphs used directly], "effects": count}]}; graphs as reachable from the
  // root (the printer's order), nodes in topological order.
  m.def("_parse_info", [](pyb::handle fn) {
    ir::Module mod;
    ir::FuncGraph* root = frontend::parse_function(mod, fn);
    const ir::Signature& sig = root->signature();
    pyb::list defaults;
    for (const auto& d : sig.defaults)
      defaults.append(d ? pyb::object(pyb::str(d->to_string())) : pyb::object(pyb::none()));
    pyb::dict out;
    out["signature"] =
        pyb::make_tuple(pyb::cast(sig.names), defaults, sig.vararg, sig.kwarg, sig.kwonly_begin);
    pyb::list graphs;
    for (ir::FuncGraph* g : mod.reachable_graphs(root)) {
      pyb::dict d;
      d["name"] = g->name();
      d["line"] = g->span().line;
      d["col"] = g->span().col;
      d["is_loop"] = g->is_loop;
      pyb::list params, nodes, fvs;
      for (ir::Parameter* p : g->params())
        params.append(pyb::make_tuple(p->name(), p->span().line, p->span().col));
      std::vector<ir::Node*> seen;
      auto note = [&](ir::Node* n) {
        if (n->is_value() || n->graph() == g) return;
        for (ir::Node* s : seen)
          if (s == n) return;
        seen.push_back(n);
        fvs.append(n->name());
      };
      for (ir::CNode* c : mod.toposort(g)) {
        std::string callee = c->callee()->is_value()
                                 ? static_cast<ir::ValueNode*>(c->callee())->value().to_string()
                                 : std::string("<call>");
        nodes.append(pyb::make_tuple(callee, c->name(), c->span().line, c->span().col));
        for (ir::Node* in : c->inputs()) note(in);
      }
      note(g->output());
      d["params"] = params;
      d["nodes"] = nodes;
      d["free_vars"] = fvs;
      d["effects"] = g->effects.size();
      graphs.append(d);
    }
    out["graphs"] = graphs;
    return out;
  });
}

}  // namespace mycel::py
