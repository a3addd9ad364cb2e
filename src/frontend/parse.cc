// The front end's entry (parse.h): finds a function's ast, sets up its scope and signature,
// resolves names outside the function (closure cells, globals, builtins) and runs the final
// phi cleanup. Statements and expressions are in parse_stmt.cc / parse_expr.cc.
#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include "frontend/gil_once.h"
#include "frontend/parse_impl.h"
#include "frontend/py_value.h"
#include "ir/source_files.h"

namespace mycel::frontend {

namespace detail {

namespace {

// The Python side: finding a function's ast node in its (cached) parsed file, the names a
// function assigns, and compiling fallback expressions. Analysis only: the IR is built in C++.
const char* const kHelperSource = R"PY(
import ast, builtins, linecache

_trees = {}

_defs = {}

# Per-parse work that depends only on the source, kept across the parses of one function
# (every new Cell instance parses its construct again): the def's lines (inspect.getblock
# tokenizes them), a file's lines without their newlines, and late_bound's findings for a
# def's tree (the trees themselves are cached, so the same node means the same source).
_blocks = {}
_stripped = {}
_late = {}

def _stripped_lines(path, lines):
    hit = _stripped.get(path)
    if hit is None or hit[0] is not lines:
        hit = (lines, [l.rstrip('\r\n') for l in lines])
        _stripped[path] = hit
    return hit[1]

def _def_only(path, lines, code):
    """The def of `code` parsed alone (its lines only: a whole library file takes
    milliseconds to parse), with the file's line and column numbers; None when it is not a
    plain def block (a lambda, a def sharing its lines), and the whole file is parsed."""
    if code.co_name == '<lambda>':
        return None
    first = code.co_firstlineno
    key = (path, first, code.co_name)
    seen = _blocks.get(key)
    if seen is not None and seen[0] is lines:  # linecache's list: the file is unchanged
        block = seen[1]
    else:
        try:
            import inspect
            block = inspect.getblock(lines[first - 1:])
        except Exception:
            return None
        _blocks[key] = (lines, block)
    text = ''.join(block)
    hit = _defs.get(key)
    if hit is not None and hit[0] == text:
        return hit[1]
    indented = block[0][:1] in (' ', '\t')
    try:  # an indented def (a method) parses inside `if 1:`, keeping its columns
        tree = ast.parse(('if 1:\n' if indented else '') + text, path)
    except SyntaxError:
        return None
    ast.increment_lineno(tree, first - 1 - (1 if indented else 0))
    body = tree.body[0].body if indented else tree.body
    node = body[0] if len(body) == 1 else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != code.co_name:
        return None
    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    if start != first:
        return None
    _defs[key] = (text, node)
    return node

def source_of(fn):
    code = fn.__code__
    path = code.co_filename
    lines = linecache.getlines(path, fn.__globals__)
    if not lines:
        raise OSError("no source")
    node = _def_only(path, lines, code)
    if node is not None:
        return path, _stripped_lines(path, lines), node
    text = ''.join(lines)
    hit = _trees.get(path)
    if hit is None or hit[0] != text:
        tree = ast.parse(text, path)
        index = {}
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = n.decorator_list[0].lineno if n.decorator_list else n.lineno
                index.setdefault((first, n.name), []).append(n)
            elif isinstance(n, ast.Lambda):
                index.setdefault((n.lineno, '<lambda>'), []).append(n)
        hit = (text, [l.rstrip('\r\n') for l in lines], index)
        _trees[path] = hit
    cands = hit[2].get((code.co_firstlineno, code.co_name), [])
    if len(cands) > 1:
        names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        same = [n for n in cands
                if [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == names]
        cands = same or cands
    if len(cands) > 1 and hasattr(code, 'co_positions'):
        # Several lambdas (or defs) on one line: the one whose span holds the code's
        # instructions (their columns), the innermost if nested.
        pos = [(l, c) for l, _, c, _ in code.co_positions() if l is not None and c is not None]
        def holds(n):
            return sum(1 for l, c in pos
                       if (n.lineno, n.col_offset) <= (l, c) < (n.end_lineno, n.end_col_offset))
        best = max(holds(n) for n in cands)
        inner = [n for n in cands if holds(n) == best]
        inner.sort(key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
        cands = inner
    if not cands:
        raise OSError("the function was not found in its source file (was it edited?)")
    return path, hit[1], cands[0]

def _targets(t, out):
    if isinstance(t, ast.Name):
        out.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _targets(e, out)
    elif isinstance(t, ast.Starred):
        _targets(t.value, out)

def local_names(fn_node):
    a = fn_node.args
    out = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    if a.vararg: out.add(a.vararg.arg)
    if a.kwarg: out.add(a.kwarg.arg)
    if isinstance(fn_node, ast.Lambda):
        return out
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for al in n.names:
                out.add((al.asname or al.name).split('.')[0])
        stack.extend(ast.iter_child_nodes(n))
    return out

_LIST_METHODS = ("append", "extend", "insert", "pop", "reverse", "clear")

def assigned_attrs(fn_node):
    """The attribute targets (`a.b = v`, `a.b.c += v`, ...) of the function's own statements
    whose chain starts at a name the function does not rebind (a parameter it never assigns,
    a global, a closure variable), shortest chains first: graph_attr tracks them."""
    if isinstance(fn_node, ast.Lambda):
        return []
    a = fn_node.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    rebound = local_names(fn_node) - params
    out, stack = [], list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        t = None
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load):
            t = n
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and \
                isinstance(n.value.func, ast.Attribute) and \
                n.value.func.attr in _LIST_METHODS and \
                isinstance(n.value.func.value, ast.Attribute):
            t = n.value.func.value  # self.xs.append(v) as a statement assigns self.xs
        if t is not None:
            root, depth = t.value, 1
            while isinstance(root, ast.Attribute):
                root, depth = root.value, depth + 1
            if isinstance(root, ast.Name) and root.id not in rebound:
                out.append((depth, t.lineno, t.col_offset, t))
        stack.extend(ast.iter_child_nodes(n))
    out.sort(key=lambda t: t[:3])
    return [t[3] for t in out]

def free_names(node):
    loads, stores = {}, set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                loads[n.id] = None
            else:
                stores.add(n.id)
        elif isinstance(n, ast.arg):
            stores.add(n.arg)
    return [x for x in loads if x not in stores]

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

def _owner_map(root):
    """node -> the innermost function (def or lambda) containing it, under root."""
    owner = {}
    stack = [(root, root)]  # no recursion: a chain of 1000 '+' is 1000 levels deep
    while stack:  # pre-order, children in order
        n, f = stack.pop()
        if n is not root:
            owner[n] = f
        inner = n if isinstance(n, _FUNCS) else f
        stack.extend((c, inner) for c in reversed(list(ast.iter_child_nodes(n))))
    return owner

def _path(n, f, parent):
    """n and its ancestors up to (not including) f, innermost first."""
    out = [n]
    while n in parent and parent[n] is not f:
        n = parent[n]
        out.append(n)
    return out

def _inside(n, anc, parent):
    while n in parent:
        n = parent[n]
        if n is anc:
            return True
    return False

_LOOPS = (ast.While, ast.For, ast.AsyncFor)

def _exclusive(a, b, f, parent):
    """a and b lie on different arms of one `if` that no loop of f encloses."""
    pa, pb = _path(a, f, parent), _path(b, f, parent)
    ids_b = {id(x): i for i, x in enumerate(pb)}
    for i, anc in enumerate(pa):
        j = ids_b.get(id(anc))
        if j is None:
            continue
        if not isinstance(anc, ast.If) or i == 0 or j == 0:
            return False
        ca, cb = pa[i - 1], pb[j - 1]
        arms = (any(ca is x for x in anc.body), any(cb is x for x in anc.body))
        if arms[0] == arms[1]:
            return False
        return not any(isinstance(x, _LOOPS) for x in pa[i + 1:])
    return False

def _loop_outside(st, g, f, parent):
    """The outermost loop of f around st that does not contain g, or None."""
    found = None
    for anc in _path(st, f, parent)[1:]:
        if isinstance(anc, _LOOPS) and not _inside(g, anc, parent):
            found = anc
    return found

def late_bound(root):
    """Places where graph mode's binding of a nested function's free variables at its
    definition differs from Python's (the value at the call): a variable the nested
    function reads is assigned again after the definition, and the function is used after
    that. Returns [(line, col, message)]."""
    hit = _late.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    out = _late_bound(root)
    _late[id(root)] = (root, out)
    return out

def _late_bound(root):
    owner = _owner_map(root)
    parent = {}
    for n in ast.walk(root):
        for c in ast.iter_child_nodes(n):
            parent[c] = n
    out = []
    for f in [n for n in ast.walk(root) if isinstance(n, _FUNCS)]:
        locs = local_names(f)
        stores, loads = [], []
        for n, o in owner.items():
            if o is not f:
                continue
            if isinstance(n, ast.Name):
                (loads if isinstance(n.ctx, ast.Load) else stores).append(n)
        for g in [n for n, o in owner.items() if o is f and isinstance(n, _FUNCS)]:
            if isinstance(g, ast.Lambda):
                p = parent.get(g)
                if not (isinstance(p, ast.Assign) and len(p.targets) == 1 and
                        isinstance(p.targets[0], ast.Name)):
                    continue
                name = p.targets[0].id
            else:
                name = g.name
            free = set(free_names(g)) & locs
            end = (g.end_lineno, g.end_col_offset)
            for st in stores:
                if st.id not in free or (st.lineno, st.col_offset) <= end:
                    continue
                if _exclusive(g, st, f, parent):
                    continue
                stmt = st
                while stmt in parent and not isinstance(stmt, ast.stmt):
                    stmt = parent[stmt]
                after = (stmt.end_lineno, stmt.end_col_offset)
                use = [u for u in loads if u.id == name and (u.lineno, u.col_offset) >= after]
                # In a loop that does not define the function, a use anywhere in the loop
                # runs after the store of the previous iteration.
                loop = _loop_outside(st, g, f, parent)
                if loop is not None:
                    use += [u for u in loads if u.id == name and _inside(u, loop, parent)]
                if use:
                    out.append((st.lineno, st.col_offset,
                                "'%s', which the nested function '%s' (line %d) reads, is "
                                "assigned again here and '%s' is used after (line %d): graph "
                                "mode binds the value when '%s' is defined, Python when it is "
                                "called. Assign '%s' before defining '%s', or pass it as an "
                                "argument" % (st.id, name, g.lineno, name, use[0].lineno, name,
                                              st.id, name)))
                    break
    return out

class _Fallback:
    """An expression graph mode runs through Python (JIT fallback)."""
    __slots__ = ('fn', 'source', 'names')
    def __call__(self, *args):
        return self.fn(*args)
    def __repr__(self):
        return 'fallback(%s)' % self.source

def comp_to_def(node):
    """A list comprehension or generator expression as the nested function Python itself
    makes of it, written out so graph mode unrolls it like any loop:
        def <listcomp>(<iter0>):
            <out> = []
            for t0 in <iter0>:
                if c0a: ...
                    for t1 in iter1: ...
                        <out>.append(elt)
            return <out>
    The first iterable is the argument (evaluated in the enclosing scope, as Python does);
    None when a generator is async (left to the JIT fallback)."""
    if any(g.is_async for g in node.generators):
        return None
    out = '__mycel_comp_out'
    def loc(n):
        return ast.copy_location(n, node)
    body = [loc(ast.Expr(value=loc(ast.Call(
        func=loc(ast.Attribute(value=loc(ast.Name(id=out, ctx=ast.Load())), attr='append',
                               ctx=ast.Load())),
        args=[node.elt], keywords=[]))))]
    for i in range(len(node.generators) - 1, -1, -1):
        g = node.generators[i]
        for cond in reversed(g.ifs):
            body = [ast.copy_location(ast.If(test=cond, body=body, orelse=[]), cond)]
        it = ast.Name(id='__mycel_comp_iter0', ctx=ast.Load()) if i == 0 else g.iter
        body = [loc(ast.For(target=g.target, iter=loc(it) if i == 0 else it, body=body,
                            orelse=[]))]
    fn = ast.FunctionDef(
        name='listcomp',
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg='__mycel_comp_iter0')],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[loc(ast.Assign(targets=[loc(ast.Name(id=out, ctx=ast.Store()))],
                             value=loc(ast.List(elts=[], ctx=ast.Load())))),
              *body,
              loc(ast.Return(value=loc(ast.Name(id=out, ctx=ast.Load()))))],
        decorator_list=[], returns=None, type_comment=None)
    return ast.fix_missing_locations(loc(fn))

def make_fallback(node, names, globals_, path):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=x) for x in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    lam = ast.copy_location(ast.Lambda(args=args, body=node), node)
    tree = ast.fix_missing_locations(ast.Expression(body=lam))
    f = _Fallback()
    f.fn = eval(compile(tree, path, 'eval'), globals_)
    f.source = ast.unparse(node)
    f.names = tuple(names)
    return f

def split_fstring(node, globals_, path):
    """f"...{a}...{b!r:{w}}...": (a fallback making the string from the values of its
    formatted expressions, in Python's order of evaluation, those expressions). Graph code
    evaluates the expressions, so the string is made at compile time when they are known."""
    exprs = []
    def rebuild(joined):
        values = []
        for v in joined.values:
            if isinstance(v, ast.FormattedValue):
                name = '_fmt%d' % len(exprs)
                exprs.append(v.value)
                spec = rebuild(v.format_spec) if v.format_spec is not None else None
                v = ast.FormattedValue(value=ast.Name(id=name, ctx=ast.Load()),
                                       conversion=v.conversion, format_spec=spec)
            values.append(v)
        return ast.JoinedStr(values=values)
    body = ast.copy_location(rebuild(node), node)
    f = make_fallback(body, ['_fmt%d' % i for i in range(len(exprs))], globals_, path)
    f.source = ast.unparse(node)
    return f, exprs

def builtins_of(globals_):
    b = globals_.get('__builtins__', builtins)
    return b if isinstance(b, dict) else b.__dict__
)PY";

