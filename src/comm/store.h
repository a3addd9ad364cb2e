// The rendezvous store: a small key-value service through which the ranks of a job find
// each other (each rank publishes its transport address; Gloo's full-mesh connect reads the
// others'). Rank 0 hosts it (StoreServer) on the master address and port, as PyTorch's
// TCPStore does; every rank, rank 0 included, talks to it through HttpStore. HTTP is
// cpp-httplib's; values are binary strings.
//
// Every wait has a deadline: a key that never appears is a RuntimeError naming the key and
// the time waited, never a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace mycel {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // The key's value, waiting up to `timeout` for some rank to set it.
  virtual std::string get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  // Adds delta to the integer at key (0 when absent) and returns the new value, atomically.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
};

// Serves a store on host:port (port 0: any free port) from threads of its own until
// destroyed. A port already in use is a RuntimeError naming it.
class StoreServer {
 public:
  StoreServer(const std::string& host, int port);
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;
  int port() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// A client of a StoreServer. Connecting retries until `connect_timeout` (the server's rank
// may start later), then is a RuntimeError naming host:port.
class HttpStore : public Store {
 public:
  HttpStore(const std::string& host, int port, std::chrono::milliseconds connect_timeout);
  ~HttpStore() override;
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  int64_t add(const std::string& key, int64_t delta) override;

 private:
  struct Client;
  std::unique_ptr<Client> c_;
};

}  // namespace mycel
