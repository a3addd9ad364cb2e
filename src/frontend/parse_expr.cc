// Expressions of the front end (the IR forms are listed in parse.h): operators, short-circuit
// and/or/comparison chains/conditional expressions as switches over nested graphs,
// attributes, subscripts, literals, calls (with make_kwarg / unpack_call), lambdas, and the
// JIT fallback for everything else.
#include <pybind11/stl.h>

#include "frontend/parse_impl.h"
#include "frontend/py_value.h"

namespace mycel::frontend::detail {

namespace {

ir::Builtin compare_of(Ast k) {
  switch (k) {
    case Ast::Eq:
      return ir::Builtin::Eq;
    case Ast::NotEq:
      return ir::Builtin::Ne;
    case Ast::Lt:
      return ir::Builtin::Lt;
    case Ast::LtE:
      return ir::Builtin::Le;
    case Ast::Gt:
      return ir::Builtin::Gt;
    case Ast::GtE:
      return ir::Builtin::Ge;
    case Ast::Is:
      return ir::Builtin::Is;
    case Ast::IsNot:
      return ir::Builtin::IsNot;
    case Ast::In:
      return ir::Builtin::In;
    case Ast::NotIn:
      return ir::Builtin::NotIn;
    default:
      MC_ASSERT(false, "not a comparison");
  }
  return ir::Builtin::Eq;
}

// Names, constants and lambdas (just a graph value): cheap and without effects, so both
// sides of a short-circuit can be evaluated up front (the value form of switch).
bool simple(py::handle e) {
  Ast k = ast_kind(e);
  return k == Ast::Name || k == Ast::Constant || k == Ast::Lambda;
}

}  // namespace

ir::Node* Parser::constant(py::handle v, ir::SourceSpan s) {
  PyObject* o = v.ptr();
  if (o == Py_None) return value(ir::Value::none(), s);
  if (PyBool_Check(o)) return value(ir::Value::boolean(o == Py_True), s);
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return value(ir::Value::integer(x), s);
  }
  if (PyFloat_CheckExact(o)) return value(ir::Value::real(PyFloat_AS_DOUBLE(o)), s);
  if (PyUnicode_CheckExact(o)) return value(ir::Value::string(v.cast<std::string>()), s);
  if (o == Py_Ellipsis) return value(ir::Value::ellipsis(), s);
  if (PyComplex_CheckExact(o)) return value(to_value(v), s);  // a 0-d complex tensor
  return value(wrap_host(v), s);                              // bytes, big ints
}

ir::Node* Parser::truth(const Ctx& c, py::handle e) {
  // In a test only truth values matter: truth(a and b) is truth(a) and truth(b), and
  // truth(not a) is not(truth(a)); so `t > 0 and not flag` joins a tensor with a bool.
  Ast k = ast_kind(e);
  if (k == Ast::BoolOp)
    return boolop(c, ast_kind(e.attr("op")) == Ast::And, e.attr("values"), 0, true);
  if (k == Ast::UnaryOp && ast_kind(e.attr("op")) == Ast::Not)
    return builtin(c, ir::Builtin::Not, {truth(c, e.attr("operand"))}, span(e));
  ir::Node* v = expr(c, e);
  return builtin(c, ir::Builtin::Truth, {v}, span(e));
}

ir::Node* Parser::index(const Ctx& c, py::handle e) {
  Ast k = ast_kind(e);
  if (k == Ast::Slice) {
    ir::SourceSpan s = span(e);
    auto part = [&](const char* name) -> ir::Node* {
      py::object p = e.attr(name);
      return p.is_none() ? static_cast<ir::Node*>(value(ir::Value::none(), s)) : expr(c, p);
    };
    ir::Node* lo = part("lower");
    ir::Node* hi = part("upper");
    ir::Node* st = part("step");
    return builtin(c, ir::Builtin::MakeSlice, {lo, hi, st}, s);
  }
  if (k == Ast::Tuple) {
    std::vector<ir::Node*> items;
    for (py::handle elt : e.attr("elts")) {
      if (ast_kind(elt) == Ast::Starred) return fallback(c, e);
      items.push_back(index(c, elt));
    }
    return builtin(c, ir::Builtin::MakeTuple, std::move(items), span(e));
  }
  return expr(c, e);
}

