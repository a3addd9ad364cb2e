// import_onnx (serialize/onnx_import.h) and the Translator the per-op translations use
// (serialize/onnx_translate.h). Steps, each failing with a ValueError "load_onnx: '<file>': ":
//   1. parse the ModelProto (a size limit first: protobuf's own is 2 GiB), the default
//      domain's opset (7-18), only ai.onnx nodes;
//   2. every node's op type looked up in the table: all that are missing in one error;
//   3. initializers (integer ones constants, float ones weights), then inputs (their
//      dtypes and static shapes, input_shapes for symbolic ones, const_inputs frozen);
//   4. nodes in file order, each through its translation;
//   5. the outputs (a tuple when there are several), ir::verify, the executable.
#include <algorithm>
#include <cstring>
#include <map>

#include "base/error.h"
#include "base/utf8.h"
#include "ops/op_semantics.h"
#include "serialize/onnx_translate.h"

namespace mycel::serialize {

namespace onnx_detail {

namespace {

using AP = onnx::AttributeProto;
using TP = onnx::TensorProto;

constexpr OnnxOp kOps[] = {
#define ONNX_OP(name, fn, arg) {#name, &fn, OpId::arg},
#include "serialize/onnx_ops.def"
#undef ONNX_OP
};
static_assert(std::is_sorted(std::begin(kOps), std::end(kOps),
                             [](const OnnxOp& a, const OnnxOp& b) { return a.name < b.name; }),
              "onnx_ops.def must be sorted by name (find_onnx_op searches it)");

std::string meta_str(const TensorMeta& m) {
  std::string s = str(dtype_name(m.dtype), "[");
  for (size_t i = 0; i < m.shape.size(); ++i) s += str(i ? ", " : "", m.shape[i]);
  return s + "]";
}

// No negative dimension, and the product of the non-zero ones at most 2^40 (so strides and
// sizes fit in 64 bits even where a 0 makes the tensor empty).
bool shape_ok(const Shape& shape) {
  int64_t prod = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && prod > (int64_t{1} << 40) / d)) return false;
    if (d > 0) prod *= d;
  }
  return true;
}

}  // namespace

const OnnxOp* find_onnx_op(std::string_view op_type) {
  auto it = std::lower_bound(std::begin(kOps), std::end(kOps), op_type,
                             [](const OnnxOp& o, std::string_view n) { return o.name < n; });
  return it != std::end(kOps) && it->name == op_type ? it : nullptr;
}

bool dtype_of_onnx(int code, DType* out) {
  switch (code) {
    case TP::FLOAT:
      *out = DType::Float32;
      return true;
    case TP::UINT8:
      *out = DType::UInt8;
      return true;
    case TP::INT8:
      *out = DType::Int8;
      return true;
    case TP::INT16:
      *out = DType::Int16;
      return true;
    case TP::INT32:
      *out = DType::Int32;
      return true;
    case TP::INT64:
      *out = DType::Int64;
      return true;
    case TP::BOOL:
      *out = DType::Bool;
      return true;
    case TP::FLOAT16:
      *out = DType::Float16;
      return true;
    case TP::DOUBLE:
      *out = DType::Float64;
      return true;
    case TP::BFLOAT16:
      *out = DType::BFloat16;
      return true;
    case TP::UINT16:
      *out = DType::UInt16;
      return true;
    case TP::UINT32:
      *out = DType::UInt32;
      return true;
    case TP::UINT64:
      *out = DType::UInt64;
      return true;
    case TP::COMPLEX64:  // from raw_data (the typed float_data/double_data pairs are refused)
      *out = DType::Complex64;
      return true;
    case TP::COMPLEX128:
      *out = DType::Complex128;
      return true;
    default:
      return false;
  }
}

namespace {

std::string onnx_type_name(int code) {
  return TP::DataType_IsValid(code) ? TP::DataType_Name(static_cast<TP::DataType>(code))
                                    : str("code ", code);
}

// Copies `src` (typed fields of the TensorProto) into `t`'s elements, converting.
template <class Src>
void fill_from(Tensor& t, const Src& src) {
  dispatch_all(t.dtype(), "load_onnx", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(src.Get(static_cast<int>(i)));
  });
}

}  // namespace

