// Statements of the front end (the IR forms are listed in parse.h): assignments, effects,
// control flow (if / while / for / break / continue / return / raise / assert) and nested
// defs. Each statement parser returns the block where parsing continues, or null when no
// path reaches the next statement (the rest of the list is then unreachable and skipped).
#include <algorithm>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "frontend/parse_impl.h"
#include "frontend/py_value.h"

namespace mycel::frontend::detail {

namespace {

std::string unparse(py::handle node) {
  return py::module_::import("ast").attr("unparse")(node).cast<std::string>();
}

}  // namespace

Block* Parser::stmts(Block* b, py::handle list) {
  for (py::handle s : list) {
    b = stmt(b, s);
    if (b == nullptr) return nullptr;
  }
  return b;
}

void Parser::assign(Block* b, py::handle t, ir::Node* v, ir::SourceSpan s) {
  Ctx c{b, b->g};
  Nest nest(*this, s);  // nested targets: (a, (b, c)) = ..., x[i][j] = ...
  switch (ast_kind(t)) {
    case Ast::Name:
      write(b, t.attr("id").cast<std::string>(), v);
      return;
    case Ast::Tuple:
    case Ast::List: {
      py::list elts = t.attr("elts");
      int n = static_cast<int>(elts.size());
      int star = -1;
      for (int i = 0; i < n; ++i)
        if (ast_kind(elts[static_cast<size_t>(i)]) == Ast::Starred) {
          if (star >= 0) fail(span(t), "SyntaxError: multiple starred expressions in assignment");
          star = i;
        }
      for (int i = 0; i < n; ++i) {
        py::handle e = elts[static_cast<size_t>(i)];
        ir::SourceSpan es = span(e);
        if (i == star) {
          int after = n - 1 - i;
          ir::Node* stop = after > 0 ? static_cast<ir::Node*>(value(ir::Value::integer(-after), es))
                                     : value(ir::Value::none(), es);
          ir::Node* sl =
              builtin(c, ir::Builtin::MakeSlice,
                      {value(ir::Value::integer(i), es), stop, value(ir::Value(), es)}, es);
          assign(b, e.attr("value"), builtin(c, ir::Builtin::GetItem, {v, sl}, es), es);
        } else {
          int64_t idx = star >= 0 && i > star ? i - n : i;
          ir::Node* item =
              builtin(c, ir::Builtin::GetItem, {v, value(ir::Value::integer(idx), es)}, es);
          assign(b, e, item, es);
        }
      }
      return;
    }
    case Ast::Subscript: {
      // x[i] = v  ->  x = setitem(x, i, v); the container may itself be a subscript.
      ir::Node* container = expr(c, t.attr("value"));
      ir::Node* idx = index(c, t.attr("slice"));
      ir::Node* nv = builtin(c, ir::Builtin::SetItem, {container, idx, v}, span(t));
      assign(b, t.attr("value"), nv, s);
      return;
    }
    case Ast::Attribute:
      assign_attribute(b, t, v, s);
      return;
    case Ast::Starred:
      fail(span(t), "SyntaxError: a starred assignment target must be in a list or tuple");
    default:
      fail(span(t), "graph mode cannot assign to '", unparse(t), "'");
  }
}

namespace {

// The builtin of an ast operator class (BinOp and AugAssign).
ir::Builtin binop_of(Ast k) {
  switch (k) {
    case Ast::Add:
      return ir::Builtin::Add;
    case Ast::Sub:
      return ir::Builtin::Sub;
    case Ast::Mult:
      return ir::Builtin::Mul;
    case Ast::MatMult:
      return ir::Builtin::MatMul;
    case Ast::Div:
      return ir::Builtin::TrueDiv;
    case Ast::FloorDiv:
      return ir::Builtin::FloorDiv;
    case Ast::Mod:
      return ir::Builtin::Mod;
    case Ast::Pow:
      return ir::Builtin::Pow;
    case Ast::LShift:
      return ir::Builtin::LShift;
    case Ast::RShift:
      return ir::Builtin::RShift;
    case Ast::BitOr:
      return ir::Builtin::BitOr;
    case Ast::BitXor:
      return ir::Builtin::BitXor;
    case Ast::BitAnd:
      return ir::Builtin::BitAnd;
    default:
      MC_ASSERT(false, "not a binary operator");
  }
  return ir::Builtin::Add;
}

}  // namespace

ir::Builtin Parser::binop_builtin(py::handle op, ir::SourceSpan) const {
  return binop_of(ast_kind(op));
}

namespace {

// The loop tail shared by while and for: the header's switch between @body and @exit, the
// body (parsed by `body_fn`), the back edge, sealing, the else clause and breaks.
struct LoopParts {
  Block* header;
  ir::Node* cond;
  ir::SourceSpan span;
};

}  // namespace

static Block* loop_rest(Parser& p, const LoopParts& lp,
                        const std::function<Block*(Block*)>& body_fn, py::handle orelse) {
  Block* h = lp.header;
  Ctx hc{h, h->g};
  Block* body = p.new_block(h->scope, h, "body", lp.span);
  Block* exit = p.new_block(h->scope, h, "exit", lp.span);
  ir::Node* sw = p.builtin(
      hc, ir::Builtin::Switch,
      {lp.cond, p.graph_value(body->g, lp.span), p.graph_value(exit->g, lp.span)}, lp.span);
  h->g->set_output(p.call0(hc, sw, lp.span));
  p.loops_.push_back(Loop{h});
  Block* end = body_fn(body);
  if (end != nullptr) p.jump(end, h, lp.span);
  Loop loop = p.loops_.back();
  p.loops_.pop_back();
  p.seal(h);
  Block* exit_end = p.stmts(exit, orelse);
  if (loop.after == nullptr) return exit_end;
  if (exit_end != nullptr) p.jump(exit_end, loop.after, lp.span);
  p.seal(loop.after);
  return loop.after;
}

namespace {

py::object graph_attr_fn(const char* name) {
  return py::module_::import("mycel.common.graph_attr").attr(name);
}

const std::string kAttrVar = "$attr:";

}  // namespace

std::string Parser::attr_key(py::handle e) const {
  std::vector<std::string> names;  // innermost last
  py::handle n = e;
  while (ast_kind(n) == Ast::Attribute) {
    names.push_back(attr_name(n));
    n = n.attr("value");
  }
  if (ast_kind(n) != Ast::Name || names.empty()) return "";
  std::string key = n.attr("id").cast<std::string>();
  for (size_t i = names.size(); i-- > 0;) key.append(".").append(names[i]);
  return key;
}

void Parser::track_attrs(Block* entry, py::handle fn_node, bool top) {
  Scope* scope = entry->scope;
  std::unordered_set<std::string> params;
  for (const std::string& p : entry->g->signature().names) params.insert(p);
  py::object init = graph_attr_fn("initial");
  for (py::handle t : helper_.attr("assigned_attrs")(fn_node)) {
    std::string key = attr_key(t);
    std::string root = key.substr(0, key.find('.'));
    // A parameter's attributes only for a method's self (a host object, constant in the
    // graph); other parameters may be run-time values, whose attributes graph code cannot
    // assign (graph_attr.assign_untracked refuses them).
    if (params.count(root) && !(top && root == first_param_ && !mangle_class_.empty())) continue;
    bool seen = false;
    for (auto& kt : scope->tracked) seen = seen || kt.first == key;
    if (seen) continue;
    ir::SourceSpan s = span(t);
    Ctx c{entry, entry->g};
    ir::Node* v = cnode(
        entry->g,
        {constant(init, s), expr(c, t.attr("value")), value(ir::Value::string(attr_name(t)), s)},
        s);
    scope->tracked.emplace_back(key, py::reinterpret_borrow<py::object>(t));
    write(entry, kAttrVar + key, v);
  }
}

ir::Node* Parser::read_tracked_attr(const Ctx& c, py::handle e, ir::SourceSpan s) {
  std::string key = attr_key(e);
  if (key.empty()) return nullptr;
  std::string root = key.substr(0, key.find('.'));
  for (Block* blk = c.b; blk != nullptr;) {
    Scope* scope = blk->scope;
    for (auto& kt : scope->tracked)
      if (kt.first == key) {
        ir::Node* cur = read(blk, kAttrVar + key, s);
        return cnode(c.g,
                     {constant(graph_attr_fn("read"), s), expr(c, e.attr("value")),
                      value(ir::Value::string(attr_name(e)), s), cur},
                     s);
      }
    // An enclosing function's chain only while the root is not this function's own name.
    if (scope->locals.count(root)) return nullptr;
    blk = scope->parent_block;
  }
  return nullptr;
}

void Parser::assign_attribute(Block* b, py::handle t, ir::Node* v, ir::SourceSpan sp) {
  // obj.name = v  ->  graph_attr.assign(obj, "name", v): a Parameter attribute takes the value
  // by Assign (MindSpore's graph-mode rule); any other is written to the object when the
  // graph runs, and the function's later reads of the chain give v (its variable). A chain
  // the function does not track (`self.cells[0].x = v`) is assign_untracked: refused for a
  // non-Parameter, with the statement's place. It runs where the statement stands.
  Ctx c{b, b->g};
  std::string key = attr_key(t);
  bool tracked = false;
  for (auto& kt : b->scope->tracked) tracked = tracked || kt.first == key;
  ir::Node* obj = expr(c, t.attr("value"));
  ir::Node* name = value(ir::Value::string(attr_name(t)), span(t));
  if (!tracked) {
    ir::Node* r = cnode(b->g, {constant(graph_attr_fn("assign_untracked"), sp), obj, name, v}, sp);
    note_bound(b, r);
    return;
  }
  ir::Node* r = cnode(b->g, {constant(graph_attr_fn("assign"), sp), obj, name, v}, sp);
  b->g->effects.push_back(r);  // read by the variable below, but it must run even if unread
  write(b, kAttrVar + key, cnode(b->g, {constant(graph_attr_fn("bound"), sp), obj, name, r}, sp));
  // Longer chains through this one (`self.a.b` after `self.a = v`) start again from it.
  for (auto& kt : b->scope->tracked)
    if (kt.first.size() > key.size() && kt.first.compare(0, key.size() + 1, key + ".") == 0) {
      ir::SourceSpan s = span(kt.second);
      write(b, kAttrVar + kt.first,
            cnode(b->g,
                  {constant(graph_attr_fn("initial"), s), expr(c, kt.second.attr("value")),
                   value(ir::Value::string(attr_name(kt.second)), s)},
                  s));
    }
}

bool Parser::parse_attr_list_method(Block* b, py::handle e, ir::SourceSpan sp) {
  // self.xs.append(v) on a chain this function tracks: self.xs = graph_list.append(self.xs, v)
  py::object f = e.attr("func");
  py::object target = f.attr("value");
  std::string key = attr_key(target);
  bool tracked = false;
  for (auto& kt : b->scope->tracked) tracked = tracked || kt.first == key;
  if (!tracked || !py::list(e.attr("keywords")).empty()) return false;
  py::list args = e.attr("args");
  for (py::handle a : args)
    if (ast_kind(a) == Ast::Starred) return false;
  Ctx c{b, b->g};
  py::module_ gl = py::module_::import("mycel.common.graph_list");
  std::vector<ir::Node*> in{constant(gl.attr(f.attr("attr").cast<std::string>().c_str()), sp),
                            expr(c, target)};
  for (py::handle a : args) in.push_back(expr(c, a));
  assign_attribute(b, target, cnode(b->g, std::move(in), sp), sp);
  return true;
}

bool Parser::parse_list_method(Block* b, py::handle e, ir::SourceSpan sp) {
  static const char* const kMethods[] = {"append", "extend", "insert", "pop", "reverse", "clear"};
  py::object f = e.attr("func");
  if (ast_kind(f) != Ast::Attribute) return false;
  Ast on = ast_kind(f.attr("value"));
  if (on != Ast::Name && on != Ast::Attribute) return false;
  std::string method = f.attr("attr").cast<std::string>();
  if (std::find(std::begin(kMethods), std::end(kMethods), method) == std::end(kMethods))
    return false;
  if (ast_kind(f.attr("value")) == Ast::Attribute) return parse_attr_list_method(b, e, sp);
  // Only a name this function binds: a list from an enclosing function or a global is
  // shared with code the graph cannot rebind.
  std::string name = f.attr("value").attr("id").cast<std::string>();
  if (b->scope == nullptr || !b->scope->locals.count(name)) return false;
  if (!py::list(e.attr("keywords")).empty()) return false;
  py::list args = e.attr("args");
  for (py::handle a : args)
    if (ast_kind(a) == Ast::Starred) return false;
  Ctx c{b, b->g};
  py::module_ gl = py::module_::import("mycel.common.graph_list");
  std::vector<ir::Node*> in{constant(gl.attr(method.c_str()), sp),
                            load_name(b, name, span(f.attr("value")))};
  for (py::handle a : args) in.push_back(expr(c, a));
  ir::Node* r = cnode(b->g, std::move(in), sp);
  note_bound(b, r);  // runs (and raises) where the statement stands, read or not
  write(b, name, r);
  return true;
}

ir::Node* Parser::parse_list_pop_value(Block* b, py::handle e, ir::SourceSpan sp) {
  if (ast_kind(e) != Ast::Call) return nullptr;
  py::object f = e.attr("func");
  if (ast_kind(f) != Ast::Attribute || ast_kind(f.attr("value")) != Ast::Name ||
      f.attr("attr").cast<std::string>() != "pop")
    return nullptr;
  std::string name = f.attr("value").attr("id").cast<std::string>();
  if (b->scope == nullptr || !b->scope->locals.count(name)) return nullptr;
  if (!py::list(e.attr("keywords")).empty()) return nullptr;
  py::list args = e.attr("args");
  for (py::handle a : args)
    if (ast_kind(a) == Ast::Starred) return nullptr;
  Ctx c{b, b->g};
  py::module_ gl = py::module_::import("mycel.common.graph_list");
  std::vector<ir::Node*> in{constant(gl.attr("pop_item"), sp),
                            load_name(b, name, span(f.attr("value")))};
  for (py::handle a : args) in.push_back(expr(c, a));
  ir::Node* r = cnode(b->g, std::move(in), sp);
  note_bound(b, r);  // runs (and raises) where the statement stands
  write(b, name, builtin(c, ir::Builtin::GetItem, {r, value(ir::Value::integer(0), sp)}, sp));
  return builtin(c, ir::Builtin::GetItem, {r, value(ir::Value::integer(1), sp)}, sp);
}

bool Parser::parse_register_hook(Block* b, py::handle e, ir::SourceSpan sp) {
  py::object f = e.attr("func");
  if (ast_kind(f) != Ast::Attribute || f.attr("attr").cast<std::string>() != "register_hook")
    return false;
  py::list args = e.attr("args");
  py::list kws = e.attr("keywords");
  if (args.size() != 1 || !kws.empty()) return false;
  py::object target = f.attr("value");
  if (ast_kind(target) != Ast::Name)
    fail(sp,
         "Register hook for Parameter inside graph is not supported. (In graph code a hook is "
         "registered on a Tensor bound to a local name, `x.register_hook(fn)`; register a "
         "Parameter's hook outside the graph.)");
  Ctx c{b, b->g};
  ir::Node* v = expr(c, target);
  if (hooked_.count(v))
    throw_error(ErrorKind::Runtime,
                "It is not supported to register multiple hooks for a Tensor. (In graph code "
                "each Tensor takes one register_hook.)\n" +
                    ir::span_excerpt(sp));
  const size_t before = cnodes_.size();
  py::module_ th = py::module_::import("mycel.common.tensor_hooks");
  ir::Node* bprop = builtin(c, ir::Builtin::Partial,
                            {constant(th.attr("_graph_hook_bprop"), sp), expr(c, args[0])}, sp);
  ir::CNode* h = builtin(c, ir::Builtin::CustomVjp,
                         {constant(th.attr("_graph_hook_forward"), sp), bprop, v}, sp);
  // The uses of x before the statement (in this block's graph) read the hooked value too, as
  // MindSpore moves the hook to where x is made: the hook sees x's whole gradient.
  for (size_t k = 0; k < before; ++k) {
    ir::CNode* n = cnodes_[k];
    if (n->graph() != b->g) continue;
    for (size_t i = 0; i < n->inputs().size(); ++i)
      if (n->inputs()[i] == v) n->set_input(i, h);
  }
  for (auto& [name, node] : b->vars)
    if (node == v) node = h;
  write(b, target.attr("id").cast<std::string>(), h);
  hooked_.insert(h);
  return true;
}

Block* Parser::stmt(Block* b, py::handle s) {
  Ctx c{b, b->g};
  ir::SourceSpan sp = span(s);
  Nest nest(*this, sp);
  Ast k = ast_kind(s);
  switch (k) {
    case Ast::Expr: {
      py::object e = s.attr("value");
      Ast ek = ast_kind(e);
      if (ek == Ast::Constant || ek == Ast::Name) return b;  // docstrings, bare names
      if (ek == Ast::Call && parse_register_hook(b, e, sp)) return b;
      if (ek == Ast::Call && parse_list_method(b, e, sp)) return b;
      ir::Node* n = expr(c, e);
      if (n->is_cnode() && n->graph() == b->g) b->g->effects.push_back(n);
      return b;
    }
    case Ast::Assign: {
      ir::Node* v = parse_list_pop_value(b, s.attr("value"), sp);
      if (v == nullptr) v = expr(c, s.attr("value"));
      note_bound(b, v);
      for (py::handle t : s.attr("targets")) assign(b, t, v, sp);
      return b;
    }
    case Ast::AnnAssign: {
      if (s.attr("value").is_none()) return b;
      ir::Node* v = parse_list_pop_value(b, s.attr("value"), sp);
      if (v == nullptr) v = expr(c, s.attr("value"));
      note_bound(b, v);
      assign(b, s.attr("target"), v, sp);
      return b;
    }
    case Ast::AugAssign:
      return parse_aug_assign(b, s);
    case Ast::Return: {
      py::object v = s.attr("value");
      b->g->set_output(v.is_none() ? value(ir::Value::none(), sp) : expr(c, v));
      return nullptr;
    }
    case Ast::Pass:
      return b;
    case Ast::If:
      return parse_if(b, s);
    case Ast::While:
      return parse_while(b, s);
    case Ast::For:
      return parse_for(b, s);
    case Ast::Break:
    case Ast::Continue:
      return parse_jump(b, k, sp);
    case Ast::FunctionDef: {
      if (py::len(s.attr("decorator_list")) > 0)
        fail(sp,
             "decorators on nested functions are not supported in graph mode; define the "
             "decorated function at module level");
      std::string name = s.attr("name").cast<std::string>();
      ir::FuncGraph* g = new_graph(name, sp);
      write(b, name, graph_value(g, sp));  // before the body: recursion by name
      parse_def(s, b, g);
      return b;
    }
    case Ast::Raise:
      return parse_raise(b, s);
    case Ast::Assert:
      return parse_assert(b, s);
    default:
      unsupported_stmt(k, sp);
  }
}

Block* Parser::parse_aug_assign(Block* b, py::handle s) {
  Ctx c{b, b->g};
  ir::SourceSpan sp = span(s);
  py::object t = s.attr("target");
  ir::Builtin op = binop_builtin(s.attr("op"), sp);
  Ast tk = ast_kind(t);
  if (tk == Ast::Attribute) {  // self.p op= v  ->  self.p = self.p op v (an Assign)
    ir::Node* now = expr(c, t);
    assign_attribute(b, t, builtin(c, op, {now, expr(c, s.attr("value"))}, sp), sp);
    return b;
  }
  if (tk != Ast::Name && tk != Ast::Subscript)
    fail(span(t), "graph mode cannot assign to '", unparse(t), "'");
  ir::Node* old;
  if (tk == Ast::Name) {
    old = load_name(b, t.attr("id").cast<std::string>(), span(t));
  } else {
    ir::Node* container = expr(c, t.attr("value"));
    old = builtin(c, ir::Builtin::GetItem, {container, index(c, t.attr("slice"))}, span(t));
  }
  ir::Node* rhs = expr(c, s.attr("value"));
  assign(b, t, builtin(c, op, {old, rhs}, sp), sp);
  return b;
}

std::pair<Block*, Block*> Parser::branch(Block* b, ir::Node* cond, const char* yes, const char* no,
                                         ir::SourceSpan sp) {
  Ctx c{b, b->g};
  Block* yb = new_block(b->scope, b, yes, sp);
  Block* nb = new_block(b->scope, b, no, sp);
  ir::Node* sw =
      builtin(c, ir::Builtin::Switch, {cond, graph_value(yb->g, sp), graph_value(nb->g, sp)}, sp);
  b->g->set_output(call0(c, sw, sp));
  return {yb, nb};
}

Block* Parser::parse_if(Block* b, py::handle s) {
  ir::SourceSpan sp = span(s);
  auto [tb, eb] = branch(b, truth(Ctx{b, b->g}, s.attr("test")), "then", "else", sp);
  Block* te = stmts(tb, s.attr("body"));
  Block* ee = stmts(eb, s.attr("orelse"));
  if (te == nullptr) return ee;
  if (ee == nullptr) return te;
  Block* j = new_join(b->scope, "join", sp, false);
  jump(te, j, sp);
  jump(ee, j, sp);
  seal(j);
  return j;
}

Block* Parser::parse_while(Block* b, py::handle s) {
  ir::SourceSpan sp = span(s);
  Block* h = new_join(b->scope, "while", sp, false);
  h->g->is_loop = true;
  jump(b, h, sp);
  ir::Node* cond = truth(Ctx{h, h->g}, s.attr("test"));
  return loop_rest(
      *this, {h, cond, sp}, [&](Block* body) { return stmts(body, s.attr("body")); },
      s.attr("orelse"));
}

Block* Parser::parse_jump(Block* b, Ast k, ir::SourceSpan sp) {
  MC_CHECK(!loops_.empty(), Value, "SyntaxError: '", ast_name(k), "' outside loop\n",
           ir::span_excerpt(sp));
  Loop& lp = loops_.back();
  if (k == Ast::Continue) {
    jump(b, lp.header, sp);
  } else {
    if (lp.after == nullptr) lp.after = new_join(b->scope, "after", sp, false);
    jump(b, lp.after, sp);
  }
  return nullptr;
}

Block* Parser::parse_raise(Block* b, py::handle s) {
  Ctx c{b, b->g};
  ir::SourceSpan sp = span(s);
  py::object exc = s.attr("exc");
  if (exc.is_none())
    fail(sp,
         "a bare 'raise' (re-raise) is not supported in graph mode; raise an "
         "exception explicitly");
  std::vector<ir::Node*> args;
  bool plain_call = ast_kind(exc) == Ast::Call && py::len(exc.attr("keywords")) == 0;
  if (plain_call)
    for (py::handle a : exc.attr("args"))
      if (ast_kind(a) == Ast::Starred) plain_call = false;
  if (plain_call) {
    args.push_back(expr(c, exc.attr("func")));
    for (py::handle a : exc.attr("args")) args.push_back(expr(c, a));
  } else {
    args.push_back(expr(c, exc));
  }
  b->g->set_output(builtin(c, ir::Builtin::Raise, std::move(args), sp));
  return nullptr;
}

Block* Parser::parse_assert(Block* b, py::handle s) {
  ir::SourceSpan sp = span(s);
  auto [ok, bad] = branch(b, truth(Ctx{b, b->g}, s.attr("test")), "assert_ok", "assert_fail", sp);
  Ctx bc{bad, bad->g};
  std::vector<ir::Node*> args{
      value(wrap_host(py::module_::import("builtins").attr("AssertionError")), sp)};
  if (!s.attr("msg").is_none()) args.push_back(expr(bc, s.attr("msg")));
  bad->g->set_output(builtin(bc, ir::Builtin::Raise, std::move(args), sp));
  return ok;
}

void Parser::unsupported_stmt(Ast k, ir::SourceSpan sp) {
  switch (k) {
    case Ast::Global:
    case Ast::Nonlocal:
      fail(sp, "'", k == Ast::Global ? "global" : "nonlocal",
           "' is not supported in graph mode: a compiled function cannot rebind outer "
           "variables; return the new value instead, or use PYNATIVE mode");
    case Ast::Try:
    case Ast::TryStar:
      fail(sp,
           "'try' is not supported in graph mode; move it out of construct or use "
           "PYNATIVE mode");
    case Ast::With:
    case Ast::AsyncWith:
      fail(sp,
           "'with' is not supported in graph mode; move it out of construct or use "
           "PYNATIVE mode");
    case Ast::ClassDef:
      fail(sp,
           "class definitions are not supported in graph mode; define the class at "
           "module level");
    case Ast::Delete:
      fail(sp,
           "'del' is not supported in graph mode; drop the statement (values are freed "
           "when no longer used) or use PYNATIVE mode");
    case Ast::Import:
    case Ast::ImportFrom:
      fail(sp, "'import' is not supported in graph mode; import at module level");
    case Ast::AsyncFunctionDef:
    case Ast::AsyncFor:
      fail(sp, "async code is not supported in graph mode; use PYNATIVE mode");
    case Ast::Match:
      fail(sp, "'match' is not supported in graph mode; use if/elif instead");
    default:
      fail(sp, "this statement (", ast_name(k),
           ") is not supported in graph mode; move it out "
           "of construct or use PYNATIVE mode");
  }
}

Block* Parser::parse_for(Block* b, py::handle s) {
  Ctx c{b, b->g};
  ir::SourceSpan sp = span(s);
  py::object it = s.attr("iter");
  std::string ivar = fresh_var(b->scope, "i");
  // range(...) of the builtin range, positional arguments only: a counter loop.
  bool is_range = false;
  if (ast_kind(it) == Ast::Call && ast_kind(it.attr("func")) == Ast::Name &&
      py::len(it.attr("keywords")) == 0) {
    py::list args = it.attr("args");
    std::string fname = it.attr("func").attr("id").cast<std::string>();
    bool starred = false;
    for (py::handle a : args) starred = starred || ast_kind(a) == Ast::Starred;
    bool is_cell = false;
    if (fname == "range" && !starred && args.size() >= 1 && args.size() <= 3 &&
        !is_local_somewhere(b, fname)) {
      py::object obj = resolve_outer(fname, &is_cell);
      is_range = !is_cell && obj && obj.is(py::module_::import("builtins").attr("range"));
    }
  }
  ir::Node* seq = nullptr;
  ir::Node* stop;
  ir::Node* step;
  int sign = 1;
  if (is_range) {
    py::list args = it.attr("args");
    ir::SourceSpan is = span(it);
    ir::Node* start = args.size() >= 2 ? expr(c, args[0]) : value(ir::Value::integer(0), is);
    stop = expr(c, args[args.size() >= 2 ? 1 : 0]);
    step = args.size() == 3 ? expr(c, args[2]) : value(ir::Value::integer(1), is);
    sign = 0;
    if (step->is_value()) {
      const ir::Value& v = static_cast<ir::ValueNode*>(step)->value();
      if (v.is(ir::ValueKind::Int)) sign = v.as_int() < 0 ? -1 : 1;
    }
    write(b, ivar, start);
  } else {
    seq = expr(c, it);
    // The loop indexes what it iterates: a dict's keys, as Python iterates a dict
    // (common/graph_methods.py, loop_iterable); anything else as it is.
    py::module_ gm = py::module_::import("mycel.common.graph_methods");
    seq = cnode(b->g, {constant(gm.attr("loop_iterable"), span(it)), seq}, span(it));
    stop = builtin(c, ir::Builtin::Len, {seq}, span(it));
    step = value(ir::Value::integer(1), sp);
    write(b, ivar, value(ir::Value::integer(0), sp));
  }
  Block* h = new_join(b->scope, "for", sp, false);
  h->g->is_loop = true;
  jump(b, h, sp);
  Ctx hc{h, h->g};
  ir::Node* i = read(h, ivar, sp);
  ir::Node* cond;
  if (sign > 0) {
    cond = builtin(hc, ir::Builtin::Lt, {i, stop}, sp);
  } else if (sign < 0) {
    cond = builtin(hc, ir::Builtin::Gt, {i, stop}, sp);
  } else {  // step sign unknown at parse time: (i - stop) * step < 0
    ir::Node* d = builtin(hc, ir::Builtin::Sub, {i, stop}, sp);
    ir::Node* p = builtin(hc, ir::Builtin::Mul, {d, step}, sp);
    cond = builtin(hc, ir::Builtin::Lt, {p, value(ir::Value::integer(0), sp)}, sp);
  }
  auto body_fn = [&](Block* body) {
    Ctx bc{body, body->g};
    ir::Node* iv = read(body, ivar, sp);
    ir::Node* item =
        is_range ? iv : builtin(bc, ir::Builtin::GetItem, {seq, iv}, span(s.attr("target")));
    write(body, ivar, builtin(bc, ir::Builtin::Add, {iv, step}, sp));
    assign(body, s.attr("target"), item, sp);
    return stmts(body, s.attr("body"));
  };
  return loop_rest(*this, {h, cond, sp}, body_fn, s.attr("orelse"));
}

}  // namespace mycel::frontend::detail
