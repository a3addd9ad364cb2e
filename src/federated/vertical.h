// Vertical federated learning's transport (mycel.federated.vertical): two parties, each with an
// endpoint of its own, exchange named tensors. After MindSpore Federated's
// VerticalFederatedCommunicator: a party serves its address (cpp-httplib) and posts its
// messages to the peer's.
//
// A message is one wire.h Request of kind VflMessage, POSTed to /vflMessage: client_id is the
// sender's name, iteration its sequence number in this direction (1, 2, ...), a random nonce,
// and the tensors as its weights. The receiving endpoint accepts only messages from the peer
// it was told (by name), in order (the next sequence number: replays, gaps and reordering are
// refused), and at most kMaxQueued waiting; the rest is refused with a reason logged (events())
// and sent back, so the sender raises. Accepted messages wait in a queue until receive() takes
// them. What crosses is only what the caller sends: the split-learning parties send activations
// and gradients at the cut, the PSI blinded group elements (psi.h).
//
// Authentication (PartyKeys; both parties or neither): each party has a long-term X25519 key
// pair (libsodium's crypto_kx) and knows the peer's public key. Both derive from them, by
// crypto_kx's session keys (the party whose name sorts first takes its client side), one key
// per direction; every message then carries, in its token field, crypto_auth's tag
// (HMAC-SHA-512-256) of its whole wire form with an empty token (sender name, sequence number,
// nonce, send time in ms since the epoch in data_size, tensors). The receiver refuses (403) a
// message without a tag or with a wrong one (a party without the right secret key, whatever
// name it claims, or a tampered message), and (409) one sent more than
// replay_attack_time_diff from its own clock: sequence numbers start at 1 in every session,
// so an old session's message replayed later is caught by its time. Without keys only the
// peer's name is checked (the parties are then expected on a private link); mutual TLS is not
// built.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "federated/wire.h"

namespace mycel::federated::vertical {

inline constexpr size_t kMaxQueued = 64;                  // messages waiting for receive()
inline constexpr size_t kMaxBodyBytes = size_t{1} << 28;  // 256 MiB a message

// A party's keys for authenticated messages: its crypto_kx secret key and the peer's public
// key (32 bytes each; both empty: no authentication), and the largest difference between a
// message's send time and the receiver's clock (MindSpore's replay_attack_time_diff, ms).
struct PartyKeys {
  std::string secret_key, peer_public_key;
  int64_t replay_attack_time_diff_ms = 600000;
};

// A fresh crypto_kx key pair: (public key, secret key), 32 bytes each.
std::pair<std::string, std::string> generate_party_keys();

class Communicator {
 public:
  // `name` is this party's, `peer_name` the only sender it accepts. Serves host:port (port 0:
  // any free one, port() tells which) from the constructor on; `timeout` bounds send (the peer
  // unreachable) and receive (nothing arrived). With `keys`, messages both ways are
  // authenticated (above); keys of the wrong size, or a peer key that is not a valid X25519
  // point, are a ValueError.
  Communicator(std::string name, const std::string& host, int port, std::string peer_name,
               std::chrono::milliseconds timeout, const PartyKeys& keys = {});
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int port() const;
  const std::string& name() const;
  const std::string& peer_name() const;
  // Posts `w` to the peer at peer_host:peer_port as the next message; a RuntimeError when the
  // peer cannot be reached within the timeout, a ValueError naming its reason when it refuses.
  void send(const std::string& peer_host, int peer_port, Weights w);
  // The peer's next message (in order), waiting up to the timeout (a RuntimeError then).
  Weights receive();
  // Why messages were refused (each line also written to stderr).
  std::vector<std::string> events() const;
  void stop();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace mycel::federated::vertical