py::object& helper() {
  static mycel::py::GilOnce<py::object*> once;  // frontend/gil_once.h: no deadlock on first use
  return *once.get([] {
    py::module_ mod = py::module_::create_extension_module("mycel._frontend_helper", nullptr,
                                                           new py::module_::module_def);
    py::dict d = mod.attr("__dict__");
    py::exec(kHelperSource, d);
    py::module_::import("sys").attr("modules")["mycel._frontend_helper"] = mod;  // for tests
    return new py::object(std::move(mod));  // leaked: lives as long as the interpreter
  });
}

struct AstTable {
  std::unordered_map<PyTypeObject*, Ast> kinds;
  std::vector<std::string> names;
};

const AstTable& ast_table() {
  static mycel::py::GilOnce<AstTable*> once;  // published only once filled
  return *once.get([] {
    auto* t = new AstTable;
    static const char* const kNames[] = {"Other",
                                         "FunctionDef",
                                         "AsyncFunctionDef",
                                         "ClassDef",
                                         "Return",
                                         "Delete",
                                         "Assign",
                                         "AugAssign",
                                         "AnnAssign",
                                         "For",
                                         "AsyncFor",
                                         "While",
                                         "If",
                                         "With",
                                         "AsyncWith",
                                         "Match",
                                         "Raise",
                                         "Try",
                                         "TryStar",
                                         "Assert",
                                         "Import",
                                         "ImportFrom",
                                         "Global",
                                         "Nonlocal",
                                         "Expr",
                                         "Pass",
                                         "Break",
                                         "Continue",
                                         "BoolOp",
                                         "NamedExpr",
                                         "BinOp",
                                         "UnaryOp",
                                         "Lambda",
                                         "IfExp",
                                         "Dict",
                                         "Set",
                                         "ListComp",
                                         "SetComp",
                                         "DictComp",
                                         "GeneratorExp",
                                         "Await",
                                         "Yield",
                                         "YieldFrom",
                                         "Compare",
                                         "Call",
                                         "FormattedValue",
                                         "JoinedStr",
                                         "Constant",
                                         "Attribute",
                                         "Subscript",
                                         "Starred",
                                         "Name",
                                         "List",
                                         "Tuple",
                                         "Slice",
                                         "And",
                                         "Or",
                                         "Add",
                                         "Sub",
                                         "Mult",
                                         "MatMult",
                                         "Div",
                                         "Mod",
                                         "Pow",
                                         "LShift",
                                         "RShift",
                                         "BitOr",
                                         "BitXor",
                                         "BitAnd",
                                         "FloorDiv",
                                         "Invert",
                                         "Not",
                                         "UAdd",
                                         "USub",
                                         "Eq",
                                         "NotEq",
                                         "Lt",
                                         "LtE",
                                         "Gt",
                                         "GtE",
                                         "Is",
                                         "IsNot",
                                         "In",
                                         "NotIn"};
    static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Ast::NotIn) + 1);
    py::module_ ast = py::module_::import("ast");
    for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
      t->names.emplace_back(kNames[i]);
      if (i == 0 || !py::hasattr(ast, kNames[i])) continue;
      py::object cls = ast.attr(kNames[i]);
      t->kinds[reinterpret_cast<PyTypeObject*>(cls.ptr())] = static_cast<Ast>(i);
    }
    return t;
  });
}

}  // namespace

