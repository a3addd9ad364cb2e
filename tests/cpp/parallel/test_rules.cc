// Parallel rules (parallel/rules.h) on simulated meshes: for random shapes and strategies of
// each family, every device runs the op's kernel on its slices of random float64 inputs
// (the input layouts the strategy gives), the output is redistributed to replicated with
// plan_redistribution on a SimMesh, and every device must then hold the serial op's result
// on the whole tensors. Then the strategies that do not fit, each a ValueError naming the op.
#include <gtest/gtest.h>

#include <random>

#include "ops/op_table.h"
#include "parallel/redistribution.h"
#include "parallel/rules.h"
#include "parallel/sim_mesh.h"
#include "parallel_test_util.h"
#include "runtime/eager.h"

namespace mycel::parallel {
namespace {

using Rng = std::mt19937_64;

int64_t pick(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A random divisor of n.
int64_t divisor(Rng& rng, int64_t n) {
  std::vector<int64_t> ds;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) ds.push_back(d);
  }
  return ds[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(ds.size()) - 1))];
}

// Splits for `count` loop dimensions whose product divides `devices` (the rest repeats).
std::vector<int64_t> random_splits(Rng& rng, size_t count, int64_t devices) {
  std::vector<int64_t> s;
  int64_t left = devices;
  for (size_t i = 0; i < count; ++i) {
    s.push_back(divisor(rng, left));
    left /= s.back();
  }
  std::shuffle(s.begin(), s.end(), rng);
  return s;
}

