// The .ms file: round trip, each kind of damage named in its error, and a bounded seeded
// mutation test (bit flips, truncations, splices): with the checksum every damaged file is a
// ValueError; with the checksum skipped (Context::verify_checksum = false) each is a
// ValueError or a model that loads and runs, never a crash (ASan/UBSan in the fuzz build,
// fuzz/fuzz_lite_model.cc, run the same reader). Also the runtime end to end (Predict,
// Resize, the reference kernels) and the converter's passes, which must not change results.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>

#include "base/error.h"
#include "converter/passes/passes.h"
#include "lite/model.h"
#include "lite/model_file.h"
#include "lite_test_models.h"

namespace mycel::lite {
namespace {

std::string error_of(const std::string& bytes, bool verify = true) {
  try {
    read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.ms", verify);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value) << e.what();
    return e.what();
  }
  return "";
}

void fix_crc(std::string& b) {
  uint32_t crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(b.data()) + 12, b.size() - 12));
  std::memcpy(b.data() + 8, &crc, 4);
}

std::vector<float> run(const std::string& bytes, const std::vector<float>& x, bool reference,
                       Dims* shape = nullptr) {
  Model m;
  Context ctx;
  ctx.reference = reference;
  m.Build(bytes.data(), bytes.size(), ctx);
  auto in = m.GetInputs();
  EXPECT_EQ(in[0].DataSize(), x.size() * sizeof(float));
  std::memcpy(in[0].MutableData(), x.data(), in[0].DataSize());
  std::vector<Tensor> out;
  m.Predict(in, &out);
  if (shape) *shape = out[0].Shape();
  const float* p = static_cast<const float*>(out[0].Data());
  return std::vector<float>(p, p + out[0].ElementNum());
}

TEST(LiteFile, RoundTripKeepsTheGraphAndMapsConstants) {
  Graph g = testing::small_convnet();
  std::string bytes = write_model(g, "test");
  Graph r = read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.ms");
  ASSERT_EQ(r.tensors.size(), g.tensors.size());
  ASSERT_EQ(r.nodes.size(), g.nodes.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    EXPECT_EQ(r.tensors[t].name, g.tensors[t].name);
    EXPECT_EQ(r.tensors[t].shape, g.tensors[t].shape);
    if (!g.tensors[t].constant) continue;
    // Constants point into the file's bytes (no copy), 64-byte aligned within the weights.
    auto* p = static_cast<const char*>(r.tensors[t].data);
    EXPECT_TRUE(p >= bytes.data() && p < bytes.data() + bytes.size());
    EXPECT_EQ(std::memcmp(p, g.tensors[t].data, g.tensors[t].nbytes()), 0);
  }
  EXPECT_EQ(r.nodes[0].a.act, Act::ReLU);
  EXPECT_EQ(r.nodes[2].a.ceil_mode, true);
}

TEST(LiteFile, EachDamageIsNamed) {
  std::string good = write_model(testing::small_convnet(), "test");
  EXPECT_EQ(error_of(good), "");
  EXPECT_NE(error_of("").find("not a mycel lite model file"), std::string::npos);
  EXPECT_NE(error_of("PK\x03\x04 a zip file, not a model at all.....").find("not a mycel lite"),
            std::string::npos);
  std::string v = good;
  v[12] = 2;
  fix_crc(v);
  EXPECT_NE(error_of(v).find("format version 2; this runtime reads version 1"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, 40)).find("truncated"), std::string::npos);
  std::string flip = good;
  flip[flip.size() - 3] ^= 0x10;
  EXPECT_NE(error_of(flip).find("checksum mismatch"), std::string::npos);
  EXPECT_EQ(error_of(flip, false), "");  // a weight changed: readable when trusted
  std::string meta = good;
  meta[kPreambleSize + 5] ^= 0x7f;
  EXPECT_NE(error_of(meta, false), "");
}