Ast ast_kind(py::handle node) {
  const AstTable& t = ast_table();
  auto it = t.kinds.find(Py_TYPE(node.ptr()));
  return it == t.kinds.end() ? Ast::Other : it->second;
}

const char* ast_name(Ast k) { return ast_table().names[static_cast<size_t>(k)].c_str(); }

// ---------------------------------------------------------------- parser basics

Parser::Parser(ir::Module& m, py::handle fn) : m_(m) {
  py::object f = py::reinterpret_borrow<py::object>(fn);
  py::module_ inspect = py::module_::import("inspect");
  if (inspect.attr("ismethod")(f).cast<bool>()) f = f.attr("__func__");
  MC_CHECK(inspect.attr("isfunction")(f).cast<bool>(), Type,
           "graph mode compiles Python functions and methods, but got ",
           py::repr(py::type::of(f)).cast<std::string>(), ".");
  fn_ = f;
  helper_ = helper();
  globals_ = f.attr("__globals__");
  builtins_ = helper_.attr("builtins_of")(globals_);
  py::object code = f.attr("__code__");
  if (code.attr("co_argcount").cast<int>() > 0)
    first_param_ = code.attr("co_varnames")[py::int_(0)].cast<std::string>();
  py::object closure = f.attr("__closure__");
  if (!closure.is_none()) {
    py::tuple names = code.attr("co_freevars");
    py::tuple cells = closure;
    for (size_t i = 0; i < names.size() && i < cells.size(); ++i)
      cells_[names[i].cast<std::string>()] = cells[i];
  }
}

