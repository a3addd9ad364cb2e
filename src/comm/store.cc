#include "comm/store.h"

#include <httplib.h>

#include <charconv>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "base/error.h"

namespace mycel {

namespace {
constexpr const char* kKey = "X-Mycel-Key";
constexpr const char* kWait = "X-Mycel-Wait-Ms";
// A server-side wait is cut into slices of at most this, so a handler thread is never held
// for long and a client that went away frees its thread soon.
constexpr int64_t kMaxServerWaitMs = 1000;
using Clock = std::chrono::steady_clock;

// The integer a request carries (network input): nullopt unless the whole text is one.
std::optional<int64_t> to_int(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

int64_t wait_ms(const httplib::Request& req) {
  const std::string v = req.get_header_value(kWait);
  try {
    return v.empty() ? 0 : std::max<int64_t>(std::stoll(v), 0);
  } catch (const std::exception&) {
    return 0;
  }
}
}  // namespace

struct StoreServer::State {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::string> kv;
};

StoreServer::StoreServer(const std::string& host, int port) : s_(std::make_unique<State>()) {
  State* s = s_.get();
  // Each waiting rank holds a handler thread for up to kMaxServerWaitMs.
  s->server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which lets a second store listen
  // on a port in use (and share its connections) instead of failing.
  s->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  s->server.Post("/set", [s](const httplib::Request& req, httplib::Response&) {
    {
      std::lock_guard<std::mutex> l(s->mu);
      s->kv[req.get_header_value(kKey)] = req.body;
    }
    s->cv.notify_all();
  });
  s->server.Get("/get", [s](const httplib::Request& req, httplib::Response& res) {
    const std::string key = req.get_header_value(kKey);
    int64_t wait = std::min<int64_t>(wait_ms(req), kMaxServerWaitMs);
    std::unique_lock<std::mutex> l(s->mu);
    s->cv.wait_for(l, std::chrono::milliseconds(wait), [&] { return s->kv.count(key) > 0; });
    auto it = s->kv.find(key);
    if (it == s->kv.end()) {
      res.status = 404;
      return;
    }
    res.set_content(it->second, "application/octet-stream");
  });
  s->server.Post("/add", [s](const httplib::Request& req, httplib::Response& res) {
    int64_t v;
    {
      std::lock_guard<std::mutex> l(s->mu);
      std::string& cur = s->kv[req.get_header_value(kKey)];
      std::optional<int64_t> a = cur.empty() ? 0 : to_int(cur), d = to_int(req.body);
      if (!a || !d || __builtin_add_overflow(*a, *d, &v)) {  // not a counter, or overflow
        res.status = 400;
        return;
      }
      cur = std::to_string(v);
    }
    s->cv.notify_all();
    res.set_content(std::to_string(v), "text/plain");
  });
  s->port = port == 0 ? s->server.bind_to_any_port(host) : port;
  MC_CHECK(s->port > 0 && (port == 0 || s->server.bind_to_port(host, port)), Runtime,
           "the rendezvous store cannot listen on ", host, ":", port,
           " (the port is in use, or the address is not this machine's); choose another "
           "master port");
  s->thread = std::thread([s] { s->server.listen_after_bind(); });
  // Return only once it listens: httplib's stop() before that would be missed, and the
  // destructor would wait for a server that never stops.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!s->server.is_running() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!s->server.is_running()) {
    s->server.stop();
    s->thread.detach();
    MC_THROW(Runtime, "the rendezvous store on ", host, ":", s->port, " did not start");
  }
}

StoreServer::~StoreServer() {
  s_->server.stop();
  if (s_->thread.joinable()) s_->thread.join();
}

int StoreServer::port() const { return s_->port; }

struct HttpStore::Client {
  std::string where;
  httplib::Client http;
  Client(const std::string& host, int port)
      : where(host + ":" + std::to_string(port)), http(host, port) {}

  // A request, retried while the server is unreachable until `deadline`.
  template <class F>
  httplib::Result call(F f, Clock::time_point deadline, const std::string& what) {
    for (;;) {
      httplib::Result r = f();
      if (r) return r;
      MC_CHECK(Clock::now() < deadline, Runtime, "the rendezvous store at ", where,
               " did not answer (", httplib::to_string(r.error()), ") while ", what,
               ": is rank 0 running, and are the master address and port the same on every "
               "rank?");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
};

HttpStore::HttpStore(const std::string& host, int port, std::chrono::milliseconds connect_timeout)
    : c_(std::make_unique<Client>(host, port)) {
  c_->http.set_connection_timeout(std::chrono::seconds(5));
  c_->http.set_read_timeout(std::chrono::milliseconds(kMaxServerWaitMs + 30000));
  c_->http.set_keep_alive(true);
  // Reach the server once, so a wrong address fails here, after connect_timeout.
  c_->call(
      [&] {
        return c_->http.Get("/get", {{kKey, ""}, {kWait, "0"}});
      },
      Clock::now() + connect_timeout, "connecting");
}

HttpStore::~HttpStore() = default;

void HttpStore::set(const std::string& key, const std::string& value) {
  auto r = c_->call(
      [&] {
        return c_->http.Post("/set", {{kKey, key}}, value, "application/octet-stream");
      },
      Clock::now() + std::chrono::seconds(60), "setting '" + key + "'");
  MC_CHECK(r->status == 200, Runtime, "the rendezvous store at ", c_->where, " refused '", key,
           "' (HTTP ", r->status, ")");
}

std::string HttpStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  const Clock::time_point start = Clock::now(), deadline = start + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto r = c_->call(
        [&] {
          return c_->http.Get(
              "/get", {{kKey, key}, {kWait, std::to_string(std::max<int64_t>(left.count(), 0))}});
        },
        deadline + std::chrono::seconds(5), "waiting for '" + key + "'");
    if (r->status == 200) return r->body;
    MC_CHECK(Clock::now() < deadline, Runtime, "timed out after ",
             std::chrono::duration<double>(Clock::now() - start).count(), " s waiting for '", key,
             "' in the rendezvous store at ", c_->where,
             ": a rank did not arrive (did every rank start, with the same world size?)");
  }
}

int64_t HttpStore::add(const std::string& key, int64_t delta) {
  auto r = c_->call(
      [&] {
        return c_->http.Post("/add", {{kKey, key}}, std::to_string(delta), "text/plain");
      },
      Clock::now() + std::chrono::seconds(60), "adding to '" + key + "'");
  MC_CHECK(r->status == 200, Runtime, "the rendezvous store at ", c_->where, " refused '", key,
           "' (HTTP ", r->status, ")");
  const std::optional<int64_t> v = to_int(r->body);  // network input: checked, not stoll
  MC_CHECK(v.has_value(), Runtime, "the rendezvous store at ", c_->where, " answered '", key,
           "' with a body that is not an integer (", r->body.size(), " bytes)");
  return *v;
}

}  // namespace mycel
