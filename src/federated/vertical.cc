#include "federated/vertical.h"

#include <httplib.h>
#include <sodium.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "federated/client.h"

namespace mycel::federated::vertical {

using Clock = std::chrono::steady_clock;

namespace {

uint64_t wall_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

std::pair<std::string, std::string> generate_party_keys() {
  MC_CHECK(sodium_init() >= 0, Runtime, "generate_party_keys: libsodium failed to initialise.");
  std::string pk(crypto_kx_PUBLICKEYBYTES, '\0'), sk(crypto_kx_SECRETKEYBYTES, '\0');
  crypto_kx_keypair(reinterpret_cast<unsigned char*>(pk.data()),
                    reinterpret_cast<unsigned char*>(sk.data()));
  return {pk, sk};
}

struct Communicator::State {
  std::string name, peer;
  std::chrono::milliseconds timeout{0};
  httplib::Server http;
  std::thread listener;
  int port = 0;
  uint64_t sent = 0;      // the sequence number of our last message
  mutable std::mutex mu;  // guards what follows
  std::condition_variable cv;
  uint64_t expected = 1;  // the peer's next sequence number
  std::deque<Weights> queue;
  std::vector<std::string> log;
  bool stopping = false;
  // Authentication (PartyKeys): the keys of messages from the peer (rx) and to it (tx).
  bool authenticated = false;
  unsigned char rx[crypto_kx_SESSIONKEYBYTES] = {}, tx[crypto_kx_SESSIONKEYBYTES] = {};
  int64_t replay_window_ms = 0;

  ~State() {
    sodium_memzero(rx, sizeof rx);
    sodium_memzero(tx, sizeof tx);
  }
  void derive_keys(const PartyKeys& keys);
  // The reason an authenticated message `r` (its tag taken out) is refused, "" if it is not.
  std::string auth_problem(Request& r) const;

  void reply(httplib::Response& res, Status st, int http_status, std::string reason) {
    if (st != Status::Ok) {
      std::string line = str(name, ": refused a message: ", reason);
      std::cerr << "mycel vertical: " << line << "\n";
      log.push_back(std::move(line));
    }
    Reply r;
    r.status = st;
    r.reason = std::move(reason);
    r.iteration = expected - 1;
    res.status = http_status;
    res.set_content(encode(r), "application/octet-stream");
  }