ir::SourceSpan Parser::span(py::handle node) const {
  ir::SourceSpan s;
  s.file = file_;
  s.line = node.attr("lineno").cast<int32_t>();
  s.col = node.attr("col_offset").cast<int32_t>() + 1;
  return s;
}

ir::FuncGraph* Parser::new_graph(const std::string& name, ir::SourceSpan s) {
  // Unique names in the module (a second block of the same kind gets ".1", ".2", ... as the
  // printer would), so that names in messages and dumps match the printed IR.
  if (graph_names_.empty())
    for (const auto& g : m_.graphs()) graph_names_.insert(g->name());
  std::string unique = name;
  for (int k = 1; graph_names_.count(unique); ++k) unique = name + "." + std::to_string(k);
  graph_names_.insert(unique);
  ir::FuncGraph* g = m_.new_graph(unique, s);
  graphs_.push_back(g);
  return g;
}

ir::CNode* Parser::cnode(ir::FuncGraph* g, std::vector<ir::Node*> in, ir::SourceSpan s) {
  ir::CNode* c = m_.cnode(g, std::move(in), s);
  cnodes_.push_back(c);
  return c;
}

ir::CNode* Parser::builtin(const Ctx& c, ir::Builtin b, std::vector<ir::Node*> args,
                           ir::SourceSpan s) {
  args.insert(args.begin(), value(ir::Value::builtin(b), s));
  return cnode(c.g, std::move(args), s);
}

