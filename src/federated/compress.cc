#include "federated/compress.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "base/error.h"

namespace mycel::federated::compress {

namespace {

constexpr double kLevels = 255.0;

[[noreturn]] void bad(const std::string& why) {
  MC_THROW(Value, "federated compression: ", why, ".");
}

std::vector<float> floats(const Param& p) {
  std::vector<float> v(p.bytes.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), p.bytes.data(), p.bytes.size());
  return v;
}
Param float_param(const std::string& name, std::vector<int64_t> shape,
                  const std::vector<float>& v) {
  Param p{name, DType::Float32, std::move(shape), std::string(v.size() * 4, '\0')};
  if (!v.empty()) std::memcpy(p.bytes.data(), v.data(), p.bytes.size());
  return p;
}

// The 8-bit codes of `v` in [lo, hi] (the entry `name` of `shape`) and its range entry.
void put_codes(Weights& out, const std::string& name, std::vector<int64_t> shape,
               const std::vector<float>& v) {
  float lo = 0, hi = 0;
  if (!v.empty()) {
    auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    lo = *mn;
    hi = *mx;
  }
  const double step = hi > lo ? (static_cast<double>(hi) - lo) / kLevels : 0.0;
  Param codes{name, DType::UInt8, std::move(shape), std::string(v.size(), '\0')};
  for (size_t i = 0; i < v.size(); ++i)
    codes.bytes[i] = static_cast<char>(step > 0 ? std::lround((v[i] - lo) / step) : 0);
  out.push_back(std::move(codes));
  out.push_back(float_param(range_name(name), {2}, {lo, hi}));
}

// The values of the codes entry `codes` with its range from `by_name`.
std::vector<double> get_codes(const Param& codes, const std::map<std::string, const Param*>& by,
                              size_t count) {
  if (codes.dtype != DType::UInt8 || codes.bytes.size() != count)
    bad(str("the entry '", printable(codes.name), "' must hold ", count, " UInt8 codes"));
  auto it = by.find(range_name(codes.name));
  if (it == by.end() || it->second->dtype != DType::Float32 ||
      it->second->shape != std::vector<int64_t>{2})
    bad(str("the entry '", printable(codes.name), "' has no Float32 (2,) range"));
  std::vector<float> r = floats(*it->second);
  if (!std::isfinite(r[0]) || !std::isfinite(r[1]) || r[0] > r[1])
    bad(str("the range of '", printable(codes.name), "' is not a finite [min, max]"));
  const double step = (static_cast<double>(r[1]) - r[0]) / kLevels;
  std::vector<double> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = r[0] + step * static_cast<uint8_t>(codes.bytes[i]);
  return v;
}

std::map<std::string, const Param*> index(const Weights& w) {
  std::map<std::string, const Param*> by;
  for (const Param& p : w) by.emplace(p.name, &p);
  return by;
}

// The Bernoulli(rate) mask of `n` values from `seed` (its first kSeedBytes bytes).
std::vector<bool> sparse_mask(const std::string& seed, size_t n, double rate) {
  std::vector<uint32_t> u(n);
  randombytes_buf_deterministic(u.data(), n * 4, reinterpret_cast<const uint8_t*>(seed.data()));
  const auto cut = static_cast<uint64_t>(std::ldexp(rate, 32));
  std::vector<bool> keep(n);
  for (size_t i = 0; i < n; ++i) keep[i] = u[i] < cut;
  return keep;
}

size_t total_numel(const Weights& w) {
  size_t n = 0;
  for (const Param& p : w) n += static_cast<size_t>(p.numel());
  return n;
}

}  // namespace

std::string range_name(const std::string& param) { return param + std::string(1, '\0') + "range"; }

std::string fresh_seed() {
  MC_CHECK(sodium_init() >= 0, Runtime, "federated compression: libsodium failed to initialise.");
  std::string seed(kSeedBytes, '\0');
  randombytes_buf(seed.data(), seed.size());
  return seed;
}

Weights quantize(const Weights& model) {
  Weights out;
  for (const Param& p : model) put_codes(out, p.name, p.shape, floats(p));
  return out;
}

Weights dequantize(const Weights& message) {
  auto by = index(message);
  Weights out;
  for (const Param& p : message) {
    if (p.name.find('\0') != std::string::npos) continue;  // a range: read with its codes
    std::vector<double> v = get_codes(p, by, static_cast<size_t>(p.numel()));
    out.push_back(float_param(p.name, p.shape, std::vector<float>(v.begin(), v.end())));
  }
  if (message.size() != 2 * out.size())
    bad("a quantized model holds entries other than codes and their ranges");
  return out;
}

Weights sparse_diff(const Weights& update, const Weights& base, double rate,
                    const std::string& seed) {
  MC_CHECK(rate > 0 && rate <= 1, Value,
           "federated compression: upload_sparse_rate must be in "
           "(0, 1], got ",
           rate, ".");
  MC_CHECK(seed.size() == kSeedBytes, Value, "federated compression: the seed has ", seed.size(),
           " bytes, not ", kSeedBytes, ".");
  auto by = index(update);
  std::vector<bool> keep = sparse_mask(seed, total_numel(base), rate);
  Weights out;
  size_t at = 0;
  for (const Param& b : base) {
    auto it = by.find(b.name);
    MC_CHECK(it != by.end() && it->second->dtype == DType::Float32 && it->second->shape == b.shape,
             Value, "federated compression: the update's '", b.name,
             "' is missing or not float32 of the model's shape.");
    std::vector<float> u = floats(*it->second), g = floats(b), kept;
    for (size_t i = 0; i < g.size(); ++i)
      if (keep[at + i]) kept.push_back(static_cast<float>((u[i] - g[i]) / rate));
    at += g.size();
    put_codes(out, b.name, {static_cast<int64_t>(kept.size())}, kept);
  }
  out.push_back(Param{kSeedEntry, DType::UInt8, {static_cast<int64_t>(kSeedBytes)}, seed});
  return out;
}

Weights apply_sparse_diff(const Weights& message, const Weights& base, double rate) {
  auto by = index(message);
  auto seed = by.find(kSeedEntry);
  if (seed == by.end() || seed->second->dtype != DType::UInt8 ||
      seed->second->bytes.size() != kSeedBytes)
    bad(str("the upload has no UInt8 seed of ", kSeedBytes,
            " bytes (upload_compress_type is DIFF_SPARSE_QUANT)"));
  if (message.size() != 2 * base.size() + 1)
    bad(str("the upload holds ", message.size(), " entries, not codes and a range for each of the ",
            base.size(), " parameters and the seed"));
  std::vector<bool> keep = sparse_mask(seed->second->bytes, total_numel(base), rate);
  Weights out;
  size_t at = 0;
  for (const Param& b : base) {
    auto it = by.find(b.name);
    if (it == by.end()) bad(str("the upload lacks the parameter '", b.name, "'"));
    const size_t n = static_cast<size_t>(b.numel());
    const auto k = static_cast<size_t>(std::count(keep.begin() + at, keep.begin() + at + n, true));
    if (it->second->shape != std::vector<int64_t>{static_cast<int64_t>(k)})
      bad(str("the codes of '", b.name, "' must have shape (", k, ",), the seed's mask"));
    std::vector<double> d = get_codes(*it->second, by, k);
    std::vector<float> v = floats(b);
    for (size_t i = 0, j = 0; i < n; ++i)
      if (keep[at + i]) v[i] = static_cast<float>(v[i] + d[j++]);
    at += n;
    out.push_back(float_param(b.name, b.shape, v));
  }
  return out;
}

}  // namespace mycel::federated::compress
