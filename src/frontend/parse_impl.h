// Internals of the front end (parse.h): the Parser, its blocks (on-the-fly SSA) and scopes.
//
//   parse.cc           entry, source lookup, scopes and name resolution, signatures, errors,
//                      the final trivial-phi cleanup
//   function_block.cc  blocks: variable reads/writes, phis, jumps, sealing
//   parse_stmt.cc      statements (control flow)
//   parse_expr.cc      expressions, calls, JIT fallback
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/error.h"
#include "frontend/parse.h"
#include "ir/depth.h"

namespace mycel::frontend::detail {

// The ast node classes the parser distinguishes.
enum class Ast : uint8_t {
  Other,
  // statements
  FunctionDef,
  AsyncFunctionDef,
  ClassDef,
  Return,
  Delete,
  Assign,
  AugAssign,
  AnnAssign,
  For,
  AsyncFor,
  While,
  If,
  With,
  AsyncWith,
  Match,
  Raise,
  Try,
  TryStar,
  Assert,
  Import,
  ImportFrom,
  Global,
  Nonlocal,
  Expr,
  Pass,
  Break,
  Continue,
  // expressions
  BoolOp,
  NamedExpr,
  BinOp,
  UnaryOp,
  Lambda,
  IfExp,
  Dict,
  Set,
  ListComp,
  SetComp,
  DictComp,
  GeneratorExp,
  Await,
  Yield,
  YieldFrom,
  Compare,
  Call,
  FormattedValue,
  JoinedStr,
  Constant,
  Attribute,
  Subscript,
  Starred,
  Name,
  List,
  Tuple,
  Slice,
  // operators
  And,
  Or,
  Add,
  Sub,
  Mult,
  MatMult,
  Div,
  Mod,
  Pow,
  LShift,
  RShift,
  BitOr,
  BitXor,
  BitAnd,
  FloorDiv,
  Invert,
  Not,
  UAdd,
  USub,
  Eq,
  NotEq,
  Lt,
  LtE,
  Gt,
  GtE,
  Is,
  IsNot,
  In,
  NotIn,
};
Ast ast_kind(py::handle node);
const char* ast_name(Ast k);  // "Try", "ListComp", ...

struct Scope;

// A straight-line region: one graph. Non-join blocks have one predecessor, `lexical`, whose
// graph encloses theirs (a switch branch, a loop body); joins are reached by tail calls that
// pass one argument per phi.
struct Block {
  ir::FuncGraph* g = nullptr;
  Scope* scope = nullptr;
  Block* lexical = nullptr;  // non-join: the predecessor (null for a function's entry)
  bool join = false;
  bool sealed = true;                // joins: all predecessors known
  std::vector<Block*> preds;         // joins: predecessors,
  std::vector<ir::CNode*> jumps;     // and the tail call each ends with
  std::vector<ir::Parameter*> phis;  // joins: the phis, in parameter order
  std::vector<std::pair<std::string, ir::Parameter*>> incomplete;  // phis awaiting seal
  std::unordered_map<std::string, ir::Node*> vars;                 // current definitions
};

// A Python function being parsed (the top one or a nested def / lambda).
struct Scope {
  std::string name;
  std::unordered_set<std::string> locals;  // names Python treats as local
  Block* parent_block = nullptr;           // the enclosing function's block at the def
  Block* entry = nullptr;
  // Attribute chains the function assigns (`self.a = v`, `self.a.b += v`), shortest first:
  // each is a variable "$attr:<key>" of the function (graph_attr.py; Parser::track_attrs).
  std::vector<std::pair<std::string, py::object>> tracked;  // key ("self.a.b"), target node
};

struct Loop {
  Block* header;
  Block* after = nullptr;  // the join after the loop, created by the first break
};

// Where expression nodes go: the block that variables are read from, and the graph new
// nodes belong to (the block's graph, or a graph nested in it for short-circuit branches).
struct Ctx {
  Block* b;
  ir::FuncGraph* g;
};

class Parser {
 public:
  Parser(ir::Module& m, py::handle fn);
  ir::FuncGraph* run();

