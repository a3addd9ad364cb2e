// CUDA kernels of the random family, and Dropout (nn family; its mask is a random draw): the
// counters are reserved on the host exactly as the
// CPU kernels reserve them (ceil(n / P) from next_random_stream, so the global generator
// advances the same whichever device runs the op), then random.cu computes the elements.
#include "kernels/cuda/random.h"

#include "device/cuda/cuda_capture.h"
#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cpu/random_format.h"
#include "kernels/cuda/cuda_kernels.h"
#include "tensor/random.h"

namespace mycel::cuda {

namespace {

// `count` counters from the op's generator (op_random_stream); while the device captures a
// graph, the draw is recorded instead and reserved by each replay (cuda_capture.h).
PhiloxSeed draw(const KernelContext& ctx, std::string_view seed, std::string_view seed2,
                uint64_t count) {
  const CapturedDraw d{ctx.attrs.get_int(seed), ctx.attrs.get_int(seed2), count,
                       ctx.attrs.has(kRandomStreamAttr) ? ctx.attrs.get_int(kRandomStreamAttr) : 0};
  if (const uint64_t* dev = capture_random_draw(ctx.device.index, d)) return {0, 0, dev};
  const RandomStream st = op_random_stream(ctx, seed, seed2, count);
  return {st.key, st.offset, nullptr};
}

PhiloxSeed reserve(const KernelContext& ctx, bool normal) {
  const Tensor& y = ctx.out[0];
  const int64_t per = random_format::per_call(normal, y.dtype());
  const int64_t calls = (y.numel() + per - 1) / per;
  return draw(ctx, "seed", "seed2", static_cast<uint64_t>(calls));
}

void check_float(const KernelContext& ctx) {
  const DType t = ctx.out[0].dtype();
  if (!is_floating(t)) throw_unsupported_dtype(ctx.op.name, t, "floating-point");
}

}  // namespace

void cuda_standard_normal(const KernelContext& ctx) {
  check_float(ctx);
  const Tensor& y = ctx.out[0];
  const PhiloxSeed st = reserve(ctx, true);
  launch_standard_normal(code(y.dtype()), y.raw_data(), y.numel(), st, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_uniform_real(const KernelContext& ctx) {
  check_float(ctx);
  const Tensor& y = ctx.out[0];
  const PhiloxSeed st = reserve(ctx, false);
  launch_uniform_real(code(y.dtype()), y.raw_data(), y.numel(), st, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

// RandomPoisson: one counter per element, reserved before anything is checked, as
// kernels/cpu/random.cc does.
void cuda_random_poisson(const KernelContext& ctx) {
  const Tensor& rate = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const PhiloxSeed st = draw(ctx, "seed", "seed2", static_cast<uint64_t>(n));
  if (n == 0) return;
  dispatch_number(rate.dtype(), ctx.op.name, [](auto) {});
  dispatch_number(y.dtype(), ctx.op.name, [](auto) {});
  launch_random_poisson(code(rate.dtype()), rate.raw_data(), rate.numel(), code(y.dtype()),
                        y.raw_data(), n, st, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

// Dropout: ceil(n / 4) counters, reserved before the dtype check as kernels/cpu/dropout.cc
// does (infer_dropout has already rejected other dtypes).
void cuda_dropout(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t n = x.numel();
  const double keep = ctx.attrs.get_float("keep_prob");
  const PhiloxSeed st = draw(ctx, "Seed0", "Seed1", static_cast<uint64_t>((n + 3) / 4));
  if (!is_floating(x.dtype())) throw_unsupported_dtype(ctx.op.name, x.dtype(), "floating-point");
  launch_dropout(code(x.dtype()), x.raw_data(), ctx.out[0].raw_data(), ctx.out[1].raw_data(), n,
                 keep, st, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
