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
//     quantizes the float32 input to uint8, multiplies by the int8 weights with int32
//     accumulation, adds the int32 bias and writes float32 (activation fused). Activations
//     between nodes stay float32.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

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
inline uint8_t quantize_u8(float x, float inv_scale, int32_t zero_point) {
  float t = x * inv_scale;
  t = t >= -512.f ? t : -512.f;  // also NaN
  t = t <= 512.f ? t : 512.f;
  constexpr float kMagic = 12582912.f;
  float q = (t + kMagic) - kMagic + static_cast<float>(zero_point);
  q = q < 0.f ? 0.f : (q > 255.f ? 255.f : q);
  return static_cast<uint8_t>(q);
}

// Whether node n runs in int8: a Conv2D or FullyConnected whose activation input carries
// quantization parameters.
bool is_int8_node(const Graph& g, const NodeDesc& n);

// Checks the quantized constants and int8 nodes of a graph (part of lite::validate):
// scales finite and positive, one per tensor or per index of `axis`, zero points in range;
// an int8 node's weight Int8 with zero points 0, its optional bias Int32 of [O], its input's
// parameters one scale with a zero point in [0, 255]; Int8/Int32 constants read by an int8
// node read by nothing else. ValueError naming `what` and the tensor or node.
void validate_quant(const Graph& g, const std::string& what);

// Replaces every Float16, Int8 and Int32 constant not read by an int8 kernel by its float32
// value (owned by the graph). Run at load, after validation.
void dequantize_constants(Graph& g);

}  // namespace mycel::lite
