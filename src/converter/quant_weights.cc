// Weight storage passes: float16 (--fp16=on) and weight-only int8 (WEIGHT_QUANT), and the
// symmetric int8 quantization of a weight that full quantization shares (converter/quant.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "converter/quant.h"
#include "lite/quant.h"

namespace mycel::converter {

namespace {

template <typename T>
void set_owned(lite::TensorDesc& d, const std::vector<T>& values, lite::DType dtype) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
  d.owned = bytes;
  d.data = bytes->data();
  d.dtype = dtype;
}

}  // namespace

QuantizedWeight quantize_symmetric(const lite::TensorDesc& w, bool per_channel) {
  const int64_t n = lite::numel(w.shape);
  const int64_t channels = per_channel && !w.shape.empty() ? w.shape[0] : 1;
  const int64_t per = channels ? n / channels : 0;
  const float* p = w.f32();
  QuantizedWeight out;
  out.q.resize(static_cast<size_t>(n));
  for (int64_t c = 0; c < channels; ++c) {
    float amax = 0.f;
    for (int64_t i = c * per; i < (c + 1) * per; ++i) amax = std::max(amax, std::fabs(p[i]));
    const float s = amax > 0.f ? amax / 127.f : 1.f;
    out.scale.push_back(s);
    for (int64_t i = c * per; i < (c + 1) * per; ++i)
      out.q[i] = static_cast<int8_t>(std::clamp(std::nearbyint(p[i] / s), -127.f, 127.f));
  }
  return out;
}

void store_fp16(lite::Graph& g) {
  for (lite::TensorDesc& d : g.tensors) {
    if (!d.constant || d.dtype != lite::DType::Float32) continue;
    const int64_t n = lite::numel(d.shape);
    std::vector<uint16_t> h(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) h[i] = lite::float_to_half(d.f32()[i]);
    set_owned(d, h, lite::DType::Float16);
  }
}

int quantize_weights(lite::Graph& g, const QuantConfig& c) {
  int count = 0;
  for (const lite::NodeDesc& n : g.nodes) {
    if (n.op != lite::OpType::Conv2D && n.op != lite::OpType::FullyConnected) continue;
    lite::TensorDesc& w = g.tensors[n.inputs[1]];
    if (!w.constant || w.dtype != lite::DType::Float32 || w.shape.empty()) continue;
    if (lite::numel(w.shape) < c.min_weight_size || w.shape[0] < c.min_weight_channel) continue;
    QuantizedWeight q = quantize_symmetric(w, true);
    w.quant = lite::Quant{q.scale, std::vector<int64_t>(q.scale.size(), 0), 0, 8};
    set_owned(w, q.q, lite::DType::Int8);
    ++count;
  }
  return count;
}

}  // namespace mycel::converter