Translator::Translator(std::string file, const OnnxOptions& options, LoadedModel& out)
    : file_(std::move(file)), options_(options), out_(out) {
  out_.module = std::make_unique<ir::Module>();
  m_ = out_.module.get();
  g_ = m_->new_graph("onnx_main");
  m_->set_entry(g_);
  out_.entry = g_;
}

void Translator::fail(const std::string& msg) const {
  MC_THROW(Value, "load_onnx: '", file_, "': ", where_.empty() ? "" : where_ + ": ", msg);
}

void Translator::define(const std::string& name, Val v) {
  if (name.empty()) return;
  if (!vals_.emplace(name, std::move(v)).second) fail("'" + name + "' is defined twice");
}

const Val& Translator::lookup(const std::string& name) {
  auto it = vals_.find(name);
  if (it == vals_.end()) fail("uses '" + name + "', which is not defined before it");
  return it->second;
}

ir::Node* Translator::node_of(const Val& v) {
  if (v.node != nullptr) return v.node;
  if (!v.weight) {  // a constant: a value node per use
    ir::Value cv = ir::Value::tensor(*v.value);
    ir::ValueNode* n = m_->value(cv);
    n->set_abstract(ir::Abstract::constant(cv));
    return n;
  }
  Val& w = vals_.at(v.name);  // a weight: one parameter, made at its first use
  if (w.node == nullptr) {
    ir::Parameter* p = m_->add_param(g_, w.name);
    p->set_abstract(ir::Abstract::tensor(w.meta.dtype, w.meta.shape));
    out_.weight_names.push_back(w.name);
    out_.weights.push_back(*w.value);
    w.node = p;
  }
  return w.node;
}

Tensor Translator::decode_tensor(const TP& t, const std::string& what) {
  DType dt;
  if (!dtype_of_onnx(t.data_type(), &dt))
    fail(str(what, " has the data type ", onnx_type_name(t.data_type()),
             ", which mycel does not support"));
  if (t.data_location() == TP::EXTERNAL || t.external_data_size() > 0)
    fail(what + " keeps its data in an external file, which is not supported");
  if (t.has_segment()) fail(what + " is a segment of a tensor, which is not supported");
  Shape shape(t.dims().begin(), t.dims().end());
  if (!shape_ok(shape)) fail(what + " has a negative or too large shape");
  int64_t count = numel(shape);
  size_t want = static_cast<size_t>(count) * dtype_size(dt);
  if (t.has_raw_data()) {  // sizes are checked before anything is allocated
    if (t.raw_data().size() != want)
      fail(str(what, " holds ", t.raw_data().size(), " bytes, but ", meta_str({dt, shape}),
               " needs ", want));
    Tensor out = Tensor::empty(shape, dt);
    if (want) std::memcpy(out.raw_data(), t.raw_data().data(), want);
    return out;
  }
  // Otherwise the typed field of the dtype (float16 and bfloat16 as bits in int32_data;
  // uint32 and uint64 in uint64_data). Complex tensors are read from raw_data only.
  if (is_complex(dt)) fail(what + " is complex without raw_data (not supported)");
  const bool u64 = dt == DType::UInt32 || dt == DType::UInt64;
  const char* field = dt == DType::Float32   ? "float_data"
                      : dt == DType::Float64 ? "double_data"
                      : dt == DType::Int64   ? "int64_data"
                      : u64                  ? "uint64_data"
                                             : "int32_data";
  int n = dt == DType::Float32   ? t.float_data_size()
          : dt == DType::Float64 ? t.double_data_size()
          : dt == DType::Int64   ? t.int64_data_size()
          : u64                  ? t.uint64_data_size()
                                 : t.int32_data_size();
  if (n != count)
    fail(str(what, " holds ", n, " values in ", field, ", but ", meta_str({dt, shape}), " needs ",
             count));
  Tensor out = Tensor::empty(shape, dt);
  switch (dt) {
    case DType::Float32:
      fill_from(out, t.float_data());
      break;
    case DType::Float64:
      fill_from(out, t.double_data());
      break;
    case DType::Int64:
      fill_from(out, t.int64_data());
      break;
    case DType::UInt32:
    case DType::UInt64:
      fill_from(out, t.uint64_data());
      break;
    case DType::Float16:
    case DType::BFloat16: {  // the bits, one value per int32
      auto* p = static_cast<uint16_t*>(out.raw_data());
      for (int64_t i = 0; i < count; ++i)
        p[i] = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
      break;
    }
    default:
      fill_from(out, t.int32_data());
  }
  return out;
}

