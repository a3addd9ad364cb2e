// import_mindir (serialize/mindir.h): ModelProto bytes -> a checked module and executable.
//
// Steps, each failing with a ValueError that starts "load: '<file>': ":
//   1. integrity: the file ends with mycel's checksum field, whose CRC-32 matches the bytes
//      before it (truncation and flipped bytes are caught here), then the protobuf parses;
//   2. header: producer "mycel", format version 1, little-endian;
//   3. rebuild: a graph per GraphProto, nodes in file order, each input a name defined
//      before it in the same graph (a parameter, a node or a constant); ops, attributes and
//      builtins looked up by name (unknown ones are errors naming the node);
//   4. checks: ir::verify (specialised, lifted), then every prim call re-inferred from its
//      inputs' abstracts and compared with the stored output abstract, every graph call's
//      arguments compared with the callee's parameters;
//   5. the executable (vm::Executable::compile).
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/utf8.h"
#include "ops/op_semantics.h"
#include "serialize/mindir.h"
#include "serialize/mindir_format.h"
#include "tensor/size.h"

namespace mycel::serialize {

namespace {

using namespace ir;
namespace pb = mind_ir;
using AT = pb::AttributeProto;

std::string meta_str(DType dt, const Shape& shape) {
  std::string s = str(dtype_name(dt), "[");
  for (size_t i = 0; i < shape.size(); ++i) s += str(i ? ", " : "", shape[i]);
  return s + "]";
}

bool same_meta(const Abstract& a, const TensorMeta& m) {
  return a.is_tensor() && a.dtype == m.dtype && a.shape == m.shape;
}

// An argument fits a parameter when their tensors agree in dtype and shape (scalars and
// functions are checked by the executor at run time).
bool fits(const AbsPtr& arg, const AbsPtr& param) {
  if (!arg || !param) return true;
  if (param->is_tensor()) return same_meta(*arg, param->meta());
  if (param->kind == AbsKind::Tuple || param->kind == AbsKind::List) {
    if (arg->kind != param->kind || arg->elems.size() != param->elems.size()) return false;
    for (size_t i = 0; i < arg->elems.size(); ++i)
      if (!fits(arg->elems[i], param->elems[i])) return false;
  }
  return true;
}

// The full name of the first string field of `m` (not a bytes field) that is not UTF-8, or
// "": proto2 parses such strings (it only logs them), but names must be text.
std::string non_utf8_field(const google::protobuf::Message& m) {
  const google::protobuf::Reflection* r = m.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  using FD = google::protobuf::FieldDescriptor;
  for (const FD* f : fields) {
    int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
    for (int k = 0; k < n; ++k) {
      if (f->type() == FD::TYPE_STRING) {
        std::string scratch;
        const std::string& v = f->is_repeated() ? r->GetRepeatedStringReference(m, f, k, &scratch)
                                                : r->GetStringReference(m, f, &scratch);
        if (!valid_utf8(v)) return f->full_name();
      } else if (f->type() == FD::TYPE_MESSAGE) {
        std::string bad =
            non_utf8_field(f->is_repeated() ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f));
        if (!bad.empty()) return bad;
      }
    }
  }
  return "";
}

class Importer {
 public:
  Importer(std::string_view bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  LoadedModel run() {
    pb::ModelProto model;
    parse(model);
    LoadedModel out;
    out.module = std::make_unique<ir::Module>();
    m_ = out.module.get();
    std::vector<const pb::GraphProto*> gps{&model.graph()};
    for (const pb::GraphProto& f : model.functions()) gps.push_back(&f);
    for (const pb::GraphProto* gp : gps) {
      where_ = "graph '" + gp->name() + "'";
      if (gp->name().empty()) fail("a graph has no name");
      if (graphs_.count(gp->name())) fail("two graphs are named '" + gp->name() + "'");
      graphs_[gp->name()] = m_->new_graph(gp->name());
    }
    out.entry = graphs_.at(model.graph().name());
    m_->set_entry(out.entry);
    for (const pb::GraphProto* gp : gps) build_graph(*gp, gp == gps[0], out);
    where_.clear();
    ir::VerifyOptions opts;
    opts.specialized = true;
    opts.lifted = true;
    try {
      ir::verify(out.entry, opts);
    } catch (const Error& e) {
      fail(str("the graph does not verify: ", e.what()));
    }
    for (const pb::GraphProto* gp : gps) check_types(*gp);
    out.output = out.entry->output()->abstract();
    try {
      out.exe = vm::Executable::compile(out.entry);
    } catch (const Error& e) {
      fail(str("the graph cannot be compiled: ", e.what()));
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    MC_THROW(Value, "load: '", file_, "': ", where_.empty() ? "" : where_ + ": ", msg);
  }

  void parse(pb::ModelProto& model) {
    size_t n = bytes_.size();
    if (n < format::kFooterSize)
      fail(str("the file is truncated or not a MINDIR file (", n, " bytes)"));
    std::string_view footer = bytes_.substr(n - format::kFooterSize);
    if (static_cast<uint8_t>(footer[0]) != format::kCrcTagBytes[0] ||
        static_cast<uint8_t>(footer[1]) != format::kCrcTagBytes[1])
      fail(
          "the file does not end with mycel's checksum: it is truncated or corrupted, or was not "
          "written by mycel.export");
    uint32_t stored = 0;
    for (int k = 0; k < 4; ++k) stored |= uint32_t{static_cast<uint8_t>(footer[2 + k])} << (8 * k);
    uint32_t actual = format::crc32(bytes_.substr(0, n - format::kFooterSize));
    if (stored != actual)
      fail(str("checksum mismatch (stored ", std::hex, stored, ", computed ", actual,
               "): the file is corrupted or truncated"));
    if (!model.ParseFromArray(bytes_.data(), static_cast<int>(n)))
      fail("the file is corrupted: it does not parse as a protobuf ModelProto");
    std::string bad = non_utf8_field(model);
    if (!bad.empty()) fail("the file is corrupted: a " + bad + " is not valid UTF-8");
    if (model.producer_name() != format::kProducer)
      fail("the file was written by '" + model.producer_name() +
           "': mycel reads only the MINDIR files that mycel.export writes");
    if (model.mind_ir_version() != format::kVersion)
      fail(str("format version ", model.mind_ir_version(), " is not supported (this mycel reads ",
               format::kVersion, ")"));
    if (!model.little_endian()) fail("big-endian tensor data is not supported");
    if (!model.has_graph()) fail("the file has no graph");
  }

  [[noreturn]] void node_fail(const pb::NodeProto& np, const std::string& msg) {
    where_ = str("graph '", g_->name(), "', node '", np.name(), "' (", np.op_type(), ")");
    fail(msg);
  }

  Tensor decode_tensor(const pb::TensorProto& t) {
    DType dt;
    if (!format::dtype_of_code(t.data_type(), &dt))
      fail(str("tensor '", t.name(), "' has the unsupported data type ", t.data_type()));
    Shape shape;
    int64_t count = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d))
        fail(str("tensor '", t.name(), "' has a bad shape"));
      shape.push_back(d);
      count *= d;
    }
    size_t want = static_cast<size_t>(count) * dtype_size(dt);
    if (t.raw_data().size() != want)
      fail(str("tensor '", t.name(), "' holds ", t.raw_data().size(), " bytes, but ",
               meta_str(dt, shape), " needs ", want));
    Tensor out = Tensor::empty(shape, dt);
    if (want) std::memcpy(out.raw_data(), t.raw_data().data(), want);
    return out;
  }

