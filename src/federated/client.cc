#include "federated/client.h"

#include <httplib.h>
#include <sodium.h>

#include <thread>

#include "base/error.h"

namespace mycel::federated {

struct Client::Http {
  std::string where;
  httplib::Client cli;
  Http(const std::string& host, int port, bool tls)
      : where(host + ":" + std::to_string(port)),
        cli((tls ? "https://" : "http://") + host + ":" + std::to_string(port)) {}
};

const char* endpoint(MsgKind k) {
  switch (k) {
    case MsgKind::Register:
      return "/register";
    case MsgKind::StartFLJob:
      return "/startFLJob";
    case MsgKind::UpdateModel:
      return "/updateModel";
    case MsgKind::GetModel:
      return "/getModel";
    case MsgKind::ExchangeKeys:
      return "/exchangeKeys";
    case MsgKind::GetKeys:
      return "/getKeys";
    case MsgKind::ShareSecrets:
      return "/shareSecrets";
    case MsgKind::GetSecrets:
      return "/getSecrets";
    case MsgKind::GetClientList:
      return "/getClientList";
    case MsgKind::ReconstructSecrets:
      return "/reconstructSecrets";
    case MsgKind::VflMessage:
      return "/vflMessage";
    case MsgKind::Reply:
      break;
  }
  MC_THROW(Value, "federated client: a Reply is not a request.");
}

Client::Client(const std::string& host, int port, std::string client_id,
               std::chrono::milliseconds timeout, const std::string& ca_cert_path)
    : http_(std::make_unique<Http>(host, port, !ca_cert_path.empty())),
      id_(std::move(client_id)),
      timeout_(timeout) {
  MC_CHECK(sodium_init() >= 0, Runtime, "FederatedClient: libsodium failed to initialise.");
  MC_CHECK(!id_.empty() && id_.size() <= kMaxIdBytes, Value,
           "FederatedClient: client_id must have 1 to ", kMaxIdBytes, " bytes, got ", id_.size(),
           ".");
  MC_CHECK(timeout.count() > 0, Value, "FederatedClient: the timeout must be positive.");
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout) + std::chrono::seconds(1);
  http_->cli.set_connection_timeout(std::min<std::chrono::seconds>(secs, std::chrono::seconds(5)));
  http_->cli.set_read_timeout(secs + std::chrono::seconds(2));
  http_->cli.set_write_timeout(secs);
  // A connection per request: the server's threads serve one connection each, and thousands of
  // idle keep-alive clients would hold them all (a round of 1,000 clients took 126 s so).
  http_->cli.set_keep_alive(false);
  http_->cli.set_tcp_nodelay(true);
  if (!ca_cert_path.empty()) {
    http_->cli.set_ca_cert_path(ca_cert_path);
    http_->cli.enable_server_certificate_verification(true);
  }
}

Client::~Client() = default;

Reply Client::post(const std::string& path, const std::string& body, int64_t wait_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout_;
  httplib::Headers headers;
  if (wait_ms > 0) headers.emplace("X-Mycel-Wait-Ms", std::to_string(wait_ms));
  for (;;) {  // retried while the server cannot be reached (it may be starting or restarting)
    httplib::Result res = http_->cli.Post(path.c_str(), headers, body, "application/octet-stream");
    if (res) {
      try {
        return decode_reply(res->body);
      } catch (const Error&) {
        Reply r;
        r.status = Status::Rejected;
        r.reason = str("the server answered HTTP ", res->status,
                       res->status == 413 ? " (the request body is too large)" : "",
                       " without a valid reply");
        return r;
      }
    }
    MC_CHECK(Clock::now() < deadline, Runtime, "FederatedClient: the server at ", http_->where,
             " did not answer ", path, " (", httplib::to_string(res.error()), ") within ",
             timeout_.count(), " ms.");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Reply Client::call(Request r, int64_t wait_ms) {
  r.client_id = id_;
  r.token = token_;
  randombytes_buf(&r.nonce, sizeof r.nonce);
  last_ = encode(r);
  return post(endpoint(r.kind), last_, wait_ms);
}

}  // namespace mycel::federated
