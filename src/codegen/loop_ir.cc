#include "codegen/loop_ir.h"

#include <sstream>
#include <unordered_map>

#include "base/error.h"

namespace mycel::codegen {

using namespace ir;

namespace {

// How a prim maps to the loop IR; Load marks "not fusible".
struct OpRule {
  LOp op = LOp::Load;
  Reduce reduce = Reduce::None;
};

OpRule rule_of(OpId id) {
  switch (id) {
#define MC_R(o, l) \
  case OpId::o:    \
    return {LOp::l, Reduce::None}
    MC_R(Neg, Neg);
    MC_R(Abs, Abs);
    MC_R(Sign, Sign);
    MC_R(Square, Square);
    MC_R(ReLU, Relu);
    MC_R(Sqrt, Sqrt);
    MC_R(Rsqrt, Rsqrt);
    MC_R(Reciprocal, Reciprocal);
    MC_R(LogicalNot, Not);
    MC_R(Add, Add);
    MC_R(BiasAdd, Add);  // (fusible() takes it where it is Add: the channel axis last)
    MC_R(Sub, Sub);
    MC_R(Mul, Mul);
    MC_R(Div, Div);
    MC_R(Maximum, Max);
    MC_R(Minimum, Min);
    MC_R(ReluGrad, ReluGrad);
    MC_R(LogicalAnd, And);
    MC_R(LogicalOr, Or);
    MC_R(Equal, Eq);
    MC_R(NotEqual, Ne);
    MC_R(Less, Lt);
    MC_R(LessEqual, Le);
    MC_R(Greater, Gt);
    MC_R(GreaterEqual, Ge);
    MC_R(Select, Select);
    MC_R(Cast, Cast);
    MC_R(Exp, Exp);
    MC_R(Sigmoid, Sigmoid);
    MC_R(Tanh, Tanh);
    MC_R(Erf, Erf);
    MC_R(GeLU, Gelu);  // (rule_of(c) picks GeluTanh by the attribute)
#undef MC_R
    case OpId::ReduceSum:
      return {LOp::Load, Reduce::Sum};
    case OpId::ReduceMean:
      return {LOp::Load, Reduce::Mean};
    case OpId::ReduceMax:
      return {LOp::Load, Reduce::Max};
    case OpId::ReduceMin:
      return {LOp::Load, Reduce::Min};
    default:
      return {};
  }
}

// The rule of prim call c (GeLU's form is its attribute).
OpRule rule_of(const CNode* c) {
  OpRule r = rule_of(c->prim()->op->id);
  if (r.op == LOp::Gelu && c->prim()->attrs.get_str("approximate") == "tanh") r.op = LOp::GeluTanh;
  return r;
}

bool is_number(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Int32 || t == DType::Int64 ||
         t == DType::BFloat16;
}
bool is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16;
}
bool is_kernel_dtype(DType t) { return is_number(t) || t == DType::Bool; }

const Abstract* tensor_abs(const Node* n) {
  const AbsPtr& a = n->abstract();
  return a && a->is_tensor() ? a.get() : nullptr;
}

bool static_shape(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

// Whether the dtypes of c's inputs and output suit the op's loop rule.
bool dtypes_fit(LOp op, Reduce red, DType out, const std::vector<DType>& in) {
  if (red != Reduce::None) {
    // Sums of integers wrap as the kernel's do; Mean of integers computes in float elsewhere.
    if (out != in[0]) return false;
    if (out == DType::BFloat16) return red == Reduce::Sum || red == Reduce::Mean;
    return red == Reduce::Mean ? is_float(out) : is_number(out);
  }
  switch (op) {
    case LOp::Not:
    case LOp::And:
    case LOp::Or:
      for (DType t : in)
        if (t != DType::Bool) return false;
      return out == DType::Bool;
    case LOp::Eq:
    case LOp::Ne:
    case LOp::Lt:
    case LOp::Le:
    case LOp::Gt:
    case LOp::Ge:
      return out == DType::Bool && in[0] == in[1] && is_kernel_dtype(in[0]) &&
             (is_number(in[0]) || op == LOp::Eq || op == LOp::Ne);
    case LOp::Select:
      return in[0] == DType::Bool && in[1] == out && in[2] == out && is_kernel_dtype(out);
    case LOp::Cast:
      if (in[0] == DType::BFloat16 || out == DType::BFloat16)
        return in[0] == out || in[0] == DType::Float32 || out == DType::Float32;
      return is_kernel_dtype(in[0]) && is_kernel_dtype(out);
    case LOp::Exp:
    case LOp::Sigmoid:
    case LOp::Tanh:
    case LOp::Erf:
    case LOp::Gelu:
    case LOp::GeluTanh:
      return (out == DType::Float32 || out == DType::BFloat16) && in[0] == out;
    case LOp::Sqrt:
    case LOp::Rsqrt:
    case LOp::Reciprocal:
    case LOp::Div:
      return is_float(out) && in[0] == out && (in.size() == 1 || in[1] == out);
    default:
      for (DType t : in)
        if (t != out) return false;
      return is_number(out);
  }
}

}  // namespace

const char* lop_name(LOp op) {
  static constexpr const char* kNames[] = {
      "load", "neg",     "abs",  "sign", "square", "relu",      "sqrt",   "rsqrt",    "recip",
      "not",  "add",     "sub",  "mul",  "div",    "max",       "min",    "relugrad", "and",
      "or",   "eq",      "ne",   "lt",   "le",     "gt",        "ge",     "select",   "cast",
      "exp",  "sigmoid", "tanh", "erf",  "gelu",   "gelu_tanh", "reduced"};
  return kNames[static_cast<size_t>(op)];
}

bool fusible(const CNode* c) {
  const PrimData* p = c->prim();
  if (p == nullptr) return false;
  OpRule r = rule_of(c);
  if (r.op == LOp::Load && r.reduce == Reduce::None) return false;
  const Abstract* out = tensor_abs(c);
  if (out == nullptr || !is_kernel_dtype(out->dtype) || !static_shape(out->shape)) return false;
  std::vector<DType> in;
  int64_t largest = 1;
  for (size_t i = 1; i < c->size(); ++i) {
    const Abstract* a = tensor_abs(c->input(i));
    if (a == nullptr || !static_shape(a->shape)) return false;
    in.push_back(a->dtype);
    int64_t n = 1;
    for (int64_t d : a->shape) n *= d;
    largest = std::max(largest, n);
  }
  if (in.empty()) return false;
  if (p->op->id == OpId::BiasAdd) {
    // b along the channel axis: x's last axis for NHWC and for a matrix (NCHW's axis 1), where
    // BiasAdd is x + b broadcast as Add broadcasts.
    const Abstract* x = tensor_abs(c->input(1));
    const Abstract* b = tensor_abs(c->input(2));
    bool last = x->shape.size() == 2 || p->attrs.get_str("data_format") == "NHWC";
    if (!last || b->shape.size() != 1 || x->shape.empty() || b->shape[0] != x->shape.back())
      return false;
  }
  int64_t n = 1;
  for (int64_t d : out->shape) n *= d;
  if (n == 0 || largest == 0) return false;  // empty tensors: the op kernels handle them
  return dtypes_fit(r.op, r.reduce, out->dtype, in);
}

bool is_reduction(const CNode* c) {
  const PrimData* p = c->prim();
  return p != nullptr && rule_of(p->op->id).reduce != Reduce::None;
}

int row_axis(const CNode* c) {
  if (!is_reduction(c)) return -1;
  const Abstract* in = tensor_abs(c->input(1));
  const Abstract* out = tensor_abs(c);
  if (in == nullptr || out == nullptr) return -1;
  const Shape& S = in->shape;
  int64_t nd = static_cast<int64_t>(S.size());
  if (nd == 0 || out->shape.size() != S.size()) return -1;
  std::vector<bool> reduced(S.size(), false);
  const std::vector<int64_t>& axis = c->prim()->attrs.get_ints("axis");
  for (int64_t a : axis) {
    int64_t n = a < 0 ? a + nd : a;
    if (n < 0 || n >= nd) return -1;
    reduced[static_cast<size_t>(n)] = true;
  }
  if (axis.empty()) reduced.assign(S.size(), true);
  int64_t k = nd;
  while (k > 0 && reduced[static_cast<size_t>(k - 1)]) --k;
  int64_t row = 1;
  for (int64_t d = 0; d < nd; ++d) {
    size_t i = static_cast<size_t>(d);
    if (d < k && reduced[i]) return -1;  // not a suffix
    if (out->shape[i] != (d < k ? S[i] : 1)) return -1;
    if (d >= k) row *= S[i];
  }
  return k < nd && row <= kMaxRowElems ? static_cast<int>(k) : -1;
}

DType acc_dtype(const LOutput& o) {
  bool fl = is_float(o.dtype);
  if ((o.reduce == Reduce::Max || o.reduce == Reduce::Min) && fl)
    return o.dtype == DType::Float64 ? DType::Int64 : DType::Int32;
  bool sum = o.reduce == Reduce::Sum || o.reduce == Reduce::Mean;
  return sum && fl ? DType::Float64 : o.dtype;
}

bool LoopKernel::parallel_outer() const {
  for (const LOutput& o : outputs)
    if (o.reduce != Reduce::None && o.strides[0] == 0) return false;
  return true;
}

int64_t LoopKernel::inner_elems() const {
  int64_t n = 1;
  for (size_t d = 1; d < dims.size(); ++d) n *= dims[d];
  return n;
}

namespace {

void put_ints(std::ostringstream& os, const std::vector<int64_t>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << ']';
}

const char* reduce_name(Reduce r) {
  static constexpr const char* kNames[] = {"store", "sum", "mean", "max", "min"};
  return kNames[static_cast<size_t>(r)];
}

}  // namespace

std::string LoopKernel::text() const {
  std::ostringstream os;
  os << "kernel dims=";
  put_ints(os, dims);
  if (row_dims > 0) os << " rows=" << row_dims;
  os << '\n';
  for (size_t i = 0; i < inputs.size(); ++i) {
    os << "  in" << i << ' ' << dtype_name(inputs[i].dtype) << " strides=";
    put_ints(os, inputs[i].strides);
    os << '\n';
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const LValue& v = values[i];
    os << "  v" << i << " = " << lop_name(v.op) << ' ' << dtype_name(v.dtype);
    if (v.op == LOp::Load) {
      os << " in" << v.a;
    } else if (v.op == LOp::Reduced) {
      os << " out" << v.a;
    } else {
      for (int32_t o : {v.a, v.b, v.c})
        if (o >= 0) os << " v" << o;
    }
    os << '\n';
  }
  for (const LOutput& o : outputs) {
    os << "  out " << reduce_name(o.reduce) << " v" << o.value << ' ' << dtype_name(o.dtype)
       << " strides=";
    put_ints(os, o.strides);
    os << " numel=" << o.numel << " count=" << o.count << (o.internal ? " internal" : "");
    if (o.in_place >= 0) os << " into in" << o.in_place;
    os << '\n';
  }
  return os.str();
}

namespace {

std::vector<int64_t> loop_strides(const Shape& s) {
  std::vector<int64_t> st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = s[i] == 1 ? 0 : acc;
    acc *= s[i];
  }
  return st;
}

// Strides over S of a tensor of shape `s` broadcast to S (right-aligned; size 1 -> 0).
std::vector<int64_t> broadcast_strides(const Shape& s, const Shape& S) {
  std::vector<int64_t> own = loop_strides(s);
  std::vector<int64_t> st(S.size(), 0);
  size_t off = S.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) st[off + i] = own[i];
  return st;
}

