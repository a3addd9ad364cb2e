// parse_graph: reads the text form of ir/anf.h (what ir/printer.cc writes) into a module.
//
// A hand-written lexer and recursive-descent parser. %names form one namespace for the
// whole text, so a free variable is simply a %name that another graph defines; references
// (to nodes and to graphs) may come before their definition and are resolved at the end.
// Names made only of digits are the printer's numbers for unnamed nodes: they leave the
// node's name hint empty. ValueNodes get Abstract::constant of their value. Tensor
// constants and host objects have no text form that can be read back. Errors are
// ValueErrors that name line:col.
#include <cerrno>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "ir/anf.h"

namespace mycel::ir {

namespace {

enum class Tok : uint8_t { Local, Global, Ident, Int, Float, Str, Punct, End };

struct Token {
  Tok kind;
  std::string text;  // name (without % / @), identifier, literal text or punctuation
  int line, col;
};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void fail(int line, int col, const std::string& msg) {
  MC_THROW(Value, "parse_graph: ", line, ":", col, ": ", msg);
}

std::vector<Token> lex(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  int line = 1, col = 1;
  auto adv = [&](size_t n) {
    for (size_t k = 0; k < n && i < s.size(); ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      adv(1);
      continue;
    }
    if (c == '#') {  // comment to the end of the line
      while (i < s.size() && s[i] != '\n') adv(1);
      continue;
    }
    int l = line, co = col;
    if (c == '%' || c == '@') {
      size_t j = i + 1;
      while (j < s.size() && is_name_char(s[j])) ++j;
      if (j == i + 1) fail(l, co, std::string("expected a name after '") + c + "'");
      out.push_back({c == '%' ? Tok::Local : Tok::Global, s.substr(i + 1, j - i - 1), l, co});
      adv(j - i);
      continue;
    }
    if (is_ident_start(c)) {
      size_t j = i;
      while (j < s.size() && (is_ident_start(s[j]) || is_digit(s[j]))) ++j;
      out.push_back({Tok::Ident, s.substr(i, j - i), l, co});
      adv(j - i);
      continue;
    }
    if (is_digit(c) || (c == '-' && i + 1 < s.size() &&
                        (is_digit(s[i + 1]) || s.compare(i + 1, 3, "inf") == 0 ||
                         s.compare(i + 1, 3, "nan") == 0))) {
      size_t j = i + (c == '-' ? 1 : 0);
      bool real = false;
      if (!is_digit(s[j])) {
        j += 3;  // -inf / -nan
        real = true;
      } else {
        while (j < s.size() && is_digit(s[j])) ++j;
        if (j < s.size() && s[j] == '.' && !(j + 1 < s.size() && s[j + 1] == '.')) {
          real = true;
          ++j;
          while (j < s.size() && is_digit(s[j])) ++j;
        }
        if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
          size_t k = j + 1;
          if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
          if (k < s.size() && is_digit(s[k])) {
            real = true;
            j = k;
            while (j < s.size() && is_digit(s[j])) ++j;
          }
        }
      }
      out.push_back({real ? Tok::Float : Tok::Int, s.substr(i, j - i), l, co});
      adv(j - i);
      continue;
    }
    if (c == '"') {
      std::string v;
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= s.size() || s[j] == '\n') fail(l, co, "unterminated string");
        if (s[j] == '"') break;
        if (s[j] == '\\' && j + 1 < s.size()) {
          ++j;
          v += s[j] == 'n' ? '\n' : s[j] == 't' ? '\t' : s[j];
        } else {
          v += s[j];
        }
      }
      out.push_back({Tok::Str, v, l, co});
      adv(j + 1 - i);
      continue;
    }
    if (s.compare(i, 3, "...") == 0) {
      out.push_back({Tok::Punct, "...", l, co});
      adv(3);
      continue;
    }
    if (std::string("(){}[],=:").find(c) != std::string::npos) {
      out.push_back({Tok::Punct, std::string(1, c), l, co});
      adv(1);
      continue;
    }
    fail(l, co, std::string("unexpected character '") + c + "'");
  }
  out.push_back({Tok::End, "", line, col});
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::Local:
      return "'%" + t.text + "'";
    case Tok::Global:
      return "'@" + t.text + "'";
    case Tok::Str:
      return "a string";
    case Tok::End:
      return "the end of the text";
    default:
      return "'" + t.text + "'";
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// An operand while parsing: a node already known, or a %name resolved at the end.
struct Atom {
  Node* node = nullptr;  // a resolved node (a ValueNode, or a defined %name)
  std::string ref;       // else the %name
  int line = 0, col = 0;
};