// values[i] and/or values[i+1:]: Python's short-circuit, returning the deciding operand.
ir::Node* Parser::boolop(const Ctx& c, bool is_and, py::handle values, size_t i, bool test) {
  py::list vals = py::reinterpret_borrow<py::list>(values);
  py::handle e = vals[i];
  if (i + 1 == vals.size()) return test ? truth(c, e) : expr(c, e);
  ir::SourceSpan s = span(e);
  Nest nest(*this, s);
  ir::Node* lhs = test ? truth(c, e) : expr(c, e);
  ir::Node* cond = test ? lhs : builtin(c, ir::Builtin::Truth, {lhs}, s);
  if (i + 2 == vals.size() && simple(vals[i + 1])) {
    ir::Node* rhs = test ? truth(c, vals[i + 1]) : expr(c, vals[i + 1]);
    return builtin(c, ir::Builtin::Switch, {cond, is_and ? rhs : lhs, is_and ? lhs : rhs}, s);
  }
  const std::string& base = c.b->scope->name;
  ir::FuncGraph* rest = new_graph(base + (is_and ? ".and" : ".or"), s);
  rest->set_output(boolop(Ctx{c.b, rest}, is_and, values, i + 1, test));
  ir::FuncGraph* ret = new_graph(base + (is_and ? ".and_false" : ".or_true"), s);
  ret->set_output(lhs);
  ir::Node* a = graph_value(is_and ? rest : ret, s);
  ir::Node* b = graph_value(is_and ? ret : rest, s);
  return call0(c, builtin(c, ir::Builtin::Switch, {cond, a, b}, s), s);
}

// lhs ops[i] comps[i] ...: each comparand evaluated once; stops at the first false.
ir::Node* Parser::compare(const Ctx& c, ir::Node* lhs, py::handle ops, py::handle comps, size_t i) {
  py::list opl = py::reinterpret_borrow<py::list>(ops);
  py::list cl = py::reinterpret_borrow<py::list>(comps);
  ir::SourceSpan s = span(cl[i]);
  Nest nest(*this, s);
  ir::Node* rhs = expr(c, cl[i]);
  ir::Node* t = builtin(c, compare_of(ast_kind(opl[i])), {lhs, rhs}, s);
  if (i + 1 == cl.size()) return t;
  const std::string& base = c.b->scope->name;
  ir::FuncGraph* rest = new_graph(base + ".cmp", s);
  rest->set_output(compare(Ctx{c.b, rest}, rhs, ops, comps, i + 1));
  ir::FuncGraph* ret = new_graph(base + ".cmp_false", s);
  ret->set_output(t);
  ir::Node* cond = builtin(c, ir::Builtin::Truth, {t}, s);
  ir::Node* sw =
      builtin(c, ir::Builtin::Switch, {cond, graph_value(rest, s), graph_value(ret, s)}, s);
  return call0(c, sw, s);
}

