// Launchers of the elementwise CUDA kernels (defined in elementwise_*.cu, called by the
// wrappers in elementwise.cc). Plain data only: pointers, dtype codes (cuda_common.cuh's
// DTypeCode), element counts and Strided<K> descriptors over the output's shape, so both
// g++ and nvcc read this header.
//
// Outputs are contiguous: element i of the output is row-major index i of its shape, and a
// descriptor carries only the input operands' strides (0 on broadcast dims).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda::ew {

// Unary ops. Sign-type and rounding ops take every numeric dtype (not bool; rounding
// returns integers as they are); float ops only the floating dtypes (the dispatcher casts
// bool/integer inputs to float32 first, F_FLOAT_IN); Not is LogicalNot on bool.
enum class Unary : int {
  Neg, Abs, Sign, Square, Relu, Relu6, Floor, Ceil, Rint,
  Exp, Log, Log1p, Sqrt, Rsqrt, Reciprocal, Sin, Cos, Tanh, Sigmoid, Erf, Silu, Softplus,
  GeluTanh, GeluErf,
  Acos, Asin, Atan, Acosh, Asinh, Atanh, Sinh, Cosh, Tan, Expm1, Erfc,
  Not
};

// Binary ops, inputs of one dtype `code`. Comparisons and And/Or write bool. FloorDiv, Mod,
// FloorMod and Pow are launched for floating dtypes only: their integer forms check the
// data (zero divisor, negative exponent) and raise as the CPU kernel does, so the wrapper
// runs those on the host. BitAnd/Or/Xor take bool and the integer dtypes only.
enum class Binary : int {
  Add, Sub, Mul, Div, FloorDiv, Mod, FloorMod, Pow, ReluGrad, Maximum, Minimum,
  BitAnd, BitOr, BitXor,
  Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, And, Or
};

// y[i] = op(x at i); s: operand 0 = x.
void launch_unary(Unary op, int code, void* y, const void* x, const Strided<1>& s, int64_t n,
                  cudaStream_t stream);

// o[i] = op(a at i, b at i); s: operand 0 = a, 1 = b.
void launch_binary(Binary op, int code, void* o, const void* a, const void* b,
                   const Strided<2>& s, int64_t n, cudaStream_t stream);
// The comparisons and And/Or (elementwise_compare.cu): o is bool.
void launch_compare(Binary op, int code, bool* o, const void* a, const void* b,
                    const Strided<2>& s, int64_t n, cudaStream_t stream);

// o[i] = c ? x : y by element size (1, 2, 4 or 8 bytes); s: operand 0 = c, 1 = x, 2 = y.
void launch_select(int elem_size, void* o, const bool* c, const void* x, const void* y,
                   const Strided<3>& s, int64_t n, cudaStream_t stream);

// o[i] = value converted to dtype `code` by the Cast op's rules (cast_to).
void launch_fill(int code, void* o, double value, int64_t n, cudaStream_t stream);

}  // namespace mycel::cuda::ew
