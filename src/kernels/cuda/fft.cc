// cuda_fftn: FFTN's CUDA kernel through cuFFT (loaded at first use: cufft_lib.h).
//
// The CPU kernel (kernels/cpu/fft.cc) is the reference semantics, and this follows its plan:
// the axes are transformed one after another (r2c's real last axis first, c2r's last, else in
// the order given), each pass a batched 1-d cuFFT transform of every line of its axis:
//   - gather (fft_kernels.cu): the lines copied into a contiguous [lines, len] buffer, each
//     zero-padded or truncated to the transform's input length (sizes[i], or c2r's n/2 + 1
//     bins), a real input made complex for c2c; for c2r the imaginary parts of the DC bin and
//     (even n) the Nyquist bin dropped as the CPU drops them, and for its forward direction
//     the half spectrum conjugated (the forward c2r is the inverse of the conjugated
//     spectrum, the output being real). Skipped for a complex pass over the last axis of a
//     buffer of this kernel's own with nothing to pad or truncate;
//   - cuFFT: C2C/Z2Z (forward or inverse), R2C/D2Z (forward; the inverse r2c is its
//     conjugate, the input being real), C2R/Z2D (unnormalised inverse), float32 and complex64
//     in single precision, float64 and complex128 in double;
//   - scatter: the result written to the next buffer (or the output) along the axis, scaled
//     by the norm's factor on the last pass and conjugated for the inverse r2c; for the last
//     axis cuFFT writes the destination itself and, on the last pass, a scale kernel applies
//     the factor in place (none when it is 1). A length-1 transform is the identity (a copy;
//     c2r's the real part), without cuFFT.
// Plans come from a cache per device keyed by (precision, kind, length, batch): bounded
// (kMaxPlans a device; the oldest goes when it is full, never while the stream is being
// captured, since destroying a plan frees device memory), thread-safe (a plan is used under
// its own lock: set-stream, set-work-area and exec go together). Every plan is made with
// cufftSetAutoAllocation(0): its work area comes from mycel's caching allocator at each call
// (capture pools included), and it runs on the device's compute stream (cufftSetStream), so
// a warmed-up FFTN can be captured into a CUDA Graph.
//
// Where libcufft is not found the CUDA dtype rule (cuda_table.cc) sends FFTN to host copies
// and this kernel is not called; if it is called anyway it runs the CPU kernel on copies.
#include <algorithm>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "device/cuda/cuda_device.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_lib.h"
#include "kernels/cuda/fft_kernels.h"
#include "kernels/cuda/handles.h"
#include "ops/fft_attrs.h"

