// export_mindir (serialize/mindir.h): a lifted module -> ModelProto bytes.
//
// Names: one namespace for the whole file (graphs, parameters, nodes, constants), built from
// the IR's name hints, so that "REF::name" (a call of a graph or of a node) and every
// NodeProto.input resolve without ambiguity. Per graph: `input` lists its parameters (the
// entry's weights are its `parameter` TensorProtos instead), `node` its statements in
// topological order, each constant it uses as a "Constant" node before its first use,
// `output` the returned node. Abstracts travel in node_attr "abstract" and
// ValueInfoProto.attr_info; source lines in doc_string ("net.py:12"), for reading only.
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "base/error.h"
#include "ir/walk.h"
#include "serialize/mindir.h"
#include "serialize/mindir_format.h"

namespace mycel::serialize {

namespace {

using namespace ir;
namespace pb = mind_ir;
using AT = pb::AttributeProto;

std::string describe(const Value& v) {
  return v.is(ValueKind::PyObj) ? v.as_host()->repr() : v.to_string();
}

[[noreturn]] void unexportable(const Node* at, const std::string& what) {
  std::string where = at != nullptr && at->span().valid()
                          ? " (at " + ir::span_location(at->span()) + ")"
                          : std::string();
  std::string excerpt = at != nullptr ? ir::span_excerpt(at->span()) : std::string();
  MC_THROW(Value, "export: the network uses ", what, where,
           ", which a MINDIR file cannot hold: only graphs of mycel ops can be exported (no "
           "Python fallback, print or Python objects)",
           excerpt.empty() ? "" : "\n", excerpt);
}

Value attr_to_value(const AttrValue& a) {
  return std::visit(
      [](const auto& x) -> Value {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return Value::none();
        } else if constexpr (std::is_same_v<T, bool>) {
          return Value::boolean(x);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return Value::integer(x);
        } else if constexpr (std::is_same_v<T, double>) {
          return Value::real(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return Value::string(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::vector<Value> items;
          for (int64_t i : x) items.push_back(Value::integer(i));
          return Value::tuple(std::move(items));
        } else {
          return Value::dtype(x);
        }
      },
      a);
}

void set_tensor_type(DType dt, const Shape& shape, pb::TensorProto* t) {
  for (int64_t d : shape) t->add_dims(d);
  t->set_data_type(format::data_type_code(dt));
}

void set_tensor(const Tensor& value, pb::TensorProto* t) {
  set_tensor_type(value.dtype(), value.shape(), t);
  Tensor c = value.cpu().contiguous();
  t->set_raw_data(static_cast<const char*>(c.raw_data()), c.nbytes());
}

// The scalar kind of an abstract as MINDIR writes it: "bool", "int", "float", "str" or "none".
const char* scalar_kind_name(ValueKind k) {
  bool named =
      k == ValueKind::Bool || k == ValueKind::Int || k == ValueKind::Float || k == ValueKind::Str;
  return named ? ir::value_kind_name(k) : "none";
}

class Exporter {
 public:
  explicit Exporter(const ExportSpec& spec) : spec_(spec) {}

  std::string run() {
    FuncGraph* entry = spec_.entry;
    MC_ASSERT(entry != nullptr, "export: no entry graph");
    MC_ASSERT(entry->params().size() == spec_.num_inputs + spec_.weights.size() &&
                  spec_.weight_names.size() == spec_.weights.size(),
              "export: the entry graph has ", entry->params().size(), " parameters for ",
              spec_.num_inputs, " inputs and ", spec_.weights.size(), " weights");
    collect_graphs();
    check_exportable();
    // Names: the weights' names first (what GraphCell shows), then graphs, then nodes.
    for (size_t i = 0; i < spec_.weights.size(); ++i)
      node_names_[entry->param(spec_.num_inputs + i)] = unique(spec_.weight_names[i], "w");
    for (FuncGraph* g : graphs_) graph_names_[g] = unique(g->name(), "graph");

    pb::ModelProto model;
    model.set_ir_version(format::kIrVersion);
    model.set_producer_name(format::kProducer);
    if (!spec_.producer_version.empty()) model.set_producer_version(spec_.producer_version);
    model.set_model_version(std::to_string(format::kVersion));
    model.set_little_endian(true);
    model.set_mind_ir_version(format::kVersion);
    for (FuncGraph* g : graphs_)
      export_graph(g, g == entry ? model.mutable_graph() : model.add_functions());
    std::string out;
    MC_CHECK(model.SerializeToString(&out), Value,
             "export: the model is too large for a protobuf file (2 GiB at most)");
    uint32_t crc = format::crc32(out);
    for (uint8_t b : format::kCrcTagBytes) out.push_back(static_cast<char>(b));
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((crc >> (8 * k)) & 0xFF));
    return out;
  }

 private:
  // Graphs reachable from the entry through constants (graph values, closures, tuples, dict
  // values), in the order their statements use them.
  void collect_graphs() {
    std::unordered_set<FuncGraph*> seen;
    std::vector<FuncGraph*> found{spec_.entry};
    auto note = [&] {
      for (FuncGraph* f : found)
        if (seen.insert(f).second) graphs_.push_back(f);
      found.clear();
    };
    note();
    for (size_t k = 0; k < graphs_.size(); ++k) {
      FuncGraph* g = graphs_[k];
      order_[g] = statements(g);
      for (CNode* c : order_[g])
        for (Node* in : c->inputs())
          if (in->is_value()) ir::graphs_in(static_cast<ValueNode*>(in)->value(), found);
      if (g->output()->is_value())
        ir::graphs_in(static_cast<ValueNode*>(g->output())->value(), found);
      note();
    }
  }

  // g's CNodes from its output and effects, inputs first; a lifted graph uses no node of
  // another graph.
  static std::vector<CNode*> statements(FuncGraph* g) {
    std::vector<Node*> roots{g->output()};
    roots.insert(roots.end(), g->effects.begin(), g->effects.end());
    for (Node* r : roots)
      MC_ASSERT(!r->is_cnode() || r->graph() == g, "export: @", g->name(),
                " returns a node of another graph");
    std::vector<CNode*> order = ir::toposort(g, roots);
    for (CNode* c : order)
      for (Node* in : c->inputs())
        MC_ASSERT(in->is_value() || in->graph() == g, "export: @", g->name(),
                  " has free variables (the module is not lambda-lifted)");
    return order;
  }

  // Host objects have no file form: the first one, in graph order, is reported with the
  // source line of the node that uses it.
  void check_exportable() {
    auto check_value = [&](const Value& v, const Node* at, auto&& self) -> void {
      if (v.is(ValueKind::PyObj)) unexportable(at, "the Python object " + describe(v));
      if (v.is(ValueKind::Closure)) {
        self(v.as_closure().fn, at, self);
        for (const Value& a : v.as_closure().args) self(a, at, self);
      } else if (v.is_sequence()) {
        for (const Value& a : v.items()) self(a, at, self);
      } else if (v.is(ValueKind::Dict)) {
        for (const Value& a : v.as_dict().keys) self(a, at, self);
        for (const Value& a : v.as_dict().values) self(a, at, self);
      } else if (v.is(ValueKind::Slice)) {
        self(v.as_slice().start, at, self);
        self(v.as_slice().stop, at, self);
        self(v.as_slice().step, at, self);
      }
    };
    for (FuncGraph* g : graphs_) {
      for (CNode* c : order_[g]) {
        if (c->is_builtin(Builtin::PyExecute)) {
          std::string fn =
              c->size() > 1 && c->input(1)->is_value()
                  ? " (" + describe(static_cast<ValueNode*>(c->input(1))->value()) + ")"
                  : std::string();
          unexportable(c, "the Python fallback py_execute" + fn);
        }
        const Value* cv = c->callee()->is_value()
                              ? &static_cast<const ValueNode*>(c->callee())->value()
                              : nullptr;
        if (cv != nullptr && cv->is(ValueKind::Builtin) &&
            builtin_has(cv->as_builtin(), ir::B_HOST))
          unexportable(c, ir::builtin_name(cv->as_builtin()));
        for (size_t i = 0; i < c->size(); ++i) {
          if (!c->input(i)->is_value()) continue;
          const Value& v = static_cast<ValueNode*>(c->input(i))->value();
          if (i == 1 && c->is_builtin(Builtin::Raise) && v.is(ValueKind::PyObj)) continue;
          check_value(v, c, check_value);
        }
      }
      if (g->output()->is_value())
        check_value(static_cast<ValueNode*>(g->output())->value(), g->output(), check_value);
    }
  }

  std::string unique(const std::string& hint, const char* fallback) {
    std::string base = ir::sanitize_name(hint);
    if (base.empty()) base = fallback;
    std::string name = base;
    for (int k = 1; used_.count(name); ++k) name = base + "." + std::to_string(k);
    used_.insert(name);
    return name;
  }

  const std::string& node_name(const Node* n) {
    auto it = node_names_.find(n);
    if (it != node_names_.end()) return it->second;
    return node_names_[n] = unique(n->name(), n->is_param() ? "p" : "n");
  }

  void encode_value(const Value& v, AT* a) {
    switch (v.kind()) {
      case ValueKind::None:
        a->set_type(AT::NONE);
        return;
      case ValueKind::Bool:
        a->set_type(AT::BOOL);
        a->set_i(v.as_bool() ? 1 : 0);
        return;
      case ValueKind::Int:
        a->set_type(AT::INT64);
        a->set_i(v.as_int());
        return;
      case ValueKind::Float:
        a->set_type(AT::DOUBLE);
        a->set_d(v.as_float());
        return;
      case ValueKind::Str:
        a->set_type(AT::STRING);
        a->set_s(v.as_str());
        return;
      case ValueKind::Tensor:
        a->set_type(AT::TENSOR);
        set_tensor(v.as_tensor(), a->mutable_t());
        return;
      case ValueKind::DType:
        a->set_type(AT::MYCEL_DTYPE);
        a->set_i(format::data_type_code(v.as_dtype()));
        return;
      case ValueKind::Ellipsis:
        a->set_type(AT::MYCEL_ELLIPSIS);
        return;
      case ValueKind::Tuple:
      case ValueKind::List:
        a->set_type(v.is(ValueKind::Tuple) ? AT::TUPLE : AT::LIST);
        for (const Value& e : v.items()) encode_value(e, a->add_values());
        return;
      case ValueKind::Dict:  // keys and values alternate
        a->set_type(AT::DICT);
        for (size_t i = 0; i < v.as_dict().keys.size(); ++i) {
          encode_value(v.as_dict().keys[i], a->add_values());
          encode_value(v.as_dict().values[i], a->add_values());
        }
        return;
      case ValueKind::Slice:
        a->set_type(AT::MYCEL_SLICE);
        encode_value(v.as_slice().start, a->add_values());
        encode_value(v.as_slice().stop, a->add_values());
        encode_value(v.as_slice().step, a->add_values());
        return;
      case ValueKind::Prim:
        a->set_type(AT::PRIMITIVECLOSURE);
        a->set_s(v.as_prim().op->name);
        for (const auto& [name, attr] : v.as_prim().attrs.items()) {
          AT* e = a->add_values();
          e->set_name(name);
          encode_value(attr_to_value(attr), e);
        }
        return;
      case ValueKind::Builtin:
        a->set_type(AT::MYCEL_BUILTIN);
        a->set_s(ir::builtin_name(v.as_builtin()));
        return;
      case ValueKind::Graph:
        a->set_type(AT::FUNCGRAPHCLOSURE);
        a->set_s(graph_names_.at(v.as_graph()));
        return;
      case ValueKind::Closure:
        a->set_type(AT::PARTIALCLOSURE);
        encode_value(v.as_closure().fn, a->add_values());
        for (const Value& e : v.as_closure().args) encode_value(e, a->add_values());
        return;
      case ValueKind::PyObj:
        break;
    }
    MC_ASSERT(false, "export: a host object passed check_exportable");
  }

  void encode_abs(const ir::Abstract& a, AT* out) {
    switch (a.kind) {
      case AbsKind::Tensor:
        out->set_type(AT::TENSORS);
        set_tensor_type(a.dtype, a.shape, out->add_tensors());
        return;
      case AbsKind::Scalar:
        out->set_type(AT::SCALAR);
        out->set_s(scalar_kind_name(a.stype));
        if (a.value) encode_value(*a.value, out->add_values());
        return;
      case AbsKind::Tuple:
      case AbsKind::List:
        out->set_type(a.kind == AbsKind::Tuple ? AT::TUPLE : AT::LIST);
        for (const AbsPtr& e : a.elems) encode_abs(*e, out->add_values());
        return;
      case AbsKind::Dict:  // the keys (a tuple value), then one abstract per key
        out->set_type(AT::DICT);
        encode_value(Value::tuple(a.keys), out->add_values());
        for (const AbsPtr& e : a.elems) encode_abs(*e, out->add_values());
        return;
      case AbsKind::Func:  // one PARTIALCLOSURE per candidate: the callee, bound abstracts
        out->set_type(AT::UNIONFUNCCLOSURE);
        for (const ir::FuncCandidate& f : a.funcs) {
          if (!exported(f.fn)) continue;  // a graph the passes inlined away
          AT* c = out->add_values();
          c->set_type(AT::PARTIALCLOSURE);
          encode_value(f.fn, c->add_values());
          for (const AbsPtr& b : f.bound) encode_abs(*b, c->add_values());
        }
        return;
      case AbsKind::Const:
        out->set_type(AT::MYCEL_CONST);
        if (a.value) encode_value(*a.value, out->add_values());
        return;
      case AbsKind::Any:
        out->set_type(AT::MYCEL_ANY);
        return;
    }
  }

  // Whether the graphs `v` refers to are in the file.
  bool exported(const Value& v) const {
    std::vector<FuncGraph*> refs;
    ir::graphs_in(v, refs);
    for (FuncGraph* f : refs)
      if (!graph_names_.count(f)) return false;
    return true;
  }

  void value_info(const Node* n, pb::ValueInfoProto* vi) {
    vi->set_name(node_name(n));
    if (!n->abstract()) return;
    if (n->abstract()->is_tensor())
      set_tensor_type(n->abstract()->dtype, n->abstract()->shape, vi->add_tensor());
    encode_abs(*n->abstract(), vi->mutable_attr_info());
  }

  // The name of ValueNode `v` in graph `gp`, emitting its Constant node on first use. A
  // raise()'s exception class is written as its name (the executor accepts either).
  const std::string& constant(const ValueNode* v, pb::GraphProto* gp, bool exception) {
    auto it = const_names_.find(v);
    if (it != const_names_.end()) return it->second;
    const std::string& name = const_names_[v] = unique(v->name(), "c");
    pb::NodeProto* np = gp->add_node();
    np->set_op_type(format::kConstant);
    np->set_name(name);
    np->add_output(name);
    AT* a = np->add_attribute();
    a->set_name("value");
    encode_value(exception ? Value::string(ir::exception_name(v->value())) : v->value(), a);
    return name;
  }

  void export_graph(FuncGraph* g, pb::GraphProto* gp) {
    gp->set_name(graph_names_.at(g));
    const_names_.clear();  // constants are per graph
    bool entry = g == spec_.entry;
    for (size_t i = 0; i < g->params().size(); ++i) {
      if (entry && i >= spec_.num_inputs) {
        pb::TensorProto* t = gp->add_parameter();
        t->set_name(node_name(g->param(i)));
        set_tensor(spec_.weights[i - spec_.num_inputs], t);
      } else {
        value_info(g->param(i), gp->add_input());
      }
    }
    for (CNode* c : order_[g]) {
      // Operands first: constants get their Constant node before the statement.
      std::vector<std::string> inputs;
      for (size_t i = 1; i < c->size(); ++i) {
        Node* in = c->input(i);
        if (in->is_value()) {
          bool exc = i == 1 && c->is_builtin(Builtin::Raise) &&
                     static_cast<ValueNode*>(in)->value().is(ValueKind::PyObj);
          inputs.push_back(constant(static_cast<ValueNode*>(in), gp, exc));
        } else {
          inputs.push_back(node_name(in));
        }
      }
      std::string op_type, domain;
      std::vector<std::pair<std::string, AttrValue>> attrs;
      const Node* callee = c->callee();
      const Value* cv =
          callee->is_value() ? &static_cast<const ValueNode*>(callee)->value() : nullptr;
      if (cv != nullptr && cv->is(ValueKind::Prim)) {
        op_type = cv->as_prim().op->name;
        attrs = cv->as_prim().attrs.items();
      } else if (cv != nullptr && cv->is(ValueKind::Builtin)) {
        op_type = ir::builtin_name(cv->as_builtin());
        domain = format::kBuiltinDomain;
      } else if (cv != nullptr && cv->is(ValueKind::Graph)) {
        op_type = format::kRef + graph_names_.at(cv->as_graph());
      } else if (cv != nullptr) {
        op_type = format::kRef + constant(static_cast<const ValueNode*>(callee), gp, false);
      } else {
        op_type = format::kRef + node_name(callee);
      }
      pb::NodeProto* np = gp->add_node();
      const std::string& name = node_name(c);
      np->set_name(name);
      np->set_op_type(op_type);
      if (!domain.empty()) np->set_domain(domain);
      for (const std::string& s : inputs) np->add_input(s);
      np->add_output(name);
      for (const auto& [an, av] : attrs) {
        AT* a = np->add_attribute();
        a->set_name(an);
        encode_value(attr_to_value(av), a);
      }
      if (c->abstract()) {
        AT* a = np->add_node_attr();
        a->set_name(format::kAbstract);
        encode_abs(*c->abstract(), a);
      }
      if (c->span().valid()) np->set_doc_string(ir::span_location(c->span()));
    }
    Node* out = g->output();
    if (out->is_value()) constant(static_cast<ValueNode*>(out), gp, false);
    pb::ValueInfoProto* vi = gp->add_output();
    if (out->is_value()) {
      vi->set_name(const_names_.at(static_cast<ValueNode*>(out)));
      encode_abs(*ir::Abstract::constant(static_cast<ValueNode*>(out)->value()),
                 vi->mutable_attr_info());
    } else {
      value_info(out, vi);
    }
    auto flag = [&](const char* name, bool on) {
      if (!on) return;
      AT* a = gp->add_attribute();
      a->set_name(name);
      a->set_type(AT::BOOL);
      a->set_i(1);
    };
    flag("is_loop", g->is_loop);
    flag("no_inline", g->no_inline);
    if (!g->effects.empty()) {
      AT* a = gp->add_attribute();
      a->set_name("effects");
      a->set_type(AT::LIST);
      for (Node* e : g->effects) {
        AT* s = a->add_values();
        s->set_type(AT::STRING);
        s->set_s(e->is_value() ? constant(static_cast<ValueNode*>(e), gp, false) : node_name(e));
      }
    }
  }

  const ExportSpec& spec_;
  std::vector<FuncGraph*> graphs_;
  std::unordered_map<FuncGraph*, std::vector<CNode*>> order_;
  std::unordered_set<std::string> used_;
  std::unordered_map<const Node*, std::string> node_names_;
  std::unordered_map<const ValueNode*, std::string> const_names_;
  std::unordered_map<FuncGraph*, std::string> graph_names_;
};

}  // namespace

std::string export_mindir(const ExportSpec& spec) { return Exporter(spec).run(); }

}  // namespace mycel::serialize