  FuncGraph* graph_named(const std::string& name) {
    auto it = graphs_.find(name);
    if (it == graphs_.end()) fail("refers to graph '" + name + "', which the file does not hold");
    return it->second;
  }

  const OpDef& op_named(const std::string& name) {
    const OpDef* op = find_op(name);
    if (op == nullptr) fail("unknown op '" + name + "' (not in mycel's op table)");
    return *op;
  }

  AttrValue to_attr(const Value& v, const OpDef& op, const AttrSpec& spec) {
    if (v.is_none()) return std::monostate{};
    bool ok = false;
    AttrValue out;
    switch (spec.kind) {
      case AttrKind::Bool:
        if ((ok = v.is(ValueKind::Bool))) out = v.as_bool();
        break;
      case AttrKind::Int:
        if ((ok = v.is(ValueKind::Int))) out = v.as_int();
        break;
      case AttrKind::Float:
        if ((ok = v.is(ValueKind::Float) || v.is(ValueKind::Int))) out = v.as_float();
        break;
      case AttrKind::Str:
        if ((ok = v.is(ValueKind::Str))) out = v.as_str();
        break;
      case AttrKind::Ints: {
        ok = v.is_sequence();
        std::vector<int64_t> ints;
        for (size_t i = 0; ok && i < v.items().size(); ++i) {
          ok = v.items()[i].is(ValueKind::Int);
          if (ok) ints.push_back(v.items()[i].as_int());
        }
        out = std::move(ints);
        break;
      }
      case AttrKind::DType:
        if ((ok = v.is(ValueKind::DType))) out = v.as_dtype();
        break;
    }
    if (!ok)
      fail(str("attribute '", spec.name, "' of ", op.name, " takes ", attr_kind_name(spec.kind),
               ", but the file holds ", v.to_string()));
    return out;
  }

