#include "converter/lite_import.h"

#include <cstring>
#include <set>

#include "base/error.h"
#include "ir/abstract.h"
#include "lite/model_file.h"
#include "ops/op_semantics.h"
#include "ops/op_table.h"

namespace mycel::converter {

namespace {

using ir::Node;

Shape shape_of(const lite::Dims& d) { return Shape(d.begin(), d.end()); }

class LiteImporter {
 public:
  LiteImporter(lite::Graph g, std::string file) : g_(std::move(g)), file_(std::move(file)) {}

  serialize::LoadedModel run() {
    serialize::LoadedModel out;
    out.module = std::make_unique<ir::Module>();
    m_ = out.module.get();
    fg_ = m_->new_graph(g_.name.empty() ? "entry" : g_.name);
    m_->set_entry(fg_);
    out.entry = fg_;
    node_.assign(g_.tensors.size(), nullptr);
    std::set<std::string> names;
    auto unique = [&](std::string n) {
      std::string u = n.empty() ? "tensor" : n;
      for (int k = 1; !names.insert(u).second; ++k) u = n + "_" + std::to_string(k);
      return u;
    };
    for (int t : g_.inputs) {
      const lite::TensorDesc& d = g_.tensors[t];
      ir::Parameter* p = m_->add_param(fg_, unique(d.name));
      p->set_abstract(ir::Abstract::tensor(DType::Float32, shape_of(d.shape)));
      out.inputs.push_back(p->abstract());
      out.input_names.push_back(p->name());
      node_[t] = p;
    }
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      const lite::TensorDesc& d = g_.tensors[t];
      if (!d.constant) continue;
      MC_CHECK(d.dtype == lite::DType::Float32, Value, "load: '", file_, "': constant '", d.name,
               "' is ", lite::dtype_name(d.dtype), " (mycel.load reads float32 .ms files)");
      ir::Parameter* p = m_->add_param(fg_, unique(d.name));
      p->set_abstract(ir::Abstract::tensor(DType::Float32, shape_of(d.shape)));
      Tensor w = Tensor::empty(shape_of(d.shape), DType::Float32);
      if (d.nbytes()) std::memcpy(w.data<float>(), d.data, d.nbytes());
      out.weight_names.push_back(p->name());
      out.weights.push_back(std::move(w));
      node_[t] = p;
    }
    for (const lite::NodeDesc& n : g_.nodes) node_[n.outputs[0]] = lower(n);
    std::vector<Node*> outs;
    for (int t : g_.outputs) outs.push_back(node_[t]);
    if (outs.size() == 1) {
      fg_->set_output(outs[0]);
    } else {
      std::vector<ir::AbsPtr> abs;
      for (Node* o : outs) abs.push_back(o->abstract());
      ir::CNode* tuple = m_->call_builtin(fg_, ir::Builtin::MakeTuple, outs);
      typed_callee(tuple);
      tuple->set_abstract(ir::Abstract::tuple(std::move(abs)));
      fg_->set_output(tuple);
    }
    ir::VerifyOptions opts;
    opts.specialized = true;
    opts.lifted = true;
    try {
      ir::verify(fg_, opts);
      out.output = fg_->output()->abstract();
      out.exe = vm::Executable::compile(fg_);
    } catch (const Error& e) {
      MC_THROW(Value, "load: '", file_,
               "': the lite graph does not make a mycel graph: ", e.what());
    }
    return out;
  }

 private:
  // A call of mycel op `name` with `given` attributes, its abstract inferred.
  Node* prim(const char* name, Attrs given, std::vector<Node*> args) {
    const OpDef* op = find_op(name);
    MC_ASSERT(op, "lite import: no op ", name);
    Attrs attrs = make_attrs(*op, given);
    std::vector<TensorMeta> metas;
    for (Node* a : args) metas.push_back(a->abstract()->meta());
    MetaList res = infer_op(*op, metas, attrs);
    ir::CNode* c = m_->call_prim(fg_, *op, attrs, std::move(args));
    typed_callee(c);
    if (res.size() == 1) {
      c->set_abstract(ir::Abstract::tensor(res[0].dtype, res[0].shape));
    } else {
      std::vector<ir::AbsPtr> elems;
      for (const TensorMeta& r : res) elems.push_back(ir::Abstract::tensor(r.dtype, r.shape));
      c->set_abstract(ir::Abstract::tuple(std::move(elems)));
    }
    return c;
  }

  static void typed_callee(ir::CNode* c) {
    auto* v = static_cast<ir::ValueNode*>(c->callee());
    v->set_abstract(ir::Abstract::constant(v->value()));
  }