class Parser {
 public:
  Parser(Module& m, const std::string& text) : m_(m), toks_(lex(text)) {}

  FuncGraph* run() {
    FuncGraph* first = nullptr;
    while (peek().kind != Tok::End) {
      FuncGraph* g = parse_graph_def();
      if (first == nullptr) first = g;
    }
    if (first == nullptr) fail(peek().line, peek().col, "expected 'graph'");
    const GraphInfo* undefined = nullptr;
    std::string undefined_name;
    for (auto& [name, info] : graphs_)
      if (!info.defined && (undefined == nullptr || info.line < undefined->line ||
                            (info.line == undefined->line && info.col < undefined->col))) {
        undefined = &info;
        undefined_name = name;
      }
    if (undefined != nullptr)
      fail(undefined->line, undefined->col, "graph @" + undefined_name + " is not defined");
    for (Fixup& f : fixups_) {
      Node* n = lookup(f.atom);
      if (f.user != nullptr) {
        f.user->set_input(f.index, n);
      } else {
        f.graph->set_output(n);
      }
    }
    m_.set_entry(first);
    return first;
  }

 private:
  struct GraphInfo {
    FuncGraph* graph;
    bool defined;
    int line, col;
  };
  struct Fixup {
    CNode* user;  // null: the output of `graph`
    FuncGraph* graph;
    size_t index;
    Atom atom;
  };

  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool is_punct(const char* p, size_t k = 0) const {
    return peek(k).kind == Tok::Punct && peek(k).text == p;
  }
  bool accept(const char* p) {
    if (!is_punct(p)) return false;
    next();
    return true;
  }
  void expect(const char* p) {
    if (!accept(p)) error(peek(), std::string("expected '") + p + "', found " + describe(peek()));
  }
  [[noreturn]] void error(const Token& t, const std::string& msg) { fail(t.line, t.col, msg); }

  // Constants and types nest (tuples, lists, dicts, partial, attributes): the recursion is
  // bounded, so that hostile text cannot overflow the stack (found by fuzz/fuzz_ir_text.cc).
  static constexpr int kMaxNesting = 256;
  struct Nest {
    Parser* p;
    Nest(Parser* parser, const Token& at) : p(parser) {
      if (p->nesting_ >= kMaxNesting)
        p->error(at, str("constants or types nested deeper than ", kMaxNesting, " levels"));
      ++p->nesting_;
    }
    ~Nest() { --p->nesting_; }
  };

  FuncGraph* graph_ref(const Token& t) {
    auto it = graphs_.find(t.text);
    if (it != graphs_.end()) return it->second.graph;
    FuncGraph* g = m_.new_graph(all_digits(t.text) ? "" : t.text);
    graphs_[t.text] = {g, false, t.line, t.col};
    return g;
  }

  void define(const Token& t, Node* n) {
    if (!names_.emplace(t.text, n).second) error(t, "%" + t.text + " is defined twice");
    if (!all_digits(t.text)) n->set_name(t.text);
  }

  Node* lookup(const Atom& a) {
    if (a.node != nullptr) return a.node;
    auto it = names_.find(a.ref);
    if (it == names_.end()) fail(a.line, a.col, "%" + a.ref + " is not defined");
    return it->second;
  }

  ValueNode* const_node(Value v) {
    ValueNode* n = m_.value(v);
    n->set_abstract(Abstract::constant(v));
    return n;
  }

