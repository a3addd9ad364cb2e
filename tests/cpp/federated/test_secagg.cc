// Secure aggregation without the network (federated/secagg.h): Shamir sharing over GF(2^61 - 1)
// (any t shares rebuild the secret, fewer do not; malformed shares refused), the masks (PRG
// masks cancel, pairwise seeds agree), and whole rounds of secagg::Client and ServerRound: the
// unmasked sum against the weighted mean, dropouts recovered, too few shares and forged shares
// refused. The HTTP rounds are tested from Python (tests/python/test_federated_secure.py).
#include <gtest/gtest.h>
#include <sodium.h>

#include <cmath>
#include <cstring>
#include <random>

#include "base/error.h"
#include "federated/secagg.h"

namespace mycel::federated::secagg {
namespace {

Secret random_secret(uint32_t seed) {
  std::mt19937 g(seed);
  Secret s;
  for (auto& b : s) b = static_cast<uint8_t>(g());
  return s;
}

TEST(FederatedSecAgg, AnyTSharesRebuildTheSecret) {
  const Secret s = random_secret(1);
  for (uint32_t t : {1u, 2u, 3u, 7u}) {
    const uint32_t n = 7;
    std::vector<Share> all = shamir_split(s, n, t);
    ASSERT_EQ(all.size(), n);
    // every window of t consecutive points (and the last t reversed)
    for (uint32_t from = 0; from + t <= n; ++from) {
      std::vector<Share> some(all.begin() + from, all.begin() + from + t);
      EXPECT_EQ(shamir_combine(some), s) << "t=" << t << " from=" << from;
    }
    std::vector<Share> rev(all.rbegin(), all.rbegin() + t);
    EXPECT_EQ(shamir_combine(rev), s);
    // more than t shares of a degree t-1 polynomial rebuild it too
    EXPECT_EQ(shamir_combine(all), s);
  }
}

TEST(FederatedSecAgg, FewerThanTSharesDoNotRebuildIt) {
  const Secret s = random_secret(2);
  std::vector<Share> all = shamir_split(s, 5, 3);
  std::vector<Share> two(all.begin(), all.begin() + 2);
  // Two points of a random quadratic: the interpolated value at 0 is not the secret (or the
  // chunks fall outside the secret's range, which combine refuses).
  try {
    EXPECT_NE(shamir_combine(two), s);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
  }
  // The shares of two splits of one secret differ (fresh random coefficients).
  EXPECT_NE(share_bytes(shamir_split(s, 5, 3)[0]), share_bytes(all[0]));
}

TEST(FederatedSecAgg, BadSharesAreValueErrors) {
  const Secret s = random_secret(3);
  std::vector<Share> all = shamir_split(s, 4, 2);
  EXPECT_THROW(shamir_split(s, 4, 5), Error);
  EXPECT_THROW(shamir_split(s, 4, 0), Error);
  EXPECT_THROW(shamir_combine({}), Error);
  EXPECT_THROW(shamir_combine({all[1], all[1]}), Error);  // one point twice
  std::string b = share_bytes(all[0]);
  EXPECT_EQ(share_from_bytes(b).x, all[0].x);
  EXPECT_THROW(share_from_bytes(b.substr(1)), Error);  // short
  std::string zero = b;
  std::memset(zero.data(), 0, 4);  // point 0
  EXPECT_THROW(share_from_bytes(zero), Error);
  std::string big = b;
  std::memset(big.data() + 4, 0xff, 8);  // a value >= p
  EXPECT_THROW(share_from_bytes(big), Error);
}

TEST(FederatedSecAgg, MasksCancelAndPairSeedsAgree) {
  ASSERT_GE(sodium_init(), 0);
  std::vector<uint32_t> ring(10000);
  for (size_t i = 0; i < ring.size(); ++i) ring[i] = static_cast<uint32_t>(i * 2654435761u);
  const std::vector<uint32_t> before = ring;
  const Secret seed = random_secret(4);
  add_mask(ring, seed, 1);
  EXPECT_NE(ring, before);
  add_mask(ring, seed, -1);
  EXPECT_EQ(ring, before);
  Secret ask, apk, bsk, bpk;
  randombytes_buf(ask.data(), 32);
  randombytes_buf(bsk.data(), 32);
  crypto_scalarmult_base(apk.data(), ask.data());
  crypto_scalarmult_base(bpk.data(), bsk.data());
  EXPECT_EQ(pair_seed(ask, apk, bpk), pair_seed(bsk, bpk, apk));
  EXPECT_THROW(pair_seed(ask, apk, Secret{}), Error);  // the all-zero point
}

Param f32(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& v) {
  Param p{name, DType::Float32, std::move(shape), std::string()};
  p.bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  return p;
}

std::vector<float> values(const Param& p) {
  std::vector<float> v(p.bytes.size() / 4);
  std::memcpy(v.data(), p.bytes.data(), p.bytes.size());
  return v;
}

// A round of `n` clients with threshold `t`; clients in `drop` share secrets but do not upload.
struct Round {
  Weights model{f32("w", {2, 3}, std::vector<float>(6)), f32("b", {3}, std::vector<float>(3))};
  std::vector<std::string> ids;
  std::vector<Client> clients;
  std::vector<Weights> updates;
  std::vector<uint64_t> sizes;
  ServerRound server;
  Round(int n, uint32_t t) : server(t, model) {
    std::mt19937 g(5);
    std::normal_distribution<float> d;
    for (int i = 0; i < n; ++i) {
      ids.push_back("c" + std::to_string(i));
      clients.emplace_back(ids.back());
      std::vector<float> w(6), b(3);
      for (float& x : w) x = d(g);
      for (float& x : b) x = d(g);
      updates.push_back({f32("b", {3}, b), f32("w", {2, 3}, w)});  // another order than the model's
      sizes.push_back(10 + 7 * i);
    }
    for (int i = 0; i < n; ++i) EXPECT_EQ(server.add_keys(ids[i], sizes[i], clients[i].keys()), "");
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(server.add_shares(ids[i], clients[i].shares(server.key_list(), sizes[i])), "");
  }
  void upload(const std::set<int>& drop) {
    for (size_t i = 0; i < ids.size(); ++i) {
      clients[i].accept_shares(server.sealed_for(ids[i]));
      if (drop.count(static_cast<int>(i))) continue;
      EXPECT_EQ(server.add_masked(ids[i], clients[i].mask(updates[i])), "");
    }
  }
  void reveal(const std::set<int>& drop, size_t how_many) {
    for (size_t i = 0; i < ids.size() && how_many > 0; ++i) {
      if (drop.count(static_cast<int>(i))) continue;
      EXPECT_EQ(server.add_reveal(ids[i], clients[i].reveal(server.client_list())), "");
      --how_many;
    }
  }
  // The float64 weighted mean of the uploaders' parameter `which` (0: b, 1: w).
  std::vector<double> mean(const std::set<int>& drop, int which) const {
    std::vector<double> m(values(updates[0][which]).size());
    double total = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (drop.count(static_cast<int>(i))) continue;
      std::vector<float> v = values(updates[i][which]);
      for (size_t k = 0; k < m.size(); ++k) m[k] += sizes[i] * double(v[k]);
      total += sizes[i];
    }
    for (double& x : m) x /= total;
    return m;
  }
};

void expect_mean(const Round& r, const Weights& got, const std::set<int>& drop) {
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "w");  // the model's order
  EXPECT_EQ(got[1].name, "b");
  for (int which : {0, 1}) {
    std::vector<float> v = values(got[which == 1 ? 0 : 1]);
    std::vector<double> want = r.mean(drop, which);
    ASSERT_EQ(v.size(), want.size());
    // fixed point: each of n terms rounds by at most 2^-21, scaled by N / N3 <= 2
    for (size_t k = 0; k < v.size(); ++k) EXPECT_NEAR(v[k], want[k], 1e-5) << which << k;
  }
}

