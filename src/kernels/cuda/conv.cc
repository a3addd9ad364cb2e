// CUDA kernels of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter: cuDNN's legacy
// convolution API (cross-correlation, NCHW, groups), the geometry from ops/infer_nn.h.
//
//   - padding: cuDNN pads symmetrically; where the op's pads differ (top != bottom or
//     left != right: "same" with an odd total, or an explicit 4-value pad) the input is
//     zero-padded into scratch memory and cuDNN runs unpadded; the input gradient is then
//     computed on the padded plane and cropped. The output size cuDNN derives is checked
//     against the op's.
//   - precision: float32 runs with CUDNN_FMA_MATH (no TF32, so results match the CPU's
//     within float32 tolerances) unless op_precision's conv_allow_tf32 is on
//     (tensor/op_precision.h, read at each launch): then with the math type cuDNN's
//     heuristics pick, tensor-op (TF32) algorithms included; float16/bfloat16 store 16 bits and
//     compute in float32; float64 computes in double.
//   - algorithms: cuDNN's heuristics (cudnnGet*Algorithm_v7, no timing runs), first
//     deterministic pick that runs with at most kMaxWorkspace of scratch memory from the
//     caching allocator, remembered per configuration (the heuristics cost more than a small
//     convolution); so a given shape always uses the same algorithm and results are
//     reproducible run to run. If cuDNN offers nothing, the CPU kernel runs on host copies.
#include <climits>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "device/cuda/cuda_device.h"
#include "kernels/cuda/conv_kernels.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/handles.h"
#include "ops/infer_nn.h"
#include "tensor/op_precision.h"

namespace mycel::cuda {

namespace {

constexpr size_t kMaxWorkspace = size_t{1} << 30;
constexpr int kMaxAlgos = 16;

struct Types {
  cudnnDataType_t data, compute;
  cudnnMathType_t math;
  bool f64;
  bool tf32;  // float32 may use TF32 tensor cores (conv_allow_tf32)
};

Types types_of(DType dt, const char* op) {
  switch (dt) {
    case DType::Float32:
      if (op_precision(DeviceType::CUDA).conv_allow_tf32)
        return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false, true};
      return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, false, false};
    case DType::Float16:
      return {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false, false};
    case DType::BFloat16:
      return {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false, false};
    case DType::Float64:
      return {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, true, false};
    default:
      break;
  }
  MC_CHECK(false, Type, "For '", op, "', the GPU kernel takes floating-point tensors, but got ", dt,
           ".");
  return {};
}

int to_int(int64_t v, const char* op) {
  MC_CHECK(v >= 0 && v <= INT_MAX, Value, "For '", op, "', the size ", v,
           " is too large for the GPU convolution.");
  return static_cast<int>(v);
}

// Owner of the descriptors (a base, so that they are destroyed when ConvDescs' constructor
// throws half-way).
struct DescOwner {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  DescOwner() = default;
  DescOwner(const DescOwner&) = delete;
  DescOwner& operator=(const DescOwner&) = delete;
  ~DescOwner() {
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

// The cuDNN descriptors of one convolution; x is the (possibly explicitly padded) input.
struct ConvDescs : DescOwner {
  Types t{};

  // hp, wp: the input plane cuDNN sees; pad_h/pad_w its symmetric pads.
  ConvDescs(const ConvGeom& g, DType dt, const char* op, int64_t hp, int64_t wp, int64_t pad_h,
            int64_t pad_w)
      : t(types_of(dt, op)) {
    MC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    MC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    MC_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    MC_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    MC_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, t.data, to_int(g.n, op),
                                              to_int(g.c, op), to_int(hp, op), to_int(wp, op)));
    MC_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, t.data, to_int(g.n, op),
                                              to_int(g.o, op), to_int(g.ho, op), to_int(g.wo, op)));
    MC_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, t.data, CUDNN_TENSOR_NCHW, to_int(g.o, op),
                                              to_int(g.c / g.group, op), to_int(g.kh, op),
                                              to_int(g.kw, op)));
    MC_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        conv, to_int(pad_h, op), to_int(pad_w, op), to_int(g.sh, op), to_int(g.sw, op),
        to_int(g.dh, op), to_int(g.dw, op), CUDNN_CROSS_CORRELATION, t.compute));
    MC_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, to_int(g.group, op)));
    MC_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, t.math));
    int n, c, h, wd;
    MC_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &wd));
    MC_ASSERT(n == g.n && c == g.o && h == g.ho && wd == g.wo, "For '", op,
              "', cuDNN's output shape (", n, ", ", c, ", ", h, ", ", wd,
              ") differs from the op's ", g.y_shape());
  }
};

