// Communication compression without the network (federated/compress.h): 8-bit quantization
// within half a step of each value, sparse differences that keep the rate's share of values,
// rebuild exactly what they encode and are unbiased over seeds, and malformed messages refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "base/error.h"
#include "federated/compress.h"

namespace mycel::federated::compress {
namespace {

Param f32(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& v) {
  Param p{name, DType::Float32, std::move(shape), std::string(v.size() * 4, '\0')};
  std::memcpy(p.bytes.data(), v.data(), p.bytes.size());
  return p;
}

std::vector<float> values(const Param& p) {
  std::vector<float> v(p.bytes.size() / 4);
  std::memcpy(v.data(), p.bytes.data(), p.bytes.size());
  return v;
}

Weights model(uint32_t seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> w(2000), b(30);
  for (float& x : w) x = d(g);
  for (float& x : b) x = d(g);
  return {f32("w", {40, 50}, w), f32("b", {30}, b)};
}

TEST(FederatedCompress, QuantizedModelsAreWithinHalfAStep) {
  Weights m = model(1);
  Weights q = quantize(m);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].dtype, DType::UInt8);
  EXPECT_EQ(q[0].shape, m[0].shape);
  EXPECT_EQ(q[0].bytes.size(), 2000u);  // a quarter of the float32 bytes
  Weights d = dequantize(q);
  ASSERT_EQ(d.size(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    std::vector<float> a = values(m[j]), b = values(d[j]);
    auto [mn, mx] = std::minmax_element(a.begin(), a.end());
    const double half = (*mx - *mn) / 255.0 / 2 + 1e-6;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_LE(std::fabs(a[i] - b[i]), half);
  }
  // a constant parameter survives exactly
  Weights c{f32("c", {3}, {2.5f, 2.5f, 2.5f})};
  EXPECT_EQ(values(dequantize(quantize(c))[0]), (std::vector<float>{2.5f, 2.5f, 2.5f}));
}

TEST(FederatedCompress, SparseDifferencesKeepTheRateAndRebuildWhatTheyEncode) {
  Weights base = model(2), update = model(3, 0.1f);
  for (size_t j = 0; j < 2; ++j) {  // update = base + a small difference
    std::vector<float> b = values(base[j]), u = values(update[j]);
    for (size_t i = 0; i < u.size(); ++i) u[i] += b[i];
    update[j] = f32(update[j].name, update[j].shape, u);
  }
  const std::string seed = fresh_seed();
  Weights msg = sparse_diff(update, base, 0.25, seed);
  ASSERT_EQ(msg.size(), 5u);
  const int64_t kept = msg[0].shape[0] + msg[2].shape[0];
  EXPECT_NEAR(kept / 2030.0, 0.25, 0.04);
  Weights got = apply_sparse_diff(msg, base, 0.25);
  size_t changed = 0;
  for (size_t j = 0; j < 2; ++j) {
    std::vector<float> b = values(base[j]), u = values(update[j]), g = values(got[j]);
    for (size_t i = 0; i < g.size(); ++i) {
      if (g[i] == b[i]) continue;  // not kept: the base
      ++changed;
      // kept: base + (u - b) / rate, quantized (the differences span about +-0.4 / 0.25)
      EXPECT_NEAR(g[i], b[i] + (u[i] - b[i]) / 0.25, 3.5 / 255) << j << " " << i;
    }
  }
  EXPECT_GE(changed + 5, static_cast<size_t>(kept));
  // rate 1 keeps everything: the update within the quantization
  Weights all = apply_sparse_diff(sparse_diff(update, base, 1.0, seed), base, 1.0);
  std::vector<float> u = values(update[0]), a = values(all[0]);
  for (size_t i = 0; i < u.size(); ++i) EXPECT_NEAR(a[i], u[i], 0.9 / 255);
}

TEST(FederatedCompress, SparseDifferencesAreUnbiasedOverSeeds) {
  Weights base{f32("w", {4}, {0, 0, 0, 0})}, update{f32("w", {4}, {1.0f, -0.5f, 0.25f, 0})};
  std::vector<double> mean(4);
  const int n = 4000;
  for (int k = 0; k < n; ++k) {
    std::vector<float> g =
        values(apply_sparse_diff(sparse_diff(update, base, 0.5, fresh_seed()), base, 0.5)[0]);
    for (size_t i = 0; i < 4; ++i) mean[i] += g[i] / n;
  }
  // each value is 2 (u - b) with probability 1/2 (std |u - b|): the mean within 5 sigma
  const double want[4] = {1.0, -0.5, 0.25, 0};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(mean[i], want[i], 5 * std::fabs(want[i]) / std::sqrt(n) + 1e-2) << i;
}

TEST(FederatedCompress, MalformedMessagesAreValueErrors) {
  Weights base = model(4), update = model(5);
  const std::string seed = fresh_seed();
  Weights msg = sparse_diff(update, base, 0.5, seed);
  auto refused = [&](Weights m, const char* what) {
    try {
      apply_sparse_diff(m, base, 0.5);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value) << what;
    }
  };
  Weights no_seed(msg.begin(), msg.end() - 1);
  refused(no_seed, "no seed");
  refused(update, "a plain update");
  Weights short_codes = msg;
  short_codes[0].bytes.pop_back();
  short_codes[0].shape[0] -= 1;
  refused(short_codes, "codes of another count than the mask");
  Weights nan_range = msg;
  float nan = std::nanf("");
  std::memcpy(nan_range[1].bytes.data(), &nan, 4);
  refused(nan_range, "a NaN range");
  Weights other_seed = msg;  // another seed's mask keeps another count (almost surely)
  other_seed.back().bytes = fresh_seed();
  refused(other_seed, "another seed");
  EXPECT_THROW(sparse_diff(update, base, 0.0, seed), Error);
  EXPECT_THROW(sparse_diff(update, base, 0.5, "short"), Error);
  Weights q = quantize(base);
  q.pop_back();  // a range missing
  EXPECT_THROW(dequantize(q), Error);
}

}  // namespace
}  // namespace mycel::federated::compress