std::string Parser::fresh_var(Scope* scope, const std::string& base) {
  std::string name = "$" + base + std::to_string(++counter_);
  scope->locals.insert(name);
  return name;
}

// ---------------------------------------------------------------- names

bool Parser::is_local_somewhere(Block* b, const std::string& name) const {
  for (Scope* s = b->scope; s != nullptr;
       s = s->parent_block != nullptr ? s->parent_block->scope : nullptr)
    if (s->locals.count(name)) return true;
  return false;
}

py::object Parser::resolve_outer(const std::string& name, bool* is_cell) const {
  *is_cell = false;
  auto it = cells_.find(name);
  if (it != cells_.end()) {
    *is_cell = true;
    return it->second;
  }
  py::str key(name);
  if (PyDict_Contains(globals_.ptr(), key.ptr()) == 1) return globals_[key];
  if (PyDict_Contains(builtins_.ptr(), key.ptr()) == 1) return builtins_[key];
  return py::object();
}

ir::Node* Parser::load_name(Block* b, const std::string& name, ir::SourceSpan s) {
  for (Block* blk = b;;) {
    Scope* scope = blk->scope;
    if (scope->locals.count(name)) return read(blk, name, s);
    if (scope->parent_block == nullptr) break;
    blk = scope->parent_block;
  }
  bool is_cell = false;
  py::object obj = resolve_outer(name, &is_cell);
  if (!obj) fail(s, "NameError: name '", name, "' is not defined");
  if (is_cell) {
    PyObject* contents = PyCell_Get(obj.ptr());
    if (contents == nullptr) {
      PyErr_Clear();
      fail(s, "NameError: free variable '", name,
           "' referenced before assignment in enclosing scope");
    }
    obj = py::reinterpret_steal<py::object>(contents);
  }
  return value(wrap_host(obj), s);
}