TEST(FederatedSecAgg, TheUnmaskedSumIsTheWeightedMean) {
  Round r(5, 3);
  r.upload({});
  r.reveal({}, 5);
  expect_mean(r, r.server.unmask(), {});
}

TEST(FederatedSecAgg, DroppedClientsMasksAreRecoveredFromTShares) {
  Round r(10, 5);
  const std::set<int> drop{2, 7};  // 20% drop out after sharing their secrets
  r.upload(drop);
  r.reveal(drop, 5);  // only t of the 8 survivors answer
  expect_mean(r, r.server.unmask(), drop);
}

TEST(FederatedSecAgg, TooFewSharesOrAForgedShareFailTheUnmasking) {
  Round r(5, 4);
  r.upload({});
  r.reveal({}, 3);  // three shares, t = 4
  EXPECT_THROW(r.server.unmask(), Error);

  Round f(4, 2);
  f.upload({});
  Weights shares = f.clients[0].reveal(f.server.client_list());
  shares[1].bytes[12] ^= 1;  // one bit of a share of c1's seed
  EXPECT_EQ(f.server.add_reveal(f.ids[0], shares), "");
  EXPECT_EQ(f.server.add_reveal(f.ids[3], f.clients[3].reveal(f.server.client_list())), "");
  try {
    f.server.unmask();
    ADD_FAILURE() << "a forged share was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'c1'"), std::string::npos) << e.message();
  }
}

TEST(FederatedSecAgg, MalformedPayloadsAreRefusedWithReasons) {
  Round r(3, 2);
  // keys: twice, or of the wrong size
  EXPECT_NE(r.server.add_keys("c0", 5, r.clients[0].keys()), "");
  Weights short_keys = r.clients[0].keys();
  short_keys[0].bytes.pop_back();
  short_keys[0].shape[0] -= 1;
  EXPECT_NE(ServerRound(2, r.model).add_keys("x", 5, short_keys), "");
  // shares from an unknown client, or twice
  EXPECT_NE(r.server.add_shares("zz", {}), "");
  EXPECT_NE(r.server.add_shares("c0", {}), "");
  // a masked update of another dtype
  r.clients[0].accept_shares(r.server.sealed_for("c0"));
  Weights plain = r.updates[0];
  EXPECT_NE(r.server.add_masked("c0", plain), "");
  // a reveal from a client that did not upload
  EXPECT_NE(r.server.add_reveal("c1", {}), "");
  // a client refuses a key list without itself, a forged sealed share, a too-short list
  Client lone("lone");
  EXPECT_THROW(lone.shares(r.server.key_list(), 5), Error);
  Weights sealed = r.server.sealed_for("c1");
  sealed[0].bytes[40] ^= 1;
  EXPECT_THROW(r.clients[1].accept_shares(sealed), Error);
  Weights list = r.server.client_list();  // nobody uploaded but c0 (none yet): fewer than t
  EXPECT_THROW(r.clients[0].reveal(list), Error);
  // a value outside the fixed-point range
  Weights huge = r.updates[0];
  huge[0] = f32("b", {3}, {1e6f, 0, 0});
  EXPECT_THROW(r.clients[0].mask(huge), Error);
}

}  // namespace
}  // namespace mycel::federated::secagg