void Translator::start_node(const onnx::NodeProto& np, int index) {
  np_ = &np;
  where_ = str("node '", np.name().empty() ? str("#", index) : np.name(), "' (", np.op_type(), ")");
  attr_read_.assign(np.attribute_size(), false);
  out_set_.assign(np.output_size(), false);
}

void Translator::finish_node() {
  for (int i = 0; i < np_->attribute_size(); ++i)
    if (!attr_read_[i])
      fail(str("the attribute '", np_->attribute(i).name(), "' is not supported by mycel's ",
               np_->op_type(), " import"));
  for (int i = 0; i < np_->output_size(); ++i)
    if (!out_set_[i] && !np_->output(i).empty())
      fail(str("output ", i, " ('", np_->output(i), "') is not supported by mycel's ",
               np_->op_type(), " import"));
  where_.clear();
}

const Val& Translator::in(int i) {
  if (!has_input(i)) fail(str("input ", i, " is missing"));
  return lookup(np_->input(i));
}

Tensor Translator::const_in(int i, const char* what) {
  const Val& v = in(i);
  if (!v.value)
    fail(str("input ", i, " ('", np_->input(i), "', the ", what,
             ") must be known at import: an initializer, a Constant or computed from them "
             "(or given as a constant input)"));
  return *v.value;
}

std::vector<int64_t> Translator::ints_in(int i, const char* what) {
  Tensor v = const_in(i, what).contiguous();
  if (!is_integral(v.dtype()))
    fail(str("the ", what, " (input ", i, ") must be an integer tensor, not ",
             dtype_name(v.dtype())));
  std::vector<int64_t> out(static_cast<size_t>(v.numel()));
  dispatch_all(v.dtype(), "load_onnx", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<int64_t>(v.data<T>()[k]);
  });
  return out;
}

double Translator::scalar_in(int i, const char* what) {
  Tensor v = const_in(i, what);
  if (v.numel() != 1) fail(str("the ", what, " (input ", i, ") must hold one value"));
  return v.item().to_double();
}

void Translator::set_out(int i, Val v) {
  if (i >= np_->output_size()) return;
  out_set_[i] = true;
  if (!v.weight) v.name.clear();  // an alias of a weight keeps its name: the same parameter
  define(np_->output(i), std::move(v));
}

const AP* Translator::attr(const char* name, AP::AttributeType type) {
  for (int i = 0; i < np_->attribute_size(); ++i) {
    const AP& a = np_->attribute(i);
    if (a.name() != name) continue;
    attr_read_[i] = true;
    if (!a.ref_attr_name().empty()) fail(str("attribute '", name, "' refers to a function's"));
    if (a.type() != type && !(a.type() == AP::UNDEFINED && type != AP::UNDEFINED))
      fail(str("attribute '", name, "' has the type ", AP::AttributeType_Name(a.type()), ", not ",
               AP::AttributeType_Name(type)));
    return &a;
  }
  return nullptr;
}

bool Translator::has_attr(const char* name) const {
  for (const AP& a : np_->attribute())
    if (a.name() == name) return true;
  return false;
}

int64_t Translator::attr_int(const char* name, int64_t dflt) {
  const AP* a = attr(name, AP::INT);
  return a ? a->i() : dflt;
}

