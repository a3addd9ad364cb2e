// map and filter: row-by-row work on parallel workers, results in input order. A map whose
// Node::on_error is Replace or Skip turns a row whose operations raise into a marker, and its
// pop() (the one consumer, in stream order) drops it or puts a copy of a good row at the end
// of the epoch instead (pipeline.h).
#include <deque>

#include "data/ops.h"

namespace mycel::data {
namespace {

// The row a map worker is transforming (current_row_file).
thread_local const Msg* tl_row = nullptr;

struct CurrentRow {
  explicit CurrentRow(const Msg& m) { tl_row = &m; }
  ~CurrentRow() { tl_row = nullptr; }
  CurrentRow(const CurrentRow&) = delete;
  CurrentRow& operator=(const CurrentRow&) = delete;
};

// Workers take one message at a time from the child; rows are transformed outside the lock.
class RowWiseOp : public ThreadedOp {
 public:
  RowWiseOp(const Node& node, const OpContext& ctx, Op* child)
      : ThreadedOp(node, ctx, node.workers), child_(child), pass_(ctx.start_pass) {}

 protected:
  // Transforms a row in place; returns false to drop it (filter).
  virtual bool process(Msg& m, int64_t pass) = 0;

  void work() override {
    for (;;) {
      uint64_t seq;
      int64_t pass;
      Msg m;
      {
        std::lock_guard lock(in_mu_);
        if (ended_) return;
        seq = seq_++;
        m = child_->pop();
        pass = pass_;
        if (m.kind == Msg::Kind::EndOfPass) ++pass_;
        if (m.kind == Msg::Kind::End || m.kind == Msg::Kind::Error) ended_ = true;
      }
      if (m.is_row()) {
        try {
          if (!process(m, pass)) m = Msg::marker(Msg::Kind::EndOfPass), m.id = kDropped;
        } catch (...) {
          if (tolerates_errors()) {
            m = Msg::marker(Msg::Kind::EndOfPass), m.id = kErrored;
          } else {
            m = Msg::make_error(std::current_exception());
          }
        }
      } else if (m.kind == Msg::Kind::EndOfPass) {
        try {
          end_of_pass(pass);
        } catch (...) {
          m = Msg::make_error(std::current_exception());
        }
      }
      bool last = m.kind == Msg::Kind::End || m.kind == Msg::Kind::Error;
      out_.push(seq, std::move(m));
      if (last) return;
    }
  }

  // Whether a row that raises becomes a kErrored marker rather than the pipeline's error.
  virtual bool tolerates_errors() const { return false; }
  // Called for each EndOfPass of the input, after the pass's rows (one worker: in order).
  virtual void end_of_pass(int64_t) {}

  // A dropped row travels as an EndOfPass marker with this id, which pop() skips; a row that
  // raised (tolerates_errors) as one with kErrored.
  static constexpr uint64_t kDropped = ~uint64_t{0};
  static constexpr uint64_t kErrored = ~uint64_t{0} - 1;
  static bool marked(const Msg& m, uint64_t id) {
    return m.kind == Msg::Kind::EndOfPass && m.id == id;
  }

  Op* child_;
  int64_t pass_;
};

class MapOp : public RowWiseOp {
 public:
  using RowWiseOp::RowWiseOp;
  // Callbacks need their one worker (rows in order); maps that raise on errors take more at
  // any time (Replace and Skip keep per-epoch state that the worker count was planned for).
  bool tunable() const override { return !node_.hooks && node_.on_error == Node::OnError::Raise; }

  // The good rows of an epoch that Replace copies for its erroneous ones.
  static constexpr size_t kReplaceCache = 16;

  Msg pop() override {
    if (node_.on_error == Node::OnError::Raise) return out_.pop();
    for (;;) {
      if (!ready_.empty()) {
        Msg m = std::move(ready_.front());
        ready_.pop_front();
        return m;
      }
      Msg m = out_.pop();
      if (marked(m, kErrored)) {
        if (node_.on_error == Node::OnError::Replace) ++errors_;
        continue;
      }
      if (m.is_row()) {
        if (node_.on_error == Node::OnError::Replace && cache_.size() < kReplaceCache) {
          cache_.push_back(m);
        }
        return m;
      }
      if (errors_ > 0) {  // the end of an epoch (or of the run): the replacements first
        if (cache_.empty()) {
          errors_ = 0;
          ready_.push_back(garbage());
        }
        for (size_t k = 0; errors_ > 0; --errors_, ++k) ready_.push_back(cache_[k % cache_.size()]);
      }
      cache_.clear();
      ready_.push_back(std::move(m));
    }
  }

  // Random transform r of the list draws from op key + r * kTransformStride, so two random
  // transforms of one map (RandomHorizontalFlip then RandomVerticalFlip) are independent; the
  // odd 64-bit stride keeps those keys away from other ops' keys (kind << 32 | rank).
  static constexpr uint64_t kTransformStride = 0x9E3779B97F4A7C15ull;

  // A built-in transform given a Python object (dict) column: a TypeError naming it.
  static void refuse_objects(const Transform& t, const std::vector<Array>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
      MC_CHECK(args[i].dtype() != DataType::Object, Type, t.name(), ": input ", i, " is a ",
               describe(args[i]), ", but ", t.name(),
               " takes arrays; only Python functions can take Python objects in rows.");
    }
  }