namespace mycel::cuda {

namespace {

constexpr size_t kMaxPlans = 64;

enum class Kind : uint8_t { C2C, R2C, C2R };

struct Plan {
  std::mutex mu;
  cufftHandle handle = 0;
  size_t work = 0;
  ~Plan() {
    if (const CufftApi* api = cufft()) api->destroy(handle);  // errors cannot be reported here
  }
};

using PlanKey = std::tuple<int, bool, Kind, int64_t, int64_t>;  // device, dbl, kind, n, batch

struct PlanCache {
  std::mutex mu;
  std::map<PlanKey, std::shared_ptr<Plan>> plans;
  std::list<PlanKey> order;  // oldest first
};

PlanCache& plan_cache() {
  static PlanCache* c = new PlanCache;  // never destroyed: CUDA may be torn down at exit
  return *c;
}

cufftType type_of(bool dbl, Kind k) {
  switch (k) {
    case Kind::C2C:
      return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case Kind::R2C:
      return dbl ? CUFFT_D2Z : CUFFT_R2C;
    default:
      return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
}

// A plan for `batch` contiguous lines of logical length n (the basic layout: an input line
// of n, or n/2 + 1 complex bins for C2R, an output line of n, or n/2 + 1 for R2C).
std::shared_ptr<Plan> get_plan(const CufftApi& api, int index, bool dbl, Kind kind, int64_t n,
                               int64_t batch) {
  PlanCache& c = plan_cache();
  const PlanKey key{index, dbl, kind, n, batch};
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.plans.find(key);
  if (it != c.plans.end()) return it->second;
  cudaStream_t s = stream(index);  // makes the device current: the plan belongs to it
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  MC_CUDA_CHECK(cudaStreamIsCapturing(s, &capturing));
  while (c.plans.size() >= kMaxPlans && capturing == cudaStreamCaptureStatusNone) {
    c.plans.erase(c.order.front());  // destroyed once no caller holds it
    c.order.pop_front();
  }
  auto plan = std::make_shared<Plan>();
  MC_CUFFT_CHECK(api.create(&plan->handle));
  MC_CUFFT_CHECK(api.set_auto_allocation(plan->handle, 0));
  long long len = n;
  MC_CUFFT_CHECK(api.make_plan_many64(plan->handle, 1, &len, nullptr, 1, 0, nullptr, 1, 0,
                                      type_of(dbl, kind), batch, &plan->work));
  c.plans.emplace(key, plan);
  c.order.push_back(key);
  return plan;
}

// One transform of `batch` lines from in to out on device `index`'s stream.
void exec(const CufftApi& api, int index, bool dbl, Kind kind, int64_t n, int64_t batch,
          bool inverse, void* in, void* out) {
  std::shared_ptr<Plan> plan = get_plan(api, index, dbl, kind, n, batch);
  std::lock_guard<std::mutex> lock(plan->mu);
  Buffer work(index, plan->work);
  MC_CUFFT_CHECK(api.set_stream(plan->handle, stream(index)));
  if (plan->work > 0) MC_CUFFT_CHECK(api.set_work_area(plan->handle, work.data()));
  const int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  const cufftHandle h = plan->handle;
  switch (kind) {
    case Kind::C2C:
      if (dbl)
        MC_CUFFT_CHECK(api.exec_z2z(h, static_cast<cufftDoubleComplex*>(in),
                                    static_cast<cufftDoubleComplex*>(out), dir));
      else
        MC_CUFFT_CHECK(
            api.exec_c2c(h, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), dir));
      break;
    case Kind::R2C:
      if (dbl)
        MC_CUFFT_CHECK(api.exec_d2z(h, static_cast<cufftDoubleReal*>(in),
                                    static_cast<cufftDoubleComplex*>(out)));
      else
        MC_CUFFT_CHECK(
            api.exec_r2c(h, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)));
      break;
    case Kind::C2R:
      if (dbl)
        MC_CUFFT_CHECK(api.exec_z2d(h, static_cast<cufftDoubleComplex*>(in),
                                    static_cast<cufftDoubleReal*>(out)));
      else
        MC_CUFFT_CHECK(
            api.exec_c2r(h, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)));
      break;
  }
}

// One pass of fftn (see the file comment): src [outer, m, inner] (complex unless src_real)
// into dst [outer, n_out, inner] (real for c2r), scaled by `scale` when `last`.
struct Pass {
  Kind kind;
  int64_t outer, m, inner, n;
  bool inverse, last, src_real, src_ours;
  double scale;
};