// ---------------------------------------------------------------- functions

std::unordered_set<std::string> Parser::local_names(py::handle fn_node) {
  return helper_.attr("local_names")(fn_node).cast<std::unordered_set<std::string>>();
}

// Parses a def or lambda `node` into graph g (already made, so that a nested def can call
// itself by name); `parent` is the enclosing function's block (null for the top function).
ir::FuncGraph* Parser::parse_def(py::handle node, Block* parent, ir::FuncGraph* g) {
  auto scope_owner = std::make_unique<Scope>();
  Scope* scope = scope_owner.get();
  scope->name = g->name();
  scope->parent_block = parent;
  scope->locals = local_names(node);
  scopes_.push_back(std::move(scope_owner));

  auto b = std::make_unique<Block>();
  b->g = g;
  b->scope = scope;
  Block* entry = b.get();
  blocks_.push_back(std::move(b));
  scope->entry = entry;

  // Parameters: [positional..., *args, keyword-only..., **kwargs].
  py::object args = node.attr("args");
  ir::Signature sig;
  std::vector<py::object> default_nodes;  // nested functions: the ast of each default
  auto add = [&](py::handle arg) {
    std::string name = arg.attr("arg").cast<std::string>();
    ir::Parameter* p = m_.add_param(g, name, span(arg));
    entry->vars[name] = p;
    sig.names.push_back(name);
    sig.defaults.emplace_back(std::nullopt);
  };
  py::list positional = py::list(args.attr("posonlyargs")) + py::list(args.attr("args"));
  for (py::handle a : positional) add(a);
  size_t npos = positional.size();
  if (!args.attr("vararg").is_none()) {
    sig.vararg = static_cast<int>(sig.names.size());
    add(args.attr("vararg"));
  }
  py::list kwonly = args.attr("kwonlyargs");
  if (kwonly.size() > 0) sig.kwonly_begin = static_cast<int>(sig.names.size());
  for (py::handle a : kwonly) add(a);
  if (!args.attr("kwarg").is_none()) {
    sig.kwarg = static_cast<int>(sig.names.size());
    add(args.attr("kwarg"));
  }
  // Defaults: the top function's evaluated ones; nested functions' must be constants.
  py::list defaults = args.attr("defaults");
  py::list kw_defaults = args.attr("kw_defaults");
  auto nested_default = [&](py::handle d) -> ir::Value {
    if (ast_kind(d) == Ast::Constant) return to_value(d.attr("value"));
    if (ast_kind(d) == Ast::UnaryOp && ast_kind(d.attr("op")) == Ast::USub &&
        ast_kind(d.attr("operand")) == Ast::Constant)
      return to_value(d.attr("operand").attr("value").attr("__neg__")());
    fail(span(d),
         "default values of nested functions and lambdas must be constants in "
         "graph mode; pass the value as an argument instead");
  };
  if (parent == nullptr) {
    py::object dv = fn_.attr("__defaults__");
    if (!dv.is_none()) {
      py::tuple t = dv;
      for (size_t i = 0; i < t.size(); ++i) sig.defaults[npos - t.size() + i] = to_value(t[i]);
    }
    py::object kdv = fn_.attr("__kwdefaults__");
    if (!kdv.is_none()) {
      py::dict d = kdv;
      for (size_t i = 0; i < kwonly.size(); ++i) {
        py::object nm = kwonly[i].attr("arg");
        if (d.contains(nm))
          sig.defaults[static_cast<size_t>(sig.kwonly_begin) + i] = to_value(d[nm]);
      }
    }
  } else {
    for (size_t i = 0; i < defaults.size(); ++i)
      sig.defaults[npos - defaults.size() + i] = nested_default(defaults[i]);
    for (size_t i = 0; i < kw_defaults.size(); ++i)
      if (!kw_defaults[i].is_none())
        sig.defaults[static_cast<size_t>(sig.kwonly_begin) + i] = nested_default(kw_defaults[i]);
  }
  g->signature() = std::move(sig);

  track_attrs(entry, node, parent == nullptr);
  ir::SourceSpan s = span(node);
  if (ast_kind(node) == Ast::Lambda) {
    Ctx c{entry, g};
    g->set_output(expr(c, node.attr("body")));
  } else {
    Block* end = stmts(entry, node.attr("body"));
    if (end != nullptr) end->g->set_output(value(ir::Value::none(), s));
  }
  return g;
}