  Attrs decode_attrs(const OpDef& op, const google::protobuf::RepeatedPtrField<AT>& list) {
    Attrs given;
    for (const AT& a : list) {
      const AttrSpec* spec = nullptr;
      for (const AttrSpec& s : op.attrs)
        if (a.name() == s.name) spec = &s;
      if (spec == nullptr) fail(str(op.name, " has no attribute '", a.name(), "'"));
      given.set(a.name(), to_attr(decode_value(a), op, *spec));
    }
    try {
      return make_attrs(op, given);
    } catch (const Error& e) {
      fail(e.what());
    }
  }

  void want_values(const AT& a, int n, const char* what) {
    if (a.values_size() != n)
      fail(str(what, " needs ", n, " values, the file has ", a.values_size()));
  }

  Value decode_value(const AT& a) {
    switch (a.type()) {
      case AT::NONE:
        return Value::none();
      case AT::BOOL:
        return Value::boolean(a.i() != 0);
      case AT::INT64:
        return Value::integer(a.i());
      case AT::DOUBLE:
        return Value::real(a.d());
      case AT::STRING:
        return Value::string(a.s());
      case AT::TENSOR:
        return Value::tensor(decode_tensor(a.t()));
      case AT::MYCEL_DTYPE: {
        DType dt;
        if (!format::dtype_of_code(a.i(), &dt)) fail(str("unsupported data type ", a.i()));
        return Value::dtype(dt);
      }
      case AT::MYCEL_ELLIPSIS:
        return Value::ellipsis();
      case AT::TUPLE:
      case AT::LIST: {
        std::vector<Value> items;
        for (const AT& e : a.values()) items.push_back(decode_value(e));
        return a.type() == AT::TUPLE ? Value::tuple(std::move(items))
                                     : Value::list(std::move(items));
      }
      case AT::DICT: {
        if (a.values_size() % 2) fail("a dict constant needs key/value pairs");
        std::vector<Value> keys, vals;
        for (int i = 0; i < a.values_size(); i += 2) {
          keys.push_back(decode_value(a.values(i)));
          vals.push_back(decode_value(a.values(i + 1)));
        }
        return Value::dict(std::move(keys), std::move(vals));
      }
      case AT::MYCEL_SLICE:
        want_values(a, 3, "a slice");
        return Value::slice(decode_value(a.values(0)), decode_value(a.values(1)),
                            decode_value(a.values(2)));
      case AT::PRIMITIVECLOSURE: {
        const OpDef& op = op_named(a.s());
        return Value::prim(op, decode_attrs(op, a.values()));
      }
      case AT::MYCEL_BUILTIN: {
        Builtin b;
        if (!ir::find_builtin(a.s(), &b)) fail("unknown builtin '" + a.s() + "'");
        return Value::builtin(b);
      }
      case AT::FUNCGRAPHCLOSURE:
        return Value::graph(graph_named(a.s()));
      case AT::PARTIALCLOSURE: {
        if (a.values_size() < 1) fail("a partial() constant needs a function");
        std::vector<Value> args;
        for (int i = 1; i < a.values_size(); ++i) args.push_back(decode_value(a.values(i)));
        return Value::closure(decode_value(a.values(0)), std::move(args));
      }
      default:
        fail(str("a constant of attribute type ", AT::AttributeType_Name(a.type()), " (",
                 static_cast<int>(a.type()), ") is not supported"));
    }
  }