// Strides over S of reduction node c's accumulator (0 on reduced axes); sets count.
std::vector<int64_t> reduce_strides(const CNode* c, const Shape& S, int64_t* count) {
  const Attrs& at = c->prim()->attrs;
  const std::vector<int64_t>& axis = at.get_ints("axis");
  int64_t nd = static_cast<int64_t>(S.size());
  std::vector<bool> reduced(S.size(), axis.empty());
  for (int64_t a : axis) {
    int64_t n = a < 0 ? a + nd : a;
    if (nd == 0) continue;
    MC_ASSERT(n >= 0 && n < nd, "graph kernel: reduction axis ", a, " out of range");
    reduced[static_cast<size_t>(n)] = true;
  }
  std::vector<int64_t> st(S.size(), 0);
  int64_t acc = 1;
  *count = 1;
  for (size_t i = S.size(); i-- > 0;) {
    if (reduced[i]) {
      *count *= S[i];
      continue;
    }
    st[i] = S[i] == 1 ? 0 : acc;
    acc *= S[i];
  }
  return st;
}

// Drops size-1 dimensions and merges neighbours every operand walks as one.
void collapse(LoopKernel& k) {
  std::vector<std::vector<int64_t>*> all;
  for (LInput& in : k.inputs) all.push_back(&in.strides);
  for (LOutput& o : k.outputs) all.push_back(&o.strides);
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> st(all.size());
  for (size_t d = 0; d < k.dims.size(); ++d) {
    if (k.dims[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t j = 0; j < all.size() && merge; ++j)
      merge = st[j].back() == (*all[j])[d] * k.dims[d];
    if (merge) {
      dims.back() *= k.dims[d];
      for (size_t j = 0; j < all.size(); ++j) st[j].back() = (*all[j])[d];
    } else {
      dims.push_back(k.dims[d]);
      for (size_t j = 0; j < all.size(); ++j) st[j].push_back((*all[j])[d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (auto& s : st) s.push_back(0);
  }
  k.dims = dims;
  for (size_t j = 0; j < all.size(); ++j) *all[j] = st[j];
}

// A staged kernel's rows: the leading dimensions its reductions keep (every reduction keeps
// the same ones and reduces the rest: graph_kernel's rule, row_axis). Without a kept
// dimension (one row) a dimension of size 1 is put first, so dims[0] always walks rows.
void set_rows(LoopKernel& k, const FuncGraph* g) {
  int rows = -1;
  for (const LOutput& o : k.outputs) {
    if (o.reduce == Reduce::None) continue;
    int r = 0;
    while (static_cast<size_t>(r) < k.dims.size() && o.strides[static_cast<size_t>(r)] != 0) ++r;
    for (size_t d = static_cast<size_t>(r); d < k.dims.size(); ++d)
      MC_ASSERT(o.strides[d] == 0, "graph kernel: @", g->name(),
                " reads a reduction that does not reduce rows");
    MC_ASSERT(rows < 0 || rows == r, "graph kernel: @", g->name(),
              " has reductions of different rows");
    rows = r;
  }
  MC_ASSERT(rows >= 0, "graph kernel: @", g->name(), " is staged without a reduction");
  if (rows == 0) {
    k.dims.insert(k.dims.begin(), 1);
    for (LInput& in : k.inputs) in.strides.insert(in.strides.begin(), 0);
    for (LOutput& o : k.outputs) o.strides.insert(o.strides.begin(), 0);
    rows = 1;
  }
  k.row_dims = rows;
}

}  // namespace

LoopKernel lower(FuncGraph* g) {
  MC_ASSERT(is_graph_kernel(g), "graph kernel: @", g->name(), " is not a GraphKernel graph");
  LoopKernel k;
  std::vector<const Node*> results;
  Node* out = g->output();
  if (out->is_cnode() && static_cast<CNode*>(out)->is_builtin(Builtin::MakeTuple)) {
    auto* t = static_cast<CNode*>(out);
    for (size_t i = 1; i < t->size(); ++i) results.push_back(t->input(i));
  } else {
    results.push_back(out);
  }
  std::vector<CNode*> nodes = g->module()->toposort(g);
  // The iteration shape: what reductions read, else the nodes' shape. In a staged kernel,
  // elementwise nodes of the row shape (1 on the reduced axes) broadcast over the rows.
  Shape S;
  bool found = false, reduces = false;
  for (CNode* c : nodes)
    if (is_reduction(c)) {
      S = tensor_abs(c->input(1))->shape;
      found = reduces = true;
      break;
    }
  for (CNode* c : nodes)
    if (!found && !c->is_builtin(Builtin::MakeTuple)) {
      S = tensor_abs(c)->shape;
      found = true;
    }
  MC_ASSERT(found, "graph kernel: @", g->name(), " has no nodes");
  for (CNode* c : nodes) {
    if (c->is_builtin(Builtin::MakeTuple)) continue;
    const Shape& s = tensor_abs(is_reduction(c) ? c->input(1) : c)->shape;
    bool fits = s.size() == S.size();
    for (size_t d = 0; d < s.size() && fits; ++d) fits = s[d] == S[d] || s[d] == 1;
    MC_ASSERT(s == S || (reduces && fits), "graph kernel: @", g->name(), " mixes shapes");
  }
  k.dims.assign(S.begin(), S.end());
  std::unordered_map<const Node*, int32_t> value_of;
  for (Parameter* p : g->params()) {
    const Abstract* a = tensor_abs(p);
    MC_ASSERT(a != nullptr, "graph kernel: a parameter of @", g->name(), " is not a tensor");
    value_of[p] = static_cast<int32_t>(k.values.size());
    k.values.push_back({LOp::Load, a->dtype, static_cast<int32_t>(k.inputs.size())});
    k.inputs.push_back({a->dtype, broadcast_strides(a->shape, S)});
  }
  // Outputs: the graph's results in order, then the reductions only the kernel reads.
  std::unordered_map<const Node*, int32_t> out_of;
  for (size_t i = 0; i < results.size(); ++i)
    out_of.try_emplace(results[i], static_cast<int32_t>(i));
  k.outputs.resize(results.size());
  std::unordered_map<const Node*, int32_t> reduction_out;  // reduction -> its output
  bool staged = false;
  for (CNode* c : nodes) {
    if (c->is_builtin(Builtin::MakeTuple)) continue;
    MC_ASSERT(fusible(c), "graph kernel: @", g->name(), " holds an op that does not fuse");
    OpRule r = rule_of(c);
    auto operand = [&](size_t i) {
      const Node* x = c->input(i);
      if (auto it = value_of.find(x); it != value_of.end()) return it->second;
      auto red = reduction_out.find(x);
      MC_ASSERT(red != reduction_out.end(), "graph kernel: an operand of @", g->name(),
                " is not computed in it");
      // A reduction's result read in the kernel: the kernel is staged.
      auto v = static_cast<int32_t>(k.values.size());
      k.values.push_back({LOp::Reduced, tensor_abs(x)->dtype, red->second});
      value_of[x] = v;
      staged = true;
      return v;
    };
    const Abstract* a = tensor_abs(c);
    if (r.reduce != Reduce::None) {
      LOutput o;
      o.value = operand(1);
      o.dtype = a->dtype;
      o.reduce = r.reduce;
      o.strides = reduce_strides(c, S, &o.count);
      int32_t j;
      if (auto it = out_of.find(c); it != out_of.end()) {
        j = it->second;
      } else {
        j = static_cast<int32_t>(k.outputs.size());
        o.internal = true;
        k.outputs.emplace_back();
      }
      k.outputs[static_cast<size_t>(j)] = o;
      reduction_out[c] = j;
      continue;
    }
    LValue v{r.op, a->dtype};
    v.a = operand(1);
    if (c->size() > 2) v.b = operand(2);
    if (c->size() > 3) v.c = operand(3);
    value_of[c] = static_cast<int32_t>(k.values.size());
    k.values.push_back(v);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Node* n = results[i];
    if (reduction_out.count(n)) continue;
    auto v = value_of.find(n);
    MC_ASSERT(v != value_of.end() && n->is_cnode(), "graph kernel: a result of @", g->name(),
              " is not computed in it");
    LOutput& o = k.outputs[i];
    o.value = v->second;
    o.dtype = tensor_abs(n)->dtype;
    o.strides = broadcast_strides(tensor_abs(n)->shape, S);  // (a row value: 0 on the row)
  }
  for (auto& [n, j] : reduction_out) k.outputs[static_cast<size_t>(j)].shape = tensor_abs(n)->shape;
  for (size_t i = 0; i < results.size(); ++i)
    if (!reduction_out.count(results[i])) k.outputs[i].shape = tensor_abs(results[i])->shape;
  for (LOutput& o : k.outputs) {
    o.numel = 1;
    for (int64_t d : o.shape) o.numel *= d;
  }
  collapse(k);
  if (staged) set_rows(k, g);
  return k;
}

}  // namespace mycel::codegen