int64_t Translator::attr_int_req(const char* name) {
  const AP* a = attr(name, AP::INT);
  if (a == nullptr) fail(str("the attribute '", name, "' is required"));
  return a->i();
}

double Translator::attr_float(const char* name, double dflt) {
  const AP* a = attr(name, AP::FLOAT);
  return a ? a->f() : dflt;
}

std::string Translator::attr_str(const char* name, const std::string& dflt) {
  const AP* a = attr(name, AP::STRING);
  if (a == nullptr) return dflt;
  if (!valid_utf8(a->s())) fail(str("attribute '", name, "' is not UTF-8 text"));
  return a->s();
}

std::vector<int64_t> Translator::attr_ints(const char* name, std::vector<int64_t> dflt) {
  const AP* a = attr(name, AP::INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : dflt;
}

std::vector<double> Translator::attr_floats(const char* name) {
  const AP* a = attr(name, AP::FLOATS);
  return a ? std::vector<double>(a->floats().begin(), a->floats().end()) : std::vector<double>{};
}

std::optional<Tensor> Translator::attr_tensor(const char* name) {
  const AP* a = attr(name, AP::TENSOR);
  if (a == nullptr) return std::nullopt;
  return decode_tensor(a->t(), str("attribute '", name, "'"));
}

void Translator::ignore_attr(const char* name) {
  for (int i = 0; i < np_->attribute_size(); ++i)
    if (np_->attribute(i).name() == name) attr_read_[i] = true;
}

std::vector<Val> Translator::op(OpId id, const std::vector<Val>& ins, const Attrs& given) {
  const OpDef& def = op_def(id);
  Attrs attrs;
  std::vector<TensorMeta> metas;
  MetaList outs;
  bool foldable = options_.fold && !(def.flags & kEffectFlags);
  for (const Val& v : ins) {
    metas.push_back(v.meta);
    foldable = foldable && v.constant();
  }
  try {
    attrs = make_attrs(def, given);
    promote_inputs(def, metas);
    outs = infer_op(def, metas, attrs);
  } catch (const Error& e) {
    fail(str("mycel's ", def.name, " does not take it: ", e.message()));
  }
  // The executor runs kernels on the dtypes given: the casts promotion asks for are nodes.
  std::vector<Val> cast_ins;
  for (size_t k = 0; k < ins.size(); ++k)
    if (metas[k].dtype != ins[k].meta.dtype) cast_ins.push_back(cast(ins[k], metas[k].dtype));
  if (!cast_ins.empty()) {
    std::vector<Val> promoted;
    for (size_t k = 0, c = 0; k < ins.size(); ++k)
      promoted.push_back(metas[k].dtype != ins[k].meta.dtype ? cast_ins[c++] : ins[k]);
    return op(id, promoted, given);
  }
  std::vector<Val> result(outs.size());
  if (foldable) {
    std::vector<Tensor> in;
    for (const Val& v : ins) in.push_back(*v.value);
    std::vector<Tensor> got;
    try {
      got = options_.fold(def, in, attrs);
    } catch (const Error& e) {
      fail(str("evaluating ", def.name, " on its constant inputs: ", e.message()));
    }
    if (got.size() != outs.size()) fail(str("folding ", def.name, " gave ", got.size(), " values"));
    for (size_t k = 0; k < got.size(); ++k) result[k] = constant(got[k]);
    return result;
  }
  std::vector<ir::Node*> nodes{nullptr};
  ir::Value callee = ir::Value::prim(def, attrs);
  ir::ValueNode* cn = m_->value(callee);
  cn->set_abstract(ir::Abstract::constant(callee));
  nodes[0] = cn;
  for (const Val& v : ins) nodes.push_back(node_of(v));
  ir::CNode* c = m_->cnode(g_, std::move(nodes));
  if (def.num_outputs == 1) {
    c->set_abstract(ir::Abstract::tensor(outs[0].dtype, outs[0].shape));
    result[0].node = c;
    result[0].meta = outs[0];
    return result;
  }
  std::vector<ir::AbsPtr> elems;
  for (const TensorMeta& m : outs) elems.push_back(ir::Abstract::tensor(m.dtype, m.shape));
  c->set_abstract(ir::Abstract::tuple(std::move(elems)));
  ir::Value gi = ir::Value::builtin(ir::Builtin::GetItem);
  for (size_t k = 0; k < outs.size(); ++k) {
    ir::ValueNode* f = m_->value(gi);
    f->set_abstract(ir::Abstract::constant(gi));
    ir::Value idx = ir::Value::integer(static_cast<int64_t>(k));
    ir::ValueNode* in = m_->value(idx);
    in->set_abstract(ir::Abstract::constant(idx));
    ir::CNode* get = m_->cnode(g_, {f, c, in});
    get->set_abstract(ir::Abstract::tensor(outs[k].dtype, outs[k].shape));
    result[k].node = get;
    result[k].meta = outs[k];
  }
  return result;
}

Val Translator::op1(OpId id, const std::vector<Val>& ins, const Attrs& given) {
  return op(id, ins, given)[0];
}

Val Translator::constant(Tensor t) {
  Val v;
  v.meta = {t.dtype(), t.shape()};
  v.value = std::move(t);
  return v;
}

Val Translator::scalar(double v, DType dt) {
  Scalar s = is_floating(dt) ? Scalar::from_float(v)
             : is_bool(dt)   ? Scalar::from_bool(v != 0)
                             : Scalar::from_int(saturate_cast<int64_t>(v));
  return constant(Tensor::scalar(s, dt));
}

Val Translator::filled(const Shape& shape, Scalar v, DType dt) {
  if (!shape_ok(shape) || numel(shape) * static_cast<int64_t>(dtype_size(dt)) > (int64_t{1} << 28))
    fail("a constant made at import would be negative-sized or over 256 MiB");
  return constant(Tensor::full(shape, v, dt));
}

Val Translator::cast(const Val& v, DType dt) {
  if (v.meta.dtype == dt) return v;
  Attrs a;
  a.set("dtype", dt);
  return op1(OpId::Cast, {v}, a);
}

int64_t norm_axis(Translator& t, int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank)
    t.fail(str("the ", what, " ", axis, " is out of range for a rank-", rank, " input"));
  return axis < 0 ? axis + rank : axis;
}