ir::Node* Parser::call(const Ctx& c, py::handle e) {
  ir::SourceSpan s = span(e);
  ir::Node* fn = expr(c, e.attr("func"));
  py::list args = e.attr("args");
  py::list kws = e.attr("keywords");
  bool spread = false;
  for (py::handle a : args) spread = spread || ast_kind(a) == Ast::Starred;
  for (py::handle k : kws) spread = spread || k.attr("arg").is_none();
  auto kwarg = [&](py::handle k) {
    ir::SourceSpan ks = span(k);
    return builtin(
        c, ir::Builtin::MakeKwarg,
        {value(ir::Value::string(k.attr("arg").cast<std::string>()), ks), expr(c, k.attr("value"))},
        ks);
  };
  // super() with no arguments is super(__class__, <the first parameter>), as Python's
  // compiler makes it: the class from the method's __class__ cell, the instance its first
  // argument (both known at compile time for a Cell's method: the host then evaluates it).
  if (args.empty() && kws.empty() && ast_kind(e.attr("func")) == Ast::Name &&
      e.attr("func").attr("id").cast<std::string>() == "super" && cells_.count("__class__") &&
      !first_param_.empty()) {
    return cnode(c.g, {fn, load_name(c.b, "__class__", s), load_name(c.b, first_param_, s)}, s);
  }
  if (!spread) {
    std::vector<ir::Node*> in{fn};
    for (py::handle a : args) in.push_back(expr(c, a));
    for (py::handle k : kws) in.push_back(kwarg(k));
    return cnode(c.g, std::move(in), s);
  }
  std::vector<ir::Node*> parts{fn};
  std::vector<ir::Node*> run;
  auto flush = [&] {
    if (run.empty()) return;
    parts.push_back(builtin(c, ir::Builtin::MakeTuple, std::move(run), s));
    run.clear();
  };
  for (py::handle a : args) {
    if (ast_kind(a) == Ast::Starred) {
      flush();
      parts.push_back(expr(c, a.attr("value")));
    } else {
      run.push_back(expr(c, a));
    }
  }
  flush();
  for (py::handle k : kws)
    parts.push_back(k.attr("arg").is_none() ? expr(c, k.attr("value")) : kwarg(k));
  return builtin(c, ir::Builtin::UnpackCall, std::move(parts), s);
}

ir::Node* Parser::fallback(const Ctx& c, py::handle e) {
  ir::SourceSpan s = span(e);
  std::vector<std::string> names;
  std::vector<ir::Node*> in{value(ir::Value::builtin(ir::Builtin::PyExecute), s), nullptr};
  for (py::handle n : helper_.attr("free_names")(e)) {
    std::string name = n.cast<std::string>();
    if (!is_local_somewhere(c.b, name) && !cells_.count(name)) continue;  // globals: by the fn
    names.push_back(name);
    in.push_back(load_name(c.b, name, s));
  }
  py::object f = helper_.attr("make_fallback")(e, names, globals_, path_);
  in[1] = value(wrap_host(f), s);
  return cnode(c.g, std::move(in), s);
}

ir::Node* Parser::fstring(const Ctx& c, py::handle e) {
  ir::SourceSpan s = span(e);
  py::tuple split = helper_.attr("split_fstring")(e, globals_, path_);
  std::vector<ir::Node*> in{value(ir::Value::builtin(ir::Builtin::PyExecute), s),
                            value(wrap_host(split[0]), s)};
  for (py::handle x : split[1]) in.push_back(expr(c, x));
  return cnode(c.g, std::move(in), s);
}