bool not_supported(cudnnStatus_t st) {
  return CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED ||
         CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_BAD_PARAM;
}

// The algorithm and math type chosen for each configuration (direction, device, dtype, the
// TF32 switch and every size cuDNN sees), so that the heuristics run once per configuration.
using AlgoKey = std::vector<int64_t>;
std::mutex g_algo_mu;
std::map<AlgoKey, std::pair<int, int>> g_algos;

AlgoKey algo_key(int dir, int dev, const ConvDescs& d, DType dt, const ConvGeom& g, int64_t hp,
                 int64_t wp, int64_t pad_h, int64_t pad_w) {
  return {dir,
          dev,
          static_cast<int64_t>(dt),
          d.t.tf32 ? 1 : 0,
          g.n,
          g.c,
          hp,
          wp,
          g.o,
          g.kh,
          g.kw,
          g.ho,
          g.wo,
          pad_h,
          pad_w,
          g.sh,
          g.sw,
          g.dh,
          g.dw,
          g.group};
}

// Runs one algorithm; false (nothing queued) when cuDNN declines it or it needs more than
// kMaxWorkspace.
template <class Algo, class WsFn, class RunFn>
bool try_algo(int dev, ConvDescs& d, Algo algo, cudnnMathType_t math, WsFn ws_size, RunFn run,
              const char* what) {
  MC_CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv, math));
  size_t ws = 0;
  if (ws_size(algo, &ws) != CUDNN_STATUS_SUCCESS || ws > kMaxWorkspace) return false;
  Buffer buf(dev, ws);
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* one = d.t.f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* zero = d.t.f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  cudnnStatus_t st = run(algo, buf.data(), ws, one, zero);
  if (st == CUDNN_STATUS_SUCCESS) return true;
  if (!not_supported(st)) check_cudnn(st, what);
  return false;
}