  void on_message(const httplib::Request& req, httplib::Response& res) {
    Request r;
    try {
      r = decode_request(req.body);
    } catch (const Error& e) {
      std::lock_guard<std::mutex> l(mu);
      return reply(res, Status::Malformed, 400, e.message());
    }
    std::lock_guard<std::mutex> l(mu);
    if (r.kind != MsgKind::VflMessage)
      return reply(res, Status::Malformed, 400, "not a vertical message");
    if (authenticated) {
      std::string why = auth_problem(r);
      if (!why.empty()) return reply(res, Status::Unauthorized, 403, why);
    }
    if (r.client_id != peer)
      return reply(res, Status::Unauthorized, 403,
                   str("a message from '", printable(r.client_id), "', not from the peer '",
                       printable(peer), "'"));
    if (r.iteration != expected)
      return reply(res, Status::Rejected, 409,
                   str("message ", r.iteration, " where ", expected,
                       " was expected (a replay, or out of order)"));
    if (queue.size() >= kMaxQueued)
      return reply(res, Status::Rejected, 429,
                   str(kMaxQueued, " messages are waiting already (receive() takes them)"));
    if (authenticated) {
      const int64_t skew = static_cast<int64_t>(wall_ms() - r.data_size);
      if (skew > replay_window_ms || -skew > replay_window_ms)
        return reply(res, Status::Rejected, 409,
                     str("message ", r.iteration, " was sent ", skew,
                         " ms from this endpoint's clock, over replay_attack_time_diff ",
                         replay_window_ms, " ms (a replay from an old session?)"));
    }
    queue.push_back(std::move(r.weights));
    ++expected;
    cv.notify_all();
    reply(res, Status::Ok, 200, "");
  }
};

void Communicator::State::derive_keys(const PartyKeys& keys) {
  MC_CHECK(keys.secret_key.size() == crypto_kx_SECRETKEYBYTES &&
               keys.peer_public_key.size() == crypto_kx_PUBLICKEYBYTES,
           Value, "VerticalFederatedCommunicator '", printable(name),
           "': secret_key and the peer's public_key must have ", crypto_kx_SECRETKEYBYTES,
           " bytes each (generate_party_keys), got ", keys.secret_key.size(), " and ",
           keys.peer_public_key.size(), ".");
  MC_CHECK(keys.replay_attack_time_diff_ms > 0, Value, "VerticalFederatedCommunicator '",
           printable(name), "': replay_attack_time_diff must be positive, got ",
           keys.replay_attack_time_diff_ms, ".");
  const auto* sk = reinterpret_cast<const unsigned char*>(keys.secret_key.data());
  const auto* peer_pk = reinterpret_cast<const unsigned char*>(keys.peer_public_key.data());
  unsigned char pk[crypto_kx_PUBLICKEYBYTES];
  crypto_scalarmult_base(pk, sk);
  const int rc = name < peer ? crypto_kx_client_session_keys(rx, tx, pk, sk, peer_pk)
                             : crypto_kx_server_session_keys(rx, tx, pk, sk, peer_pk);
  MC_CHECK(rc == 0, Value, "VerticalFederatedCommunicator '", printable(name), "': the peer '",
           printable(peer), "''s public key is not a valid X25519 key.");
  authenticated = true;
  replay_window_ms = keys.replay_attack_time_diff_ms;
}

std::string Communicator::State::auth_problem(Request& r) const {
  if (r.token.size() != crypto_auth_BYTES)
    return str("a message from '", printable(r.client_id),
               "' without an authentication tag (this endpoint needs the peer's key)");
  const std::string tag = std::move(r.token);
  r.token.clear();
  const std::string signed_part = encode(r);  // the canonical form the sender tagged
  if (crypto_auth_verify(reinterpret_cast<const unsigned char*>(tag.data()),
                         reinterpret_cast<const unsigned char*>(signed_part.data()),
                         signed_part.size(), rx) != 0)
    return str("a message claiming to be from '", printable(r.client_id),
               "' failed authentication (a party without the peer's key, or a tampered "
               "message)");
  return "";
}

Communicator::Communicator(std::string name, const std::string& host, int port,
                           std::string peer_name, std::chrono::milliseconds timeout,
                           const PartyKeys& keys)
    : s_(std::make_unique<State>()) {
  MC_CHECK(sodium_init() >= 0, Runtime, "VerticalFederatedCommunicator: libsodium failed.");
  MC_CHECK(!name.empty() && name.size() <= kMaxIdBytes && !peer_name.empty() &&
               peer_name.size() <= kMaxIdBytes && name != peer_name,
           Value, "VerticalFederatedCommunicator: the server names must have 1 to ", kMaxIdBytes,
           " bytes and differ, got '", printable(name), "' and '", printable(peer_name), "'.");
  MC_CHECK(timeout.count() > 0, Value, "VerticalFederatedCommunicator: the timeout must be > 0.");
  MC_CHECK(port >= 0 && port < 65536, Value, "VerticalFederatedCommunicator: port ", port,
           " is not in [0, 65535].");
  State* s = s_.get();
  s->name = std::move(name);
  s->peer = std::move(peer_name);
  s->timeout = timeout;
  if (!keys.secret_key.empty() || !keys.peer_public_key.empty()) s->derive_keys(keys);
  s->http.new_task_queue = [] { return new httplib::ThreadPool(2); };
  s->http.set_payload_max_length(kMaxBodyBytes);
  s->http.set_read_timeout(std::chrono::seconds(30));
  s->http.set_keep_alive_timeout(1);
  s->http.set_tcp_nodelay(true);
  s->http.Post("/vflMessage", [s](const httplib::Request& req, httplib::Response& res) {
    s->on_message(req, res);
  });
  s->http.set_error_handler([s](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::lock_guard<std::mutex> l(s->mu);
    s->log.push_back(str(s->name, ": refused ", printable(req.path), ": HTTP ", res.status));
  });
  s->port = port == 0 ? s->http.bind_to_any_port(host) : port;
  MC_CHECK(s->port > 0 && (port == 0 || s->http.bind_to_port(host, port)), Runtime,
           "VerticalFederatedCommunicator '", s->name, "': cannot listen on ", host, ":", port,
           " (the port is in use, or the address is not this machine's).");
  s->listener = std::thread([s] { s->http.listen_after_bind(); });
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!s->http.is_running() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!s->http.is_running()) {
    stop();
    MC_THROW(Runtime, "VerticalFederatedCommunicator on ", host, ":", s->port, " did not start.");
  }
}

Communicator::~Communicator() { stop(); }

int Communicator::port() const { return s_->port; }
const std::string& Communicator::name() const { return s_->name; }
const std::string& Communicator::peer_name() const { return s_->peer; }

void Communicator::send(const std::string& peer_host, int peer_port, Weights w) {
  Client cli(peer_host, peer_port, s_->name, s_->timeout);
  Request r;
  r.kind = MsgKind::VflMessage;
  r.iteration = s_->sent + 1;
  r.weights = std::move(w);
  Reply rep;
  if (s_->authenticated) {  // the tag over the whole message, sent as the token
    r.client_id = s_->name;
    randombytes_buf(&r.nonce, sizeof r.nonce);
    r.data_size = wall_ms();
    const std::string body = encode(r);
    r.token.assign(crypto_auth_BYTES, '\0');
    crypto_auth(reinterpret_cast<unsigned char*>(r.token.data()),
                reinterpret_cast<const unsigned char*>(body.data()), body.size(), s_->tx);
    rep = cli.post(endpoint(r.kind), encode(r));
  } else {
    rep = cli.call(std::move(r));
  }
  MC_CHECK(rep.status == Status::Ok, Value, "VerticalFederatedCommunicator '", s_->name,
           "': the peer '", s_->peer, "' refused message ", s_->sent + 1, " (",
           status_name(rep.status), "): ", printable(rep.reason));
  ++s_->sent;
}

Weights Communicator::receive() {
  std::unique_lock<std::mutex> l(s_->mu);
  bool got = s_->cv.wait_for(l, s_->timeout, [&] { return !s_->queue.empty() || s_->stopping; });
  MC_CHECK(got && !s_->queue.empty(), Runtime, "VerticalFederatedCommunicator '", s_->name,
           "': no message from '", s_->peer, "' within ", s_->timeout.count(), " ms.");
  Weights w = std::move(s_->queue.front());
  s_->queue.pop_front();
  return w;
}

std::vector<std::string> Communicator::events() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return s_->log;
}

void Communicator::stop() {
  {
    std::lock_guard<std::mutex> l(s_->mu);
    s_->stopping = true;
  }
  s_->cv.notify_all();
  s_->http.stop();
  if (s_->listener.joinable()) s_->listener.join();
}

}  // namespace mycel::federated::vertical