 protected:
  bool process(Msg& m, int64_t pass) override {
    if (node_.hooks) {
      begin_epoch(pass);
      ++step_in_epoch_, ++steps_;
      node_.hooks(kHookStepBegin, epoch_ + 1, step_in_epoch_, steps_);
    }
    CurrentRow current(m);
    Row& row = m.row;
    std::vector<Array> args;
    for (int c : node_.in_cols) args.push_back(row[static_cast<size_t>(c)]);
    uint64_t stream = 0;  // the random transforms' rank: each draws from its own stream
    for (const TransformPtr& t : node_.transforms) {
      try {
        if (!t->takes_objects()) refuse_objects(*t, args);
        if (t->random()) {
          RowRandom rng(ctx_.seed, ctx_.key + stream++ * kTransformStride,
                        static_cast<uint64_t>(pass), m.id);
          args = t->apply(std::move(args), node_.lead, &rng);
        } else {
          args = t->apply(std::move(args), node_.lead, nullptr);
        }
      } catch (...) {
        const std::string file = current_row_file();
        std::rethrow_exception(with_context(
            std::current_exception(),
            str("map operation: [", t->name(), "] failed. ",
                file.empty() ? "" : str("The corresponding data file is: ", file, ". "),
                "Column(s) ", node_.label, ": ")));
      }
    }
    if (node_.hooks) node_.hooks(kHookStepEnd, epoch_ + 1, step_in_epoch_, steps_);
    MC_CHECK(static_cast<int>(args.size()) == node_.n_out, Runtime, "map: the operations returned ",
             args.size(), " column(s) but output_columns has ", node_.n_out, ": ", node_.out_label,
             " (the number of columns returned in 'map' operations should match the number of "
             "'output_columns').");
    if (node_.n_out == static_cast<int>(node_.in_cols.size())) {
      for (size_t i = 0; i < args.size(); ++i)
        row[static_cast<size_t>(node_.in_cols[i])] = std::move(args[i]);
      return true;
    }
    Row out = std::move(args);
    for (size_t c = 0; c < row.size(); ++c) {
      bool used = false;
      for (int i : node_.in_cols) used |= static_cast<size_t>(i) == c;
      if (!used) out.push_back(std::move(row[c]));
    }
    row = std::move(out);
    return true;
  }

  bool tolerates_errors() const override { return node_.on_error != Node::OnError::Raise; }

  void end_of_pass(int64_t pass) override {
    if (!node_.hooks) return;
    const int64_t per = ctx_.passes_per_epoch;
    if (per <= 0 || (pass + 1) % per != 0) return;  // the epoch goes on in the next pass
    begin_epoch(pass);                              // an epoch without rows still begins and ends
    node_.hooks(kHookEpochEnd, epoch_ + 1, step_in_epoch_, steps_);
    in_epoch_ = false;
  }

 private:
  // The callbacks' begin and epoch-begin events due before a row (or end) of pass `pass`.
  void begin_epoch(int64_t pass) {
    if (!begun_) {
      begun_ = true;
      node_.hooks(kHookBegin, 0, 0, 0);
    }
    if (in_epoch_) return;
    in_epoch_ = true;
    const int64_t per = ctx_.passes_per_epoch;
    epoch_ = per > 0 ? pass / per : 0;
    step_in_epoch_ = 0;
    node_.hooks(kHookEpochBegin, epoch_ + 1, 0, steps_);
  }

  // The callbacks' state (hooks run on the map's one worker).
  bool begun_ = false, in_epoch_ = false;
  int64_t epoch_ = 0, step_in_epoch_ = 0, steps_ = 0;

  Msg garbage() const {
    try {
      MC_THROW(Runtime, "map: All data is garbage and cannot be replaced: every row of the epoch ",
               "failed in the operations on column(s) ", node_.label,
               " (error samples mode REPLACE needs a good row to copy).");
    } catch (...) {
      return Msg::make_error(std::current_exception());
    }
  }

  // Replace's state, touched by pop() only (one consumer).
  std::vector<Msg> cache_;  // the epoch's first good rows
  int64_t errors_ = 0;      // the epoch's erroneous rows not yet replaced
  std::deque<Msg> ready_;   // messages due before the next one from out_
};

class FilterOp : public RowWiseOp {
 public:
  using RowWiseOp::RowWiseOp;
  Msg pop() override {
    for (;;) {
      Msg m = out_.pop();
      if (!marked(m, kDropped)) return m;
    }
  }

 protected:
  bool process(Msg& m, int64_t) override {
    std::vector<Array> args;
    for (int c : node_.in_cols) args.push_back(m.row[static_cast<size_t>(c)]);
    return node_.predicate(args);
  }
};

}  // namespace

std::string current_row_file() {
  const Msg* m = tl_row;
  return m && m->source ? m->source->file_of_row(m->source_row) : std::string();
}

std::unique_ptr<Op> make_map_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<MapOp>(node, ctx, child);
}
std::unique_ptr<Op> make_filter_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<FilterOp>(node, ctx, child);
}

}  // namespace mycel::data
