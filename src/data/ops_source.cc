// Source ops: rows of a random-access source in sampler order (parallel reads), and rows of a
// stream source (one thread).
#include <sys/syscall.h>
#include <unistd.h>

#include "data/ops.h"

namespace mycel::data {

void ThreadedOp::start() {
  std::lock_guard lock(threads_mu_);
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { run_worker(); });
}

void ThreadedOp::run_worker() {
  {
    std::lock_guard lock(tids_mu_);
    tids_.push_back(static_cast<int>(::syscall(SYS_gettid)));
  }
  try {
    work();
  } catch (const Cancelled&) {
  }
}

std::vector<int> ThreadedOp::thread_ids() const {
  std::lock_guard lock(tids_mu_);
  return tids_;
}

bool ThreadedOp::add_worker() {
  std::lock_guard lock(threads_mu_);
  if (closed_ || threads_.empty()) return false;
  {
    std::lock_guard in(in_mu_);
    if (ended_) return false;
  }
  ++workers_;
  threads_.emplace_back([this] { run_worker(); });
  return true;
}

void ThreadedOp::join() {
  std::lock_guard lock(threads_mu_);
  closed_ = true;
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::exception_ptr with_context(std::exception_ptr e, const std::string& context) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return std::make_exception_ptr(Error(err.kind(), context + err.message()));
  } catch (...) {
    return e;
  }
}

namespace {

class SourceOp : public ThreadedOp {
 public:
  SourceOp(const Node& node, const OpContext& ctx)
      : ThreadedOp(node, ctx, node.source->needs_gil() ? 1 : node.workers),
        pass_(ctx.start_pass),
        pos_(ctx.start_index) {}
  // Sources read under the GIL (Python) keep their one worker.
  bool tunable() const override { return !node_.source->needs_gil(); }

 protected:
  void work() override {
    const RandomAccessSource& src = *node_.source;
    for (;;) {
      uint64_t seq;
      int64_t index = -1, pos = 0;
      Msg m;
      {
        std::lock_guard lock(in_mu_);
        if (ended_) return;
        seq = seq_++;
        if (need_order_) {
          if (ctx_.max_passes >= 0 && pass_ >= ctx_.max_passes) {
            m = Msg::marker(Msg::Kind::End);
            ended_ = true;
          } else {
            try {
              order_ = node_.sampler->order(src.size(), ctx_.seed, ctx_.key,
                                            static_cast<uint64_t>(pass_));
              need_order_ = false;
            } catch (...) {
              m = Msg::make_error(std::current_exception());
              ended_ = true;
            }
          }
        }
        if (!ended_) {
          if (pos_ < static_cast<int64_t>(order_.size())) {
            pos = pos_++;
            index = order_[static_cast<size_t>(pos)];
          } else {
            m = Msg::marker(Msg::Kind::EndOfPass);
            ++pass_;
            pos_ = 0;
            need_order_ = true;
          }
        }
      }
      if (index >= 0) {
        try {
          m = Msg::make_row(src.read(index), static_cast<uint64_t>(pos));
          m.source = &src;
          m.source_row = index;
        } catch (...) {
          m = Msg::make_error(std::current_exception());
        }
      }
      bool last = m.kind == Msg::Kind::End || m.kind == Msg::Kind::Error;
      out_.push(seq, std::move(m));
      if (last) return;
    }
  }

 private:
  int64_t pass_, pos_;
  bool need_order_ = true;
  std::vector<int64_t> order_;
};

// A stream is read by one thread: its rows come in the stream's order anyway.
class StreamOp : public ThreadedOp {
 public:
  StreamOp(const Node& node, const OpContext& ctx) : ThreadedOp(node, ctx, 1) {}

 protected:
  void work() override {
    uint64_t seq = 0;
    int64_t skip = ctx_.start_index;
    for (int64_t pass = ctx_.start_pass; ctx_.max_passes < 0 || pass < ctx_.max_passes; ++pass) {
      try {
        std::unique_ptr<Stream> s = node_.stream->open();
        Row row;
        for (uint64_t id = 0; s->next(&row); ++id) {
          if (static_cast<int64_t>(id) < skip) continue;
          out_.push(seq++, Msg::make_row(std::move(row), id));
          row = Row();
        }
      } catch (const Cancelled&) {
        throw;
      } catch (...) {
        out_.push(seq++, Msg::make_error(std::current_exception()));
        return;
      }
      skip = 0;
      out_.push(seq++, Msg::marker(Msg::Kind::EndOfPass));
    }
    out_.push(seq, Msg::marker(Msg::Kind::End));
  }
};

}  // namespace

std::unique_ptr<Op> make_source_op(const Node& node, const OpContext& ctx) {
  return std::make_unique<SourceOp>(node, ctx);
}
std::unique_ptr<Op> make_stream_op(const Node& node, const OpContext& ctx) {
  return std::make_unique<StreamOp>(node, ctx);
}

}  // namespace mycel::data