  FuncGraph* parse_graph_def() {
    const Token& kw = next();
    if (kw.kind != Tok::Ident || kw.text != "graph")
      error(kw, "expected 'graph', found " + describe(kw));
    const Token& name = next();
    if (name.kind != Tok::Global)
      error(name, "expected a graph name '@...', found " + describe(name));
    FuncGraph* g = graph_ref(name);
    GraphInfo& info = graphs_[name.text];
    if (info.defined) error(name, "graph @" + name.text + " is defined twice");
    info.defined = true;
    expect("(");
    if (!is_punct(")")) {
      do {
        const Token& p = next();
        if (p.kind != Tok::Local) error(p, "expected a parameter '%...', found " + describe(p));
        Parameter* param = m_.add_param(g, "");
        define(p, param);
        g->signature().names.back() = param->name();
        if (accept(":")) param->set_abstract(parse_type());
      } while (accept(","));
    }
    expect(")");
    expect("{");
    for (;;) {
      const Token& t = peek();
      if (t.kind == Tok::Ident && t.text == "return") {
        next();
        Atom out = parse_atom();
        if (out.node != nullptr)
          g->set_output(out.node);
        else
          fixups_.push_back({nullptr, g, 0, out});
        break;
      }
      if (t.kind != Tok::Local) error(t, "expected a statement or 'return', found " + describe(t));
      parse_stmt(g);
    }
    expect("}");
    return g;
  }

  void parse_stmt(FuncGraph* g) {
    const Token& name = next();
    expect("=");
    std::vector<Atom> inputs;
    const Token& t = peek();
    if (t.kind == Tok::Ident && t.text == "partial" && is_punct("(", 1)) {
      // `partial(a, b)` calls the builtin, unless another argument list follows: then it
      // was a closure constant being called.
      next();
      std::vector<Atom> args = parse_args();
      if (is_punct("(")) {
        std::vector<Value> vals;
        for (const Atom& a : args) {
          if (a.node == nullptr || !a.node->is_value())
            fail(a.line, a.col, "a partial() constant takes constants only");
          vals.push_back(static_cast<ValueNode*>(a.node)->value());
        }
        Value fn = vals[0];
        vals.erase(vals.begin());
        inputs.push_back({const_node(Value::closure(fn, std::move(vals))), "", t.line, t.col});
        for (Atom& a : parse_args()) inputs.push_back(a);
      } else {
        inputs.push_back({const_node(Value::builtin(Builtin::Partial)), "", t.line, t.col});
        for (Atom& a : args) inputs.push_back(a);
      }
    } else {
      inputs.push_back(parse_atom());
      for (Atom& a : parse_args()) inputs.push_back(a);
    }
    std::vector<Node*> nodes;
    ValueNode* placeholder = nullptr;
    for (const Atom& a : inputs) {
      Node* n = a.node;
      if (n == nullptr) {
        auto it = names_.find(a.ref);
        if (it != names_.end()) {
          n = it->second;
        } else {
          if (placeholder == nullptr) placeholder = m_.value(Value::none());
          n = placeholder;
        }
      }
      nodes.push_back(n);
    }
    CNode* c = m_.cnode(g, nodes);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (nodes[i] == placeholder && inputs[i].node == nullptr)
        fixups_.push_back({c, g, i, inputs[i]});
    define(name, c);
    if (accept(":")) c->set_abstract(parse_type());
  }

  std::vector<Atom> parse_args() {
    std::vector<Atom> out;
    expect("(");
    if (!is_punct(")")) {
      do out.push_back(parse_atom());
      while (accept(","));
    }
    expect(")");
    return out;
  }

  Atom parse_atom() {
    const Token& t = peek();
    if (t.kind == Tok::Local) {
      next();
      auto it = names_.find(t.text);
      if (it != names_.end()) return {it->second, "", t.line, t.col};
      return {nullptr, t.text, t.line, t.col};
    }
    return {const_node(parse_const()), "", t.line, t.col};
  }

