// The optimised lite kernels on oneDNN: Conv2D as a convolution primitive made once per
// shape (layouts chosen for a direct kernel, weights reordered at load, bias and activation
// fused as post-ops), FullyConnected and MatMul through dnnl_sgemm with the bias and activation
// applied in one pass over the result (a bf16 FullyConnected: oneDNN's inner product). Small
// problems run on the calling thread (SerialBelow), as mycel's own kernels do.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/dnnl_util.h"
#include "lite/kernels.h"

namespace mycel::lite {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

bool append_act(dnnl::post_ops& po, Act a) {
  switch (a) {
    case Act::None:
      return false;
    case Act::ReLU:
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      break;
    case Act::ReLU6:
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f);
      break;
    case Act::Sigmoid:
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_logistic, 0.f, 0.f);
      break;
    case Act::Tanh:
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_tanh, 0.f, 0.f);
      break;
  }
  return true;
}

memory::format_tag arena_tag(Layout l) {
  return l == Layout::Nhwc ? Tag::nhwc : l == Layout::Blocked16 ? Tag::nChw16c : Tag::nchw;
}

// The convolution of one node at one shape. Layouts: x and y lie in the arena NCHW or, where
// lite/layout.h chose it, NHWC or nChw16c. oneDNN's im2col + GEMM fallback is slow on small
// convolutions, so, as mycel's own conv kernel does, the primitive is made with
//   0. (x or y NHWC) x and y NHWC, the weights in the layout oneDNN picks,
//   1. x as it lies, weights and y in the layout oneDNN picks,
//   2. x, weights and y all in the layouts it picks,
//   3. x and y as they lie, weights plain (OIHW),
// taking the first that is a direct kernel rather than "gemm" or "ref"; x and y are reordered
// from and to the arena's layouts where the chosen one differs (the weights once, at load).
struct DnnlConv : NodeKernel {
  dnnl::convolution_forward prim;
  memory src_user, dst_user, src_m, dst_m, wei_user, wei_m, bias_m, sum_user;
  std::optional<dnnl::reorder> src_reorder, dst_reorder, sum_reorder;
  std::unordered_map<int, memory> args;
  bool reorder_each_run = false;
  bool bf16 = false;  // x and the weights in bfloat16, y and the accumulation float32
  bool bias = false;  // input 2 is the bias
  bool sum = false;   // the last input is added (OpAttrs::sum, lite/fuse.h)
  int64_t work = 0;

  DnnlConv(const Graph& g, const NodeDesc& node, bool bf16_) : NodeKernel(g, node), bf16(bf16_) {
    const Dims& w = in[1];
    try {
      make(g);
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'Conv2D' (node '", n.name, "'): oneDNN: ", e.what());
    }
    work = numel(out) * w[1] * w[2] * w[3];
  }

