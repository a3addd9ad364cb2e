// Secure aggregation (encrypt_type PW_ENCRYPT): the protocol of Bonawitz et al., "Practical
// Secure Aggregation for Privacy-Preserving Machine Learning" (CCS 2017), in the rounds
// MindSpore Federated runs. The server learns the weighted sum of the surviving clients'
// updates and nothing about any one of them; clients that drop out after sharing their secrets
// are recovered from the survivors' Shamir shares.
//
// A round, after startFLJob admitted the set U1 (server.cc drives the phases and windows):
//   1. exchangeKeys: each client sends two X25519 public keys, c_pk (to encrypt its shares) and
//      s_pk (for the pairwise masks), and a hash of its self-mask seed b; its token
//      authenticates them. getKeys returns the list (U1', sorted by id) with each client's
//      announced sample count and the threshold t.
//   2. shareSecrets: each client splits b and s_sk with Shamir t-of-n (client i of the sorted
//      list holds the point x = i + 1) and sends, for every other client, both shares sealed
//      with crypto_box (X25519 of the two c keys, XSalsa20-Poly1305). getSecrets hands each
//      client the ciphertexts addressed to it; their senders are U2.
//   3. updateModel: y_u = q_u + PRG(b_u) + sum over v in U2 \ {u} of (u < v ? +1 : -1) *
//      PRG(s_uv)  (mod 2^32, Int32 bit patterns), where q_u is the update times n_u / N in
//      fixed point (kFracBits fraction bits; N: the samples of U1'), s_uv the hash of
//      X25519(s_sk_u, s_pk_v) and both public keys, and PRG the ChaCha20 stream.
//   4. getClientList names the uploaders U3; reconstructSecrets: each survivor sends its share
//      of b_v for every v in U3 and of s_sk_v for every v in U2 \ U3, never both for one v.
//      With t shares the server rebuilds each secret (checked against the hash of b or the
//      public key s_pk), removes the self masks and the dropped clients' pairwise masks, and
//      divides by N3 / N (N3: the samples of U3): the FedAvg of U3.
// Every primitive is libsodium's: crypto_scalarmult (X25519), crypto_box, crypto_generichash
// (BLAKE2b), crypto_stream_chacha20, randombytes. Shamir sharing is arithmetic over the prime
// field GF(2^61 - 1), a 32-byte secret split into five 7-byte chunks.
//
// The payloads ride in a message's weights (wire.h), one entry per client, named by its id,
// dtype UInt8, shape (nbytes,); the entry named "" (ids are never empty) holds the round's
// parameters. Every payload from the network is checked (sizes, ids known, points in the
// field); a problem is a ValueError that the server refuses the request with.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "federated/wire.h"

namespace mycel::federated::secagg {

// ---- Shamir secret sharing over GF(p), p = 2^61 - 1 ----
inline constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;
inline constexpr size_t kSecretBytes = 32;
inline constexpr size_t kChunks = 5;                    // 7 bytes of the secret each
inline constexpr size_t kShareBytes = 4 + 8 * kChunks;  // u32 x, kChunks x u64 y
using Secret = std::array<uint8_t, kSecretBytes>;

struct Share {
  uint32_t x = 0;  // the holder's point, 1..n
  std::array<uint64_t, kChunks> y{};
};
// n shares (x = 1..n) of which any t rebuild `secret`, fewer tell nothing of it; 1 <= t <= n.
std::vector<Share> shamir_split(const Secret& secret, uint32_t n, uint32_t t);
// The secret of t or more shares with distinct nonzero points (Lagrange at 0). Shares of a
// polynomial of higher degree than their count allows rebuild a wrong value: the callers check
// it against a commitment (the hash of b, the public key of s_sk).
Secret shamir_combine(const std::vector<Share>& shares);
std::string share_bytes(const Share& s);
Share share_from_bytes(std::string_view b);  // a ValueError when malformed

// ---- masks and fixed point ----
inline constexpr int kFracBits = 20;  // fixed point: a value v is round(v * 2^20) mod 2^32
// The largest |value| a client may mask: the weighted sum (weights n_u / N <= 1 in all) then
// stays below 2^31 / 2^kFracBits in magnitude, so it decodes without wrapping.
inline constexpr double kMaxAbs = 2047.0;
// Adds sign * PRG(seed) (ChaCha20's keystream as little-endian u32) to `ring`.
void add_mask(std::vector<uint32_t>& ring, const Secret& seed, int sign);
// The pairwise seed of the holder of `my_sk` and the owner of `their_pk`: BLAKE2b of their
// X25519 secret and both public keys in a fixed order, so both ends derive the same seed. A
// degenerate public key is a ValueError.
Secret pair_seed(const Secret& my_sk, const Secret& my_pk, const Secret& their_pk);
// The sign with which client `a` adds the pairwise mask it shares with `b`.
inline int pair_sign(const std::string& a, const std::string& b) { return a < b ? 1 : -1; }

// One client's public keys as getKeys lists them.
struct PeerKeys {
  Secret c_pk{}, s_pk{}, b_hash{};
  uint64_t data_size = 0;
};

// The client's side of one round (python/mycel/federated/client.py drives it). Each method
// takes the server's reply of the step before and returns the next request's payload.
class Client {
 public:
  explicit Client(std::string id);  // fresh keys and self-mask seed
  Weights keys() const;             // exchangeKeys
  // getKeys' reply -> shareSecrets. Checks that this client is listed (with `data_size`), that
  // t <= |U1'|, and the keys.
  Weights shares(const Weights& key_list, uint64_t data_size);
  // getSecrets' reply: opens the shares addressed to this client (a forged or misaddressed one
  // is a ValueError); U2 = their senders and this client.
  void accept_shares(const Weights& sealed);
  // updateModel: `update` (float32 parameters) masked into Int32 ring elements. A value outside
  // the fixed-point range (|v| >= kMaxAbs, or NaN) is a ValueError naming it.
  Weights mask(const Weights& update) const;
  // getClientList's reply (U3) -> reconstructSecrets. Refuses (ValueError) a list with fewer than
  // t clients, with clients outside U2 or without this one.
  Weights reveal(const Weights& survivors) const;
  uint32_t threshold() const { return t_; }
  const std::string& client_id() const { return id_; }

