// The queues between the ops of a running pipeline. A Msg is one row, or a marker: the end of
// one pass over the data (an epoch of this op), the end of all passes, or an error to re-raise
// at the iterator. A Connector is bounded and ordered: producers put each message at its
// sequence number, the consumer takes them strictly in sequence order, so any number of
// workers can fill it while the order stays that of a single thread. At most `capacity`
// messages past the consumer's position can be waiting, which bounds memory (the prefetch
// depth) and makes fast producers wait for slow consumers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "data/array.h"

namespace mycel::data {

class RandomAccessSource;

struct Msg {
  enum class Kind : uint8_t { Row, EndOfPass, End, Error };
  Kind kind = Kind::Row;
  Row row;
  uint64_t id = 0;  // the row's index in its pass (the key of its random numbers)
  std::exception_ptr error;
  // Where a source's row came from, for error messages (RandomAccessSource::file_of_row): the
  // source and the row's index there. Null after ops that make new rows (batch, zip, streams).
  const RandomAccessSource* source = nullptr;
  int64_t source_row = -1;

  static Msg make_row(Row r, uint64_t id) {
    Msg m;
    m.row = std::move(r);
    m.id = id;
    return m;
  }
  static Msg marker(Kind k) {
    Msg m;
    m.kind = k;
    return m;
  }
  static Msg make_error(std::exception_ptr e) {
    Msg m;
    m.kind = Kind::Error;
    m.error = std::move(e);
    return m;
  }
  bool is_row() const { return kind == Kind::Row; }
};

// Thrown out of push/pop once the pipeline is being torn down; the op threads catch it and
// exit.
struct Cancelled {};

class Connector {
 public:
  explicit Connector(int64_t capacity)
      : cap_(static_cast<uint64_t>(capacity < 1 ? 1 : capacity)), slots_(cap_) {}

  // Puts message `seq`; waits while seq is `capacity` or more ahead of the consumer.
  void push(uint64_t seq, Msg m) {
    std::unique_lock lock(mu_);
    space_.wait(lock, [&] { return closed_ || seq < head_ + cap_; });
    if (closed_) throw Cancelled{};
    slots_[seq % cap_] = std::move(m);
    if (seq == head_) ready_.notify_one();
  }

  // Takes the next message in sequence order, waiting for it.
  Msg pop() {
    std::unique_lock lock(mu_);
    auto& slot = slots_[head_ % cap_];
    ready_.wait(lock, [&] { return closed_ || slot.has_value(); });
    if (closed_) throw Cancelled{};
    Msg m = std::move(*slot);
    slot.reset();
    ++head_;
    space_.notify_all();
    if (slots_[head_ % cap_].has_value()) ready_.notify_one();
    return m;
  }

  // How many messages wait in the connector now, and how many it can hold (the autotuner's
  // measure of whether the consumer or the producer is ahead).
  int64_t queued() const {
    std::lock_guard lock(mu_);
    int64_t n = 0;
    for (const auto& s : slots_) n += s.has_value() ? 1 : 0;
    return n;
  }
  int64_t capacity() const { return static_cast<int64_t>(cap_); }

  // Wakes every waiter with Cancelled, now and for later calls.
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    space_.notify_all();
    ready_.notify_all();
  }

 private:
  const uint64_t cap_;
  mutable std::mutex mu_;
  std::condition_variable space_, ready_;
  std::vector<std::optional<Msg>> slots_;
  uint64_t head_ = 0;
  bool closed_ = false;
};

}  // namespace mycel::data
