// Reference StandardNormal, UniformReal and RandomPoisson: one element at a time, each from its own
// scalar Philox call (tensor/random.h) and the formulas of kernels/cpu/random_format.h, with
// glibc's log, sin and cos.
#include <cmath>
#include <vector>

#include "kernels/cpu/random_format.h"
#include "ops/op_table.h"
#include "tensor/random.h"

namespace mycel {

namespace {

template <class F>
void fill_ref(const KernelContext& ctx, bool normal, const F& value) {
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const int64_t per = random_format::per_call(normal, y.dtype());
  const RandomStream st =
      op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>((n + per - 1) / per));
  dispatch_float(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) {
      const Philox4 w = philox(st.key, 0, st.offset + static_cast<uint64_t>(i / per));
      const double v = value(w, i % per, y.dtype());
      if constexpr (std::is_same_v<T, double>)
        y.data<T>()[i] = v;
      else
        y.data<T>()[i] = T(static_cast<float>(v));
    }
  });
}

}  // namespace

void ref_standard_normal(const KernelContext& ctx) {
  fill_ref(ctx, true, [](const Philox4& w, int64_t k, DType) {
    const double u1 = uniform_double(w[0], w[1]), u2 = uniform_double(w[2], w[3]);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    const double t = 2.0 * M_PI * u2;
    return k == 0 ? r * std::cos(t) : r * std::sin(t);
  });
}

void ref_uniform_real(const KernelContext& ctx) {
  fill_ref(ctx, false, [](const Philox4& w, int64_t k, DType t) -> double {
    switch (t) {
      case DType::Float64:
        return uniform_double(w[2 * k], w[2 * k + 1]);
      case DType::Float32:
        return random_format::uniform_f32(w[k]);
      case DType::Float16:
        return random_format::uniform_f16(w[k]);
      default:
        return random_format::uniform_bf16(w[k]);
    }
  });
}

// One element after another, serially.
void ref_random_poisson(const KernelContext& ctx) {
  const Tensor& rate = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel(), nr = rate.numel();
  std::vector<double> lam;
  dispatch_number(rate.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < nr; ++i) {
      const double v = static_cast<double>(static_cast<compute_t<T>>(rate.data<T>()[i]));
      lam.push_back(v);
    }
  });
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    random_format::ElementUniforms u(st.key, st.offset + static_cast<uint64_t>(i));
    dispatch_number(y.dtype(), ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      y.data<T>()[i] = random_format::poisson_count<T>(lam[static_cast<size_t>(i % nr)], u);
    });
  }
}

}  // namespace mycel
