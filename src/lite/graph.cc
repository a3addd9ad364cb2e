#include "lite/graph.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/error.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {
constexpr int64_t kMaxNumel = int64_t{1} << 40;
constexpr int64_t kMaxAttr = int64_t{1} << 31;  // kernel sizes, strides, pads, dilations
}  // namespace

size_t dtype_size(DType t) {
  static constexpr size_t sizes[kNumDTypes] = {4, 2, 2, 1, 1, 4, 8, 1};
  return sizes[static_cast<int>(t)];
}

const char* dtype_name(DType t) {
  static constexpr const char* names[kNumDTypes] = {"float32", "float16", "bfloat16", "int8",
                                                    "uint8",   "int32",   "int64",    "bool"};
  return names[static_cast<int>(t)];
}

const char* op_type_name(OpType t) {
  static constexpr const char* names[kNumOpTypes] = {
      "Conv2D", "Pool",    "FullyConnected", "MatMul",  "BiasAdd",  "Eltwise",
      "Act",    "Reshape", "Transpose",      "Softmax", "BatchNorm"};
  return names[static_cast<int>(t)];
}

std::string dims_str(const Dims& d) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
  os << "]";
  return os.str();
}

int64_t dims_numel(const Dims& d, const std::string& what) {
  int64_t n = 1;
  for (int64_t v : d) {
    MC_CHECK(v >= 0, Value, what, ": negative dimension in shape ", dims_str(d));
    if (v == 0) return 0;
  }
  for (int64_t v : d) {
    MC_CHECK(!__builtin_mul_overflow(n, v, &n) && n <= kMaxNumel, Value, what, ": shape ",
             dims_str(d), " has more than 2^40 elements");
  }
  return n;
}

size_t TensorDesc::nbytes() const {
  return static_cast<size_t>(dims_numel(shape, name)) * dtype_size(dtype);
}

int Graph::add_tensor(TensorDesc t) {
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size() - 1);
}

int Graph::add_constant(std::string name, Dims shape, std::vector<float> values) {
  TensorDesc t;
  t.name = std::move(name);
  int id = add_tensor(std::move(t));
  set_constant(id, std::move(shape), std::move(values));
  return id;
}

void Graph::set_constant(int t, Dims shape, std::vector<float> values) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(values.size() * sizeof(float));
  std::copy_n(reinterpret_cast<const uint8_t*>(values.data()), bytes->size(), bytes->data());
  TensorDesc& d = tensors[t];
  d.dtype = DType::Float32;
  d.shape = std::move(shape);
  d.constant = true;
  d.data = bytes->data();
  d.owned = std::move(bytes);
}

void op_arity(OpType op, int* min_in, int* max_in) {
  switch (op) {
    case OpType::Conv2D:
    case OpType::FullyConnected:
      *min_in = 2, *max_in = 3;
      return;
    case OpType::MatMul:
    case OpType::BiasAdd:
    case OpType::Eltwise:
      *min_in = *max_in = 2;
      return;
    case OpType::BatchNorm:
      *min_in = *max_in = 5;
      return;
    default:
      *min_in = *max_in = 1;
      return;
  }
}

void validate(const Graph& g, const std::string& what) {
  const int nt = static_cast<int>(g.tensors.size());
  auto in_range = [&](int t, const std::string& where) {
    MC_CHECK(t >= 0 && t < nt, Value, what, ": ", where, " names tensor ", t, " of ", nt);
  };
  std::vector<char> ready(nt, 0);
  for (int t = 0; t < nt; ++t) {
    const TensorDesc& d = g.tensors[t];
    MC_CHECK(d.shape.size() <= 8, Value, what, ": tensor '", d.name, "' has rank ", d.shape.size(),
             " (at most 8)");
    dims_numel(d.shape, what + ": tensor '" + d.name + "'");
    if (d.constant) {
      MC_CHECK(d.data != nullptr || d.nbytes() == 0, Value, what, ": constant '", d.name,
               "' has no data");
      ready[t] = 1;
    } else {
      MC_CHECK(d.dtype == DType::Float32 || d.dtype == DType::UInt8, Value, what, ": tensor '",
               d.name, "' is ", dtype_name(d.dtype),
               "; activations are float32 or (between int8 nodes) uint8");
    }
  }
  MC_CHECK(!g.inputs.empty() && !g.outputs.empty(), Value, what,
           ": the graph has no inputs or no outputs");
  for (int t : g.inputs) {
    in_range(t, "the graph's inputs");
    MC_CHECK(!g.tensors[t].constant && !ready[t], Value, what, ": graph input '", g.tensors[t].name,
             "' is a constant or listed twice");
    ready[t] = 1;
  }
  for (const NodeDesc& n : g.nodes) {
    std::string where = str("node '", n.name, "' (", op_type_name(n.op), ")");
    int lo, hi;
    op_arity(n.op, &lo, &hi);
    MC_CHECK(static_cast<int>(n.inputs.size()) >= lo && static_cast<int>(n.inputs.size()) <= hi &&
                 n.outputs.size() == 1,
             Value, what, ": ", where, " has ", n.inputs.size(), " inputs and ", n.outputs.size(),
             " outputs; it takes ", lo, "..", hi, " inputs and 1 output");
    for (int t : n.inputs) {
      in_range(t, where);
      MC_CHECK(ready[t], Value, what, ": ", where, " reads tensor '", g.tensors[t].name,
               "' before any node writes it");
    }
    for (int t : n.outputs) {
      in_range(t, where);
      MC_CHECK(!ready[t], Value, what, ": ", where, " writes tensor '", g.tensors[t].name,
               "', which is a constant, an input or written before");
      ready[t] = 1;
    }
  }
  for (int t : g.outputs) {
    in_range(t, "the graph's outputs");
    MC_CHECK(ready[t] && !g.tensors[t].constant, Value, what, ": graph output '", g.tensors[t].name,
             "' is not computed by the graph");
  }
  validate_quant(g, what);
}

