// Python's float // and % (CPython's float_divmod), defined once for every place that
// computes them on floats: the CPU kernels of FloorDiv and FloorMod, their CUDA kernels and
// the graph executor's scalar builtins. Built from fmod, so that a == b * (a // b) + a % b
// holds closely; the modulo takes the divisor's sign, and a zero result keeps the signs
// Python gives it. Division by zero is the caller's concern (the kernels give inf/nan as
// a / b does; the executor raises ZeroDivisionError first).
//
// Host and device code: under nvcc the functions are __host__ __device__, and they use the
// C math functions that both sides have. kernels/ref keeps its own, independent statement of
// the rule: the oracle the kernels are tested against.
#pragma once

#include <math.h>

#include "base/host_device.h"

namespace mycel {

MC_HOST_DEVICE inline double py_floordiv(double a, double b) {
  if (b == 0) return a / b;
  const double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return copysign(0.0, a / b);
  double fl = floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

MC_HOST_DEVICE inline double py_mod(double a, double b) {
  double mod = fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = copysign(0.0, b);
  }
  return mod;
}

}  // namespace mycel