TEST(LiteFile, MutatedFilesAreErrorsNeverCrashes) {
  const std::string good = write_model(testing::small_convnet(1), "test");
  std::mt19937 gen(20261127);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(gen); };
  const std::vector<float> x = testing::random_values(3 * 9 * 9, 11);
  int loaded = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string b = good;
    switch (i % 3) {
      case 0:  // bit flips
        for (int k = 0, n = 1 + static_cast<int>(pick(4)); k < n; ++k)
          b[pick(b.size())] ^= static_cast<char>(1 << pick(8));
        break;
      case 1:  // truncation
        b.resize(pick(b.size()));
        break;
      default: {  // splice: a chunk of the file copied over another place
        size_t len = 1 + pick(64), from = pick(b.size() - len), to = pick(b.size() - len);
        b.replace(to, len, good.substr(from, len));
      }
    }
    if (b == good) continue;
    EXPECT_NE(error_of(b), "") << "mutation " << i << " passed the checksum";
    // Trusted files: the structure checks alone must hold the line.
    bool ok = true;
    try {
      Model m;
      Context ctx;
      ctx.verify_checksum = false;
      ctx.max_arena_bytes = size_t{64} << 20;
      m.Build(b.data(), b.size(), ctx);
      auto in = m.GetInputs();
      if (in.size() == 1 && in[0].DataSize() == x.size() * sizeof(float)) {
        std::memcpy(in[0].MutableData(), x.data(), in[0].DataSize());
        std::vector<Tensor> out;
        m.Predict(in, &out);
      }
    } catch (const Error& e) {
      ok = false;
      EXPECT_EQ(e.kind(), ErrorKind::Value) << e.what();
    }
    ++(ok ? loaded : rejected);
  }
  EXPECT_GT(rejected, 1000);
  RecordProperty("loaded_without_checksum", loaded);
}

TEST(LiteRuntime, PredictResizeAndReferenceAgree) {
  const std::string bytes = write_model(testing::small_convnet(2), "test");
  std::vector<float> x = testing::random_values(2 * 3 * 9 * 9, 12);
  Dims shape;
  std::vector<float> fast = run(bytes, x, false, &shape), ref = run(bytes, x, true);
  EXPECT_EQ(shape, (Dims{2, 5}));
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(fast[i], ref[i], 1e-5);
  // Resize to batch 5: each sample's result is what batch 2 gave for it.
  Model m;
  m.Build(bytes.data(), bytes.size());
  auto in = m.GetInputs();
  m.Resize(in, {{5, 3, 9, 9}});
  in = m.GetInputs();
  ASSERT_EQ(in[0].Shape(), (Dims{5, 3, 9, 9}));
  std::vector<float> x5(5 * 243);
  for (size_t i = 0; i < x5.size(); ++i) x5[i] = x[i % x.size()];
  std::memcpy(in[0].MutableData(), x5.data(), in[0].DataSize());
  std::vector<Tensor> out;
  m.Predict(in, &out);
  ASSERT_EQ(out[0].Shape(), (Dims{5, 5}));
  const float* p = static_cast<const float*>(out[0].Data());
  for (int s = 0; s < 5; ++s)
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(p[s * 5 + j], ref[(s % 2) * 5 + j], 1e-5);
  // A shape the graph cannot take is refused, and the model keeps its shapes.
  EXPECT_THROW(m.Resize(in, {{5, 2, 9, 9}}), Error);
  EXPECT_EQ(m.GetInputs()[0].Shape(), (Dims{5, 3, 9, 9}));
}

TEST(LiteConverterPasses, FoldAndFuseWithoutChangingResults) {
  Graph g = testing::small_convnet(2);
  const std::string before = write_model(g, "test");
  converter::passes::fold_constants(g);
  converter::passes::fuse_bias(g);
  converter::passes::fold_batchnorm(g);
  converter::passes::fuse_activation(g);
  converter::passes::eliminate_transposes(g);
  converter::passes::infer_and_prune(g);
  validate(g, "passes");
  // conv+bn (ReLU before BN: the BN stays), pool, reshape, fc (+ add fused), softmax.
  std::vector<OpType> ops;
  for (const NodeDesc& n : g.nodes) ops.push_back(n.op);
  EXPECT_EQ(ops, (std::vector<OpType>{OpType::Conv2D, OpType::BatchNorm, OpType::Pool,
                                      OpType::Reshape, OpType::FullyConnected, OpType::Softmax}));
  const std::string after = write_model(g, "test");
  std::vector<float> x = testing::random_values(2 * 3 * 9 * 9, 13);
  std::vector<float> a = run(before, x, true), b = run(after, x, false);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
}

}  // namespace
}  // namespace mycel::lite