namespace {

// The output size of a window of `k` (dilated extent) sliding by `s` over `in` padded by
// `p0`, `p1`; with pad_same, sets the pads first (MindSpore's "same": out = ceil(in / s)).
int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t* p0, int64_t* p1, bool same,
                   bool ceil_mode, const std::string& where) {
  if (same) {
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + k - in, 0);
    *p0 = total / 2;
    *p1 = total - *p0;
    return out;
  }
  int64_t span = in + *p0 + *p1 - k;
  MC_CHECK(span >= 0, Value, where, ": the window (", k, ") is larger than the padded input (",
           in + *p0 + *p1, ")");
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // A last window that would start in the end padding is dropped (as PyTorch and MindSpore).
  if (ceil_mode && (out - 1) * s >= in + *p0) --out;
  return out;
}

void check_attrs(const int64_t* v, int n, int64_t lo, const char* name, const std::string& where) {
  for (int i = 0; i < n; ++i)
    MC_CHECK(v[i] >= lo && v[i] <= kMaxAttr, Value, where, ": ", name, " ", v[i], " out of range [",
             lo, ", 2^31]");
}

Dims broadcast(const Dims& a, const Dims& b, const std::string& where) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    MC_CHECK(x == y || x == 1 || y == 1, Value, where, ": shapes ", dims_str(a), " and ",
             dims_str(b), " do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Dims infer_conv(NodeDesc& n, const std::vector<const Dims*>& in, const std::string& w) {
  OpAttrs& a = n.a;
  const Dims &x = *in[0], &k = *in[1];
  MC_CHECK(x.size() == 4 && k.size() == 4, Value, w, ": input ", dims_str(x), " and weight ",
           dims_str(k), " must be 4-d (NCHW, OIHW)");
  check_attrs(a.stride, 2, 1, "stride", w);
  check_attrs(a.dilation, 2, 1, "dilation", w);
  check_attrs(a.pad, 4, 0, "pad", w);
  check_attrs(&a.group, 1, 1, "group", w);
  MC_CHECK(k[0] % a.group == 0 && k[1] * a.group == x[1] && k[0] > 0, Value, w, ": weight ",
           dims_str(k), " with group ", a.group, " does not fit input ", dims_str(x));
  if (in.size() == 3)
    MC_CHECK(*in[2] == Dims{k[0]}, Value, w, ": bias ", dims_str(*in[2]), " must be [", k[0], "]");
  int64_t eh = (k[2] - 1) * a.dilation[0] + 1, ew = (k[3] - 1) * a.dilation[1] + 1;
  int64_t oh = window_out(x[2], eh, a.stride[0], &a.pad[0], &a.pad[1], a.pad_same, false, w);
  int64_t ow = window_out(x[3], ew, a.stride[1], &a.pad[2], &a.pad[3], a.pad_same, false, w);
  return {x[0], k[0], oh, ow};
}

Dims infer_pool(NodeDesc& n, const Dims& x, const std::string& w) {
  OpAttrs& a = n.a;
  MC_CHECK(x.size() == 4, Value, w, ": input ", dims_str(x), " must be 4-d (NCHW)");
  check_attrs(a.kernel, 2, 1, "kernel", w);
  check_attrs(a.stride, 2, 1, "stride", w);
  check_attrs(a.pad, 4, 0, "pad", w);
  MC_CHECK(a.pad[0] < a.kernel[0] && a.pad[1] < a.kernel[0] && a.pad[2] < a.kernel[1] &&
               a.pad[3] < a.kernel[1],
           Value, w, ": pads must be smaller than the kernel");
  int64_t oh =
      window_out(x[2], a.kernel[0], a.stride[0], &a.pad[0], &a.pad[1], a.pad_same, a.ceil_mode, w);
  int64_t ow =
      window_out(x[3], a.kernel[1], a.stride[1], &a.pad[2], &a.pad[3], a.pad_same, a.ceil_mode, w);
  return {x[0], x[1], oh, ow};
}

