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
// There is no authentication beyond the peer's name (no token, no TLS): the two parties are
// expected on a private link (mutual TLS is not built).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "federated/wire.h"

namespace mycel::federated::vertical {

inline constexpr size_t kMaxQueued = 64;                  // messages waiting for receive()
inline constexpr size_t kMaxBodyBytes = size_t{1} << 28;  // 256 MiB a message

class Communicator {
 public:
  // `name` is this party's, `peer_name` the only sender it accepts. Serves host:port (port 0:
  // any free one, port() tells which) from the constructor on; `timeout` bounds send (the peer
  // unreachable) and receive (nothing arrived).
  Communicator(std::string name, const std::string& host, int port, std::string peer_name,
               std::chrono::milliseconds timeout);
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
