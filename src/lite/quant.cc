// Reduced-precision conversions, the checks of quantized constants and int8 nodes, and their
// dequantization at load (lite/quant.h).
#include "lite/quant.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <limits>
#include <memory>
#include <vector>

#include "base/error.h"

namespace mycel::lite {

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool has_quant(const TensorDesc& d) { return !d.quant.scale.empty(); }

// The channel count of d's quantization parameters (1 for per-tensor), or -1 when they do not
// fit its shape.
int64_t quant_channels(const TensorDesc& d) {
  const Quant& q = d.quant;
  if (q.scale.size() == 1) return 1;
  if (q.axis < 0 || q.axis >= static_cast<int32_t>(d.shape.size())) return -1;
  return d.shape[q.axis] == static_cast<int64_t>(q.scale.size()) ? d.shape[q.axis] : -1;
}

void check_params(const TensorDesc& d, const std::string& what, int64_t zp_lo, int64_t zp_hi) {
  const Quant& q = d.quant;
  MC_CHECK(q.scale.size() == q.zero_point.size() && quant_channels(d) > 0, Value, what,
           ": tensor '", d.name, "' of shape ", dims_str(d.shape), " has ", q.scale.size(),
           " quantization scale(s) along axis ", q.axis, "; it needs one, or one per channel");
  for (size_t c = 0; c < q.scale.size(); ++c) {
    MC_CHECK(std::isfinite(q.scale[c]) && q.scale[c] > 0.f, Value, what, ": tensor '", d.name,
             "' has quantization scale ", q.scale[c], " (it must be finite and positive)");
    MC_CHECK(q.zero_point[c] >= zp_lo && q.zero_point[c] <= zp_hi, Value, what, ": tensor '",
             d.name, "' has zero point ", q.zero_point[c], " outside [", zp_lo, ", ", zp_hi, "]");
  }
}

// Checks node n, an int8 node, and counts its reads of quantized constants.
void check_int8_node(const Graph& g, const NodeDesc& n, const std::string& what,
                     std::vector<int>& int8_reads) {
  const std::string where = str("int8 node '", n.name, "' (", op_type_name(n.op), ")");
  const TensorDesc &x = g.tensors[n.inputs[0]], &w = g.tensors[n.inputs[1]];
  MC_CHECK(!x.constant && x.quant.scale.size() == 1 && x.quant.num_bits == 8, Value, what, ": ",
           where, ": its input '", x.name, "' needs one scale and an 8-bit zero point");
  check_params(x, what + ": " + where, 0, 255);
  MC_CHECK(!w.shape.empty(), Value, what, ": ", where, ": its weight '", w.name, "' is a scalar");
  MC_CHECK(w.quant.axis == 0 || w.quant.scale.size() == 1, Value, what, ": ", where,
           ": weight scales must run along axis 0");
  for (int64_t z : w.quant.zero_point)
    MC_CHECK(z == 0, Value, what, ": ", where, ": int8 weights are symmetric (zero point 0)");
  ++int8_reads[n.inputs[1]];
  if (n.inputs.size() == 3) {
    const TensorDesc& b = g.tensors[n.inputs[2]];
    MC_CHECK(b.constant && b.dtype == DType::Int32 && b.shape == Dims{w.shape[0]}, Value, what,
             ": ", where, ": its bias '", b.name, "' must be an Int32 constant of shape [",
             w.shape[0], "]");
    ++int8_reads[n.inputs[2]];
  }
}

bool clamps(Act a) { return a == Act::None || a == Act::ReLU || a == Act::ReLU6; }

// Checks the uint8 activations of g and the nodes reading and writing them.
void check_u8(const Graph& g, const std::string& what) {
  std::vector<char> u8(g.tensors.size(), 0);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorDesc& d = g.tensors[t];
    if (!is_u8(d)) continue;
    u8[t] = 1;
    MC_CHECK(d.quant.scale.size() == 1 && d.quant.num_bits == 8, Value, what,
             ": uint8 activation '", d.name, "' needs one scale and an 8-bit zero point");
    check_params(d, what, 0, 255);
  }
  for (int t : g.inputs)
    MC_CHECK(g.tensors[t].dtype == DType::Float32, Value, what, ": graph input '",
             g.tensors[t].name, "' is ", dtype_name(g.tensors[t].dtype), "; inputs are float32");
  for (int t : g.outputs)
    MC_CHECK(g.tensors[t].dtype == DType::Float32, Value, what, ": graph output '",
             g.tensors[t].name, "' is ", dtype_name(g.tensors[t].dtype), "; outputs are float32");
  for (const NodeDesc& n : g.nodes) {
    const std::string where = str("node '", n.name, "' (", op_type_name(n.op), ")");
    for (size_t i = 0; i < n.inputs.size(); ++i)
      MC_CHECK(!u8[n.inputs[i]] || reads_u8(g, n, i, u8), Value, what, ": ", where,
               " cannot read uint8 activation '", g.tensors[n.inputs[i]].name, "'");
    const TensorDesc& y = g.tensors[n.outputs[0]];
    if (!u8[n.outputs[0]]) continue;
    MC_CHECK(writes_u8(g, n, u8), Value, what, ": ", where, " cannot write uint8 activation '",
             y.name, "'");
    if (n.op != OpType::Pool && n.op != OpType::Reshape) continue;
    const Quant& q = g.tensors[n.inputs[0]].quant;
    MC_CHECK(y.quant.scale == q.scale && y.quant.zero_point == q.zero_point, Value, what, ": ",
             where, ": its uint8 output '", y.name, "' must keep its input's parameters");
  }
}