  void make(const Graph& g) {
    const OpAttrs& a = n.a;
    const Dims &x = in[0], &w = in[1];
    const int64_t G = a.group;
    sum = a.sum;
    bias = in.size() - (sum ? 1 : 0) == 3;
    memory::dims xd{x[0], x[1], x[2], x[3]}, yd{out[0], out[1], out[2], out[3]};
    memory::dims wd =
        G > 1 ? memory::dims{G, w[0] / G, w[1], w[2], w[3]} : memory::dims{w[0], w[1], w[2], w[3]};
    const Tag wtag = G > 1 ? Tag::goihw : Tag::oihw;
    const auto xt = bf16 ? memory::data_type::bf16 : kF32;
    const Tag xtag = arena_tag(g.tensors[n.inputs[0]].layout);
    const Tag ytag = arena_tag(g.tensors[n.outputs[0]].layout);
    memory::desc src_md(xd, kF32, xtag), dst_md(yd, kF32, ytag);
    memory::desc bias_md({w[0]}, kF32, Tag::x);
    memory::dims strides{a.stride[0], a.stride[1]}, dil{a.dilation[0] - 1, a.dilation[1] - 1};
    memory::dims pl{a.pad[0], a.pad[2]}, pr{a.pad[1], a.pad[3]};
    dnnl::post_ops po;
    dnnl::primitive_attr attr;
    if (sum) po.append_sum(1.f);  // y += conv(x) before the activation
    if (append_act(po, a.act) || sum) attr.set_post_ops(po);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    std::vector<int> attempts{0, 1, 2};
    if (xtag == Tag::nhwc || ytag == Tag::nhwc) attempts.insert(attempts.begin(), -1);
    if (xtag == Tag::nChw16c || ytag == Tag::nChw16c) attempts.insert(attempts.begin(), -3);
    if (winograd_fits(g, n, bf16)) attempts.insert(attempts.begin(), -2);
    for (int attempt : attempts) {
      const bool any_x = attempt == 1 || attempt == -2;
      memory::desc s(xd, xt, attempt == -1 ? Tag::nhwc : any_x ? Tag::any : xtag);
      memory::desc k(wd, xt, attempt == 2 ? wtag : Tag::any);
      memory::desc y = attempt == 2 || attempt == -3 ? dst_md
                       : attempt == -1               ? memory::desc(yd, kF32, Tag::nhwc)
                                                     : memory::desc(yd, kF32, Tag::any);
      const auto alg = attempt == -2 ? dnnl::algorithm::convolution_winograd
                                     : dnnl::algorithm::convolution_direct;
      try {
        auto d = bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, s,
                                                        k, bias_md, y, strides, dil, pl, pr)
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, s,
                                                        k, y, strides, dil, pl, pr);
        pd.emplace(d, attr, dnnl_engine());
      } catch (const dnnl::error&) {
        if (attempt == -2) continue;  // no Winograd kernel for this CPU or shape
        throw;
      }
      const std::string impl = pd->impl_info_str();
      if (attempt == -2 ||
          (impl.find("gemm") == std::string::npos && impl.find("ref") == std::string::npos))
        break;
    }
    prim = dnnl::convolution_forward(*pd);
    src_user = memory(src_md, dnnl_engine(), DNNL_MEMORY_NONE);
    dst_user = memory(dst_md, dnnl_engine(), DNNL_MEMORY_NONE);
    src_m = src_user, dst_m = dst_user;
    if (pd->src_desc() != src_md) {
      src_m = memory(pd->src_desc(), dnnl_engine());
      src_reorder.emplace(src_user, src_m);
    }
    if (pd->dst_desc() != dst_md) {
      dst_m = memory(pd->dst_desc(), dnnl_engine());
      dst_reorder.emplace(dst_m, dst_user);
      if (sum) {  // the added input, laid out as y in the arena, goes into oneDNN's y first
        sum_user = memory(dst_md, dnnl_engine(), DNNL_MEMORY_NONE);
        sum_reorder.emplace(sum_user, dst_m);
      }
    }
    wei_user = memory({wd, kF32, wtag}, dnnl_engine(), DNNL_MEMORY_NONE);
    wei_m = memory(pd->weights_desc(), dnnl_engine());
    args = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}};
    if (bias) {
      bias_m = memory(bias_md, dnnl_engine(), DNNL_MEMORY_NONE);
      args.emplace(DNNL_ARG_BIAS, bias_m);
    }
    const TensorDesc& wt = g.tensors[n.inputs[1]];
    reorder_each_run = !wt.constant;
    if (!reorder_each_run) reorder_weights(wt.f32());
  }

  void reorder_weights(const float* w) {
    wei_user.set_data_handle(const_cast<float*>(w));
    dnnl::reorder(wei_user, wei_m).execute(dnnl_stream(), wei_user, wei_m);
    dnnl_stream().wait();
  }

  void run(const float* const* src, float* dst) override {
    SerialBelow serial(work);
    if (reorder_each_run) reorder_weights(src[1]);
    src_user.set_data_handle(const_cast<float*>(src[0]));
    dst_user.set_data_handle(dst);
    if (bias) bias_m.set_data_handle(const_cast<float*>(src[2]));
    dnnl::stream& s = dnnl_stream();
    if (src_reorder) src_reorder->execute(s, src_user, src_m);
    if (sum) {
      const float* add = src[in.size() - 1];
      if (sum_reorder) {
        sum_user.set_data_handle(const_cast<float*>(add));
        sum_reorder->execute(s, sum_user, dst_m);
      } else if (add != dst) {  // not given its buffer by the arena (lite/arena.h)
        std::memcpy(dst, add, static_cast<size_t>(numel(out)) * sizeof(float));
      }
    }
    prim.execute(s, args);
    if (dst_reorder) dst_reorder->execute(s, dst_m, dst_user);
    s.wait();
  }
};

// FullyConnected (x W^T + b, then the activation) and MatMul (op(A) op(B)).
struct DnnlGemm : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const GemmShape s = gemm_shape(*this);
    const bool fc = s.fc;
    const int64_t M = s.M, N = s.N, K = s.K;
    SerialBelow serial(M * N * K);
    dnnl_status_t st = dnnl_sgemm(s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', M, N, K, 1.f, src[0],
                                  s.ta ? M : K, src[1], s.tb ? K : N, 0.f, dst, N);
    MC_CHECK(st == dnnl_success, Runtime, "For '", op_type_name(n.op), "' (node '", n.name,
             "'): dnnl_sgemm failed (", static_cast<int>(st), ")");
    if (!fc) return;
    const float* b = in.size() == 3 ? src[2] : nullptr;
    const Act act = n.a.act;
    for (int64_t i = 0; i < M; ++i) {
      float* row = dst + i * N;
      if (b)
        for (int64_t j = 0; j < N; ++j) row[j] += b[j];
      apply_act(row, N, act);
    }
  }
};

// FullyConnected in bfloat16 (Context::precision = BFloat16): oneDNN's inner product with x
// and the weights in bf16 (x converted each run, the weights once at load), float32
// accumulation, bias and output, the activation a post-op. Needs a constant weight.
struct DnnlBf16Fc : NodeKernel {
  dnnl::inner_product_forward prim;
  memory src_user, src_m, wei_m, bias_m, dst_m;
  dnnl::reorder src_reorder;
  std::unordered_map<int, memory> args;
  int64_t work = 0;

