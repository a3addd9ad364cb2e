#include "parallel/rules.h"

#include <algorithm>
#include <sstream>

#include "base/error.h"

namespace mycel::parallel {

std::string strategy_str(const Strategy& s) {
  std::ostringstream o;
  o << "(";
  for (size_t i = 0; i < s.size(); ++i) {
    o << (i ? ", " : "") << "(";
    for (size_t j = 0; j < s[i].size(); ++j) o << (j ? ", " : "") << s[i][j];
    o << (s[i].size() == 1 ? ",)" : ")");
  }
  o << (s.size() == 1 ? ",)" : ")");
  return o.str();
}

RuleFamily rule_family(OpId op) {
  switch (op) {
    case OpId::MatMul:
    case OpId::BatchMatMul:
      return RuleFamily::MatMul;
    case OpId::Neg:
    case OpId::Abs:
    case OpId::Square:
    case OpId::ReLU:
    case OpId::ReLU6:
    case OpId::Exp:
    case OpId::Log:
    case OpId::Log1p:
    case OpId::Sqrt:
    case OpId::Rsqrt:
    case OpId::Reciprocal:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tanh:
    case OpId::Sigmoid:
    case OpId::Erf:
    case OpId::SiLU:
    case OpId::Softplus:
    case OpId::ACos:
    case OpId::Asin:
    case OpId::Atan:
    case OpId::Acosh:
    case OpId::Asinh:
    case OpId::Atanh:
    case OpId::Sinh:
    case OpId::Cosh:
    case OpId::Tan:
    case OpId::Expm1:
    case OpId::Erfc:
    case OpId::Floor:
    case OpId::Ceil:
    case OpId::Round:
    case OpId::Rint:
    case OpId::GeLU:
      return RuleFamily::Unary;
    case OpId::Add:
    case OpId::Sub:
    case OpId::Mul:
    case OpId::Div:
    case OpId::Pow:
    case OpId::ReluGrad:
    case OpId::Maximum:
    case OpId::Minimum:
      return RuleFamily::Binary;
    case OpId::BiasAdd:
      return RuleFamily::BiasAdd;
    case OpId::ReduceSum:
    case OpId::ReduceMean:
      return RuleFamily::Reduce;
    case OpId::Softmax:
    case OpId::LogSoftmax:
      return RuleFamily::Softmax;
    case OpId::Reshape:
    case OpId::Flatten:
      return RuleFamily::Reshape;
    case OpId::Transpose:
      return RuleFamily::Transpose;
    case OpId::LayerNorm:
      return RuleFamily::LayerNorm;
    case OpId::Gather:
      return RuleFamily::Gather;
    case OpId::SparseSoftmaxCrossEntropyWithLogits:
    case OpId::SoftmaxCrossEntropyWithLogits:
      return RuleFamily::SoftmaxLoss;
    case OpId::Conv2D:
      return RuleFamily::Conv2D;
    case OpId::MaxPool:
    case OpId::AvgPool:
      return RuleFamily::Pool;
    default:
      return RuleFamily::None;
  }
}

namespace {

const char* op_name(OpId op) { return op_def(op).name; }

void check_family(const OpCall& call) {
  MC_CHECK(rule_family(call.op) != RuleFamily::None, Value, "For '", op_name(call.op),
           "', semi-automatic parallelism has no parallel rule yet: it cannot be sharded",
           call.where);
}

}  // namespace

namespace rules {

std::string describe(const OpCall& call, const Strategy& s) {
  std::ostringstream o;
  o << "For '" << op_name(call.op) << "', the strategy " << strategy_str(s)
    << " and the input shapes ";
  for (size_t i = 0; i < call.shapes.size(); ++i) o << (i ? ", " : "") << shape_str(call.shapes[i]);
  return o.str();
}

std::string describe(const OpCall& call, std::span<const TensorLayout> in) {
  std::ostringstream o;
  o << "For '" << op_name(call.op) << "', the input layouts ";
  for (size_t i = 0; i < in.size(); ++i) o << (i ? "; " : "") << in[i].to_string();
  return o.str();
}

void check_rows(const OpCall& call, const Strategy& s) {
  MC_CHECK(s.size() == call.shapes.size(), Value, describe(call, s), ": the strategy needs one row",
           " per tensor input (", call.shapes.size(), "), but has ", s.size(), call.where);
  for (size_t i = 0; i < s.size(); ++i) {
    const Shape& shape = call.shapes[i];
    MC_CHECK(s[i].size() == shape.size(), Value, describe(call, s), ": row ", i,
             " needs one entry per dimension of input ", i, " (", shape.size(), "), but has ",
             s[i].size(), call.where);
    for (size_t d = 0; d < shape.size(); ++d) {
      MC_CHECK(s[i][d] >= 1, Value, describe(call, s), ": the slice counts must be at least 1",
               call.where);
      MC_CHECK(shape[d] % s[i][d] == 0, Value, describe(call, s), ": dimension ", d, " of input ",
               i, " (", shape[d], ") cannot be divided into ", s[i][d], " slices", call.where);
    }
  }
}

LoopSpace identity_loops(const OpCall& call, const Strategy& s) {
  check_rows(call, s);
  LoopSpace l;
  l.splits = s[0];
  l.in_dims.emplace_back();
  for (size_t d = 0; d < s[0].size(); ++d) l.in_dims[0].push_back(static_cast<int>(d));
  return l;
}

}  // namespace rules

namespace {

// Each family's two parts (rules.h), indexed by RuleFamily.
struct FamilyRules {
  LoopSpace (*loops)(const OpCall&, const Strategy&);
  std::vector<TensorLayout> (*layouts)(const OpCall&, std::span<const TensorLayout>);
};

// The layouts of a one-output family.
template <TensorLayout (*F)(const OpCall&, std::span<const TensorLayout>)>
std::vector<TensorLayout> one(const OpCall& call, std::span<const TensorLayout> in) {
  return {F(call, in)};
}

const FamilyRules& family_rules(const OpCall& call) {
  using namespace rules;
  static constexpr FamilyRules kRules[] = {
      {nullptr, nullptr},                            // None
      {matmul_loops, one<matmul_layout>},            // MatMul
      {elementwise_loops, one<elementwise_layout>},  // Unary
      {elementwise_loops, one<elementwise_layout>},  // Binary
      {bias_add_loops, one<bias_add_layout>},        // BiasAdd
      {reduce_loops, one<reduce_layout>},            // Reduce
      {softmax_loops, one<softmax_layout>},          // Softmax
      {reshape_loops, one<reshape_layout>},          // Reshape
      {transpose_loops, one<transpose_layout>},      // Transpose
      {layer_norm_loops, layer_norm_layouts},        // LayerNorm
      {gather_loops, one<gather_layout>},            // Gather
      {softmax_loss_loops, softmax_loss_layouts},    // SoftmaxLoss
      {conv2d_loops, one<conv2d_layout>},            // Conv2D
      {pool_loops, one<pool_layout>},                // Pool
  };
  check_family(call);
  return kRules[static_cast<size_t>(rule_family(call.op))];
}

}  // namespace

LoopSpace loop_space(const OpCall& call, const Strategy& s) {
  return family_rules(call).loops(call, s);
}

Shape device_matrix(const OpCall& call, const LoopSpace& loops, int64_t devices) {
  int64_t used = 1;
  for (int64_t k : loops.splits) used *= k;
  MC_CHECK(used <= devices && devices % used == 0, Value, "For '", op_name(call.op),
           "', the strategy cuts the computation into ", used, " slices, which ",
           used > devices ? "is more than" : "does not divide", " the ", devices,
           " devices of the job", call.where);
  Shape m{devices / used};
  m.insert(m.end(), loops.splits.begin(), loops.splits.end());
  return m;
}

DeviceMesh common_mesh(const std::vector<Shape>& matrices, int64_t devices) {
  // Cumulative products from the left: a matrix coarsens the mesh when each of them is one
  // of the mesh's.
  std::vector<int64_t> cuts{1, devices};
  for (const Shape& m : matrices) {
    int64_t c = 1;
    for (int64_t k : m) cuts.push_back(c *= k);
    MC_CHECK(c == devices, Value, "common_mesh: the device matrix ", shape_str(m), " has ", c,
             " devices, not ", devices);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  Shape axes;
  for (size_t i = 1; i < cuts.size(); ++i) {
    if (cuts[i] % cuts[i - 1] != 0) {
      std::string a, b;
      for (const Shape& m : matrices) {
        int64_t c = 1;
        for (int64_t k : m) {
          c *= k;
          if (c == cuts[i - 1]) a = shape_str(m);
          if (c == cuts[i]) b = shape_str(m);
        }
      }
      MC_CHECK(false, Value, "The device matrices ", a, " and ", b, " of the sharded operators do",
               " not nest into one device mesh (", cuts[i - 1], " devices and ", cuts[i],
               " devices are leading blocks of them); choose strategies whose device matrices",
               " refine one another");
    }
    axes.push_back(cuts[i] / cuts[i - 1]);
  }
  if (axes.empty()) axes.push_back(1);
  return DeviceMesh(axes);
}

std::vector<Axes> matrix_axes(const Shape& matrix, const DeviceMesh& mesh) {
  std::vector<Axes> out;
  int next = 0;
  for (int64_t k : matrix) {
    Axes axes;
    int64_t p = 1;
    while (p < k && next < mesh.ndim()) {
      p *= mesh.shape()[static_cast<size_t>(next)];
      axes.push_back(next++);
    }
    MC_CHECK(p == k, Value, "The device matrix ", shape_str(matrix), " does not lie on ",
             mesh.to_string(), ": its axis of ", k, " devices covers no whole mesh axes");
    out.push_back(std::move(axes));
  }
  while (next < mesh.ndim()) {
    MC_CHECK(mesh.shape()[static_cast<size_t>(next)] == 1, Value, "The device matrix ",
             shape_str(matrix), " does not cover ", mesh.to_string());
    ++next;
  }
  return out;
}

std::vector<TensorLayout> strategy_layouts(const OpCall& call, const Strategy& s,
                                           const DeviceMesh& mesh) {
  LoopSpace loops = loop_space(call, s);
  Shape matrix = device_matrix(call, loops, mesh.size());
  std::vector<Axes> axes = matrix_axes(matrix, mesh);
  std::vector<TensorLayout> out;
  for (size_t i = 0; i < call.shapes.size(); ++i) {
    TensorMap map;
    for (int loop : loops.in_dims[i]) {
      // Matrix axis 0 is the repeat axis; loop dimension j is axis j + 1.
      map.push_back(loop < 0 ? Axes{} : axes[static_cast<size_t>(loop) + 1]);
    }
    out.emplace_back(mesh, call.shapes[i], std::move(map));
  }
  return out;
}

std::vector<TensorLayout> infer_layouts(const OpCall& call, std::span<const TensorLayout> in) {
  MC_ASSERT(in.size() == call.shapes.size(), "infer_layouts: ", in.size(), " layouts for ",
            call.shapes.size(), " inputs");
  for (const TensorLayout& l : in) {
    MC_CHECK(l.partial().empty(), Value, rules::describe(call, in),
             ": an input holds partial sums, which must be reduced first", call.where);
  }
  return family_rules(call).layouts(call, in);
}

TensorLayout infer_layout(const OpCall& call, std::span<const TensorLayout> in) {
  std::vector<TensorLayout> out = infer_layouts(call, in);
  MC_ASSERT(out.size() == 1, "infer_layout: '", op_name(call.op), "' has ", out.size(), " outputs");
  return out[0];
}

TensorLayout output_layout(const OpCall& call, const TensorLayout& got,
                           const std::vector<int64_t>& row) {
  std::ostringstream what;
  what << "For '" << op_name(call.op) << "', the out_strategy (" << shape_str(row)
       << ") and the output layout " << got.to_string();
  MC_CHECK(static_cast<int>(row.size()) == got.ndim(), Value, what.str(),
           ": it needs one entry per output dimension", call.where);
  const DeviceMesh& mesh = got.mesh();
  Axes pool = got.partial();
  std::vector<bool> used(static_cast<size_t>(mesh.ndim()), false);
  for (const Axes& a : got.map()) {
    for (int x : a) used[static_cast<size_t>(x)] = true;
  }
  for (int x : got.partial()) used[static_cast<size_t>(x)] = true;
  for (int x = 0; x < mesh.ndim(); ++x) {
    if (!used[static_cast<size_t>(x)]) pool.push_back(x);
  }
  TensorMap map = got.map();
  for (int d = 0; d < got.ndim(); ++d) {
    const int64_t have = got.splits(d), want = row[static_cast<size_t>(d)];
    MC_CHECK(want >= 1 && want % have == 0 && got.shape()[static_cast<size_t>(d)] % want == 0,
             Value, what.str(), ": dimension ", d, " is split in ", have,
             " and cannot be cut into ", want, " slices", call.where);
    int64_t need = want / have;
    while (need > 1 && !pool.empty() && need % mesh.shape()[static_cast<size_t>(pool[0])] == 0) {
      need /= mesh.shape()[static_cast<size_t>(pool[0])];
      map[static_cast<size_t>(d)].push_back(pool[0]);
      pool.erase(pool.begin());
    }
    MC_CHECK(need == 1, Value, what.str(), ": no mesh axes are left to cut dimension ", d, " into ",
             want, " slices", call.where);
  }
  return TensorLayout(mesh, got.shape(), std::move(map));
}

Attrs local_attrs(const OpCall& call, const TensorLayout& out) {
  Attrs a = call.attrs;
  if (call.op == OpId::Reshape) a.set("shape", out.slice_shape());
  if (call.op == OpId::Conv2D) a.set("out_channel", out.slice_shape()[1]);
  return a;
}

double local_scale(const OpCall& call, std::span<const TensorLayout> in) {
  if (call.op == OpId::SparseSoftmaxCrossEntropyWithLogits)
    return 1.0 / static_cast<double>(in[0].splits(0));
  if (call.op != OpId::ReduceMean) return 1.0;
  int64_t g = 1;
  for (int d : rules::reduce_axes(call)) g *= in[0].splits(d);
  return 1.0 / static_cast<double>(g);
}

}  // namespace mycel::parallel