Dims infer_reshape(const OpAttrs& a, const Dims& x, const std::string& w) {
  Dims out = a.shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0) {
      MC_CHECK(i < x.size(), Value, w, ": target ", dims_str(a.shape), " copies dimension ", i,
               " of input ", dims_str(x));
      out[i] = x[i];
    }
    if (out[i] == -1) {
      MC_CHECK(infer < 0, Value, w, ": target ", dims_str(a.shape), " has two -1");
      infer = static_cast<int>(i);
      continue;
    }
    MC_CHECK(out[i] >= 0, Value, w, ": target ", dims_str(a.shape), " has a negative size");
    MC_CHECK(!__builtin_mul_overflow(known, out[i], &known) && known <= kMaxNumel, Value, w,
             ": target ", dims_str(a.shape), " is too large");
  }
  int64_t total = dims_numel(x, w);
  if (infer >= 0) {
    MC_CHECK(known > 0 && total % known == 0, Value, w, ": cannot reshape ", dims_str(x), " to ",
             dims_str(a.shape));
    out[infer] = total / known;
  }
  MC_CHECK(dims_numel(out, w) == total, Value, w, ": cannot reshape ", dims_str(x), " to ",
           dims_str(a.shape));
  return out;
}

Dims infer_node(NodeDesc& n, const std::vector<const Dims*>& in, const std::string& w) {
  const OpAttrs& a = n.a;
  const Dims& x = *in[0];
  switch (n.op) {
    case OpType::Conv2D:
      return infer_conv(n, in, w);
    case OpType::Pool:
      return infer_pool(n, x, w);
    case OpType::FullyConnected: {
      const Dims& k = *in[1];
      MC_CHECK(x.size() == 2 && k.size() == 2 && x[1] == k[1], Value, w, ": input ", dims_str(x),
               " and weight ", dims_str(k), " must be [M, K] and [N, K]");
      if (in.size() == 3)
        MC_CHECK(*in[2] == Dims{k[0]}, Value, w, ": bias ", dims_str(*in[2]), " must be [", k[0],
                 "]");
      return {x[0], k[0]};
    }
    case OpType::MatMul: {
      const Dims& y = *in[1];
      MC_CHECK(x.size() == 2 && y.size() == 2, Value, w, ": inputs ", dims_str(x), " and ",
               dims_str(y), " must be 2-d");
      int64_t m = a.transpose_a ? x[1] : x[0], k = a.transpose_a ? x[0] : x[1];
      int64_t k2 = a.transpose_b ? y[1] : y[0], nn = a.transpose_b ? y[0] : y[1];
      MC_CHECK(k == k2, Value, w, ": inner sizes of ", dims_str(x), " and ", dims_str(y),
               " differ");
      return {m, nn};
    }
    case OpType::BiasAdd:
      MC_CHECK(x.size() >= 2 && *in[1] == Dims{x[1]}, Value, w, ": bias ", dims_str(*in[1]),
               " does not match the channels of ", dims_str(x));
      return x;
    case OpType::Eltwise:
      return broadcast(x, *in[1], w);
    case OpType::Act:
      MC_CHECK(a.act != Act::None, Value, w, ": no activation kind");
      return x;
    case OpType::Reshape:
      return infer_reshape(a, x, w);
    case OpType::Transpose: {
      MC_CHECK(a.perm.size() == x.size(), Value, w, ": perm ", dims_str(a.perm),
               " does not fit input ", dims_str(x));
      Dims out(x.size());
      std::vector<char> seen(x.size(), 0);
      for (size_t i = 0; i < x.size(); ++i) {
        int64_t p = a.perm[i];
        MC_CHECK(p >= 0 && p < static_cast<int64_t>(x.size()) && !seen[p], Value, w, ": perm ",
                 dims_str(a.perm), " is not a permutation");
        seen[p] = 1;
        out[i] = x[p];
      }
      return out;
    }
    case OpType::Softmax: {
      int64_t r = static_cast<int64_t>(x.size());
      MC_CHECK(a.axis >= -r && a.axis < r, Value, w, ": axis ", a.axis, " out of range for ",
               dims_str(x));
      return x;
    }
    case OpType::BatchNorm:
      MC_CHECK(x.size() >= 2, Value, w, ": input ", dims_str(x), " must have channels");
      for (size_t i = 1; i < 5; ++i)
        MC_CHECK(*in[i] == Dims{x[1]}, Value, w, ": parameter ", i, " ", dims_str(*in[i]),
                 " must be [", x[1], "]");
      MC_CHECK(std::isfinite(a.epsilon) && a.epsilon >= 0, Value, w, ": bad epsilon");
      return x;
  }
  MC_THROW(Value, w, ": unknown op");
}

}  // namespace

void infer_shapes(Graph& g) {
  std::vector<const Dims*> in;
  for (NodeDesc& n : g.nodes) {
    std::string w = str("For '", op_type_name(n.op), "' (node '", n.name, "')");
    in.clear();
    for (int t : n.inputs) in.push_back(&g.tensors[t].shape);
    Dims out = infer_node(n, in, w);
    dims_numel(out, w);
    g.tensors[n.outputs[0]].shape = std::move(out);
  }
}

}  // namespace mycel::lite