void run_pass(const CufftApi& api, int index, bool dbl, const Pass& p, const void* src, void* dst) {
  cudaStream_t s = stream(index);
  const size_t real_size = dbl ? sizeof(double) : sizeof(float), cx_size = 2 * real_size;
  const int64_t lines = p.outer * p.inner;
  const int64_t in_len = p.kind == Kind::C2R ? p.n / 2 + 1 : p.n;
  const int64_t out_len = p.kind == Kind::R2C ? p.n / 2 + 1 : p.n;
  const int64_t take = std::min(p.m, in_len);
  const bool in_real = p.kind == Kind::R2C, out_real = p.kind == Kind::C2R;
  // The lines cuFFT reads: src itself, or the gathered buffer.
  const bool direct_in = p.kind == Kind::C2C && p.src_ours && p.inner == 1 && p.m == in_len;
  Buffer gathered(
      index, direct_in ? 0 : static_cast<size_t>(lines * in_len) * (in_real ? real_size : cx_size));
  void* in = const_cast<void*>(src);  // cuFFT's C2C out of place leaves its input as it is
  if (!direct_in) {
    const bool c2r = p.kind == Kind::C2R;
    const int64_t nyquist = c2r && p.n % 2 == 0 ? p.n / 2 : -1;
    launch_fft_gather(dbl, !p.src_real, !in_real, src, gathered.data(), p.outer, p.m, p.inner, take,
                      in_len, c2r && !p.inverse, c2r ? 0 : -1, nyquist, s);
    MC_CUDA_LAUNCH_CHECK();
    in = gathered.data();
  }
  // Where cuFFT writes: dst itself along the last axis, else a buffer scattered into dst.
  const bool conj_out = p.kind == Kind::R2C && p.inverse;
  const double scale = p.last ? p.scale : 1.0;
  const bool direct_out = p.inner == 1;
  const size_t out_elem = out_real ? real_size : cx_size;
  Buffer result(index, direct_out ? 0 : static_cast<size_t>(lines * out_len) * out_elem);
  void* out = direct_out ? dst : result.data();
  if (p.n == 1) {  // a length-1 transform is the identity (c2r: the real part): no plan
    launch_fft_gather(dbl, !in_real, !out_real, in, out, lines, 1, 1, 1, 1, false, -1, -1, s);
    MC_CUDA_LAUNCH_CHECK();
  } else {
    exec(api, index, dbl, p.kind, p.n, lines, p.inverse, in, out);
  }
  if (direct_out) {
    if (scale != 1.0 || conj_out) {
      launch_fft_scale(dbl, !out_real, dst, lines * out_len, scale, conj_out, s);
      MC_CUDA_LAUNCH_CHECK();
    }
  } else {
    launch_fft_scatter(dbl, !out_real, out, dst, p.outer, out_len, p.inner, scale, conj_out, s);
    MC_CUDA_LAUNCH_CHECK();
  }
}

}  // namespace

void cuda_fftn(const KernelContext& ctx) {
  const CufftApi* api = cufft();
  if (api == nullptr) {  // the dtype rule routes FFTN to the host then; a direct call too
    run_on_host(ctx);
    return;
  }
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const FftAttrs a = read_fft_attrs(ctx.attrs, static_cast<int64_t>(x.shape().size()), ctx.op.name);
  if (y.numel() == 0) return;
  const int index = ctx.device.index;
  const bool dbl = x.dtype() == DType::Float64 || x.dtype() == DType::Complex128;
  const size_t cx_size = dbl ? 2 * sizeof(double) : 2 * sizeof(float);
  const size_t last = a.axes.size() - 1;
  std::vector<size_t> order;  // as the CPU kernel's
  if (a.mode == FftMode::R2C) order.push_back(last);
  for (size_t i = 0; i < a.axes.size(); ++i)
    if (a.mode == FftMode::C2C || i != last) order.push_back(i);
  if (a.mode == FftMode::C2R) order.push_back(last);
  Shape shape = x.shape();
  const void* src = x.raw_data();
  bool src_real = !is_complex(x.dtype()), src_ours = false;
  std::unique_ptr<Buffer> cur;  // the buffer src points into after the first pass
  for (size_t pi = 0; pi < order.size(); ++pi) {
    const size_t i = order[pi];
    const size_t axis = static_cast<size_t>(a.axes[i]);
    Pass p;
    p.kind = a.mode == FftMode::C2C || i != last ? Kind::C2C
             : a.mode == FftMode::R2C            ? Kind::R2C
                                                 : Kind::C2R;
    p.n = a.sizes[i];
    p.m = shape[axis];
    p.outer = 1;
    p.inner = 1;
    for (size_t d = 0; d < axis; ++d) p.outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) p.inner *= shape[d];
    p.inverse = a.inverse;
    p.last = pi + 1 == order.size();
    p.src_real = src_real;
    p.src_ours = src_ours;
    p.scale = a.scale();
    Shape next = shape;
    next[axis] = p.kind == Kind::R2C ? p.n / 2 + 1 : p.n;
    std::unique_ptr<Buffer> dst;
    if (!p.last) dst = std::make_unique<Buffer>(index, static_cast<size_t>(numel(next)) * cx_size);
    run_pass(*api, index, dbl, p, src, p.last ? y.raw_data() : dst->data());
    if (!p.last) {
      cur = std::move(dst);
      src = cur->data();
    }
    src_real = false;
    src_ours = true;
    shape = next;
  }
}

}  // namespace mycel::cuda
