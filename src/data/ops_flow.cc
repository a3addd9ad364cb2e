// The inline ops: they only reorder, drop or combine rows, so they run in their consumer's
// thread inside pop(). Each keeps the pass it is in for its keys and markers.
#include <algorithm>
#include <optional>

#include "data/ops.h"

namespace mycel::data {
namespace {

bool is_final(const Msg& m) { return m.kind == Msg::Kind::End || m.kind == Msg::Kind::Error; }

// shuffle(buffer_size): MindSpore's buffer shuffle. The buffer fills with the first rows of a
// pass; each output is a uniformly drawn buffer slot, refilled with the next input row.
class ShuffleOp : public Op {
 public:
  ShuffleOp(const Node& node, const OpContext& ctx, Op* child)
      : Op(node, ctx), child_(child), pass_(ctx.start_pass), skip_(ctx.start_index) {}

  Msg pop() override {
    for (;;) {
      if (pending_.has_value()) {  // End or Error seen while filling
        Msg m = std::move(*pending_);
        pending_.reset();
        return m;
      }
      if (!filled_) {
        rng_.emplace(ctx_.seed, ctx_.key, static_cast<uint64_t>(pass_), 0);
        input_done_ = false;
        while (static_cast<int64_t>(buf_.size()) < node_.count && !input_done_) pull();
        filled_ = true;
        out_id_ = 0;
      }
      if (buf_.empty()) {
        filled_ = false;
        if (pending_.has_value()) continue;
        ++pass_;
        return Msg::marker(Msg::Kind::EndOfPass);
      }
      size_t i = static_cast<size_t>(rng_->randint(0, static_cast<int64_t>(buf_.size()) - 1));
      Row out = std::move(buf_[i]);
      bool refilled = false;
      if (!input_done_) {
        Msg m = child_->pop();
        if (m.is_row()) {
          buf_[i] = std::move(m.row);
          refilled = true;
        } else {
          input_done_ = true;
          if (is_final(m)) pending_ = std::move(m);
        }
      }
      if (!refilled) {
        if (i + 1 != buf_.size()) buf_[i] = std::move(buf_.back());
        buf_.pop_back();
      }
      uint64_t id = out_id_++;
      if (skip_ > 0) {  // a resumed pipeline: drop the outputs before its start
        --skip_;
        continue;
      }
      return Msg::make_row(std::move(out), id);
    }
  }

 private:
  // Reads one input message: a row goes to the buffer's end; EndOfPass ends the input.
  void pull() {
    Msg m = child_->pop();
    if (m.is_row()) {
      buf_.push_back(std::move(m.row));
      return;
    }
    input_done_ = true;
    if (is_final(m)) pending_ = std::move(m);
  }
  Op* child_;
  int64_t pass_, skip_;
  std::vector<Row> buf_;
  std::optional<RowRandom> rng_;
  std::optional<Msg> pending_;
  bool filled_ = false, input_done_ = false;
  uint64_t out_id_ = 0;
};

// repeat(count): count passes of the child make one pass; count -1 repeats forever (an empty
// child then ends the pipeline instead of spinning). Rows are renumbered through the pass, so
// a random op above draws anew for each repetition (not the first repetition's draws again).
class RepeatOp : public Op {
 public:
  RepeatOp(const Node& node, const OpContext& ctx, Op* child, int64_t child_start_pass)
      : Op(node, ctx),
        child_(child),
        child_pass_(child_start_pass),
        id_(static_cast<uint64_t>(ctx.start_index)) {}

  Msg pop() override {
    for (;;) {
      Msg m = child_->pop();
      if (m.is_row()) {
        rows_in_pass_ = true;
        m.id = id_++;
        return m;
      }
      if (m.kind != Msg::Kind::EndOfPass) return m;
      ++child_pass_;
      if (node_.count < 0) {
        if (!rows_in_pass_) return Msg::marker(Msg::Kind::End);
        rows_in_pass_ = false;
        continue;
      }
      if (child_pass_ % node_.count == 0) {
        id_ = 0;
        return m;
      }
    }
  }