// FFT and Winograd algorithms trade accuracy for speed: their float32 results can miss the
// CPU's by more than the kernel cases allow, so the heuristic list is read without them.
bool approximate(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool approximate(cudnnConvolutionBwdDataAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
         a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
         a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}
bool approximate(cudnnConvolutionBwdFilterAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

// Runs the configuration's remembered algorithm, or else the first usable one of cuDNN's
// heuristic list (get(perf, &count)): status success, deterministic, no TF32 for float32
// (unless the TF32 switch is on),
// workspace within bounds, and cuDNN accepts the call. False when none does (nothing was
// queued).
template <class Perf, class GetFn, class WsFn, class RunFn>
bool run_conv(int dev, ConvDescs& d, const AlgoKey& key, GetFn get, WsFn ws_size, RunFn run,
              const char* what) {
  using Algo = decltype(std::declval<Perf>().algo);
  std::pair<int, int> known{-1, 0};
  {
    std::lock_guard<std::mutex> lock(g_algo_mu);
    auto it = g_algos.find(key);
    if (it != g_algos.end()) known = it->second;
  }
  if (known.first >= 0 &&
      try_algo(dev, d, static_cast<Algo>(known.first), static_cast<cudnnMathType_t>(known.second),
               ws_size, run, what)) {
    return true;
  }
  Perf perf[kMaxAlgos];
  int count = 0;
  cudnnStatus_t st = get(perf, &count);
  if (not_supported(st)) return false;
  check_cudnn(st, "cudnnGetConvolution*Algorithm_v7");
  for (int i = 0; i < count; ++i) {
    const Perf& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS || p.determinism != CUDNN_DETERMINISTIC ||
        approximate(p.algo))
      continue;
    cudnnMathType_t math = p.mathType;
    if (d.t.data == CUDNN_DATA_FLOAT && !d.t.tf32) {
      if (math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
      math = CUDNN_FMA_MATH;
    }
    if (try_algo(dev, d, p.algo, math, ws_size, run, what)) {
      std::lock_guard<std::mutex> lock(g_algo_mu);
      g_algos[key] = {static_cast<int>(p.algo), static_cast<int>(math)};
      return true;
    }
  }
  return false;
}

bool symmetric(const ConvGeom& g) { return g.pt == g.pb && g.pl == g.pr; }

// The image side of a convolution as cuDNN sees it. cuDNN pads symmetrically only: with
// symmetric padding it sees the image itself (h x w planes, padding pt, pl); otherwise a
// scratch copy of the image padded explicitly (hp x wp planes, zeros around, padding 0 left
// to cuDNN), filled from the image before the forward and filter passes and cropped into the
// image gradient after the data pass.
struct PaddedImage {
  bool sym;
  int64_t hp, wp;        // the planes cuDNN sees
  int64_t pad_h, pad_w;  // the padding cuDNN is given
  int64_t planes;        // n * c
  int es;                // element bytes
  Buffer buf;            // the padded copy (empty when sym)
  PaddedImage(const ConvGeom& g, int dev, int elem_bytes)
      : sym(symmetric(g)),
        hp(sym ? g.h : g.h + g.pt + g.pb),
        wp(sym ? g.w : g.w + g.pl + g.pr),
        pad_h(sym ? g.pt : 0),
        pad_w(sym ? g.pl : 0),
        planes(g.n * g.c),
        es(elem_bytes),
        buf(dev, sym ? 0 : static_cast<size_t>(planes * hp * wp * elem_bytes)) {}

  // The image cuDNN reads: x, or the scratch copy filled with x padded.
  const void* from(const void* x, const ConvGeom& g, cudaStream_t s) {
    if (sym) return x;
    launch_pad_planes(buf.data(), x, es, planes, hp, wp, g.h, g.w, -g.pt, -g.pl, s);
    MC_CUDA_LAUNCH_CHECK();
    return buf.data();
  }
  // Where cuDNN writes an image gradient: dx, or the scratch copy (then crop_into(dx)).
  void* target(void* dx) { return sym ? dx : buf.data(); }
  void crop_into(void* dx, const ConvGeom& g, cudaStream_t s) {
    if (sym) return;
    launch_pad_planes(dx, buf.data(), es, planes, g.h, g.w, hp, wp, g.pt, g.pl, s);
    MC_CUDA_LAUNCH_CHECK();
  }
};

// True when nothing is to be computed: the output is empty, or an input is (the output is
// then zeros).
bool trivial(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  if (out.numel() == 0) return true;
  if (ctx.in[0].numel() == 0 || ctx.in[1].numel() == 0) {
    MC_CUDA_CHECK(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), stream(ctx.device.index)));
    return true;
  }
  return false;
}

}  // namespace

