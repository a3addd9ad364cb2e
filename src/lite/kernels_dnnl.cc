// The optimised lite kernels on oneDNN: Conv2D as a convolution primitive made once per
// shape (weights reordered at load to the layout oneDNN picks, bias and activation fused as
// post-ops), FullyConnected and MatMul through dnnl_sgemm with the bias and activation applied
// in one pass over the result. Small problems run on the calling thread (SerialBelow), as
// mycel's own kernels do.
#include <oneapi/dnnl/dnnl.hpp>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/kernels.h"

namespace mycel::lite {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

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

struct DnnlConv : NodeKernel {
  dnnl::convolution_forward prim;
  memory src_m, dst_m, wei_user, wei_m, bias_m;
  bool reorder_each_run = false;
  int64_t work = 0;

  DnnlConv(const Graph& g, const NodeDesc& node) : NodeKernel(g, node) {
    const OpAttrs& a = n.a;
    const Dims &x = in[0], &w = in[1];
    const int64_t G = a.group;
    memory::dims wd =
        G > 1 ? memory::dims{G, w[0] / G, w[1], w[2], w[3]} : memory::dims{w[0], w[1], w[2], w[3]};
    memory::desc src_md({x[0], x[1], x[2], x[3]}, kF32, Tag::nchw);
    memory::desc dst_md({out[0], out[1], out[2], out[3]}, kF32, Tag::nchw);
    memory::desc wei_any(wd, kF32, Tag::any), bias_md({w[0]}, kF32, Tag::x);
    memory::dims strides{a.stride[0], a.stride[1]}, dil{a.dilation[0] - 1, a.dilation[1] - 1};
    memory::dims pl{a.pad[0], a.pad[2]}, pr{a.pad[1], a.pad[3]};
    const bool bias = in.size() == 3;
    try {
      auto d = bias ? dnnl::convolution_forward::desc(
                          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                          src_md, wei_any, bias_md, dst_md, strides, dil, pl, pr)
                    : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct, src_md,
                                                      wei_any, dst_md, strides, dil, pl, pr);
      dnnl::post_ops po;
      dnnl::primitive_attr attr;
      if (append_act(po, a.act)) attr.set_post_ops(po);
      dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
      prim = dnnl::convolution_forward(pd);
      src_m = memory(src_md, engine(), DNNL_MEMORY_NONE);
      dst_m = memory(dst_md, engine(), DNNL_MEMORY_NONE);
      wei_user = memory({wd, kF32, G > 1 ? Tag::goihw : Tag::oihw}, engine(), DNNL_MEMORY_NONE);
      wei_m = memory(pd.weights_desc(), engine());
      if (bias) bias_m = memory(bias_md, engine(), DNNL_MEMORY_NONE);
      const TensorDesc& wt = g.tensors[n.inputs[1]];
      reorder_each_run = !wt.constant;
      if (!reorder_each_run) reorder_weights(wt.f32());
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'Conv2D' (node '", n.name, "'): oneDNN: ", e.what());
    }
    work = numel(out) * w[1] * w[2] * w[3];
  }

  void reorder_weights(const float* w) {
    wei_user.set_data_handle(const_cast<float*>(w));
    dnnl::stream s(engine());
    dnnl::reorder(wei_user, wei_m).execute(s, wei_user, wei_m);
    s.wait();
  }

  void run(const float* const* src, float* dst) override {
    SerialBelow serial(work);
    if (reorder_each_run) reorder_weights(src[1]);
    src_m.set_data_handle(const_cast<float*>(src[0]));
    dst_m.set_data_handle(dst);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}};
    if (in.size() == 3) {
      bias_m.set_data_handle(const_cast<float*>(src[2]));
      args.emplace(DNNL_ARG_BIAS, bias_m);
    }
    dnnl::stream s(engine());
    prim.execute(s, args);
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

}  // namespace

std::unique_ptr<Kernel> make_dnnl_kernel(const Graph& g, const NodeDesc& n) {
  // oneDNN rejects empty problems: the reference handles them (it writes nothing or the bias).
  for (int t : n.inputs)
    if (numel(g.tensors[t].shape) == 0) return make_ref_kernel(g, n);
  if (numel(g.tensors[n.outputs[0]].shape) == 0) return make_ref_kernel(g, n);
  if (n.op == OpType::Conv2D) return std::make_unique<DnnlConv>(g, n);
  return std::make_unique<DnnlGemm>(g, n);
}

}  // namespace mycel::lite