 private:
  std::string id_;
  Secret c_pk_{}, c_sk_{}, s_pk_{}, s_sk_{}, b_{};
  uint32_t t_ = 0;
  uint64_t total_ = 0, data_size_ = 0;                   // N, n_u
  std::map<std::string, PeerKeys> peers_;                // U1' (this client included)
  std::map<std::string, std::pair<Share, Share>> held_;  // U2: v -> (share of b_v, of s_sk_v)
};

// The server's side of one round: what each phase received, and the unmasking. server.cc holds
// one per round and decides when a phase ends; `problem` results name the request's fault.
// The ring vector of a model is its parameters sorted by name, flattened and concatenated.
class ServerRound {
 public:
  ServerRound(uint32_t threshold, const Weights& model);
  uint32_t threshold() const { return t_; }
  // exchangeKeys of client `id` (admitted, with `data_size`): "" or why it is refused.
  std::string add_keys(const std::string& id, uint64_t data_size, const Weights& payload);
  size_t keyed() const { return keys_.size(); }
  Weights key_list() const;
  // shareSecrets: a sealed share for every other member of U1', nothing else.
  std::string add_shares(const std::string& id, const Weights& payload);
  size_t shared() const { return u2_.size(); }
  bool in_u2(const std::string& id) const { return u2_.count(id) > 0; }
  bool in_u1(const std::string& id) const { return keys_.count(id) > 0; }
  Weights sealed_for(const std::string& id) const;
  // updateModel: Int32 parameters of the model's names and shapes.
  std::string add_masked(const std::string& id, const Weights& payload);
  size_t uploaded() const { return u3_.size(); }
  bool in_u3(const std::string& id) const { return u3_.count(id) > 0; }
  Weights client_list() const;
  // reconstructSecrets: a share of b_v for every v in U3 and of s_sk_v for every v in U2 \ U3.
  std::string add_reveal(const std::string& id, const Weights& payload);
  size_t revealed() const { return revealers_.size(); }
  // The FedAvg of U3 (float32, the model's layout). Too few shares for a secret, or shares that
  // rebuild a secret its commitment refutes, are a ValueError saying which.
  Weights unmask() const;

 private:
  uint32_t t_;
  Weights layout_;             // the model's names and shapes, sorted by name (the ring's order)
  std::vector<size_t> order_;  // the model's order of layout_'s entries
  size_t numel_ = 0;
  std::map<std::string, PeerKeys> keys_;                              // U1'
  std::map<std::string, std::map<std::string, std::string>> sealed_;  // from -> to -> box
  std::set<std::string> u2_, u3_, revealers_;
  std::vector<uint32_t> sum_;
  std::map<std::string, std::vector<Share>> b_shares_, s_shares_;  // owner -> shares
};

}  // namespace mycel::federated::secagg