// A tensor of `shape` holding v, as float64 or (indices) int64.
Tensor to_tensor(const std::vector<double>& v, const Shape& shape, bool ints = false) {
  mycel::Shape s(shape.begin(), shape.end());
  if (ints) {
    Tensor t = Tensor::empty(s, DType::Int64);
    for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(v[i]);
    return t;
  }
  Tensor t = Tensor::empty(s, DType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

struct Case {
  OpId op;
  Attrs given;
  std::vector<Shape> shapes;
  Strategy strategy;
  int64_t devices;
  // Per input: 0 for float64 values in [-1, 1), else int64 indices in [0, bound).
  std::vector<int64_t> index_bound = {};
};

std::string what(const Case& c) {
  OpCall call{c.op, c.given, c.shapes, ""};
  return rules::describe(call, c.strategy) + " on " + std::to_string(c.devices) + " devices";
}

// Random whole inputs of `c`.
std::vector<std::vector<double>> random_inputs(const Case& c, Rng& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::vector<double>> fulls;
  for (size_t j = 0; j < c.shapes.size(); ++j) {
    int64_t n = 1;
    for (int64_t d : c.shapes[j]) n *= d;
    int64_t bound = j < c.index_bound.size() ? c.index_bound[j] : 0;
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = bound ? static_cast<double>(pick(rng, 0, bound - 1)) : u(rng);
    fulls.push_back(std::move(v));
  }
  return fulls;
}

// Runs `c` per device, redistributes each output to replicated and compares with the serial
// op's.
void check_case(const Case& c, Rng& rng) {
  SCOPED_TRACE(what(c));
  const OpDef& def = op_def(c.op);
  Attrs attrs = make_attrs(def, c.given);
  OpCall call{c.op, attrs, c.shapes, ""};
  LoopSpace loops = loop_space(call, c.strategy);
  DeviceMesh mesh = common_mesh({device_matrix(call, loops, c.devices)}, c.devices);
  std::vector<TensorLayout> in = strategy_layouts(call, c.strategy, mesh);
  std::vector<TensorLayout> out = infer_layouts(call, in);
  double scale = local_scale(call, in);
  auto ints = [&](size_t j) { return j < c.index_bound.size() && c.index_bound[j] > 0; };

  std::vector<std::vector<double>> fulls = random_inputs(c, rng);
  std::vector<Tensor> whole;
  for (size_t j = 0; j < fulls.size(); ++j)
    whole.push_back(to_tensor(fulls[j], c.shapes[j], ints(j)));
  std::vector<std::vector<std::vector<double>>> buffers(out.size());  // per output, device
  for (int64_t i = 0; i < mesh.size(); ++i) {
    int64_t rank = mesh.rank_at(i);
    std::vector<Tensor> local;
    for (size_t j = 0; j < in.size(); ++j) {
      local.push_back(to_tensor(slice_of(in[j], fulls[j], rank), in[j].slice_shape(), ints(j)));
    }
    TensorList r = run_op(def, local, local_attrs(call, out[0]));
    ASSERT_EQ(r.size(), out.size());
    for (size_t k = 0; k < out.size(); ++k) {
      ASSERT_EQ(Shape(r[k].shape().begin(), r[k].shape().end()), out[k].slice_shape())
          << "output " << k << " " << out[k].to_string();
      std::vector<double> b = values(r[k]);
      for (double& x : b) x *= scale;
      buffers[k].push_back(std::move(b));
    }
  }
  TensorList serial = run_op(def, whole, attrs);
  for (size_t k = 0; k < out.size(); ++k) {
    SimMesh sim = SimMesh::from_buffers(mesh, out[k].slice_shape(), std::move(buffers[k]));
    TensorLayout whole_out(mesh, out[k].shape(), TensorMap(out[k].shape().size()));
    sim.run(plan_redistribution(out[k], whole_out, 8));
    std::vector<double> want = values(serial[k]);
    for (int64_t i = 0; i < mesh.size(); ++i) {
      const std::vector<double>& got = sim.buffer(mesh.rank_at(i));
      ASSERT_EQ(got.size(), want.size());
      for (size_t e = 0; e < got.size(); ++e) {
        ASSERT_NEAR(got[e], want[e], 1e-12) << "output " << k << " device " << i << " element " << e
                                            << " layout " << out[k].to_string();
      }
    }
  }
}

const int64_t kDevices[] = {1, 2, 3, 4, 6, 8};

int64_t random_devices(Rng& rng) { return kDevices[pick(rng, 0, 5)]; }

// A tensor of 1 to max_nd dimensions on a random device count: (devices, splits, shape), each
// dimension a multiple (1 to max_mult) of its split.
struct Dims {
  int64_t n;
  std::vector<int64_t> splits;
  Shape shape;
};
Dims random_dims(Rng& rng, int64_t max_nd, int64_t max_mult) {
  Dims d;
  d.n = random_devices(rng);
  d.splits = random_splits(rng, static_cast<size_t>(pick(rng, 1, max_nd)), d.n);
  for (int64_t k : d.splits) d.shape.push_back(k * pick(rng, 1, max_mult));
  return d;
}

Case random_matmul(Rng& rng) {
  int64_t n = random_devices(rng);
  auto sp = random_splits(rng, 3, n);  // m, k, n
  bool ta = pick(rng, 0, 1), tb = pick(rng, 0, 1);
  int64_t m = sp[0] * pick(rng, 1, 3), k = sp[1] * pick(rng, 1, 3), nn = sp[2] * pick(rng, 1, 3);
  Attrs a;
  a.set("transpose_a", ta);
  a.set("transpose_b", tb);
  return {OpId::MatMul,
          a,
          {ta ? Shape{k, m} : Shape{m, k}, tb ? Shape{nn, k} : Shape{k, nn}},
          {ta ? std::vector<int64_t>{sp[1], sp[0]} : std::vector<int64_t>{sp[0], sp[1]},
           tb ? std::vector<int64_t>{sp[2], sp[1]} : std::vector<int64_t>{sp[1], sp[2]}},
          n};
}

Case random_batch_matmul(Rng& rng) {
  int64_t n = random_devices(rng);
  auto sp = random_splits(rng, 4, n);  // batch, m, k, n
  int64_t b = sp[0] * pick(rng, 1, 2), m = sp[1] * pick(rng, 1, 2), k = sp[2] * pick(rng, 1, 2),
          nn = sp[3] * pick(rng, 1, 2);
  Attrs a;
  bool tb = pick(rng, 0, 1);
  a.set("transpose_b", tb);
  Shape x2 = tb ? Shape{nn, k} : Shape{k, nn};
  std::vector<int64_t> s2 =
      tb ? std::vector<int64_t>{sp[3], sp[2]} : std::vector<int64_t>{sp[2], sp[3]};
  switch (pick(rng, 0, 2)) {
    case 0:  // both batched
      x2.insert(x2.begin(), b);
      s2.insert(s2.begin(), sp[0]);
      break;
    case 1:  // x2 broadcasts its batch dimension of 1
      x2.insert(x2.begin(), 1);
      s2.insert(s2.begin(), 1);
      break;
    default:  // x2 has no batch dimension
      break;
  }
  return {OpId::BatchMatMul, a, {{b, m, k}, x2}, {{sp[0], sp[1], sp[2]}, s2}, n};
}

Case random_binary(Rng& rng) {
  const OpId ops[] = {OpId::Add, OpId::Sub, OpId::Mul, OpId::Maximum};
  auto [n, sp, out] = random_dims(rng, 3, 3);
  const size_t nd = sp.size();
  std::vector<Shape> shapes;
  Strategy st;
  for (int i = 0; i < 2; ++i) {
    size_t rank = static_cast<size_t>(pick(rng, 1, static_cast<int64_t>(nd)));
    if (i == 0) rank = nd;  // one input spans the output
    Shape s;
    std::vector<int64_t> row;
    for (size_t j = nd - rank; j < nd; ++j) {
      bool bc = i == 1 && pick(rng, 0, 3) == 0;  // a broadcast dimension of 1
      s.push_back(bc ? 1 : out[j]);
      row.push_back(bc ? 1 : sp[j]);
    }
    shapes.push_back(s);
    st.push_back(row);
  }
  if (pick(rng, 0, 1)) {
    std::swap(shapes[0], shapes[1]);
    std::swap(st[0], st[1]);
  }
  return {ops[pick(rng, 0, 3)], {}, shapes, st, n};
}

Case random_unary(Rng& rng) {
  const OpId ops[] = {OpId::Tanh, OpId::ReLU, OpId::Exp, OpId::Neg, OpId::GeLU};
  auto [n, sp, s] = random_dims(rng, 3, 3);
  return {ops[pick(rng, 0, 4)], {}, {s}, {sp}, n};
}

Case random_bias_add(Rng& rng) {
  int64_t n = random_devices(rng);
  bool nhwc = pick(rng, 0, 1);
  auto sp = random_splits(rng, 3, n);
  Shape x;
  for (int64_t k : sp) x.push_back(k * pick(rng, 1, 2));
  size_t c = nhwc ? 2 : 1;
  Attrs a;
  a.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
  return {OpId::BiasAdd, a, {x, {x[c]}}, {sp, {sp[c]}}, n};
}

Case random_reduce(Rng& rng) {
  auto [n, sp, s] = random_dims(rng, 3, 3);
  const size_t nd = sp.size();
  std::vector<int64_t> axes;
  for (size_t d = 0; d < nd; ++d) {
    if (pick(rng, 0, 1))
      axes.push_back(pick(rng, 0, 1) ? static_cast<int64_t>(d)
                                     : static_cast<int64_t>(d) - static_cast<int64_t>(nd));
  }
  Attrs a;
  a.set("axis", axes);
  a.set("keep_dims", static_cast<bool>(pick(rng, 0, 1)));
  return {pick(rng, 0, 1) ? OpId::ReduceSum : OpId::ReduceMean, a, {s}, {sp}, n};
}

Case random_softmax(Rng& rng) {
  int64_t n = random_devices(rng);
  size_t nd = static_cast<size_t>(pick(rng, 1, 3));
  auto sp = random_splits(rng, nd, n);
  int64_t axis = pick(rng, 0, static_cast<int64_t>(nd) - 1);
  sp[static_cast<size_t>(axis)] = 1;
  Shape s;
  for (int64_t k : sp) s.push_back(k * pick(rng, 1, 3));
  Attrs a;
  bool log = pick(rng, 0, 1);
  if (log)
    a.set("axis", axis - static_cast<int64_t>(nd));
  else
    a.set("axis", std::vector<int64_t>{axis});
  return {log ? OpId::LogSoftmax : OpId::Softmax, a, {s}, {sp}, n};
}

Case random_transpose(Rng& rng) {
  auto [n, sp, s] = random_dims(rng, 4, 2);
  const size_t nd = sp.size();
  std::vector<int64_t> perm(nd);
  for (size_t i = 0; i < nd; ++i) perm[i] = static_cast<int64_t>(i);
  std::shuffle(perm.begin(), perm.end(), rng);
  Attrs a;
  a.set("perm", perm);
  return {OpId::Transpose, a, {s}, {sp}, n};
}

// Merges or divides dimensions, splitting only the leading dimension of each run.
Case random_reshape(Rng& rng) {
  int64_t n = random_devices(rng);
  Shape from, to;
  std::vector<int64_t> row;
  int64_t left = n;
  for (int run = 0; run < pick(rng, 1, 3); ++run) {
    int64_t k = divisor(rng, left);
    left /= k;
    int64_t a = k * pick(rng, 1, 2), b = pick(rng, 1, 3);
    if (pick(rng, 0, 1)) {  // [a, b] -> [a*b]
      from.insert(from.end(), {a, b});
      row.insert(row.end(), {k, 1});
      to.push_back(a * b);
    } else {  // [a*b] -> [a, b]
      from.push_back(a * b);
      row.push_back(k);
      to.insert(to.end(), {a, b});
    }
  }
  Attrs a;
  a.set("shape", std::vector<int64_t>(to.begin(), to.end()));
  return {OpId::Reshape, a, {from}, {row}, n};
}

// x [lead..., norm...] split on the leading dimensions only; gamma and beta from
// begin_params_axis (at most begin_norm_axis), split like x there.
Case random_layer_norm(Rng& rng) {
  int64_t n = random_devices(rng);
  size_t nd = static_cast<size_t>(pick(rng, 2, 4));
  int64_t norm = pick(rng, 1, static_cast<int64_t>(nd) - 1);
  int64_t params = pick(rng, 0, norm);
  auto sp = random_splits(rng, static_cast<size_t>(norm), n);
  Shape x;
  std::vector<int64_t> row;
  for (size_t d = 0; d < nd; ++d) {
    int64_t k = d < sp.size() ? sp[d] : 1;
    x.push_back(k * pick(rng, 1, 3));
    row.push_back(k);
  }
  Shape p(x.begin() + params, x.end());
  std::vector<int64_t> prow(row.begin() + params, row.end());
  Attrs a;
  a.set("begin_norm_axis", pick(rng, 0, 1) ? norm : norm - static_cast<int64_t>(nd));
  a.set("begin_params_axis", params);
  return {OpId::LayerNorm, a, {x, p, p}, {row, prow, prow}, n};
}

// params [..., vocab, ...] whole on the gathered axis; indices of 1 or 2 dimensions.
Case random_gather(Rng& rng) {
  int64_t n = random_devices(rng);
  size_t pn = static_cast<size_t>(pick(rng, 1, 3)), in = static_cast<size_t>(pick(rng, 1, 2));
  int64_t axis = pick(rng, 0, static_cast<int64_t>(pn) - 1);
  auto sp = random_splits(rng, pn - 1 + in, n);  // the output's dimensions
  Shape p, ix;
  std::vector<int64_t> prow, irow;
  size_t o = 0;
  for (size_t d = 0; d < pn; ++d) {
    if (static_cast<int64_t>(d) == axis) {
      for (size_t j = 0; j < in; ++j, ++o) {
        ix.push_back(sp[o] * pick(rng, 1, 3));
        irow.push_back(sp[o]);
      }
      p.push_back(pick(rng, 1, 5));
      prow.push_back(1);
      continue;
    }
    p.push_back(sp[o] * pick(rng, 1, 2));
    prow.push_back(sp[o++]);
  }
  Attrs a;
  a.set("axis", pick(rng, 0, 1) ? axis : axis - static_cast<int64_t>(pn));
  return {OpId::Gather, a, {p, ix}, {prow, irow}, n, {0, p[static_cast<size_t>(axis)]}};
}

// logits [N, C] split on N; labels sparse [N] (the mean loss, or its gradient) or dense
// [N, C] (loss and dlogits).
Case random_softmax_loss(Rng& rng) {
  int64_t n = random_devices(rng);
  int64_t k = divisor(rng, n), rows = k * pick(rng, 1, 3), classes = pick(rng, 2, 5);
  if (pick(rng, 0, 1)) {
    Attrs a;
    a.set("is_grad", static_cast<bool>(pick(rng, 0, 1)));
    return {OpId::SparseSoftmaxCrossEntropyWithLogits,
            a,
            {{rows, classes}, {rows}},
            {{k, 1}, {k}},
            n,
            {0, classes}};
  }
  return {OpId::SoftmaxCrossEntropyWithLogits,
          {},
          {{rows, classes}, {rows, classes}},
          {{k, 1}, {k, 1}},
          n};
}

// x [N, C, H, W] split on N and C, w [O, C, kh, kw] on O and C; stride, padding, dilation
// random; sometimes groups (then C and O whole).
Case random_conv2d(Rng& rng) {
  int64_t n = random_devices(rng);
  bool grouped = pick(rng, 0, 3) == 0;
  auto sp = grouped ? std::vector<int64_t>{divisor(rng, n), 1, 1} : random_splits(rng, 3, n);
  int64_t g = grouped ? 2 : 1;
  int64_t batch = sp[0] * pick(rng, 1, 2), o = sp[1] * g * pick(rng, 1, 2),
          c = sp[2] * g * pick(rng, 1, 2), k = pick(rng, 1, 3);
  Attrs a;
  a.set("out_channel", o);
  a.set("kernel_size", std::vector<int64_t>{k, k});
  a.set("group", g);
  a.set("stride", std::vector<int64_t>{pick(rng, 1, 2)});
  if (pick(rng, 0, 1)) {
    a.set("pad_mode", std::string("pad"));
    a.set("pad", std::vector<int64_t>{pick(rng, 0, 1)});
  }
  return {OpId::Conv2D,
          a,
          {{batch, c, 5, 4}, {o, c / g, k, k}},
          {{sp[0], sp[2], 1, 1}, {sp[1], sp[2], 1, 1}},
          n};
}

Case random_pool(Rng& rng) {
  int64_t n = random_devices(rng);
  auto sp = random_splits(rng, 2, n);
  Attrs a;
  a.set("kernel_size", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{pick(rng, 1, 2), pick(rng, 1, 2)});
  return {pick(rng, 0, 1) ? OpId::MaxPool : OpId::AvgPool,
          a,
          {{sp[0] * pick(rng, 1, 2), sp[1] * pick(rng, 1, 2), 4, 5}},
          {{sp[0], sp[1], 1, 1}},
          n};
}

// [N, C, H, W] -> [N, C*H*W], N and C split (C leads the merged run).
Case random_flatten(Rng& rng) {
  int64_t n = random_devices(rng);
  auto sp = random_splits(rng, 2, n);
  return {OpId::Flatten,
          {},
          {{sp[0] * pick(rng, 1, 2), sp[1] * pick(rng, 1, 2), 2, 3}},
          {{sp[0], sp[1], 1, 1}},
          n};
}

TEST(ParallelRules, RandomStrategiesMatchTheSerialOp) {
  Case (*families[])(Rng&) = {
      random_matmul, random_batch_matmul, random_binary,    random_unary,   random_bias_add,
      random_reduce, random_softmax,      random_transpose, random_reshape, random_layer_norm,
      random_gather, random_softmax_loss, random_conv2d,    random_pool,    random_flatten};
  Rng rng(20261126);
  for (auto family : families) {
    for (int i = 0; i < 40; ++i) {
      Case c = family(rng);
      check_case(c, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ParallelRules, MegatronMlpLayouts) {
  // Column split, then row split, on 4 devices: the hidden activation is split by columns,
  // the second MatMul leaves partial sums over the one mesh axis.
  Attrs a = make_attrs(op_def(OpId::MatMul), {});
  DeviceMesh mesh({4});
  OpCall col{OpId::MatMul, a, {{8, 16}, {16, 32}}, ""};
  auto in1 = strategy_layouts(col, {{1, 1}, {1, 4}}, mesh);
  TensorLayout h = infer_layout(col, in1);
  EXPECT_EQ(h, TensorLayout(mesh, {8, 32}, {{}, {0}}));
  OpCall row{OpId::MatMul, a, {{8, 32}, {32, 4}}, ""};
  auto in2 = strategy_layouts(row, {{1, 4}, {4, 1}}, mesh);
  EXPECT_EQ(in2[0], h);
  EXPECT_EQ(infer_layout(row, in2), TensorLayout(mesh, {8, 4}, {{}, {}}, {0}));
  // Device matrices [1,1,1,4] and [1,1,4,1] meet on the mesh [4]; [2,4] and [4,2] on 8
  // devices meet on [2,2,2]; [2,3] and [3,2] do not nest.
  EXPECT_EQ(common_mesh({{1, 1, 1, 4}, {1, 1, 4, 1}}, 4).shape(), (Shape{4}));
  EXPECT_EQ(common_mesh({{2, 4}, {4, 2}}, 8).shape(), (Shape{2, 2, 2}));
  std::string m = value_error([] { common_mesh({{2, 3}, {3, 2}}, 6); });
  EXPECT_NE(m.find("[2,3] and [3,2]"), std::string::npos) << m;
}

TEST(ParallelRules, OutStrategyLayouts) {
  // MatMul split on K over 4 devices: partial sums; out_strategy (4, 1) reduce-scatters them
  // by rows, (2, 2) on a 2 x 2 mesh takes both axes, (1, 1) sums them.
  Attrs a = make_attrs(op_def(OpId::MatMul), {});
  OpCall row{OpId::MatMul, a, {{8, 32}, {32, 4}}, " (net.py:3)"};
  DeviceMesh m4({4}), m22({2, 2});
  TensorLayout got(m4, {8, 4}, {{}, {}}, {0});
  EXPECT_EQ(output_layout(row, got, {4, 1}), TensorLayout(m4, {8, 4}, {{0}, {}}));
  EXPECT_EQ(output_layout(row, got, {1, 1}), TensorLayout(m4, {8, 4}, {{}, {}}));
  TensorLayout got22(m22, {8, 4}, {{}, {}}, {0, 1});
  EXPECT_EQ(output_layout(row, got22, {2, 2}), TensorLayout(m22, {8, 4}, {{0}, {1}}));
  // A split dimension keeps its axes; a free axis splits locally.
  TensorLayout split(m22, {8, 4}, {{0}, {}});
  EXPECT_EQ(output_layout(row, split, {4, 1}), TensorLayout(m22, {8, 4}, {{0, 1}, {}}));
  std::string e = value_error([&] { output_layout(row, got, {3, 1}); });
  EXPECT_NE(e.find("dimension 0 is split in 1 and cannot be cut into 3 slices (net.py:3)"),
            std::string::npos)
      << e;
  e = value_error([&] { output_layout(row, got, {8, 1}); });
  EXPECT_NE(e.find("no mesh axes are left"), std::string::npos) << e;
  e = value_error([&] { output_layout(row, split, {1, 1}); });
  EXPECT_NE(e.find("cannot be cut into 1 slices"), std::string::npos) << e;
}

TEST(ParallelRules, StrategiesThatDoNotFitAreValueErrors) {
  Attrs mm = make_attrs(op_def(OpId::MatMul), {});
  OpCall call{OpId::MatMul, mm, {{6, 16}, {16, 4}}, " (net.py:12)"};
  DeviceMesh m4({4});
  std::string e = value_error([&] { strategy_layouts(call, {{4, 1}, {1, 1}}, m4); });
  EXPECT_NE(e.find("For 'MatMul', the strategy ((4, 1), (1, 1)) and the input shapes [6,16], "
                   "[16,4]: dimension 0 of input 0 (6) cannot be divided into 4 slices "
                   "(net.py:12)"),
            std::string::npos)
      << e;
  e = value_error([&] { strategy_layouts(call, {{1, 2}, {4, 1}}, DeviceMesh({8})); });
  EXPECT_NE(e.find("the reduced dimension K must be split alike"), std::string::npos) << e;
  e = value_error([&] { strategy_layouts(call, {{2, 2}, {2, 2}}, m4); });
  EXPECT_NE(e.find("8 slices, which is more than the 4 devices"), std::string::npos) << e;
  e = value_error([&] { strategy_layouts(call, {{3, 1}, {1, 1}}, m4); });
  EXPECT_NE(e.find("3 slices, which does not divide the 4 devices"), std::string::npos) << e;
  e = value_error([&] { strategy_layouts(call, {{1, 1}}, m4); });
  EXPECT_NE(e.find("one row per tensor input (2), but has 1"), std::string::npos) << e;

  Attrs sm = make_attrs(op_def(OpId::Softmax), {});
  OpCall soft{OpId::Softmax, sm, {{4, 8}}, ""};
  e = value_error([&] { strategy_layouts(soft, {{1, 4}}, m4); });
  EXPECT_NE(e.find("the softmax axis 1 must not be split"), std::string::npos) << e;
  e = value_error([&] { infer_layout(soft, {{TensorLayout(m4, {4, 8}, {{}, {0}})}}); });
  EXPECT_NE(e.find("For 'Softmax'"), std::string::npos) << e;

  Attrs add = make_attrs(op_def(OpId::Add), {});
  OpCall bc{OpId::Add, add, {{4, 8}, {1, 8}}, ""};
  e = value_error([&] { strategy_layouts(bc, {{1, 4}, {4, 1}}, m4); });
  EXPECT_NE(e.find("dimension 0 of input 1 (1) cannot be divided into 4 slices"), std::string::npos)
      << e;
  e = value_error([&] { strategy_layouts(bc, {{2, 2}, {1, 4}}, m4); });
  EXPECT_NE(e.find("share output dimension 1 but cut it into 2 and 4"), std::string::npos) << e;

  Attrs rs;
  rs.set("shape", std::vector<int64_t>{4, 2, 4});
  rs = make_attrs(op_def(OpId::Reshape), rs);
  OpCall reshape{OpId::Reshape, rs, {{4, 8}}, ""};
  e = value_error([&] { infer_layout(reshape, {{TensorLayout(m4, {4, 8}, {{}, {0}})}}); });
  EXPECT_NE(e.find("would cut across split dimension 1"), std::string::npos) << e;
  // The leading dimension of the divided run stays whole: fine.
  EXPECT_EQ(infer_layout(reshape, {{TensorLayout(m4, {4, 8}, {{0}, {}})}}),
            TensorLayout(m4, {4, 2, 4}, {{0}, {}, {}}));

  Attrs ln = make_attrs(op_def(OpId::LayerNorm), {});
  OpCall norm{OpId::LayerNorm, ln, {{4, 8}, {8}, {8}}, ""};
  e = value_error([&] { strategy_layouts(norm, {{1, 4}, {4}, {4}}, m4); });
  EXPECT_NE(e.find("dimension 1 of input 0 is normalised (begin_norm_axis) and cannot be split"),
            std::string::npos)
      << e;
  Attrs ga = make_attrs(op_def(OpId::Gather), {});
  OpCall gather{OpId::Gather, ga, {{16, 8}, {4}}, ""};
  e = value_error([&] { strategy_layouts(gather, {{4, 1}, {1}}, m4); });
  EXPECT_NE(e.find("dimension 0 of input 0 is the gathered axis and cannot be split"),
            std::string::npos)
      << e;
  DeviceMesh m22({2, 2});
  EXPECT_EQ(strategy_layouts(gather, {{1, 2}, {2}}, m22)[1], TensorLayout(m22, {4}, {{0}}));
  Attrs ce = make_attrs(op_def(OpId::SparseSoftmaxCrossEntropyWithLogits), {});
  OpCall loss{OpId::SparseSoftmaxCrossEntropyWithLogits, ce, {{8, 4}, {8}}, ""};
  e = value_error([&] { strategy_layouts(loss, {{2, 2}, {2}}, m4); });
  EXPECT_NE(e.find("dimension 1 of input 0 holds the classes and cannot be split"),
            std::string::npos)
      << e;
  EXPECT_EQ(infer_layout(loss, strategy_layouts(loss, {{4, 1}, {4}}, m4)),
            TensorLayout(m4, {}, {}, {0}));

  Attrs cv;
  cv.set("out_channel", int64_t{4});
  cv.set("kernel_size", std::vector<int64_t>{3, 3});
  cv = make_attrs(op_def(OpId::Conv2D), cv);
  OpCall conv{OpId::Conv2D, cv, {{2, 4, 8, 8}, {4, 4, 3, 3}}, ""};
  e = value_error([&] { strategy_layouts(conv, {{1, 1, 4, 1}, {1, 1, 1, 1}}, m4); });
  EXPECT_NE(e.find("dimension 2 of input 0 is spatial"), std::string::npos) << e;
  EXPECT_EQ(infer_layout(conv, strategy_layouts(conv, {{1, 4, 1, 1}, {1, 4, 1, 1}}, m4)),
            TensorLayout(m4, {2, 4, 6, 6}, {{}, {}, {}, {}}, {0}));

  Attrs none = make_attrs(op_def(OpId::ReduceMax), {});
  OpCall cast{OpId::ReduceMax, none, {{4}}, ""};
  e = value_error([&] { strategy_layouts(cast, {{4}}, m4); });
  EXPECT_NE(e.find("has no parallel rule"), std::string::npos) << e;
}

}  // namespace
}  // namespace mycel::parallel