 private:
  Op* child_;
  int64_t child_pass_;
  uint64_t id_;
  bool rows_in_pass_ = false;
};

class SkipOp : public Op {
 public:
  SkipOp(const Node& node, const OpContext& ctx, Op* child, int64_t count, int64_t first)
      : Op(node, ctx), child_(child), count_(count), left_(first) {}

  Msg pop() override {
    for (;;) {
      Msg m = child_->pop();
      if (m.is_row() && left_ > 0) {
        --left_;
        continue;
      }
      if (m.kind == Msg::Kind::EndOfPass) left_ = count_;
      return m;
    }
  }

 private:
  Op* child_;
  int64_t count_, left_;
};

// take(count): the first count rows of each pass. The pass ends as soon as count rows are
// out; the rest of the child's pass is read and dropped only when the next pass is asked for,
// so peeking at a few rows of one epoch does not process the whole epoch. Over an endless
// child (repeat() forever) the child's one pass is never drained: each pass of take ends after
// count rows and the next continues the child's rows (the builder starts a resumed take at
// child row pass * count + index).
class TakeOp : public Op {
 public:
  TakeOp(const Node& node, const OpContext& ctx, Op* child)
      : Op(node, ctx),
        child_(child),
        taken_(ctx.start_index),
        pass_(ctx.start_pass),
        endless_(node.count >= 0 && node.children[0]->size() == kInfiniteSize) {}

  Msg pop() override {
    if (endless_ && ctx_.max_passes >= 0 && pass_ >= ctx_.max_passes) {
      return Msg::marker(Msg::Kind::End);
    }
    if (endless_ && taken_ >= node_.count) {
      taken_ = 0;
      ++pass_;
      return Msg::marker(Msg::Kind::EndOfPass);
    }
    if (owe_drain_) {  // the rest of the child's previous pass
      owe_drain_ = false;
      for (;;) {
        Msg m = child_->pop();
        if (m.is_row()) continue;
        if (m.kind != Msg::Kind::EndOfPass) return m;  // End or an error
        break;
      }
    }
    if (!endless_ && node_.count >= 0 && taken_ >= node_.count) {
      taken_ = 0;
      owe_drain_ = true;
      return Msg::marker(Msg::Kind::EndOfPass);
    }
    Msg m = child_->pop();
    if (m.is_row()) {
      ++taken_;
    } else if (m.kind == Msg::Kind::EndOfPass) {
      taken_ = 0;
    }
    return m;
  }

 private:
  Op* child_;
  int64_t taken_, pass_;
  bool endless_;
  bool owe_drain_ = false;
};

class ProjectOp : public Op {
 public:
  ProjectOp(const Node& node, const OpContext& ctx, Op* child) : Op(node, ctx), child_(child) {}

  Msg pop() override {
    Msg m = child_->pop();
    if (m.is_row()) {
      Row out;
      for (int c : node_.project) out.push_back(std::move(m.row[static_cast<size_t>(c)]));
      m.row = std::move(out);
    }
    return m;
  }

 private:
  Op* child_;
};

// zip: row k of every child, columns side by side; a pass ends with the shortest child's (the
// others' remaining rows of the pass are read and dropped). A resumed zip starts every child at
// the same index.
class ZipOp : public Op {
 public:
  ZipOp(const Node& node, const OpContext& ctx, std::vector<Op*> children)
      : Op(node, ctx),
        children_(std::move(children)),
        id_(static_cast<uint64_t>(ctx.start_index)) {}

  Msg pop() override {
    {
      Row out;
      int ended = -1;
      Msg marker;
      for (size_t k = 0; k < children_.size(); ++k) {
        Msg m = children_[k]->pop();
        if (!m.is_row()) {
          if (is_final(m)) return m;
          ended = static_cast<int>(k);
          marker = std::move(m);
          break;
        }
        for (Array& a : m.row) out.push_back(std::move(a));
      }
      if (ended >= 0) {
        for (size_t k = 0; k < children_.size(); ++k) {
          if (static_cast<int>(k) == ended) continue;
          // children before `ended` gave a row this round; all others still owe their marker
          for (;;) {
            Msg m = children_[k]->pop();
            if (is_final(m)) return m;
            if (m.kind == Msg::Kind::EndOfPass) break;
          }
        }
        id_ = 0;
        return marker;
      }
      return Msg::make_row(std::move(out), id_++);
    }
  }