void check_range(Translator& t, const std::vector<int64_t>& v, int64_t lo, const char* what) {
  for (int64_t x : v)
    if (x < lo || x > (int64_t{1} << 40))
      t.fail(str("the ", what, " value ", x, " is out of range [", lo, ", 2^40]"));
}

int64_t mask_bit(Translator& t, int64_t axis) {
  if (axis > 62) t.fail("slicing past axis 62 is not supported");
  return int64_t{1} << axis;
}

Val reshape(Translator& t, const Val& x, const Shape& shape) {
  if (x.meta.shape == shape) return x;
  Attrs a;
  a.set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  return t.op1(OpId::Reshape, {x}, a);
}

}  // namespace onnx_detail

namespace {

using namespace onnx_detail;

class OnnxImporter {
 public:
  OnnxImporter(std::string_view bytes, const std::string& file, const OnnxOptions& options)
      : bytes_(bytes), file_(file), options_(options), t_(file, options, out_) {}

  LoadedModel run() {
    onnx::ModelProto model;
    if (bytes_.size() > (size_t{1} << 31) - 1)
      t_.fail("the file is over 2 GiB, which protobuf cannot parse");
    if (!model.ParseFromArray(bytes_.data(), static_cast<int>(bytes_.size())))
      t_.fail("the file is corrupted or not an ONNX model: it does not parse as a ModelProto");
    if (!model.has_graph()) t_.fail("the model has no graph");
    read_opset(model);
    const onnx::GraphProto& gp = model.graph();
    check_ops(gp);
    std::map<std::string, const onnx::TensorProto*> inits;
    for (const onnx::TensorProto& tp : gp.initializer()) inits[tp.name()] = &tp;
    for (const onnx::ValueInfoProto& vi : gp.input())
      if (!inits.count(vi.name())) add_input(vi);
    for (const onnx::TensorProto& tp : gp.initializer()) add_initializer(tp);
    for (int i = 0; i < gp.node_size(); ++i) translate(gp.node(i), i);
    set_outputs(gp);
    ir::VerifyOptions opts;
    opts.specialized = true;
    opts.lifted = true;
    try {
      ir::verify(out_.entry, opts);
      out_.exe = vm::Executable::compile(out_.entry);
    } catch (const Error& e) {
      t_.fail(str("the translated graph does not compile: ", e.what()));
    }
    return std::move(out_);
  }