  AbsPtr decode_abs(const AT& a) {
    switch (a.type()) {
      case AT::TENSORS: {
        if (a.tensors_size() != 1) fail("a tensor abstract needs one TensorProto");
        const pb::TensorProto& t = a.tensors(0);
        DType dt;
        if (!format::dtype_of_code(t.data_type(), &dt))
          fail(str("unsupported data type ", t.data_type()));
        Shape shape;
        for (int64_t d : t.dims()) {
          if (d < 0) fail("a tensor abstract has a negative dimension");
          shape.push_back(d);
        }
        try {
          checked_nbytes(shape, dtype_size(dt), "load");
        } catch (const Error& e) {
          fail(str("a tensor abstract's size does not fit in 64 bits: ", e.message()));
        }
        return Abstract::tensor(dt, std::move(shape));
      }
      case AT::SCALAR: {
        if (a.values_size() == 1) return Abstract::constant(decode_value(a.values(0)));
        ValueKind k = ValueKind::None;
        if (a.s() == "bool")
          k = ValueKind::Bool;
        else if (a.s() == "int")
          k = ValueKind::Int;
        else if (a.s() == "float")
          k = ValueKind::Float;
        else if (a.s() == "str")
          k = ValueKind::Str;
        else if (a.s() == "none")
          return Abstract::constant(Value::none());
        else
          fail("unknown scalar kind '" + a.s() + "'");
        return Abstract::scalar(k);
      }
      case AT::TUPLE:
      case AT::LIST: {
        std::vector<AbsPtr> elems;
        for (const AT& e : a.values()) elems.push_back(decode_abs(e));
        return a.type() == AT::TUPLE ? Abstract::tuple(std::move(elems))
                                     : Abstract::list(std::move(elems));
      }
      case AT::DICT: {
        if (a.values_size() < 1) fail("a dict abstract needs its keys");
        Value keys = decode_value(a.values(0));
        if (!keys.is(ValueKind::Tuple) ||
            keys.items().size() != static_cast<size_t>(a.values_size() - 1))
          fail("a dict abstract needs one abstract per key");
        std::vector<AbsPtr> elems;
        for (int i = 1; i < a.values_size(); ++i) elems.push_back(decode_abs(a.values(i)));
        return Abstract::dict(keys.items(), std::move(elems));
      }
      case AT::UNIONFUNCCLOSURE: {
        std::vector<ir::FuncCandidate> funcs;
        for (const AT& c : a.values()) {
          if (c.type() != AT::PARTIALCLOSURE || c.values_size() < 1)
            fail("a function abstract needs a callee per candidate");
          ir::FuncCandidate f{decode_value(c.values(0)), {}};
          for (int i = 1; i < c.values_size(); ++i) f.bound.push_back(decode_abs(c.values(i)));
          funcs.push_back(std::move(f));
        }
        return Abstract::func(std::move(funcs));
      }
      case AT::MYCEL_CONST: {
        if (a.values_size() == 1) return Abstract::constant(decode_value(a.values(0)));
        Abstract c;
        c.kind = AbsKind::Const;
        return std::make_shared<const Abstract>(std::move(c));
      }
      case AT::MYCEL_ANY:
        return Abstract::any();
      default:
        fail(str("an abstract of attribute type ", AT::AttributeType_Name(a.type()), " (",
                 static_cast<int>(a.type()), ") is not supported"));
    }
  }

  void define(const std::string& name, Node* n) {
    if (name.empty()) fail("a node or parameter has no name");
    if (!names_.emplace(name, n).second) fail("'" + name + "' is defined twice");
  }

  void add_param(const pb::ValueInfoProto& vi, LoadedModel& out, bool entry) {
    where_ = str("graph '", g_->name(), "', input '", vi.name(), "'");
    if (!vi.has_attr_info()) fail("the input has no abstract (attr_info)");
    ir::Parameter* p = m_->add_param(g_, vi.name());
    p->set_abstract(decode_abs(vi.attr_info()));
    if (vi.tensor_size() > 0) {
      AT t;
      t.set_type(AT::TENSORS);
      *t.add_tensors() = vi.tensor(0);
      t.mutable_tensors(0)->clear_raw_data();
      if (!ir::abs_equal(decode_abs(t), p->abstract()))
        fail("its tensor type and its abstract disagree");
    }
    define(vi.name(), p);
    if (entry) {
      out.inputs.push_back(p->abstract());
      out.input_names.push_back(vi.name());
    }
  }