template <typename T>
void dequantize(TensorDesc& d) {
  const int64_t n = numel(d.shape);
  const Quant& q = d.quant;
  int64_t inner = 1;
  if (q.scale.size() > 1)
    for (size_t i = static_cast<size_t>(q.axis) + 1; i < d.shape.size(); ++i) inner *= d.shape[i];
  const int64_t channels = static_cast<int64_t>(q.scale.size());
  auto out = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(n) * 4);
  float* o = reinterpret_cast<float*>(out->data());
  const T* p = static_cast<const T*>(d.data);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = channels == 1 ? 0 : (i / inner) % channels;
    o[i] = q.scale[c] * static_cast<float>(static_cast<int64_t>(p[i]) - q.zero_point[c]);
  }
  d.owned = out;
  d.data = out->data();
}

}  // namespace

uint16_t float_to_half(float f) {
  const uint32_t x = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | (a > 0x7f800000u ? 0x7e00 : 0x7c00);  // NaN, infinity
  if (a >= 0x477ff000u) return sign | 0x7c00;  // rounds past 65504: infinity
  if (a < 0x38800000u)                         // below 2^-14: a subnormal half (unit 2^-24)
    return sign | static_cast<uint16_t>(std::nearbyint(float_of(a) * 16777216.f));
  uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
  const uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;  // to nearest even (may carry)
  return sign | static_cast<uint16_t>(h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) return float_of(sign | bits_of(static_cast<float>(m) / 16777216.f));
  if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
  return float_of(sign | ((e - 15 + 127) << 23) | (m << 13));
}

void quantize_u8_row(const float* x, int64_t n, float inv_scale, int32_t zero_point, uint8_t* q) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 inv = _mm_set1_ps(inv_scale), z = _mm_set1_ps(static_cast<float>(zero_point));
  const __m128 lim = _mm_set1_ps(512.f), nlim = _mm_set1_ps(-512.f);
  const __m128 magic = _mm_set1_ps(12582912.f), top = _mm_set1_ps(255.f), zero = _mm_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    __m128i c[4];
    for (int k = 0; k < 4; ++k) {
      __m128 t = _mm_mul_ps(_mm_loadu_ps(x + i + 4 * k), inv);
      t = _mm_min_ps(_mm_max_ps(t, nlim), lim);
      t = _mm_add_ps(_mm_sub_ps(_mm_add_ps(t, magic), magic), z);
      c[k] = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(t, zero), top));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i),
                     _mm_packus_epi16(_mm_packs_epi32(c[0], c[1]), _mm_packs_epi32(c[2], c[3])));
  }
#endif
  for (; i < n; ++i) q[i] = quantize_u8(x[i], inv_scale, zero_point);
}

