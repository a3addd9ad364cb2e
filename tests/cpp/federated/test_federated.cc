// The federated layer without the network: the wire form (round trips, every truncation and
// the bounds checks refused as ValueErrors), update checks, FedAvg against a weighted mean,
// and round checkpoints (written atomically, read back by the checkpoint reader). The
// server's HTTP behaviour is tested from Python (tests/python/test_federated.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "base/error.h"
#include "federated/model.h"
#include "federated/wire.h"
#include "serialize/checkpoint.h"

namespace mycel::federated {
namespace {

Param f32(const std::string& name, std::vector<int64_t> shape, std::vector<float> v) {
  Param p;
  p.name = name;
  p.shape = std::move(shape);
  p.bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return p;
}

std::vector<float> values(const Param& p) {
  std::vector<float> v(p.bytes.size() / sizeof(float));
  std::memcpy(v.data(), p.bytes.data(), p.bytes.size());
  return v;
}

Request sample_update() {
  Request r;
  r.kind = MsgKind::UpdateModel;
  r.client_id = "client-7";
  r.token = std::string(64, 'a');
  r.iteration = 3;
  r.nonce = 0x0123456789abcdefull;
  r.data_size = 42;
  r.weights = {f32("w", {2, 2}, {1, 2, 3, 4}), f32("b", {2}, {-1, 0.5f})};
  return r;
}

TEST(FederatedWire, RequestAndReplyRoundTrip) {
  Request r = sample_update();
  Request back = decode_request(encode(r));
  EXPECT_EQ(back.kind, r.kind);
  EXPECT_EQ(back.client_id, r.client_id);
  EXPECT_EQ(back.token, r.token);
  EXPECT_EQ(back.iteration, 3u);
  EXPECT_EQ(back.nonce, r.nonce);
  EXPECT_EQ(back.data_size, 42u);
  ASSERT_EQ(back.weights.size(), 2u);
  EXPECT_EQ(back.weights[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(back.weights[1]), (std::vector<float>{-1, 0.5f}));

  Reply rep;
  rep.status = Status::NotReady;
  rep.reason = "round 3 has not closed";
  rep.iteration = 2;
  rep.weights = r.weights;
  Reply rb = decode_reply(encode(rep));
  EXPECT_EQ(rb.status, Status::NotReady);
  EXPECT_EQ(rb.reason, rep.reason);
  EXPECT_EQ(values(rb.weights[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(FederatedWire, EveryTruncationAndTrailingBytesAreValueErrors) {
  const std::string body = encode(sample_update());
  for (size_t n = 0; n < body.size(); ++n) {
    try {
      decode_request(std::string_view(body).substr(0, n));
      FAIL() << "a body cut to " << n << " bytes decoded";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value);
      EXPECT_NE(e.message().find("malformed federated message"), std::string::npos);
    }
  }
  EXPECT_THROW(decode_request(body + "x"), Error);
  EXPECT_THROW(decode_reply(body), Error);  // a request is not a reply
}

// Overwrites the bytes at `at` of a valid body and expects decoding to refuse it with `what`.
void expect_refused(std::string body, size_t at, const std::string& bytes,
                    const std::string& what) {
  body.replace(at, bytes.size(), bytes);
  try {
    decode_request(body);
    FAIL() << "decoded: " << what;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(e.message().find(what), std::string::npos) << e.message();
  }
}

template <class T>
std::string le(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

TEST(FederatedWire, HostileSizesAreRefusedBeforeAllocating) {
  const std::string body = encode(sample_update());
  // header 6, client_id 2+8, token 2+64, three u64 24 -> the weights start at byte 106.
  const size_t weights = 6 + 2 + 8 + 2 + 64 + 24;
  expect_refused(body, 0, "XXXX", "bad magic");
  expect_refused(body, 4, std::string(1, '\x07'), "version 7");
  expect_refused(body, 5, std::string(1, '\x0d'), "unknown kind 13");
  expect_refused(body, 6, le<uint16_t>(60000), "client_id has 60000 bytes");
  expect_refused(body, weights, le<uint32_t>(1u << 30), "parameters, more than the limit");
  const size_t p0 = weights + 4 + 2 + 1;  // after the count, the name "w"
  expect_refused(body, p0, std::string(1, '\x7f'), "unknown dtype code 127");
  expect_refused(body, p0 + 1, std::string(1, '\x09'), "has rank 9");
  expect_refused(body, p0 + 2, le<int64_t>(-2), "negative dimension -2");
  expect_refused(body, p0 + 2, le<int64_t>(int64_t{1} << 62) + le<int64_t>(int64_t{1} << 62),
                 "too many elements");
  expect_refused(body, p0 + 2, le<int64_t>(int64_t{1} << 62), "its shape needs");
  expect_refused(body, p0 + 2, le<int64_t>(3), "has 16 bytes of content, its shape needs 6");
  expect_refused(body, p0 + 2 + 16, le<uint64_t>(~0ull), "bytes of content");
  // a duplicated name
  Request dup = sample_update();
  dup.weights[1].name = "w";
  try {
    decode_request(encode(dup));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'w' occurs twice"), std::string::npos);
  }
  EXPECT_EQ(printable(std::string("a\n\xff\\b", 5)), "a\\x0a\\xff\\x5cb");
}

TEST(FederatedModel, UpdateProblemsAreNamed) {
  Weights g = {f32("w", {2}, {0, 0}), f32("b", {1}, {0})};
  EXPECT_EQ(update_problem(g, g), "");
  Weights u = g;
  u.pop_back();
  EXPECT_NE(update_problem(g, u).find("lacks the parameter 'b'"), std::string::npos);
  u = g;
  u.push_back(f32("z", {1}, {0}));
  EXPECT_NE(update_problem(g, u).find("a parameter 'z'"), std::string::npos);
  u = g;
  u[0] = f32("w", {1, 2}, {0, 0});
  EXPECT_NE(update_problem(g, u).find("has shape (1, 2), the model's is (2,)"), std::string::npos);
  u = g;
  u[0].dtype = DType::Int32;
  EXPECT_NE(update_problem(g, u).find("has dtype Int32"), std::string::npos);
  u = g;
  u[0] = f32("w", {2}, {0, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_NE(update_problem(g, u).find("non-finite value (NaN or Inf) at flat index 1"),
            std::string::npos);
  u[0] = f32("w", {2}, {-std::numeric_limits<float>::infinity(), 0});
  EXPECT_NE(update_problem(g, u).find("at flat index 0"), std::string::npos);
}

TEST(FederatedModel, FedAvgIsTheSampleWeightedMean) {
  Weights g = {f32("w", {3}, {0, 0, 0})};
  FedAvg avg(g);
  avg.add({f32("w", {3}, {1, 2, 3})}, 1);
  avg.add({f32("w", {3}, {4, 8, -3})}, 3);
  EXPECT_EQ(avg.count(), 2u);
  EXPECT_EQ(avg.samples(), 4u);
  EXPECT_EQ(values(avg.mean()[0]), (std::vector<float>{13 / 4.f, 26 / 4.f, -6 / 4.f}));
  EXPECT_THROW(avg.add(g, 0), Error);
}

TEST(FederatedModel, RoundCheckpointsAreAtomicAndReadable) {
  auto dir =
      std::filesystem::temp_directory_path() / ("mycel_fl_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(load_round(dir.string()).has_value());
  Weights g = {f32("w", {2, 1}, {1.5f, -2}), f32("b", {}, {7})};
  save_round(dir.string(), 4, g);
  save_round(dir.string(), 5, g);  // over the old one
  EXPECT_FALSE(std::filesystem::exists(round_checkpoint_path(dir.string()) + ".tmp"));
  auto back = load_round(dir.string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->first, 5u);
  ASSERT_EQ(back->second.size(), 2u);
  EXPECT_EQ(back->second[0].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(back->second[1]), (std::vector<float>{7}));
  // the file is a regular mycel checkpoint
  auto entries = serialize::load_checkpoint_file(round_checkpoint_path(dir.string()), "test");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].name, kIterationKey);
  std::filesystem::remove_all(dir);
}

TEST(FederatedModel, ServerMomentumStepsAndItsVelocityIsCheckpointed) {
  // v1 = a1 - w0 = 1, w1 = 1 + 0.5 * 1 = 1.5; v2 = 0.9 * 1 + (3 - 1.5) = 2.4, w2 = 1.5 + 1.2
  ServerMomentum m(0.5, 0.9);
  EXPECT_TRUE(m.velocity().empty());
  Weights w1 = m.step({f32("w", {1}, {0})}, {f32("w", {1}, {1})});
  EXPECT_EQ(values(w1[0]), (std::vector<float>{0.5f}));
  Weights w2 = m.step({f32("w", {1}, {1.5f})}, {f32("w", {1}, {3})});
  EXPECT_FLOAT_EQ(values(w2[0])[0], 2.7f);
  ASSERT_EQ(m.velocity().size(), 1u);
  EXPECT_EQ(m.velocity()[0].dtype, DType::Float64);
  double v;
  std::memcpy(&v, m.velocity()[0].bytes.data(), sizeof v);
  EXPECT_DOUBLE_EQ(v, 2.4);

  auto dir =
      std::filesystem::temp_directory_path() / ("mycel_fl_momentum_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  save_round(dir.string(), 2, w2, m.velocity());
  Weights velocity;
  auto back = load_round(dir.string(), &velocity);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->second.size(), 1u);  // the velocity is not a model parameter
  ServerMomentum again(0.5, 0.9);
  again.restore(back->second, velocity);
  EXPECT_EQ(again.velocity()[0].bytes, m.velocity()[0].bytes);
  Weights wrong = velocity;
  wrong[0].shape = {2};
  EXPECT_THROW(ServerMomentum(0.5, 0.9).restore(back->second, wrong), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mycel::federated
