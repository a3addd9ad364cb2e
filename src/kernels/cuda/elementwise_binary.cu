// CUDA kernels of the binary arithmetic ops (Add ... Minimum) and BitwiseAnd/Or/Xor: the
// functors of kernels/cpu/elementwise_binary.cc on the device (the arithmetic and bitwise ones
// are kernels/elementwise_forms.h, written once for both).
//
// Integer +, -, * wrap; bool Add is `or` and bool Mul `and`. Float semantics are IEEE
// (x / 0 = +-inf or nan); Maximum and Minimum propagate nan from either side; FloorDiv and
// FloorMod follow Python's float // and % computed in double, as the CPU does; Mod is C fmod
// (exact, so it agrees with the CPU bit for bit). FloorDiv, Mod, FloorMod and Pow are
// instantiated for the floating dtypes only (see elementwise.h).
#include <cmath>

#include "base/pymath.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"
#include "kernels/elementwise_forms.h"

namespace mycel::cuda::ew {

namespace {

struct BinBase {
  static constexpr bool kCompare = false;
};

using AddOp = mycel::ew::AddForm<BinBase>;
using SubOp = mycel::ew::SubForm<BinBase>;
using MulOp = mycel::ew::MulForm<BinBase>;
using DivOp = mycel::ew::DivForm<BinBase>;
using ReluGradOp = mycel::ew::ReluGradForm<BinBase>;
using MaximumOp = mycel::ew::MaximumForm<BinBase>;
using MinimumOp = mycel::ew::MinimumForm<BinBase>;

// Python's float // and %: py_floordiv and py_mod of base/pymath.h (host and device).

// The four below are float-only (C is float or double).
struct FloorDivOp : BinBase {
  template <class C>
  __device__ static C f(C a, C b) {
    return static_cast<C>(py_floordiv(a, b));
  }
};

struct ModOp : BinBase {
  __device__ static float f(float a, float b) { return fmodf(a, b); }
  __device__ static double f(double a, double b) { return fmod(a, b); }
};

struct FloorModOp : BinBase {
  template <class C>
  __device__ static C f(C a, C b) {
    return static_cast<C>(py_mod(a, b));
  }
};

struct PowOp : BinBase {
  __device__ static float f(float a, float b) { return powf(a, b); }
  __device__ static double f(double a, double b) { return pow(a, b); }
};

// Bitwise and / or / xor: the integer dtypes, and bool as logical and / or / xor
// (kernels/elementwise_forms.h, shared with the CPU loops).
using BitAndOp = mycel::ew::BitwiseForm<BinBase, mycel::ew::Bitwise::And>;
using BitOrOp = mycel::ew::BitwiseForm<BinBase, mycel::ew::Bitwise::Or>;
using BitXorOp = mycel::ew::BitwiseForm<BinBase, mycel::ew::Bitwise::Xor>;

template <class Op>
void all(int code, void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
         cudaStream_t st) {
  for_all(code, [&](auto v) { run_binary<Op, decltype(v)>(o, a, b, s, n, st); });
}

template <class Op>
void number(int code, void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
            cudaStream_t st) {
  for_number(code, [&](auto v) { run_binary<Op, decltype(v)>(o, a, b, s, n, st); });
}

template <class Op>
void integral(int code, void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
              cudaStream_t st) {
  for_all(code, [&](auto v) {
    if constexpr (std::is_integral_v<decltype(v)>) run_binary<Op, decltype(v)>(o, a, b, s, n, st);
  });
}

template <class Op>
void floating(int code, void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
              cudaStream_t st) {
  for_float(code, [&](auto v) { run_binary<Op, decltype(v)>(o, a, b, s, n, st); });
}

}  // namespace

void launch_binary(Binary op, int code, void* o, const void* a, const void* b,
                   const Strided<2>& s, int64_t n, cudaStream_t stream) {
  switch (op) {
    case Binary::Add: all<AddOp>(code, o, a, b, s, n, stream); break;
    case Binary::Sub: number<SubOp>(code, o, a, b, s, n, stream); break;
    case Binary::Mul: all<MulOp>(code, o, a, b, s, n, stream); break;
    case Binary::Div: floating<DivOp>(code, o, a, b, s, n, stream); break;
    case Binary::FloorDiv: floating<FloorDivOp>(code, o, a, b, s, n, stream); break;
    case Binary::Mod: floating<ModOp>(code, o, a, b, s, n, stream); break;
    case Binary::FloorMod: floating<FloorModOp>(code, o, a, b, s, n, stream); break;
    case Binary::Pow: floating<PowOp>(code, o, a, b, s, n, stream); break;
    case Binary::ReluGrad: number<ReluGradOp>(code, o, a, b, s, n, stream); break;
    case Binary::Maximum: all<MaximumOp>(code, o, a, b, s, n, stream); break;
    case Binary::Minimum: all<MinimumOp>(code, o, a, b, s, n, stream); break;
    case Binary::BitAnd: integral<BitAndOp>(code, o, a, b, s, n, stream); break;
    case Binary::BitOr: integral<BitOrOp>(code, o, a, b, s, n, stream); break;
    case Binary::BitXor: integral<BitXorOp>(code, o, a, b, s, n, stream); break;
    default: break;  // comparisons: launch_compare
  }
}

}  // namespace mycel::cuda::ew