  // ---- errors (parse.cc)
  ir::SourceSpan span(py::handle node) const;
  template <class... Args>
  [[noreturn]] void fail(ir::SourceSpan s, const Args&... msg) const {
    throw_error(ErrorKind::Value, str(msg...) + "\n" + ir::span_excerpt(s));
  }
  // One level of the parser's recursion (nested expressions, blocks, defs, and joins that
  // read() walks back through): a RecursionError at `s` past ir::kMaxNesting levels or
  // when the stack runs low. Straight-line statements do not recurse.
  struct Nest {
    ir::DepthGuard guard;
    Nest(const Parser& p, ir::SourceSpan s) : guard(p.depth_) {
      if (guard.too_deep(ir::kMaxNesting)) p.fail_too_deep(s);
    }
  };
  [[noreturn]] void fail_too_deep(ir::SourceSpan s) const {
    throw_error(ErrorKind::Recursion, ir::depth_message("expressions or blocks", ir::kMaxNesting) +
                                          "\n" + ir::span_excerpt(s));
  }

  // ---- graphs and nodes
  ir::FuncGraph* new_graph(const std::string& name, ir::SourceSpan s);
  ir::CNode* cnode(ir::FuncGraph* g, std::vector<ir::Node*> in, ir::SourceSpan s);
  ir::CNode* builtin(const Ctx& c, ir::Builtin b, std::vector<ir::Node*> args, ir::SourceSpan s);
  ir::ValueNode* value(ir::Value v, ir::SourceSpan s) { return m_.value(std::move(v), s); }
  ir::ValueNode* graph_value(ir::FuncGraph* g, ir::SourceSpan s) {
    return m_.value(ir::Value::graph(g), s);
  }
  // Calls `callee` with no arguments (the result of a switch).
  ir::CNode* call0(const Ctx& c, ir::Node* callee, ir::SourceSpan s) {
    return cnode(c.g, {callee}, s);
  }

  // ---- blocks (function_block.cc)
  Block* new_block(Scope* scope, Block* lexical, const std::string& suffix, ir::SourceSpan s);
  Block* new_join(Scope* scope, const std::string& suffix, ir::SourceSpan s, bool sealed);
  ir::Node* read(Block* b, const std::string& name, ir::SourceSpan s);
  void write(Block* b, const std::string& name, ir::Node* v);
  // Ends `from` with a tail call of join `to`; the phi arguments come when `to` is sealed.
  void jump(Block* from, Block* to, ir::SourceSpan s);
  void seal(Block* b);
  void finish();  // trivial-phi removal over the whole parse
  // An assignment's value that nothing reads by the end of the parse joins its graph's
  // effects where the statement stood, so it still runs as in Python: an update bound to a
  // name never read (`z = ops.assign(p, v)`) writes. (Values that are read are kept by
  // their readers; keeping every bound value would hold activations to the end.)
  void note_bound(Block* b, ir::Node* v);
  void keep_unread_bound_values(ir::FuncGraph* top);

  // ---- names (parse.cc)
  ir::Node* load_name(Block* b, const std::string& name, ir::SourceSpan s);
  // The host object `name` resolves to outside every scope (cell, global, builtin), or
  // null; *is_cell when it is a closure cell of the parsed function.
  py::object resolve_outer(const std::string& name, bool* is_cell) const;
  bool is_local_somewhere(Block* b, const std::string& name) const;
  std::string fresh_var(Scope* scope, const std::string& base);  // an internal local

  // ---- functions (parse.cc)
  ir::FuncGraph* parse_def(py::handle node, Block* parent, ir::FuncGraph* g);
  std::unordered_set<std::string> local_names(py::handle fn_node);