 private:
  std::vector<Op*> children_;
  uint64_t id_;
};

// concat: the children's passes one after another make one pass.
class ConcatOp : public Op {
 public:
  ConcatOp(const Node& node, const OpContext& ctx, std::vector<Op*> children)
      : Op(node, ctx), children_(std::move(children)), skip_(ctx.start_index) {}

  Msg pop() override {
    for (;;) {
      Msg m = children_[cur_]->pop();
      if (m.is_row()) {
        if (!checked_[cur_]) verify(m.row);
        m.id = id_++;
        if (skip_ > 0) {
          --skip_;
          continue;
        }
        return m;
      }
      if (is_final(m)) return m;
      if (++cur_ < children_.size()) continue;
      cur_ = 0;
      id_ = 0;
      return m;
    }
  }

 private:
  // MindSpore's check, on each child's first row: the column count, dtypes and ranks of the
  // first row concat gave (a mismatch is a RuntimeError when the rows are read).
  void verify(const Row& row) {
    checked_[cur_] = true;
    if (!have_ref_) {
      for (const Array& a : row) ref_.emplace_back(a.dtype(), a.ndim());
      have_ref_ = true;
      return;
    }
    MC_CHECK(row.size() == ref_.size(), Runtime, "concat: the datasets to be concatenated should ",
             "have the same columns, but dataset ", cur_, " has ", row.size(), " and the first ",
             ref_.size(), ".");
    for (size_t c = 0; c < row.size(); ++c) {
      MC_CHECK(row[c].dtype() == ref_[c].first, Runtime,
               "concat: the data types of the two datasets to be concatenated should be the "
               "same, but got: ",
               data_type_name(ref_[c].first), " and ", data_type_name(row[c].dtype()), " (column ",
               c, " of dataset ", cur_, ").");
      MC_CHECK(row[c].ndim() == ref_[c].second, Runtime,
               "concat: the data tensor rank of the two datasets to be concatenated should be "
               "the same, but got: ",
               ref_[c].second, " and ", row[c].ndim(), " (column ", c, " of dataset ", cur_, ").");
    }
  }

  std::vector<Op*> children_;
  std::vector<bool> checked_ = std::vector<bool>(children_.size(), false);
  std::vector<std::pair<DataType, int64_t>> ref_;
  bool have_ref_ = false;
  size_t cur_ = 0;
  uint64_t id_ = 0;
  int64_t skip_;
};

}  // namespace

std::unique_ptr<Op> make_shuffle_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<ShuffleOp>(node, ctx, child);
}
std::unique_ptr<Op> make_repeat_op(const Node& node, const OpContext& ctx, Op* child,
                                   int64_t child_start_pass) {
  return std::make_unique<RepeatOp>(node, ctx, child, child_start_pass);
}
std::unique_ptr<Op> make_skip_op(const Node& node, const OpContext& ctx, Op* child, int64_t count,
                                 int64_t first) {
  return std::make_unique<SkipOp>(node, ctx, child, count, first);
}
std::unique_ptr<Op> make_take_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<TakeOp>(node, ctx, child);
}
std::unique_ptr<Op> make_project_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<ProjectOp>(node, ctx, child);
}
std::unique_ptr<Op> make_zip_op(const Node& node, const OpContext& ctx, std::vector<Op*> children) {
  return std::make_unique<ZipOp>(node, ctx, std::move(children));
}
std::unique_ptr<Op> make_concat_op(const Node& node, const OpContext& ctx,
                                   std::vector<Op*> children) {
  return std::make_unique<ConcatOp>(node, ctx, std::move(children));
}

}  // namespace mycel::data