uint16_t float_to_bf16(float f) {
  const uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

bool is_int8_node(const Graph& g, const NodeDesc& n) {
  if (n.op != OpType::Conv2D && n.op != OpType::FullyConnected) return false;
  const TensorDesc& w = g.tensors[n.inputs[1]];
  return has_quant(g.tensors[n.inputs[0]]) && w.constant && w.dtype == DType::Int8;
}

bool reads_u8(const Graph& g, const NodeDesc& n, size_t slot, const std::vector<char>& u8) {
  if (is_int8_node(g, n)) return slot == 0;
  if (n.op == OpType::Pool || n.op == OpType::Reshape) return slot == 0;
  if (n.op != OpType::Eltwise || n.a.elt != EltKind::Add || !clamps(n.a.act)) return false;
  const TensorDesc &a = g.tensors[n.inputs[0]], &b = g.tensors[n.inputs[1]];
  const Dims& y = g.tensors[n.outputs[0]].shape;
  return !a.constant && !b.constant && a.shape == y && b.shape == y &&
         u8[n.inputs[slot == 0 ? 1 : 0]];
}

bool writes_u8(const Graph& g, const NodeDesc& n, const std::vector<char>& u8) {
  if (is_int8_node(g, n)) return clamps(n.a.act);
  if (n.op == OpType::Pool || n.op == OpType::Reshape) return u8[n.inputs[0]] != 0;
  return n.op == OpType::Eltwise && u8[n.inputs[0]] && reads_u8(g, n, 0, u8);
}

void u8_act_range(Act act, float scale, int32_t zero_point, int32_t* lo, int32_t* hi) {
  *lo = act == Act::None ? 0 : zero_point;
  *hi = act == Act::ReLU6 ? quantize_u8(6.f, 1.f / scale, zero_point) : 255;
}

void validate_quant(const Graph& g, const std::string& what) {
  check_u8(g, what);
  std::vector<int> int8_reads(g.tensors.size(), 0), reads(g.tensors.size(), 0);
  for (const NodeDesc& n : g.nodes) {
    for (int t : n.inputs) ++reads[t];
    if (is_int8_node(g, n)) check_int8_node(g, n, what, int8_reads);
  }
  for (int t : g.outputs) ++reads[t];
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorDesc& d = g.tensors[t];
    if (!d.constant) continue;
    switch (d.dtype) {
      case DType::Float32:
      case DType::Float16:
        MC_CHECK(!has_quant(d), Value, what, ": float constant '", d.name,
                 "' carries quantization parameters");
        break;
      case DType::Int8:
      case DType::Int32:
        MC_CHECK(has_quant(d), Value, what, ": ", dtype_name(d.dtype), " constant '", d.name,
                 "' has no quantization parameters");
        check_params(d, what, d.dtype == DType::Int8 ? -128 : std::numeric_limits<int32_t>::min(),
                     d.dtype == DType::Int8 ? 127 : std::numeric_limits<int32_t>::max());
        MC_CHECK(int8_reads[t] == 0 || int8_reads[t] == reads[t], Value, what, ": constant '",
                 d.name, "' is read by an int8 node and by other nodes");
        break;
      default:
        MC_THROW(Value, what, ": constant '", d.name, "' is ", dtype_name(d.dtype),
                 "; constants are Float32, Float16, or Int8/Int32 with quantization parameters");
    }
  }
}

void dequantize_constants(Graph& g) {
  std::vector<char> keep(g.tensors.size(), 0);
  for (const NodeDesc& n : g.nodes)
    if (is_int8_node(g, n))
      for (size_t i = 1; i < n.inputs.size(); ++i) keep[n.inputs[i]] = 1;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    TensorDesc& d = g.tensors[t];
    if (!d.constant || keep[t] || d.dtype == DType::Float32) continue;
    if (d.dtype == DType::Float16) {
      const int64_t n = numel(d.shape);
      auto out = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(n) * 4);
      float* o = reinterpret_cast<float*>(out->data());
      const uint16_t* p = static_cast<const uint16_t*>(d.data);
      for (int64_t i = 0; i < n; ++i) o[i] = half_to_float(p[i]);
      d.owned = out;
      d.data = out->data();
    } else if (d.dtype == DType::Int8) {
      dequantize<int8_t>(d);
    } else {
      dequantize<int32_t>(d);
    }
    d.dtype = DType::Float32;
    d.quant = Quant{};
  }
}

}  // namespace mycel::lite