// The class a function is textually defined in, from its __qualname__: the last component
// before the function's own that is not followed by "<locals>" ("f.<locals>.Net.construct"
// -> "Net"; "Net.construct.<locals>.inner" -> "Net"; "f" or "f.<locals>.g" -> "").
static std::string defining_class(const std::string& qualname) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = qualname.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(qualname.substr(start, dot - start));
  parts.push_back(qualname.substr(start));
  for (size_t i = parts.size() - 1; i-- > 0;)
    if (parts[i] != "<locals>" && parts[i + 1] != "<locals>") return parts[i];
  return "";
}

std::string Parser::attr_name(py::handle attribute_node) const {
  std::string name = attribute_node.attr("attr").cast<std::string>();
  if (name.size() < 3 || name.compare(0, 2, "__") != 0 ||
      name.compare(name.size() - 2, 2, "__") == 0)
    return name;
  size_t lead = mangle_class_.find_first_not_of('_');
  if (lead == std::string::npos) return name;  // no class, or a class named "_"
  return "_" + mangle_class_.substr(lead) + name;
}

ir::FuncGraph* Parser::run() {
  py::object qualname = py::getattr(fn_, "__qualname__", py::none());
  if (py::isinstance<py::str>(qualname))
    mangle_class_ = defining_class(qualname.cast<std::string>());
  py::tuple src;
  try {
    src = helper_.attr("source_of")(fn_);
  } catch (py::error_already_set& e) {
    MC_THROW(Value, "graph mode needs the source code of '",
             fn_.attr("__qualname__").cast<std::string>(), "' but cannot get it (", e.what(),
             "); define it in a .py file, or use PYNATIVE mode.");
  }
  path_ = src[0].cast<std::string>();
  file_ = ir::register_source_file(path_, src[1].cast<std::vector<std::string>>());
  // mycel's own functions are library code: inlined, their nodes name the user's call.
  py::object module = py::getattr(fn_, "__module__", py::none());
  if (py::isinstance<py::str>(module)) {
    const std::string mod = module.cast<std::string>();
    if (mod == "mycel" || mod.rfind("mycel.", 0) == 0) ir::mark_library_file(file_);
  }
  py::object node = src[2];
  Ast k = ast_kind(node);
  if (k == Ast::AsyncFunctionDef)
    fail(span(node), "'async def' functions are not supported in graph mode; use PYNATIVE mode");
  for (py::handle p : helper_.attr("late_bound")(node)) {
    py::tuple t = p.cast<py::tuple>();
    fail(ir::SourceSpan{file_, t[0].cast<int32_t>(), t[1].cast<int32_t>() + 1},
         t[2].cast<std::string>());
  }
  ir::FuncGraph* g = new_graph(fn_.attr("__name__").cast<std::string>(), span(node));
  parse_def(node, nullptr, g);
  finish();
  keep_unread_bound_values(g);
  return g;
}

}  // namespace detail

ir::FuncGraph* parse_function(ir::Module& m, py::handle fn) {
  detail::Parser p(m, fn);
  return p.run();
}

}  // namespace mycel::frontend