  // ---- statements (parse_stmt.cc): each returns the block where parsing continues, or null
  // when every path has left (return, break, continue, raise).
  Block* stmts(Block* b, py::handle list);
  Block* stmt(Block* b, py::handle s);
  Block* parse_for(Block* b, py::handle s);
  Block* parse_aug_assign(Block* b, py::handle s);
  Block* parse_if(Block* b, py::handle s);
  Block* parse_while(Block* b, py::handle s);
  Block* parse_jump(Block* b, Ast k, ir::SourceSpan sp);  // break, continue
  Block* parse_raise(Block* b, py::handle s);
  Block* parse_assert(Block* b, py::handle s);
  // `x.register_hook(fn)` as a statement (MindSpore's Tensor.register_hook inside a graph):
  // x's value, at its uses in this block's graph before the statement and after it, becomes
  // custom_vjp(_graph_hook_forward, partial(_graph_hook_bprop, fn), x) (tensor_hooks.py), so
  // the gradient reaching x passes through fn. False: the statement is no such call.
  bool parse_register_hook(Block* b, py::handle e, ir::SourceSpan sp);
  // `name.append(v)` (extend, insert, pop, reverse, clear) as a statement on a name local to
  // this function: name = graph_list.append(name, v) (mycel/common/graph_list.py), so the
  // name holds the new list after it, as Python's in-place method leaves it. False: the
  // statement is no such call.
  // obj.name = v (and obj.name op= v) in graph code: an Assign to the Parameter attribute
  // (mycel/common/graph_attr.py); other attributes are refused with the statement's place.
  void assign_attribute(Block* b, py::handle target, ir::Node* v, ir::SourceSpan sp);
  // The key of an attribute chain from a name ("self.a.b", attribute names mangled), or ""
  // for any other expression.
  std::string attr_key(py::handle e) const;
  // At a function's entry: the attribute chains it assigns become variables holding
  // graph_attr.initial(obj, name) (parse_def, after the parameters).
  void track_attrs(Block* entry, py::handle fn_node, bool top);
  // `obj.name` read where a scope tracks its chain: graph_attr.read(obj, name, variable);
  // null when no scope does.
  ir::Node* read_tracked_attr(const Ctx& c, py::handle e, ir::SourceSpan s);
  bool parse_list_method(Block* b, py::handle e, ir::SourceSpan sp);
  // The same on an attribute chain the function tracks (`self.xs.append(v)`): the chain is
  // assigned the list the method leaves (assign_attribute), so the object holds it after.
  bool parse_attr_list_method(Block* b, py::handle e, ir::SourceSpan sp);
  // `y = xs.pop(i)` on a local list name: xs rebound to the list without the item and the
  // item the value (graph_list.pop_item), else nullptr (an ordinary expression).
  ir::Node* parse_list_pop_value(Block* b, py::handle e, ir::SourceSpan sp);
  // switch(cond, @yes, @no)() ends b; the two new blocks (if/else, assert).
  std::pair<Block*, Block*> branch(Block* b, ir::Node* cond, const char* yes, const char* no,
                                   ir::SourceSpan sp);
  [[noreturn]] void unsupported_stmt(Ast k, ir::SourceSpan sp);
  void assign(Block* b, py::handle target, ir::Node* v, ir::SourceSpan s);

  // ---- expressions (parse_expr.cc)
  ir::Node* expr(const Ctx& c, py::handle e);
  ir::Node* index(const Ctx& c, py::handle e);
  ir::Node* truth(const Ctx& c, py::handle e);
  ir::Node* constant(py::handle v, ir::SourceSpan s);
  ir::Node* fallback(const Ctx& c, py::handle e);
  // An f-string: its formatted expressions are graph code, the string a fallback over their
  // values (made at compile time when they are known, at run time otherwise).
  ir::Node* fstring(const Ctx& c, py::handle e);
  ir::Node* call(const Ctx& c, py::handle e);
  // test: the and/or is a condition (if/while/assert/ifexp test): only its truth matters, so
  // every operand is truth()-ed and the result is a bool (operands of different types, a
  // tensor and a Python bool, still join).
  ir::Node* boolop(const Ctx& c, bool is_and, py::handle values, size_t i, bool test = false);
  ir::Node* compare(const Ctx& c, ir::Node* lhs, py::handle ops, py::handle comps, size_t i);
  ir::Builtin binop_builtin(py::handle op, ir::SourceSpan s) const;
  // The attribute name an `x.attr` node reads: Python's private-name mangling applied
  // (`self.__x` inside class C reads `_C__x`), with the class taken from the function's
  // __qualname__ (mangle_class_, set by run()).
  std::string attr_name(py::handle attribute_node) const;

  ir::Module& m_;
  py::object fn_;                                      // the Python function
  py::object globals_;                                 // its __globals__
  py::object builtins_;                                // its builtins (a dict)
  std::unordered_map<std::string, py::object> cells_;  // closure cells by free name
  std::string first_param_;   // the function's first parameter (a method's self), or ""
  std::string mangle_class_;  // the class the function is defined in, or "" (attr_name)
  py::object helper_;         // the Python helper module
  std::string path_;
  int32_t file_ = -1;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::vector<ir::CNode*> cnodes_;  // every CNode made (for the phi cleanup)
  std::vector<ir::FuncGraph*> graphs_;
  std::unordered_set<std::string> graph_names_;
  std::vector<Loop> loops_;
  struct Bound {
    ir::FuncGraph* g;
    ir::Node* v;
    size_t effects_at;  // the size of g->effects when the assignment was parsed
  };
  std::vector<Bound> bound_;              // assignment values, in source order (note_bound)
  std::unordered_set<ir::Node*> hooked_;  // values made by parse_register_hook
  int counter_ = 0;
  mutable int depth_ = 0;  // Nest levels now open
};

}  // namespace mycel::frontend::detail
