// Reduced-precision numbers in mycel lite: float16 and bfloat16 conversions, int8
// quantization arithmetic, and what the runtime does with quantized constants at load.
//
// The file stores weights three ways besides float32 (docs/architecture.md, "Lite"):
//   - Float16 constants (mycel_convert --fp16=on): half the bytes; widened to float32 at load.
//   - Int8 constants with per-channel (or per-tensor) symmetric scales, zero point 0
//     (WEIGHT_QUANT, or a FULL_QUANT node's weights); Int32 constants with scales (a
//     FULL_QUANT node's bias, scale = input scale x weight scale). Dequantized at load,
//     value = scale[c] * (q - zero_point[c]) along `axis`, except where an int8 kernel reads them.
//   - A FULL_QUANT node (Conv2D or FullyConnected) is marked by quantization parameters on its
//     activation input (one scale and a uint8 zero point, from calibration): its kernel
//     multiplies the uint8 input by the int8 weights with int32 accumulation and adds the
//     int32 bias (activation fused).
//
// Activations between int8 layers stay int8: a non-constant UInt8 tensor (one scale, a zero
// point in [0, 255]) is an activation kept quantized. An int8 node reads a UInt8 input as it
// is (a Float32 one it quantizes) and requantizes its int32 sums straight to a UInt8 output
// (fused ReLU/ReLU6 as clamps in the uint8 domain), or dequantizes them to Float32 where a
// float op or the graph's output reads them. Pool (max, or average in integers) and Reshape
// pass uint8 through with their input's parameters; Eltwise Add of two uint8 activations
// rescales both to its output's (fixed-point multipliers). `reads_u8`/`writes_u8` are the one
// rule of which node reads and writes what; lite::validate checks files against it and the
// converter's int8 flow follows it. Rank-4 UInt8 activations are stored NHWC (channels last,
// the layout oneDNN's int8 convolution reads and writes, so no reorder runs between int8
// convolutions); other ranks in their logical order. Graph inputs and outputs stay Float32.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lite/graph.h"

namespace mycel::lite {

// IEEE binary16 and bfloat16 from float32, rounding to nearest even (NaN stays NaN).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The uint8 code of x for an asymmetric activation quantization (scale, zero point):
// round-to-nearest-even of x / scale, plus the zero point, clamped to [0, 255] (NaN: 0). The
// one definition the int8 kernels, their references and the converter share. Rounds by adding
// and subtracting 1.5 * 2^23 (exact for |t| < 2^22 in the default rounding mode), not by
// nearbyintf, a library call per element on baseline x86-64.
// `quantize_code` is the same in float arithmetic with a clamp [lo, hi] inside [0, 255].
inline float quantize_code(float x, float inv_scale, float zero_point, float lo, float hi) {
  float t = x * inv_scale;
  t = t >= -512.f ? t : -512.f;  // also NaN
  t = t <= 512.f ? t : 512.f;
  constexpr float kMagic = 12582912.f;
  float q = (t + kMagic) - kMagic + zero_point;
  q = q >= lo ? q : lo;
  return q <= hi ? q : hi;
}
inline uint8_t quantize_u8(float x, float inv_scale, int32_t zero_point) {
  return static_cast<uint8_t>(
      quantize_code(x, inv_scale, static_cast<float>(zero_point), 0.f, 255.f));
}
// quantize_u8 over n contiguous values (SSE2, 16 at a time, lane by lane the same
// operations: MAXPS/MINPS return the bound for a NaN, as the comparisons above do).
void quantize_u8_row(const float* x, int64_t n, float inv_scale, int32_t zero_point, uint8_t* q);

// The uint8 code of an int8 layer's output (lite/kernels.h, make_int8_kernel) whose value in
// units of the output's scale is v: the fused activation's clamp [lo, hi] (codes, inside
// [0, 255]) taken on v before the zero point is added, then v + zero_point (one float32
// addition) rounded to nearest even. This is the order of oneDNN's requantization (output
// scale, eltwise clip, eltwise linear adding the zero point, rounding conversion), which the
// optimised kernels leave to oneDNN: the references compute it here and agree exactly.
inline float requantize_code(float v, float zero_point, float lo, float hi) {
  v = v >= lo - zero_point ? v : lo - zero_point;
  v = v <= hi - zero_point ? v : hi - zero_point;
  constexpr float kMagic = 12582912.f;  // v + zero_point is in [0, 255]
  return (v + zero_point + kMagic) - kMagic;
}

// Whether node n runs in int8: a Conv2D or FullyConnected whose activation input carries
// quantization parameters.
bool is_int8_node(const Graph& g, const NodeDesc& n);

// Whether tensor d is a uint8 activation (stored NHWC when of rank 4).
inline bool is_u8(const TensorDesc& d) { return !d.constant && d.dtype == DType::UInt8; }

// Whether node n may read a uint8 activation at input `slot`, and whether it may write one,
// given which tensors are uint8 (`u8`, one flag per tensor): an int8 node reads one at input
// 0 and writes one when its fused activation is None, ReLU or ReLU6; Pool and Reshape read
// one and write one when they read one (else float32); Eltwise Add (activation None, ReLU or
// ReLU6) reads and writes them when both inputs are uint8 activations of its output's shape.
// No other node reads or writes uint8.
bool reads_u8(const Graph& g, const NodeDesc& n, size_t slot, const std::vector<char>& u8);
bool writes_u8(const Graph& g, const NodeDesc& n, const std::vector<char>& u8);

// The uint8 range [lo, hi] a fused activation leaves of a uint8 tensor with parameters
// (scale, zero point): ReLU clamps at the zero point, ReLU6 also at the code of 6.
void u8_act_range(Act act, float scale, int32_t zero_point, int32_t* lo, int32_t* hi);

// The fixed-point multiplier of a real ratio r > 0: round(r * 2^kFixedShift). Rescaling
// integer codes by it (int64 products, rounding half up by adding 2^(kFixedShift-1) and
// shifting) is exact integer arithmetic, the same in every kernel and reference.
constexpr int kFixedShift = 24;
inline int64_t fixed_mult(double r) {
  return static_cast<int64_t>(std::llround(std::ldexp(r, kFixedShift)));
}
inline int64_t fixed_round(int64_t v) {
  return (v + (int64_t{1} << (kFixedShift - 1))) >> kFixedShift;  // floor((v + half) / 2^shift)
}

// Checks the quantized constants and int8 nodes of a graph (part of lite::validate):
// scales finite and positive, one per tensor or per index of `axis`, zero points in range;
// an int8 node's weight Int8 with zero points 0, its optional bias Int32 of [O], its input's
// parameters one scale with a zero point in [0, 255]; Int8/Int32 constants read by an int8
// node read by nothing else; uint8 activations with one scale and a zero point in [0, 255],
// neither graph inputs nor outputs, read and written only as reads_u8/writes_u8 allow (Pool
// and Reshape keeping their parameters). ValueError naming `what` and the tensor or node.
void validate_quant(const Graph& g, const std::string& what);

// Replaces every Float16, Int8 and Int32 constant not read by an int8 kernel by its float32
// value (owned by the graph). Run at load, after validation.
void dequantize_constants(Graph& g);

}  // namespace mycel::lite
