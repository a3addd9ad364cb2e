// The converter's precision passes: float16 weight storage (--fp16=on), weight-only int8
// (WEIGHT_QUANT) and full int8 post-training quantization (FULL_QUANT) configured by
// MindSpore Lite's INI file (--configFile), and the calibration data they read. What the
// runtime does with the result: lite/quant.h.
//
//   [common_quant_param]    quant_type=FULL_QUANT|WEIGHT_QUANT  bit_num=8
//                           min_quant_weight_size=0  min_quant_weight_channel=0
//   [data_preprocess_param] calibrate_path=<input name>:<folder>[,<input name>:<folder>]
//                           calibrate_size=N  input_type=BIN
//   [full_quant_param]      activation_quant_method=MAX_MIN|KL  per_channel=true|false
//                           bias_correction=true|false
//
// A calibration folder holds raw little-endian float32 .bin files, one sample of its input's
// shape each; the first calibrate_size in name order are used, matched across inputs by
// position.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "lite/graph.h"

namespace mycel::converter {

struct QuantConfig {
  enum class Type { None, Full, Weight };
  enum class Method { MaxMin, KL };
  Type type = Type::None;
  int bit_num = 8;
  int64_t min_weight_size = 0;     // WEIGHT_QUANT: smaller weights stay float
  int64_t min_weight_channel = 0;  // WEIGHT_QUANT: weights with fewer output channels stay float
  std::vector<std::pair<std::string, std::string>> calibrate_path;  // (input name, folder)
  int64_t calibrate_size = 0;
  Method method = Method::MaxMin;
  bool per_channel = true;
  bool bias_correction = true;
};

// Parses the INI text (`what` names it in errors). Every unknown section, key or value, a
// duplicate key, or a line that is not "[section]", "key=value", a comment (# or ;) or blank
// is a ValueError naming the section, the key and the line number; so is a FULL_QUANT config
// without its calibration keys.
QuantConfig parse_quant_config(const std::string& text, const std::string& what);
QuantConfig read_quant_config(const std::string& path);

// One calibration sample: one float32 vector per graph input, in the graph's input order.
using Sample = std::vector<std::vector<float>>;
// The samples the config names, checked against the graph's inputs (names, byte sizes).
std::vector<Sample> load_calibration(const QuantConfig& c, const lite::Graph& g);

// Symmetric int8 of a float32 weight: per output channel (axis 0) or one scale for all;
// scale = max |w| / 127 (1 for all-zero), q = round(w / scale) in [-127, 127].
struct QuantizedWeight {
  std::vector<int8_t> q;
  std::vector<float> scale;
};
QuantizedWeight quantize_symmetric(const lite::TensorDesc& w, bool per_channel);

// Every float32 constant stored as Float16 (the runtime widens them at load).
void store_fp16(lite::Graph& g);

// WEIGHT_QUANT: the constant weights of Conv2D and FullyConnected stored as per-channel
// symmetric int8 (dequantized at load). Returns how many were quantized.
int quantize_weights(lite::Graph& g, const QuantConfig& c);

// FULL_QUANT: calibrates the inputs of Conv2D and FullyConnected nodes on `samples`
// (MAX_MIN: their range; KL: the clipping threshold of a 2048-bin histogram of |x| that
// minimises the KL divergence to its quantized form), quantizes their weights to int8
// (per channel or per tensor) and biases to int32, keeps the activations between int8 layers
// uint8 where the runtime's uint8 kernels take them (lite::reads_u8 / writes_u8; their
// parameters calibrated too), and with bias_correction subtracts each layer's mean output
// error on the samples from its bias. Prints a summary to `out`.
void full_quantize(lite::Graph& g, const QuantConfig& c, const std::vector<Sample>& samples,
                   std::ostream& out);

}  // namespace mycel::converter