ir::Node* Parser::expr(const Ctx& c, py::handle e) {
  ir::SourceSpan s = span(e);
  Nest nest(*this, s);
  Ast k = ast_kind(e);
  switch (k) {
    case Ast::Constant:
      return constant(e.attr("value"), s);
    case Ast::Name:
      return load_name(c.b, e.attr("id").cast<std::string>(), s);
    case Ast::BinOp: {
      ir::Node* l = expr(c, e.attr("left"));
      ir::Node* r = expr(c, e.attr("right"));
      return builtin(c, binop_builtin(e.attr("op"), s), {l, r}, s);
    }
    case Ast::UnaryOp: {
      Ast op = ast_kind(e.attr("op"));
      py::object operand = e.attr("operand");
      if (op == Ast::USub && ast_kind(operand) == Ast::Constant) {  // negative literals
        py::object v = operand.attr("value");
        if ((PyLong_CheckExact(v.ptr()) || PyFloat_CheckExact(v.ptr())))
          return constant(v.attr("__neg__")(), s);
      }
      ir::Node* x = expr(c, operand);
      ir::Builtin b = op == Ast::Not    ? ir::Builtin::Not
                      : op == Ast::USub ? ir::Builtin::Neg
                      : op == Ast::UAdd ? ir::Builtin::Pos
                                        : ir::Builtin::Invert;
      return builtin(c, b, {x}, s);
    }
    case Ast::BoolOp:
      return boolop(c, ast_kind(e.attr("op")) == Ast::And, e.attr("values"), 0);
    case Ast::Compare:
      return compare(c, expr(c, e.attr("left")), e.attr("ops"), e.attr("comparators"), 0);
    case Ast::IfExp: {
      ir::Node* cond = truth(c, e.attr("test"));
      py::object body = e.attr("body"), orelse = e.attr("orelse");
      if (simple(body) && simple(orelse))
        return builtin(c, ir::Builtin::Switch, {cond, expr(c, body), expr(c, orelse)}, s);
      const std::string& base = c.b->scope->name;
      ir::FuncGraph* tg = new_graph(base + ".ifexp_true", s);
      tg->set_output(expr(Ctx{c.b, tg}, body));
      ir::FuncGraph* fg = new_graph(base + ".ifexp_false", s);
      fg->set_output(expr(Ctx{c.b, fg}, orelse));
      return call0(
          c, builtin(c, ir::Builtin::Switch, {cond, graph_value(tg, s), graph_value(fg, s)}, s), s);
    }
    case Ast::Attribute: {
      if (ir::Node* tracked = read_tracked_attr(c, e, s)) return tracked;
      ir::Node* x = expr(c, e.attr("value"));
      ir::Node* name = value(ir::Value::string(attr_name(e)), s);
      return builtin(c, ir::Builtin::GetAttr, {x, name}, s);
    }
    case Ast::Subscript: {
      ir::Node* x = expr(c, e.attr("value"));
      return builtin(c, ir::Builtin::GetItem, {x, index(c, e.attr("slice"))}, s);
    }
    case Ast::Tuple:
    case Ast::List: {
      std::vector<ir::Node*> items;
      for (py::handle elt : e.attr("elts")) {
        if (ast_kind(elt) == Ast::Starred) return fallback(c, e);
        items.push_back(expr(c, elt));
      }
      return builtin(c, k == Ast::Tuple ? ir::Builtin::MakeTuple : ir::Builtin::MakeList,
                     std::move(items), s);
    }
    case Ast::Dict: {
      std::vector<ir::Node*> items;
      py::list keys = e.attr("keys");
      py::list vals = e.attr("values");
      for (size_t i = 0; i < keys.size(); ++i) {
        if (keys[i].is_none()) return fallback(c, e);  // {**d}
        items.push_back(expr(c, keys[i]));
        items.push_back(expr(c, vals[i]));
      }
      return builtin(c, ir::Builtin::MakeDict, std::move(items), s);
    }
    case Ast::Call:
      return call(c, e);
    case Ast::Lambda: {
      ir::FuncGraph* g = new_graph(c.b->scope->name + ".lambda", s);
      parse_def(e, c.b, g);
      return graph_value(g, s);
    }
    case Ast::NamedExpr:
      fail(s,
           "assignment expressions (:=) are not supported in graph mode; assign in a "
           "separate statement");
    case Ast::Await:
    case Ast::Yield:
    case Ast::YieldFrom:
      fail(s, "'", k == Ast::Await ? "await" : "yield",
           "' is not supported in graph mode: generators and coroutines run in PYNATIVE mode");
    case Ast::Starred:
      fail(s, "a starred expression is only supported in calls and literals in graph mode");
    case Ast::JoinedStr:
      return fstring(c, e);
    case Ast::ListComp:
    case Ast::GeneratorExp: {
      // The nested function Python makes of it (helper comp_to_def), called with the first
      // iterable; a generator expression is built as a list (graph code has no lazy
      // iteration: sum(...), tuple(...), any(...) over it see the same values).
      py::object def = helper_.attr("comp_to_def")(e);
      if (def.is_none()) return fallback(c, e);
      ir::Node* first = expr(c, e.attr("generators")[py::int_(0)].attr("iter"));
      ir::FuncGraph* g = new_graph(c.b->scope->name + ".listcomp", s);
      parse_def(def, c.b, g);
      return cnode(c.g, {graph_value(g, s), first}, s);
    }
    default:
      // Set and dict comprehensions, set literals, ...: JIT fallback.
      return fallback(c, e);
  }
}

}  // namespace mycel::frontend::detail