  Node* act(Node* x, lite::Act a) {
    static const char* names[] = {nullptr, "ReLU", "ReLU6", "Sigmoid", "Tanh"};
    return a == lite::Act::None ? x : prim(names[static_cast<int>(a)], {}, {x});
  }

  Node* in(const lite::NodeDesc& n, size_t i) { return node_[n.inputs[i]]; }

  static Attrs attrs(std::initializer_list<std::pair<const char*, AttrValue>> items) {
    Attrs a;
    for (const auto& [k, v] : items) a.set(k, v);
    return a;
  }

  Node* lower(const lite::NodeDesc& n) {
    const lite::OpAttrs& a = n.a;
    const std::vector<int64_t> pad(a.pad, a.pad + 4);
    switch (n.op) {
      case lite::OpType::Conv2D: {
        const lite::Dims& w = g_.tensors[n.inputs[1]].shape;
        Node* y = prim("Conv2D",
                       attrs({{"out_channel", w[0]},
                              {"kernel_size", std::vector<int64_t>{w[2], w[3]}},
                              {"pad_mode", std::string("pad")},
                              {"pad", pad},
                              {"stride", std::vector<int64_t>{a.stride[0], a.stride[1]}},
                              {"dilation", std::vector<int64_t>{a.dilation[0], a.dilation[1]}},
                              {"group", a.group}}),
                       {in(n, 0), in(n, 1)});
        if (n.inputs.size() == 3) y = prim("BiasAdd", {}, {y, in(n, 2)});
        return act(y, a.act);
      }
      case lite::OpType::Pool:
        return prim(a.pool == lite::PoolKind::Max ? "MaxPool" : "AvgPool",
                    attrs({{"kernel_size", std::vector<int64_t>{a.kernel[0], a.kernel[1]}},
                           {"strides", std::vector<int64_t>{a.stride[0], a.stride[1]}},
                           {"pad_mode", std::string("pad")},
                           {"pad", pad},
                           {"ceil_mode", a.ceil_mode},
                           {"count_include_pad", a.count_include_pad}}),
                    {in(n, 0)});
      case lite::OpType::FullyConnected: {
        Node* y = prim("MatMul", attrs({{"transpose_b", true}}), {in(n, 0), in(n, 1)});
        if (n.inputs.size() == 3) y = prim("BiasAdd", {}, {y, in(n, 2)});
        return act(y, a.act);
      }
      case lite::OpType::MatMul:
        return prim("MatMul",
                    attrs({{"transpose_a", a.transpose_a}, {"transpose_b", a.transpose_b}}),
                    {in(n, 0), in(n, 1)});
      case lite::OpType::BiasAdd:
        return prim("BiasAdd", {}, {in(n, 0), in(n, 1)});
      case lite::OpType::Eltwise: {
        static const char* names[] = {"Add", "Sub", "Mul", "Div"};
        return act(prim(names[static_cast<int>(a.elt)], {}, {in(n, 0), in(n, 1)}), a.act);
      }
      case lite::OpType::Act:
        return act(in(n, 0), a.act);
      case lite::OpType::Reshape:
        return prim("Reshape", attrs({{"shape", g_.tensors[n.outputs[0]].shape}}), {in(n, 0)});
      case lite::OpType::Transpose:
        return prim("Transpose", attrs({{"perm", a.perm}}), {in(n, 0)});
      case lite::OpType::Softmax:
        return prim("Softmax", attrs({{"axis", std::vector<int64_t>{a.axis}}}), {in(n, 0)});
      case lite::OpType::BatchNorm: {
        Node* bn = prim("BatchNorm", attrs({{"epsilon", double(a.epsilon)}}),
                        {in(n, 0), in(n, 1), in(n, 2), in(n, 3), in(n, 4)});
        ir::ValueNode* zero = m_->value(ir::Value::integer(0));
        zero->set_abstract(ir::Abstract::constant(ir::Value::integer(0)));
        ir::CNode* y = m_->call_builtin(fg_, ir::Builtin::GetItem, {bn, zero});
        typed_callee(y);
        y->set_abstract(bn->abstract()->elems[0]);
        return y;
      }
    }
    MC_ASSERT(false, "lite import: op ", lite::op_type_name(n.op));
  }

  lite::Graph g_;
  std::string file_;
  ir::Module* m_ = nullptr;
  ir::FuncGraph* fg_ = nullptr;
  std::vector<Node*> node_;  // per lite tensor
};

}  // namespace

serialize::LoadedModel import_lite(std::string_view bytes, const std::string& file_name) {
  lite::Graph g = lite::read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                   "load: '" + file_name + "'", true);
  return LiteImporter(std::move(g), file_name).run();
}

}  // namespace mycel::converter