  Node* operand(const pb::NodeProto& np, const std::string& name) {
    auto it = names_.find(name);
    if (it == names_.end())
      node_fail(np, "uses '" + name + "', which is not defined before it in this graph");
    return it->second;
  }

  Node* callee(const pb::NodeProto& np) {
    const std::string& op = np.op_type();
    Value v;
    if (np.domain() == format::kBuiltinDomain) {
      Builtin b;
      if (!ir::find_builtin(op, &b)) node_fail(np, "unknown builtin '" + op + "'");
      // What the executor does not run (removed by specialisation or AD) or needs the host.
      if (!ir::builtin_executes(b) || ir::builtin_has(b, ir::B_HOST))
        node_fail(np, "the builtin '" + op + "' cannot appear in an exported graph");
      int arity = ir::builtin_arity(b);
      if (arity >= 0 && arity != np.input_size())
        node_fail(np,
                  str("'", op, "' takes ", arity, " arguments, the node has ", np.input_size()));
      v = Value::builtin(b);
    } else if (!np.domain().empty()) {
      node_fail(np, "unknown domain '" + np.domain() + "'");
    } else if (op.rfind(format::kRef, 0) == 0) {
      std::string target = op.substr(std::strlen(format::kRef));
      auto it = names_.find(target);
      if (it != names_.end()) return it->second;
      auto git = graphs_.find(target);
      if (git == graphs_.end())
        node_fail(np, "calls '" + target +
                          "', which is neither a node defined before it nor a "
                          "graph of the file");
      v = Value::graph(git->second);
    } else {
      where_ = str("graph '", g_->name(), "', node '", np.name(), "' (", op, ")");
      const OpDef& def = op_named(op);
      if (def.num_inputs != kVariadic && def.num_inputs != np.input_size())
        node_fail(np,
                  str(op, " takes ", def.num_inputs, " inputs, the node has ", np.input_size()));
      v = Value::prim(def, decode_attrs(def, np.attribute()));
    }
    ir::ValueNode* n = m_->value(v);
    n->set_abstract(Abstract::constant(v));
    return n;
  }

  void build_node(const pb::NodeProto& np) {
    where_ = str("graph '", g_->name(), "', node '", np.name(), "' (", np.op_type(), ")");
    if (np.output_size() != 1) fail(str("a node has one output, this one ", np.output_size()));
    if (np.op_type() == format::kConstant) {
      if (np.attribute_size() != 1 || np.attribute(0).name() != "value")
        fail("a Constant node needs one attribute 'value'");
      Value v = decode_value(np.attribute(0));
      ir::ValueNode* n = m_->value(v);
      n->set_abstract(Abstract::constant(v));
      define(np.output(0), n);
      return;
    }
    std::vector<Node*> inputs{callee(np)};
    for (const std::string& in : np.input()) inputs.push_back(operand(np, in));
    CNode* c = m_->cnode(g_, std::move(inputs));
    c->set_name(np.output(0));
    for (const AT& a : np.node_attr())
      if (a.name() == format::kAbstract) c->set_abstract(decode_abs(a));
    define(np.output(0), c);
    nodes_[&np] = c;
  }

  void build_graph(const pb::GraphProto& gp, bool entry, LoadedModel& out) {
    g_ = graphs_.at(gp.name());
    names_.clear();
    where_ = "graph '" + gp.name() + "'";
    if (!entry && gp.parameter_size() > 0) fail("only the main graph holds weights");
    for (const pb::ValueInfoProto& vi : gp.input()) add_param(vi, out, entry);
    for (const pb::TensorProto& t : gp.parameter()) {
      where_ = str("graph '", g_->name(), "', weight '", t.name(), "'");
      Tensor w = decode_tensor(t);
      ir::Parameter* p = m_->add_param(g_, t.name());
      p->set_abstract(Abstract::tensor(w.dtype(), w.shape()));
      define(t.name(), p);
      out.weight_names.push_back(t.name());
      out.weights.push_back(std::move(w));
    }
    for (const pb::NodeProto& np : gp.node()) build_node(np);
    where_ = "graph '" + gp.name() + "'";
    if (gp.output_size() != 1) fail(str("a graph has one output, this one ", gp.output_size()));
    auto it = names_.find(gp.output(0).name());
    if (it == names_.end()) fail("returns '" + gp.output(0).name() + "', which it does not define");
    g_->set_output(it->second);
    for (const AT& a : gp.attribute()) {
      if (a.name() == "is_loop") {
        g_->is_loop = a.i() != 0;
      } else if (a.name() == "no_inline") {
        g_->no_inline = a.i() != 0;
      } else if (a.name() == "effects") {
        for (const AT& e : a.values()) {
          auto en = names_.find(e.s());
          if (en == names_.end()) fail("its effect '" + e.s() + "' is not defined");
          g_->effects.push_back(en->second);
        }
      } else {
        fail("unknown graph attribute '" + a.name() + "'");
      }
    }
  }

