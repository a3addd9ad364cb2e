// The closed forms of Sigmoid, SiLU, Softplus and both GeLUs, defined once for the CPU
// kernels' float64 path (kernels/cpu/elementwise_unary.cc; float32 goes through the
// vectorised kernels/cpu/vmath.h) and the CUDA kernels (kernels/cuda/elementwise_unary.cu,
// every float dtype). Written so that nothing overflows or cancels:
//   sigmoid(x)   = 1 / (1 + e) for x >= 0, e / (1 + e) below, e = exp(-|x|);
//   silu(x)      = x sigmoid(x), 0 at -inf (its limit; inf * 0 would give NaN);
//   softplus(x)  = max(x, 0) + log1p(exp(-|x|));
//   gelu_tanh(x) = 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3),
//                  0 at -inf;
//   gelu_erf(x)  = 0.5 x (1 + erf(x / sqrt2)) = 0.5 x erfc(-x / sqrt2), 0 at -inf.
//
// M is the caller's math: a struct of static exp, log1p, erfc and fabs on C (libm's on the
// CPU, CUDA's on the device), so each side keeps its own library and the formula is one.
#pragma once

#include <math.h>

#include "base/host_device.h"

namespace mycel::act {

template <class M, class C>
MC_HOST_DEVICE_INLINE C sigmoid(C x) {
  const C e = M::exp(-M::fabs(x));
  const C r = C(1) / (C(1) + e);
  return x >= C(0) ? r : e * r;
}

template <class M, class C>
MC_HOST_DEVICE_INLINE C silu(C x) {
  return x == -INFINITY ? C(0) : x * sigmoid<M>(x);
}

template <class M, class C>
MC_HOST_DEVICE_INLINE C softplus(C x) {
  return (x > C(0) ? x : C(0)) + M::log1p(M::exp(-M::fabs(x)));
}

template <class M, class C>
MC_HOST_DEVICE_INLINE C gelu_tanh(C x) {
  return x == -INFINITY ? C(0)
                        : x * sigmoid<M>(C(1.5957691216057308) * (x + C(0.044715) * x * x * x));
}

template <class M, class C>
MC_HOST_DEVICE_INLINE C gelu_erf(C x) {
  return x == -INFINITY ? C(0) : C(0.5) * x * M::erfc(-x * C(0.7071067811865476));
}

}  // namespace mycel::act