void cuda_conv2d(const KernelContext& ctx) {
  if (trivial(ctx)) return;
  const ConvGeom g = conv2d_geometry(ctx);
  const Tensor &x = ctx.in[0], &w = ctx.in[1], &y = ctx.out[0];
  const int dev = ctx.device.index;
  PaddedImage px(g, dev, static_cast<int>(x.itemsize()));
  const void* xd = px.from(x.raw_data(), g, stream(dev));
  ConvDescs d(g, x.dtype(), ctx.op.name, px.hp, px.wp, px.pad_h, px.pad_w);
  cudnnHandle_t h = cudnn(dev);
  bool ok = run_conv<cudnnConvolutionFwdAlgoPerf_t>(
      dev, d, algo_key(0, dev, d, x.dtype(), g, px.hp, px.wp, px.pad_h, px.pad_w),
      [&](cudnnConvolutionFwdAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, kMaxAlgos, count,
                                                      perf);
      },
      [&](cudnnConvolutionFwdAlgo_t a, size_t* ws) {
        return cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, a, ws);
      },
      [&](cudnnConvolutionFwdAlgo_t a, void* ws, size_t wsn, const void* one, const void* zero) {
        return cudnnConvolutionForward(h, one, d.x, xd, d.w, w.raw_data(), d.conv, a, ws, wsn, zero,
                                       d.y, y.raw_data());
      },
      "cudnnConvolutionForward");
  if (!ok) run_on_host(ctx);
}

void cuda_conv2d_backprop_input(const KernelContext& ctx) {
  if (trivial(ctx)) return;
  const ConvGeom g = conv2d_backprop_input_geometry(ctx);
  const Tensor &dy = ctx.in[0], &w = ctx.in[1], &dx = ctx.out[0];
  const int dev = ctx.device.index;
  PaddedImage pdx(g, dev, static_cast<int>(dx.itemsize()));
  void* dxd = pdx.target(dx.raw_data());
  ConvDescs d(g, dx.dtype(), ctx.op.name, pdx.hp, pdx.wp, pdx.pad_h, pdx.pad_w);
  cudnnHandle_t h = cudnn(dev);
  bool ok = run_conv<cudnnConvolutionBwdDataAlgoPerf_t>(
      dev, d, algo_key(1, dev, d, dx.dtype(), g, pdx.hp, pdx.wp, pdx.pad_h, pdx.pad_w),
      [&](cudnnConvolutionBwdDataAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, kMaxAlgos,
                                                           count, perf);
      },
      [&](cudnnConvolutionBwdDataAlgo_t a, size_t* ws) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, a, ws);
      },
      [&](cudnnConvolutionBwdDataAlgo_t a, void* ws, size_t wsn, const void* one,
          const void* zero) {
        return cudnnConvolutionBackwardData(h, one, d.w, w.raw_data(), d.y, dy.raw_data(), d.conv,
                                            a, ws, wsn, zero, d.x, dxd);
      },
      "cudnnConvolutionBackwardData");
  if (!ok) {
    run_on_host(ctx);
    return;
  }
  pdx.crop_into(dx.raw_data(), g, stream(dev));
}

void cuda_conv2d_backprop_filter(const KernelContext& ctx) {
  if (trivial(ctx)) return;
  const ConvGeom g = conv2d_backprop_filter_geometry(ctx);
  const Tensor &dy = ctx.in[0], &x = ctx.in[1], &dw = ctx.out[0];
  const int dev = ctx.device.index;
  PaddedImage px(g, dev, static_cast<int>(x.itemsize()));
  const void* xd = px.from(x.raw_data(), g, stream(dev));
  ConvDescs d(g, x.dtype(), ctx.op.name, px.hp, px.wp, px.pad_h, px.pad_w);
  cudnnHandle_t h = cudnn(dev);
  bool ok = run_conv<cudnnConvolutionBwdFilterAlgoPerf_t>(
      dev, d, algo_key(2, dev, d, x.dtype(), g, px.hp, px.wp, px.pad_h, px.pad_w),
      [&](cudnnConvolutionBwdFilterAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, kMaxAlgos,
                                                             count, perf);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t a, size_t* ws) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, a, ws);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t a, void* ws, size_t wsn, const void* one,
          const void* zero) {
        return cudnnConvolutionBackwardFilter(h, one, d.x, xd, d.y, dy.raw_data(), d.conv, a, ws,
                                              wsn, zero, d.w, dw.raw_data());
      },
      "cudnnConvolutionBackwardFilter");
  if (!ok) run_on_host(ctx);
}

}  // namespace mycel::cuda
