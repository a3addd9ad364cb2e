// A client of the federated server (server.h): the transport under mycel.federated's
// FederatedClient. It holds the client id and the token registration gave it, draws a fresh
// random nonce (libsodium) for every request, and sends wire.h's messages over HTTP
// (cpp-httplib, a connection per request). The round logic (which round it joined, polling
// getModel) is the Python class's.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "federated/wire.h"

namespace mycel::federated {

class Client {
 public:
  // Talks to host:port; a server that does not answer within `timeout` (connecting, or a
  // request) is a RuntimeError naming the address. With `ca_cert_path` (a PEM file) it
  // speaks HTTPS and accepts only a server whose certificate that CA signed for `host`.
  Client(const std::string& host, int port, std::string client_id,
         std::chrono::milliseconds timeout, const std::string& ca_cert_path = "");
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& client_id() const { return id_; }
  void set_token(std::string token) { token_ = std::move(token); }

  // Sends `r` (its client_id, token and nonce filled in here) to the endpoint of its kind;
  // `wait_ms` is getModel's server-side wait. A reply the server refused comes back as a
  // Reply with that status; a refusal without a decodable body (HTTP 413) as Rejected with
  // the HTTP status in the reason.
  Reply call(Request r, int64_t wait_ms = 0);
  // The raw exchange (tests: replays, malformed bodies): the HTTP status and the reply.
  Reply post(const std::string& path, const std::string& body, int64_t wait_ms = 0);
  const std::string& last_request() const { return last_; }

 private:
  struct Http;
  std::unique_ptr<Http> http_;
  std::string id_, token_, last_;
  std::chrono::milliseconds timeout_;
};

// The endpoint of a request kind ("/startFLJob").
const char* endpoint(MsgKind k);

}  // namespace mycel::federated
