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
    queue.push_back(std::move(r.weights));
    ++expected;
    cv.notify_all();
    reply(res, Status::Ok, 200, "");
  }
};

Communicator::Communicator(std::string name, const std::string& host, int port,
                           std::string peer_name, std::chrono::milliseconds timeout)
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
  Reply rep = cli.call(std::move(r));
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