 private:
  void read_opset(const onnx::ModelProto& model) {
    for (const onnx::OperatorSetIdProto& o : model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") t_.set_opset(o.version());
    if (t_.opset() == 0) t_.fail("the model imports no opset of the default (ai.onnx) domain");
    if (t_.opset() < 1 || t_.opset() > 18)
      t_.fail(str("opset ", t_.opset(), " is not supported (mycel imports opsets 1 to 18)"));
  }

  // Every node of an op type without a translation, in one error.
  void check_ops(const onnx::GraphProto& gp) {
    std::map<std::string, std::vector<std::string>> missing;
    for (int i = 0; i < gp.node_size(); ++i) {
      const onnx::NodeProto& np = gp.node(i);
      bool ours = np.domain().empty() || np.domain() == "ai.onnx";
      if (ours && find_onnx_op(np.op_type()) != nullptr) continue;
      std::string op = ours ? np.op_type() : np.domain() + "." + np.op_type();
      missing[op].push_back(np.name().empty() ? str("#", i) : np.name());
    }
    if (missing.empty()) return;
    std::string msg = str(missing.size(), " operator type(s) are not supported: ");
    bool first = true;
    for (const auto& [op, nodes] : missing) {
      msg += str(first ? "" : "; ", op, " (node", nodes.size() > 1 ? "s" : "", " ");
      for (size_t k = 0; k < nodes.size() && k < 8; ++k)
        msg += str(k ? ", " : "", "'", nodes[k], "'");
      if (nodes.size() > 8) msg += str(" and ", nodes.size() - 8, " more");
      msg += ")";
      first = false;
    }
    t_.fail(msg);
  }

  void add_input(const onnx::ValueInfoProto& vi) {
    t_.set_where(str("input '", vi.name(), "'"));
    if (!valid_utf8(vi.name())) t_.fail("an input's name is not UTF-8 text");
    if (!vi.type().has_tensor_type()) t_.fail("only tensor inputs are supported");
    const onnx::TypeProto::Tensor& tt = vi.type().tensor_type();
    DType dt;
    if (!dtype_of_onnx(tt.elem_type(), &dt))
      t_.fail(str("the data type ", onnx_type_name(tt.elem_type()), " is not supported"));
    auto frozen = options_.const_inputs.find(vi.name());
    if (frozen != options_.const_inputs.end()) {
      if (frozen->second.dtype() != dt)
        t_.fail(str("the constant given is ", dtype_name(frozen->second.dtype()),
                    ", the model's input ", dtype_name(dt)));
      t_.define(vi.name(), t_.constant(frozen->second));
      return;
    }
    Shape shape = input_shape(vi, tt);
    ir::Parameter* p = out_.module->add_param(out_.entry, vi.name());
    p->set_abstract(ir::Abstract::tensor(dt, shape));
    out_.inputs.push_back(p->abstract());
    out_.input_names.push_back(vi.name());
    Val v;
    v.node = p;
    v.meta = {dt, shape};
    t_.define(vi.name(), std::move(v));
  }

  Shape input_shape(const onnx::ValueInfoProto& vi, const onnx::TypeProto::Tensor& tt) {
    auto given = options_.input_shapes.find(vi.name());
    bool has = given != options_.input_shapes.end();
    if (!tt.has_shape()) {
      if (!has) t_.fail("the model gives no shape: pass its shape in input_shape");
      return given->second;
    }
    const onnx::TensorShapeProto& sp = tt.shape();
    if (has && static_cast<int>(given->second.size()) != sp.dim_size())
      t_.fail(str("input_shape gives rank ", given->second.size(), ", the model has rank ",
                  sp.dim_size()));
    Shape shape;
    for (int k = 0; k < sp.dim_size(); ++k) {
      const onnx::TensorShapeProto::Dimension& d = sp.dim(k);
      bool fixed = d.has_dim_value();
      if (fixed && d.dim_value() < 0) t_.fail(str("dimension ", k, " is negative"));
      if (has) {
        if (fixed && given->second[k] != d.dim_value())
          t_.fail(str("input_shape gives dimension ", k, " the size ", given->second[k],
                      ", the model fixes it at ", d.dim_value()));
        shape.push_back(given->second[k]);
      } else if (fixed) {
        shape.push_back(d.dim_value());
      } else {
        t_.fail(str("dimension ", k, " is symbolic ('", d.dim_param(),
                    "'): give the input's shape in input_shape to specialise the model"));
      }
    }
    if (!shape_ok(shape)) t_.fail("the shape is too large");
    return shape;
  }

  void add_initializer(const onnx::TensorProto& tp) {
    t_.set_where(str("initializer '", tp.name(), "'"));
    if (tp.name().empty() || !valid_utf8(tp.name()))
      t_.fail("an initializer has no name or a name that is not UTF-8");
    Tensor w = t_.decode_tensor(tp, "the tensor");
    Val v = t_.constant(w);
    if (is_floating(w.dtype())) {  // a weight: a parameter the GraphCell can replace
      v.weight = true;
      v.name = tp.name();
    }
    t_.define(tp.name(), std::move(v));
  }

  void translate(const onnx::NodeProto& np, int index) {
    t_.start_node(np, index);
    for (const std::string& s : np.input())
      if (!valid_utf8(s)) t_.fail("an input name is not UTF-8 text");
    for (const std::string& s : np.output())
      if (!valid_utf8(s)) t_.fail("an output name is not UTF-8 text");
    const OnnxOp* op = find_onnx_op(np.op_type());
    op->fn(t_, op->arg);
    t_.finish_node();
  }

  void set_outputs(const onnx::GraphProto& gp) {
    t_.set_where("the graph's outputs");
    if (gp.output_size() == 0) t_.fail("the graph has no output");
    std::vector<ir::Node*> outs;
    std::vector<ir::AbsPtr> abs;
    for (const onnx::ValueInfoProto& vi : gp.output()) {
      ir::Node* n = t_.node_of(t_.lookup(vi.name()));
      outs.push_back(n);
      abs.push_back(n->abstract());
    }
    if (outs.size() == 1) {
      out_.entry->set_output(outs[0]);
    } else {
      ir::Value mt = ir::Value::builtin(ir::Builtin::MakeTuple);
      ir::ValueNode* f = out_.module->value(mt);
      f->set_abstract(ir::Abstract::constant(mt));
      outs.insert(outs.begin(), f);
      ir::CNode* c = out_.module->cnode(out_.entry, std::move(outs));
      c->set_abstract(ir::Abstract::tuple(std::move(abs)));
      out_.entry->set_output(c);
    }
    out_.output = out_.entry->output()->abstract();
    t_.set_where("");
  }

  std::string_view bytes_;
  std::string file_;
  const OnnxOptions& options_;
  LoadedModel out_;
  Translator t_;
};

}  // namespace

std::vector<std::string_view> onnx_supported_ops() {
  std::vector<std::string_view> out;
  for (const OnnxOp& op : onnx_detail::kOps) out.push_back(op.name);
  return out;
}

LoadedModel import_onnx(std::string_view bytes, const std::string& file_name,
                        const OnnxOptions& options) {
  return OnnxImporter(bytes, file_name, options).run();
}

}  // namespace mycel::serialize
