// IR -> lite graph: one lite node per mycel op (some ops are several, none yet), constants and
// weights as float32 constant tensors. Unsupported constructs are collected, not thrown one by
// one, so a user sees every gap of a model at once.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "converter/converter.h"
#include "ir/walk.h"

namespace mycel::converter {

namespace {

using lite::Dims;
using lite::NodeDesc;
using lite::OpType;

std::vector<float> float_values(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::Float32) {
    Tensor c = t.contiguous();
    if (!v.empty()) std::memcpy(v.data(), c.raw_data(), v.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(t.element_as_double(static_cast<int64_t>(i)));
  }
  return v;
}

Dims dims_of(const Shape& s) { return Dims(s.begin(), s.end()); }

class Lowering {
 public:
  explicit Lowering(const SourceModel& m) : m_(m) {}

  lite::Graph run() {
    const ir::FuncGraph* g = m_.entry;
    MC_CHECK(g && g->params().size() == m_.input_names.size() + m_.weights.size(), Value,
             "converter: '", m_.file,
             "': the graph's parameters do not match its inputs and weights");
    g_.name = g->name();
    for (size_t i = 0; i < g->params().size(); ++i) {
      const ir::Parameter* p = g->param(i);
      int t;
      if (i < m_.input_names.size()) {
        const ir::AbsPtr& a = p->abstract();
        if (!a || !a->is_tensor() || a->dtype != DType::Float32) {
          unsupported("a non-float32-tensor input", m_.input_names[i]);
          continue;
        }
        lite::TensorDesc d;
        d.name = m_.input_names[i];
        d.shape = dims_of(a->shape);
        t = g_.add_tensor(std::move(d));
        g_.inputs.push_back(t);
      } else {
        const Tensor& w = m_.weights[i - m_.input_names.size()];
        t = g_.add_constant(m_.weight_names[i - m_.input_names.size()], dims_of(w.shape()),
                            float_values(w));
      }
      tensor_of_[p] = t;
    }
    ir::Node* out = g->output();
    std::vector<ir::Node*> roots{out};
    for (ir::CNode* c : ir::toposort(const_cast<ir::FuncGraph*>(g), roots)) lower_node(c);
    std::vector<ir::Node*> outs{out};
    if (out->is_cnode() && static_cast<ir::CNode*>(out)->is_builtin(ir::Builtin::MakeTuple)) {
      auto& in = static_cast<ir::CNode*>(out)->inputs();
      outs.assign(in.begin() + 1, in.end());
    }
    for (ir::Node* o : outs) {
      int t = tensor(o);
      if (t >= 0) g_.outputs.push_back(t);
    }
    report();
    lite::validate(g_, m_.file);
    lite::infer_shapes(g_);
    for (auto& [t, shape] : ir_shape_)
      MC_CHECK(g_.tensors[t].shape == shape, Value, "converter: '", m_.file, "': tensor '",
               g_.tensors[t].name, "' is ", lite::dims_str(shape), " in the model but ",
               lite::dims_str(g_.tensors[t].shape), " by the lite shape rules");
    return std::move(g_);
  }