  // Re-infers prim calls and checks graph calls against the stored abstracts.
  void check_types(const pb::GraphProto& gp) {
    g_ = graphs_.at(gp.name());
    for (const pb::NodeProto& np : gp.node()) {
      auto it = nodes_.find(&np);
      if (it == nodes_.end()) continue;  // a constant
      CNode* c = it->second;
      const Value* cv =
          c->callee()->is_value() ? &static_cast<ir::ValueNode*>(c->callee())->value() : nullptr;
      if (cv != nullptr && cv->is(ValueKind::Prim)) {
        check_prim(np, c, *cv->as_prim().op, cv->as_prim().attrs);
      } else if (cv != nullptr && cv->is(ValueKind::Graph)) {
        FuncGraph* callee = cv->as_graph();
        if (callee->params().size() != c->size() - 1)
          node_fail(np, str("calls '", callee->name(), "' with ", c->size() - 1,
                            " arguments, but it takes ", callee->params().size()));
        for (size_t i = 1; i < c->size(); ++i)
          if (!fits(c->input(i)->abstract(), callee->param(i - 1)->abstract()))
            node_fail(
                np, str("argument ", i - 1, " is ", c->input(i)->abstract()->to_string(), ", but '",
                        callee->name(), "' takes ", callee->param(i - 1)->abstract()->to_string()));
      }
    }
  }

  void check_prim(const pb::NodeProto& np, CNode* c, const OpDef& op, const Attrs& attrs) {
    std::vector<TensorMeta> metas;
    for (size_t i = 1; i < c->size(); ++i) {
      const AbsPtr& a = c->input(i)->abstract();
      if (!a || !a->is_tensor())
        node_fail(np, str("input ", i - 1, " of ", op.name, " is not a tensor"));
      metas.push_back(a->meta());
    }
    MetaList out;
    try {
      promote_inputs(op, metas);
      out = infer_op(op, metas, attrs);
    } catch (const Error& e) {
      node_fail(np, str("its inputs do not infer: ", e.what()));
    }
    const AbsPtr& a = c->abstract();
    if (!a) node_fail(np, "the node has no abstract");
    bool ok = false;
    std::string want;
    if (out.size() == 1 && a->is_tensor()) {
      ok = same_meta(*a, out[0]);
      want = meta_str(out[0].dtype, out[0].shape);
    } else {
      ok = a->kind == AbsKind::Tuple && a->elems.size() == out.size();
      want = "(";
      for (size_t i = 0; i < out.size(); ++i) {
        ok = ok && same_meta(*a->elems[i], out[i]);
        want += str(i ? ", " : "", meta_str(out[i].dtype, out[i].shape));
      }
      want += ")";
    }
    if (!ok)
      node_fail(np,
                str("the file says it returns ", a->to_string(), ", but its inputs give ", want));
  }

  std::string_view bytes_;
  std::string file_;
  std::string where_;  // what errors name: the graph and node being read
  ir::Module* m_ = nullptr;
  FuncGraph* g_ = nullptr;
  std::unordered_map<std::string, FuncGraph*> graphs_;
  std::unordered_map<std::string, Node*> names_;  // of the graph being built
  std::unordered_map<const pb::NodeProto*, CNode*> nodes_;
};

}  // namespace

LoadedModel import_mindir(std::string_view bytes, const std::string& file_name) {
  return Importer(bytes, file_name).run();
}

}  // namespace mycel::serialize