  int64_t parse_int_token(const Token& t) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (errno == ERANGE) error(t, "integer " + t.text + " out of range");
    return static_cast<int64_t>(v);
  }

  std::vector<Value> parse_const_list(const char* close) {
    std::vector<Value> items;
    while (!is_punct(close)) {
      items.push_back(parse_const());
      if (!accept(",")) break;
    }
    expect(close);
    return items;
  }

  Value parse_const() {
    const Token& t = next();
    Nest nest(this, t);
    switch (t.kind) {
      case Tok::Int:
        return Value::integer(parse_int_token(t));
      case Tok::Float:
        return Value::real(std::strtod(t.text.c_str(), nullptr));
      case Tok::Str:
        return Value::string(t.text);
      case Tok::Global:
        return Value::graph(graph_ref(t));
      case Tok::Local:
        error(t, "expected a constant, found " + describe(t));
      case Tok::End:
        error(t, "expected a value, found the end of the text");
      case Tok::Punct: {
        if (t.text == "...") return Value::ellipsis();
        if (t.text == "(") {
          std::vector<Value> items = parse_const_list(")");
          // "(x)" without a comma is not a tuple in the printed form.
          if (items.size() == 1 &&
              !(toks_[pos_ - 2].kind == Tok::Punct && toks_[pos_ - 2].text == ","))
            error(t, "a one-element tuple is written '(x,)'");
          return Value::tuple(std::move(items));
        }
        if (t.text == "[") return Value::list(parse_const_list("]"));
        if (t.text == "{") {
          std::vector<Value> keys, vals;
          while (!is_punct("}")) {
            keys.push_back(parse_const());
            expect(":");
            vals.push_back(parse_const());
            if (!accept(",")) break;
          }
          expect("}");
          return Value::dict(std::move(keys), std::move(vals));
        }
        error(t, "expected a value, found " + describe(t));
      }
      case Tok::Ident:
        break;
    }
    const std::string& id = t.text;
    if (id == "None") return Value::none();
    if (id == "True") return Value::boolean(true);
    if (id == "False") return Value::boolean(false);
    if (id == "inf" || id == "nan") return Value::real(std::strtod(id.c_str(), nullptr));
    if (id == "partial" && is_punct("(")) {
      next();
      std::vector<Value> items = parse_const_list(")");
      if (items.empty()) error(t, "partial() needs a function");
      Value fn = items[0];
      items.erase(items.begin());
      return Value::closure(fn, std::move(items));
    }
    if (id == "slice" && is_punct("(")) {
      next();
      std::vector<Value> items = parse_const_list(")");
      if (items.size() != 3) error(t, "slice() takes 3 values");
      return Value::slice(items[0], items[1], items[2]);
    }
    if (id == "tensor") error(t, "tensor constants cannot be read from text");
    DType dt;
    if (dtype_from_short_name(id, &dt)) return Value::dtype(dt);
    Builtin b;
    if (find_builtin(id, &b)) return Value::builtin(b);
    if (const OpDef* op = find_op(id)) return Value::prim(*op, parse_attrs(*op));
    error(t, "unknown name '" + id + "' (not a constant, builtin or primitive)");
  }

  Attrs parse_attrs(const OpDef& op) {
    Attrs attrs;
    if (!accept("{")) return attrs;
    while (!is_punct("}")) {
      const Token& name = next();
      if (name.kind != Tok::Ident)
        error(name, "expected an attribute name, found " + describe(name));
      const AttrSpec* spec = nullptr;
      for (const AttrSpec& s : op.attrs)
        if (name.text == s.name) spec = &s;
      if (spec == nullptr)
        error(name, std::string(op.name) + " has no attribute '" + name.text + "'");
      expect("=");
      const Token& vt = peek();
      Value v = parse_const();
      attrs.set(name.text, to_attr(v, *spec, vt));
      if (!accept(",")) break;
    }
    expect("}");
    return attrs;
  }

  AttrValue to_attr(const Value& v, const AttrSpec& spec, const Token& at) {
    if (v.is_none()) return std::monostate{};
    auto bad = [&]() {
      error(at, std::string("attribute '") + spec.name + "' takes " +
                    std::string(attr_kind_name(spec.kind)) + ", found " + v.to_string());
    };
    switch (spec.kind) {
      case AttrKind::Bool:
        if (!v.is(ValueKind::Bool)) bad();
        return v.as_bool();
      case AttrKind::Int:
        if (!v.is(ValueKind::Int)) bad();
        return v.as_int();
      case AttrKind::Float:
        if (!v.is(ValueKind::Float) && !v.is(ValueKind::Int)) bad();
        return v.as_float();
      case AttrKind::Str:
        if (!v.is(ValueKind::Str)) bad();
        return v.as_str();
      case AttrKind::Ints: {
        if (!v.is_sequence()) bad();
        std::vector<int64_t> out;
        for (const Value& e : v.items()) {
          if (!e.is(ValueKind::Int)) bad();
          out.push_back(e.as_int());
        }
        return out;
      }
      case AttrKind::DType:
        if (!v.is(ValueKind::DType)) bad();
        return v.as_dtype();
    }
    bad();
    return std::monostate{};
  }

  AbsPtr parse_type() {
    const Token& t = next();
    Nest nest(this, t);
    if (t.kind != Tok::Ident) error(t, "expected a type, found " + describe(t));
    const std::string& id = t.text;
    DType dt;
    if (is_punct("[") && dtype_from_short_name(id, &dt)) {
      next();
      Shape shape;
      while (!is_punct("]")) {
        const Token& d = next();
        if (d.kind != Tok::Int) error(d, "expected a dimension, found " + describe(d));
        shape.push_back(parse_int_token(d));
        if (!accept(",")) break;
      }
      expect("]");
      return Abstract::tensor(dt, std::move(shape));
    }
    ValueKind sk = ValueKind::None;
    bool scalar = true;
    if (id == "bool")
      sk = ValueKind::Bool;
    else if (id == "i64")
      sk = ValueKind::Int;
    else if (id == "f64")
      sk = ValueKind::Float;
    else if (id == "str")
      sk = ValueKind::Str;
    else if (id == "none")
      sk = ValueKind::None;
    else
      scalar = false;
    if (scalar) {
      if (sk == ValueKind::None) return Abstract::constant(Value::none());
      if (!accept("=")) return Abstract::scalar(sk);
      const Token& vt = peek();
      Value v = parse_const();
      if (sk == ValueKind::Float && v.is(ValueKind::Int)) v = Value::real(v.as_float());
      if (v.kind() != sk) error(vt, "a " + id + " constant expected, found " + v.to_string());
      return Abstract::constant(v);
    }
    if (id == "tuple" || id == "list" || id == "dict") {
      expect("(");
      std::vector<AbsPtr> elems;
      std::vector<Value> keys;
      while (!is_punct(")")) {
        if (id == "dict") {
          keys.push_back(parse_const());
          expect(":");
        }
        elems.push_back(parse_type());
        if (!accept(",")) break;
      }
      expect(")");
      if (id == "tuple") return Abstract::tuple(std::move(elems));
      if (id == "list") return Abstract::list(std::move(elems));
      return Abstract::dict(std::move(keys), std::move(elems));
    }
    if (id == "func") return Abstract::func({});
    if (id == "any") return Abstract::any();
    if (id == "const") {
      Abstract a;
      a.kind = AbsKind::Const;
      return std::make_shared<const Abstract>(std::move(a));
    }
    error(t, "unknown type '" + id + "'");
  }

  Module& m_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int nesting_ = 0;  // the depth of parse_const/parse_type calls (Nest)
  std::unordered_map<std::string, GraphInfo> graphs_;
  std::unordered_map<std::string, Node*> names_;
  std::vector<Fixup> fixups_;
};

}  // namespace

FuncGraph* parse_graph(Module& m, const std::string& text) { return Parser(m, text).run(); }

}  // namespace mycel::ir