  DnnlBf16Fc(const Graph& g, const NodeDesc& node) : NodeKernel(g, node) {
    try {
      make(g);
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'FullyConnected' (node '", n.name, "'): oneDNN: ", e.what());
    }
    work = out[0] * out[1] * in[0][1];
  }

  void make(const Graph& g) {
    const memory::dim M = out[0], N = out[1], K = in[0][1];
    const auto bf = memory::data_type::bf16;
    memory::desc x_user({M, K}, kF32, Tag::nc), y({M, N}, kF32, Tag::nc), b({N}, kF32, Tag::x);
    memory::desc x({M, K}, bf, Tag::any), w({N, K}, bf, Tag::any);
    dnnl::post_ops po;
    dnnl::primitive_attr attr;
    if (append_act(po, n.a.act)) attr.set_post_ops(po);
    const bool bias = in.size() == 3;
    auto d = bias
                 ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, x, w, b, y)
                 : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, x, w, y);
    dnnl::inner_product_forward::primitive_desc pd(d, attr, dnnl_engine());
    prim = dnnl::inner_product_forward(pd);
    src_user = memory(x_user, dnnl_engine(), DNNL_MEMORY_NONE);
    src_m = memory(pd.src_desc(), dnnl_engine());
    src_reorder = dnnl::reorder(src_user, src_m);
    dst_m = memory(y, dnnl_engine(), DNNL_MEMORY_NONE);
    memory wei_user({{N, K}, kF32, Tag::oi}, dnnl_engine(),
                    const_cast<float*>(g.tensors[n.inputs[1]].f32()));
    wei_m = memory(pd.weights_desc(), dnnl_engine());
    dnnl::reorder(wei_user, wei_m).execute(dnnl_stream(), wei_user, wei_m);
    dnnl_stream().wait();
    args = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}};
    if (bias) {
      bias_m = memory(b, dnnl_engine(), DNNL_MEMORY_NONE);
      args.emplace(DNNL_ARG_BIAS, bias_m);
    }
  }

  void run(const float* const* src, float* dst) override {
    SerialBelow serial(work);
    src_user.set_data_handle(const_cast<float*>(src[0]));
    dst_m.set_data_handle(dst);
    if (in.size() == 3) bias_m.set_data_handle(const_cast<float*>(src[2]));
    dnnl::stream& s = dnnl_stream();
    src_reorder.execute(s, src_user, src_m);
    prim.execute(s, args);
    s.wait();
  }
};

}  // namespace

dnnl::engine& dnnl_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

bool winograd_fits(const Graph& g, const NodeDesc& n, bool bf16) {
  if (n.op != OpType::Conv2D || bf16 || !dnnl_can_run(g, n)) return false;
  const OpAttrs& a = n.a;
  const Dims &w = g.tensors[n.inputs[1]].shape, &y = g.tensors[n.outputs[0]].shape;
  const TensorDesc& x = g.tensors[n.inputs[0]];
  return x.dtype == DType::Float32 && !x.constant &&
         g.tensors[n.inputs[1]].dtype == DType::Float32 && a.group == 1 && w[2] == 3 && w[3] == 3 &&
         a.stride[0] == 1 && a.stride[1] == 1 && a.dilation[0] == 1 && a.dilation[1] == 1 &&
         y[0] * y[2] * y[3] >= kWinogradPixels;
}

bool dnnl_can_run(const Graph& g, const NodeDesc& n) {
  // oneDNN rejects empty problems: the reference handles them (it writes nothing or the bias).
  for (int t : n.inputs)
    if (numel(g.tensors[t].shape) == 0) return false;
  if (numel(g.tensors[n.outputs[0]].shape) == 0) return false;
  if (n.op != OpType::Conv2D) return true;
  // Windows dilated or padded far beyond any real network's (a damaged file's): oneDNN takes
  // seconds to make such a primitive; the reference's work is bounded by the output.
  const OpAttrs& a = n.a;
  const Dims& w = g.tensors[n.inputs[1]].shape;
  const int64_t extent = std::max((w[2] - 1) * a.dilation[0], (w[3] - 1) * a.dilation[1]) + 1;
  return extent <= kMaxDnnlWindow && *std::max_element(a.pad, a.pad + 4) <= kMaxDnnlWindow;
}

std::unique_ptr<Kernel> make_dnnl_kernel(const Graph& g, const NodeDesc& n, bool bf16) {
  if (!dnnl_can_run(g, n)) return make_ref_kernel(g, n);
  if (n.op == OpType::Conv2D) return std::make_unique<DnnlConv>(g, n, bf16);
  if (bf16 && n.op == OpType::FullyConnected && g.tensors[n.inputs[1]].constant)
    return std::make_unique<DnnlBf16Fc>(g, n);
  return std::make_unique<DnnlGemm>(g, n);
}

}  // namespace mycel::lite