 private:
  std::string node_name(const ir::Node* n) {
    std::string base = n->name().empty() ? "node" : n->name();
    std::string name = base;
    for (int k = 1; !names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  void unsupported(const std::string& what, const std::string& node) {
    missing_[what].push_back(node);
  }

  void report() {
    if (missing_.empty()) return;
    std::string s;
    for (auto& [op, nodes] : missing_) {
      s += (s.empty() ? "" : ", ") + op + (nodes.size() > 1 ? " (nodes " : " (node ");
      for (size_t i = 0; i < nodes.size(); ++i) s += (i ? ", '" : "'") + nodes[i] + "'";
      s += ")";
    }
    MC_THROW(Value, "converter: '", m_.file, "': ", missing_.size(),
             " unsupported operator(s): ", s);
  }

  // The tensor of an IR node (a constant for values; -1 after an unsupported producer).
  int tensor(ir::Node* n) {
    auto it = tensor_of_.find(n);
    if (it != tensor_of_.end()) return it->second;
    if (n->is_value()) {
      const ir::Value& v = static_cast<ir::ValueNode*>(n)->value();
      int t = -1;
      if (v.kind() == ir::ValueKind::Tensor) {
        const Tensor& x = v.as_tensor();
        t = g_.add_constant(str("const_", n->id()), dims_of(x.shape()), float_values(x));
      } else if (v.kind() == ir::ValueKind::Int || v.kind() == ir::ValueKind::Float) {
        t = g_.add_constant(str("const_", n->id()), {}, {static_cast<float>(v.as_float())});
      } else {
        unsupported(str("a constant of kind ", ir::value_kind_name(v.kind())),
                    str("const_", n->id()));
      }
      tensor_of_[n] = t;
      return t;
    }
    return -1;
  }

  void emit(ir::CNode* c, OpType op, lite::OpAttrs a, std::vector<ir::Node*> args) {
    NodeDesc n;
    n.name = node_name(c);
    n.op = op;
    n.a = std::move(a);
    for (ir::Node* x : args) {
      int t = tensor(x);
      if (t < 0) return;  // its producer was unsupported (already reported)
      n.inputs.push_back(t);
    }
    lite::TensorDesc out;
    out.name = n.name;
    int t = g_.add_tensor(std::move(out));
    n.outputs.push_back(t);
    const ir::AbsPtr& abs = c->abstract();
    if (abs && abs->is_tensor()) ir_shape_[t] = dims_of(abs->shape);
    tensor_of_[c] = t;
    g_.nodes.push_back(std::move(n));
  }

  void lower_node(ir::CNode* c);
  bool lower_conv_pool(ir::CNode* c, const std::string& op, const Attrs& at, lite::OpAttrs& a);

  const SourceModel& m_;
  lite::Graph g_;
  std::unordered_map<const ir::Node*, int> tensor_of_;
  std::map<int, Dims> ir_shape_;
  std::map<std::string, std::vector<std::string>> missing_;
  std::set<std::string> names_;
  std::unordered_map<const ir::Node*, int> bn_;  // BatchNorm nodes -> their output
};

// Two spatial values from a MindSpore attribute of 2 or 4 entries ((1, 1, h, w) form).
bool spatial(const std::vector<int64_t>& v, int64_t* dst) {
  if (v.size() == 2) return dst[0] = v[0], dst[1] = v[1], true;
  if (v.size() == 4) return dst[0] = v[2], dst[1] = v[3], true;
  return false;
}

bool Lowering::lower_conv_pool(ir::CNode* c, const std::string& op, const Attrs& at,
                               lite::OpAttrs& a) {
  if (at.has("data_format") && at.get_str("data_format") != "NCHW") return false;
  const std::string& mode = at.get_str("pad_mode");
  const std::string m = [&] {
    std::string s = mode;
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  }();
  if (m == "same") {
    a.pad_same = true;
  } else if (m == "pad") {
    const auto& p = at.get_ints("pad");
    if (p.size() != 4) return false;
    std::copy(p.begin(), p.end(), a.pad);
  } else if (m != "valid") {
    return false;
  }
  if (op == "Conv2D") {
    if (!spatial(at.get_ints("stride"), a.stride) || !spatial(at.get_ints("dilation"), a.dilation))
      return false;
    a.group = at.get_int("group");
    return true;
  }
  if (!spatial(at.get_ints("kernel_size"), a.kernel) || !spatial(at.get_ints("strides"), a.stride))
    return false;
  a.pool = op == "MaxPool" ? lite::PoolKind::Max : lite::PoolKind::Avg;
  a.ceil_mode = at.has("ceil_mode") && at.get_bool("ceil_mode");
  a.count_include_pad = !at.has("count_include_pad") || at.get_bool("count_include_pad");
  return true;
}

void Lowering::lower_node(ir::CNode* c) {
  std::vector<ir::Node*> args(c->inputs().begin() + 1, c->inputs().end());
  const ir::PrimData* prim = c->prim();
  if (!prim) {
    if (c->is_builtin(ir::Builtin::GetItem) && args.size() == 2 && args[1]->is_value()) {
      // getitem(BatchNorm(...), 0): the normalised output (the others are its statistics).
      auto it = bn_.find(args[0]);
      const ir::Value& v = static_cast<ir::ValueNode*>(args[1])->value();
      if (it != bn_.end() && v.kind() == ir::ValueKind::Int && v.as_int() == 0) {
        tensor_of_[c] = it->second;
        return;
      }
    }
    if (c->is_builtin(ir::Builtin::MakeTuple) && c == m_.entry->output()) return;
    const ir::Value* callee =
        c->callee()->is_value() ? &static_cast<ir::ValueNode*>(c->callee())->value() : nullptr;
    std::string what = callee && callee->kind() == ir::ValueKind::Builtin
                           ? std::string(ir::builtin_name(callee->as_builtin()))
                           : std::string("a graph call");
    unsupported(what, node_name(c));
    return;
  }
  const std::string op = prim->op->name;
  const Attrs& at = prim->attrs;
  lite::OpAttrs a;
  static const std::map<std::string, lite::Act> acts{{"ReLU", lite::Act::ReLU},
                                                     {"ReLU6", lite::Act::ReLU6},
                                                     {"Sigmoid", lite::Act::Sigmoid},
                                                     {"Tanh", lite::Act::Tanh}};
  static const std::map<std::string, lite::EltKind> elts{{"Add", lite::EltKind::Add},
                                                         {"Sub", lite::EltKind::Sub},
                                                         {"Mul", lite::EltKind::Mul},
                                                         {"Div", lite::EltKind::Div}};
  if (op == "Conv2D" || op == "MaxPool" || op == "AvgPool") {
    if (!lower_conv_pool(c, op, at, a))
      return unsupported(op + " with these attributes", node_name(c));
    return emit(c, op == "Conv2D" ? OpType::Conv2D : OpType::Pool, a, args);
  }
  if (op == "MatMul") {
    a.transpose_a = at.get_bool("transpose_a");
    a.transpose_b = at.get_bool("transpose_b");
    return emit(c, OpType::MatMul, a, args);
  }
  if (op == "BiasAdd") {
    if (at.get_str("data_format") != "NCHW") return unsupported("BiasAdd (NHWC)", node_name(c));
    return emit(c, OpType::BiasAdd, a, args);
  }
  if (auto it = acts.find(op); it != acts.end()) {
    a.act = it->second;
    return emit(c, OpType::Act, a, args);
  }
  if (auto it = elts.find(op); it != elts.end()) {
    a.elt = it->second;
    return emit(c, OpType::Eltwise, a, args);
  }
  if (op == "Reshape" || op == "Flatten") {
    // A target that keeps the input's leading dimension keeps it under Resize (the batch):
    // it is written as 0 ("copy the input's"); Flatten is [0, -1].
    const ir::AbsPtr& in = args[0]->abstract();
    if (op == "Flatten") {
      a.shape = {0, -1};
    } else {
      a.shape = at.get_ints("shape");
      if (in && in->is_tensor() && !in->shape.empty() && !a.shape.empty() &&
          a.shape[0] == in->shape[0])
        a.shape[0] = 0;
    }
    return emit(c, OpType::Reshape, a, args);
  }
  if (op == "Transpose") {
    a.perm = at.get_ints("perm");
    return emit(c, OpType::Transpose, a, args);
  }
  if (op == "Softmax") {
    const auto& ax = at.get_ints("axis");
    if (ax.size() != 1) return unsupported("Softmax over several axes", node_name(c));
    a.axis = ax[0];
    return emit(c, OpType::Softmax, a, args);
  }
  if (op == "BatchNorm") {
    if (at.get_bool("is_training") || at.get_str("data_format") != "NCHW")
      return unsupported("BatchNorm (training or NHWC)", node_name(c));
    a.epsilon = static_cast<float>(at.get_float("epsilon"));
    emit(c, OpType::BatchNorm, a, args);
    auto it = tensor_of_.find(c);
    if (it != tensor_of_.end()) bn_[c] = it->second;
    return;
  }
  unsupported(op, node_name(c));
}

}  // namespace

lite::Graph lower(const SourceModel& m) { return Lowering(m).run(); }

}  // namespace mycel::converter
