#include "data/pipeline.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "data/autotune.h"
#include "data/ops.h"
#include "data/profiling.h"

namespace mycel::data {

// ----- nodes -----

int64_t Node::size() const {
  auto child = [&](size_t i = 0) { return children[i]->size(); };
  switch (kind) {
    case Kind::Source:
      return sampler->size(source->size());
    case Kind::Stream:
      return stream_size;
    case Kind::Map:
      if (on_error == OnError::Skip && child() != kInfiniteSize) return kUnknownSize;
      return child();
    case Kind::Shuffle:
    case Kind::Project:
      return child();
    case Kind::Filter:
      return child() == kInfiniteSize ? kInfiniteSize : kUnknownSize;
    case Kind::Batch: {
      int64_t n = child();
      if (n < 0) return n;
      if (batch_size_fn) return n == 0 ? 0 : kUnknownSize;
      return drop_remainder ? n / count : (n + count - 1) / count;
    }
    case Kind::Repeat: {
      int64_t n = child();
      if (count < 0) return n == 0 ? 0 : kInfiniteSize;
      return n < 0 ? n : n * count;
    }
    case Kind::Skip: {
      int64_t n = child();
      return n < 0 ? n : std::max<int64_t>(n - count, 0);
    }
    case Kind::Take: {
      int64_t n = child();
      if (count < 0) return n;
      if (n == kInfiniteSize) return count;
      return n < 0 ? n : std::min(n, count);
    }
    case Kind::Zip: {
      int64_t best = kInfiniteSize;
      for (const auto& c : children) {
        int64_t n = c->size();
        if (n == kUnknownSize) return kUnknownSize;
        if (n >= 0) best = best < 0 ? n : std::min(best, n);
      }
      return best;
    }
    case Kind::Concat: {
      int64_t total = 0;
      for (const auto& c : children) {
        int64_t n = c->size();
        if (n < 0) return n;
        total += n;
      }
      return total;
    }
  }
  return kUnknownSize;
}

std::string Node::kind_name() const {
  static const char* names[] = {"Source", "Stream", "Map",  "Filter",  "Batch", "Shuffle",
                                "Repeat", "Skip",   "Take", "Project", "Zip",   "Concat"};
  return names[static_cast<int>(kind)];
}

namespace {

NodePtr unary(Node::Kind kind, NodePtr child) {
  MC_ASSERT(child, "a ", static_cast<int>(kind), " node without a child");
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->columns = child->columns;
  n->children.push_back(std::move(child));
  return n;
}

void check_cols(const char* op, const std::vector<int>& cols, size_t ncol) {
  for (int c : cols) {
    MC_ASSERT(c >= 0 && static_cast<size_t>(c) < ncol, op, ": column index ", c, " of ", ncol);
  }
}

// The columns after a map-like op: outputs replace the inputs when their counts match, else
// the outputs come first and the other columns follow (MindSpore's rule).
std::vector<std::string> mapped_columns(const std::vector<std::string>& in,
                                        const std::vector<int>& cols,
                                        const std::vector<std::string>& outs) {
  if (outs.size() == cols.size()) {
    std::vector<std::string> res = in;
    for (size_t i = 0; i < cols.size(); ++i) res[static_cast<size_t>(cols[i])] = outs[i];
    return res;
  }
  std::vector<std::string> res = outs;
  for (size_t c = 0; c < in.size(); ++c) {
    if (std::find(cols.begin(), cols.end(), static_cast<int>(c)) == cols.end()) {
      res.push_back(in[c]);
    }
  }
  return res;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
  return s + "]";
}

}  // namespace

NodePtr source_node(SourcePtr source, SamplerPtr sampler, int workers) {
  MC_ASSERT(source && sampler, "source_node without a source or sampler");
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Source;
  n->columns = source->columns();
  n->source = std::move(source);
  n->sampler = std::move(sampler);
  n->workers = workers;
  return n;
}

NodePtr stream_node(StreamSourcePtr stream, std::vector<std::string> columns, int64_t size) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Stream;
  n->stream = std::move(stream);
  n->columns = std::move(columns);
  n->stream_size = size;
  return n;
}

NodePtr map_node(NodePtr child, std::vector<TransformPtr> transforms, std::vector<int> in_cols,
                 std::vector<std::string> out_names, int workers, int lead, std::string label,
                 Node::OnError on_error) {
  check_cols("map", in_cols, child->columns.size());
  MC_CHECK(!transforms.empty(), Value, "map: operations must not be empty.");
  auto n = unary(Node::Kind::Map, std::move(child));
  n->columns = mapped_columns(n->columns, in_cols, out_names);
  n->transforms = std::move(transforms);
  n->in_cols = std::move(in_cols);
  n->n_out = static_cast<int>(out_names.size());
  n->out_label = quoted_list(out_names);
  n->workers = workers;
  n->lead = lead;
  n->label = std::move(label);
  n->on_error = on_error;
  return n;
}

NodePtr filter_node(NodePtr child, Predicate predicate, std::vector<int> in_cols, int workers) {
  check_cols("filter", in_cols, child->columns.size());
  auto n = unary(Node::Kind::Filter, std::move(child));
  n->predicate = std::move(predicate);
  n->in_cols = std::move(in_cols);
  n->workers = workers;
  return n;
}

NodePtr batch_node(NodePtr child, int64_t batch_size, bool drop_remainder, int workers,
                   std::vector<PadSpec> pads, BatchMap batch_map, std::vector<int> in_cols,
                   std::vector<std::string> out_names) {
  MC_CHECK(batch_size >= 1, Value, "batch: batch_size must be >= 1, but got ", batch_size, ".");
  for (const PadSpec& p : pads) {
    MC_ASSERT(p.column >= 0 && static_cast<size_t>(p.column) < child->columns.size(), "pad column ",
              p.column);
  }
  auto n = unary(Node::Kind::Batch, std::move(child));
  n->count = batch_size;
  n->drop_remainder = drop_remainder;
  n->workers = workers;
  n->pads = std::move(pads);
  if (batch_map) {
    check_cols("batch", in_cols, n->columns.size());
    n->columns = mapped_columns(n->columns, in_cols, out_names);
    n->batch_map = std::move(batch_map);
    n->in_cols = std::move(in_cols);
    n->n_out = static_cast<int>(out_names.size());
  }
  return n;
}

NodePtr shuffle_node(NodePtr child, int64_t buffer_size) {
  MC_CHECK(buffer_size >= 2, Value, "shuffle: buffer_size must be >= 2, but got ", buffer_size,
           ".");
  auto n = unary(Node::Kind::Shuffle, std::move(child));
  n->count = buffer_size;
  return n;
}

NodePtr repeat_node(NodePtr child, int64_t count) {
  MC_CHECK(count >= 1 || count == -1, Value, "repeat: count must be -1 or positive, but got ",
           count, ".");
  auto n = unary(Node::Kind::Repeat, std::move(child));
  n->count = count;
  return n;
}

NodePtr skip_node(NodePtr child, int64_t count) {
  MC_CHECK(count >= 0, Value, "skip: count must be >= 0, but got ", count, ".");
  auto n = unary(Node::Kind::Skip, std::move(child));
  n->count = count;
  return n;
}

NodePtr take_node(NodePtr child, int64_t count) {
  MC_CHECK(count >= 1 || count == -1, Value, "take: count must be -1 or positive, but got ", count,
           ".");
  auto n = unary(Node::Kind::Take, std::move(child));
  n->count = count;
  return n;
}

NodePtr project_node(NodePtr child, std::vector<int> columns, std::vector<std::string> names) {
  check_cols("project", columns, child->columns.size());
  auto n = unary(Node::Kind::Project, std::move(child));
  n->project = std::move(columns);
  n->columns = std::move(names);
  return n;
}

NodePtr zip_node(std::vector<NodePtr> children) {
  MC_CHECK(!children.empty(), Value, "zip: there are no datasets to zip.");
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Zip;
  for (const auto& c : children) {
    for (const auto& name : c->columns) {
      MC_CHECK(std::find(n->columns.begin(), n->columns.end(), name) == n->columns.end(), Value,
               "zip: the datasets have a column named '", name, "' in common; rename it first.");
      n->columns.push_back(name);
    }
  }
  n->children = std::move(children);
  return n;
}

NodePtr concat_node(std::vector<NodePtr> children) {
  MC_CHECK(!children.empty(), Value, "concat: there are no datasets to concatenate.");
  // Children's column names are not compared here: MindSpore lets a concatenation be sized
  // whatever they are; reading one checks them (ConcatDataset in Python) and the rows' dtypes
  // and ranks (ConcatOp).
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Concat;
  n->columns = children[0]->columns;
  n->children = std::move(children);
  return n;
}

// ----- building and running -----

namespace {

struct Builder {
  PipelineOptions opt;
  std::vector<std::unique_ptr<Op>>& ops;
  std::map<const Node*, uint64_t> keys;
  std::map<int, uint64_t> ranks;
  std::map<const Node*, int64_t> per_epoch;  // passes per root epoch (-1: the run is one)

  void assign_epochs(const Node& n, int64_t passes) {
    per_epoch[&n] = passes;
    int64_t below = passes;
    if (n.kind == Node::Kind::Repeat) below = passes < 0 || n.count < 0 ? -1 : passes * n.count;
    for (const auto& c : n.children) assign_epochs(*c, below);
  }

  // Random keys depend on an op's kind and its rank among ops of that kind (pre-order), so
  // adding a map does not change what the sources draw.
  void assign_keys(const Node& n) {
    if (!keys.count(&n)) {
      int k = static_cast<int>(n.kind);
      keys[&n] = (static_cast<uint64_t>(k) << 32) | ranks[k]++;
    }
    for (const auto& c : n.children) assign_keys(*c);
  }

  Op* add(std::unique_ptr<Op> op) {
    ops.push_back(std::move(op));
    return ops.back().get();
  }

  OpContext context(const Node& n, int64_t max_passes, int64_t pass, int64_t index) const {
    OpContext c;
    c.seed = opt.seed;
    c.key = keys.at(&n);
    c.max_passes = max_passes;
    c.start_pass = pass;
    c.start_index = index;
    c.prefetch = opt.prefetch;
    auto e = per_epoch.find(&n);
    c.passes_per_epoch = e == per_epoch.end() ? 1 : e->second;
    return c;
  }

  // Builds n's op to start at row `index` of pass `pass` (see pipeline.h, "Resuming").
  Op* build(const Node& n, int64_t max_passes, int64_t pass, int64_t index) {
    OpContext ctx = context(n, max_passes, pass, index);
    auto child = [&](int64_t p, int64_t i, int64_t passes) {
      return build(*n.children[0], passes, p, i);
    };
    switch (n.kind) {
      case Node::Kind::Source:
        return add(make_source_op(n, ctx));
      case Node::Kind::Stream:
        return add(make_stream_op(n, ctx));
      case Node::Kind::Map: {
        if (n.on_error == Node::OnError::Raise) {
          return add(make_map_op(n, ctx, child(pass, index, max_passes)));
        }
        // rows may be dropped or moved to the epoch's end: replay the pass up to the step
        ctx.start_index = 0;
        Op* m = add(make_map_op(n, ctx, child(pass, 0, max_passes)));
        return index > 0 ? add(make_skip_op(n, ctx, m, 0, index)) : m;
      }
      case Node::Kind::Project:
        return add(make_project_op(n, ctx, child(pass, index, max_passes)));
      case Node::Kind::Batch: {
        if (!n.batch_size_fn) {
          return add(make_batch_op(n, ctx, child(pass, index * n.count, max_passes)));
        }
        ctx.start_index = 0;  // batch sizes depend on the function: replay the pass
        Op* b = add(make_batch_op(n, ctx, child(pass, 0, max_passes)));
        return index > 0 ? add(make_skip_op(n, ctx, b, 0, index)) : b;
      }
      case Node::Kind::Take:
        if (n.count >= 0 && n.children[0]->size() == kInfiniteSize) {  // see TakeOp
          return add(make_take_op(n, ctx, child(0, pass * n.count + index, max_passes)));
        }
        return add(make_take_op(n, ctx, child(pass, index, max_passes)));
      case Node::Kind::Skip:
        return add(make_skip_op(n, ctx, child(pass, index + n.count, max_passes), n.count, 0));
      case Node::Kind::Shuffle:
        return add(make_shuffle_op(n, ctx, child(pass, 0, max_passes)));
      case Node::Kind::Filter: {
        ctx.start_index = 0;
        Op* f = add(make_filter_op(n, ctx, child(pass, 0, max_passes)));
        return index > 0 ? add(make_skip_op(n, ctx, f, 0, index)) : f;
      }
      case Node::Kind::Repeat: {
        int64_t m = n.children[0]->size();
        int64_t passes = max_passes >= 0 && n.count > 0 ? max_passes * n.count : -1;
        int64_t first = n.count > 0 ? pass * n.count : 0;
        if (m < 0) {  // unknown child size: replay this pass's rows
          ctx.start_index = 0;
          Op* r = add(make_repeat_op(n, ctx, child(first, 0, passes), first));
          return index > 0 ? add(make_skip_op(n, ctx, r, 0, index)) : r;
        }
        int64_t cp = m > 0 ? first + index / m : first, ci = m > 0 ? index % m : 0;
        return add(make_repeat_op(n, ctx, child(cp, ci, passes), cp));
      }
      case Node::Kind::Zip: {
        std::vector<Op*> kids;
        for (const auto& c : n.children) kids.push_back(build(*c, max_passes, pass, index));
        return add(make_zip_op(n, ctx, std::move(kids)));
      }
      case Node::Kind::Concat: {
        std::vector<Op*> kids;
        for (const auto& c : n.children) kids.push_back(build(*c, max_passes, pass, 0));
        return add(make_concat_op(n, ctx, std::move(kids)));
      }
    }
    MC_ASSERT(false, "unknown node kind");
  }
};

}  // namespace

Pipeline::Pipeline(NodePtr root, PipelineOptions options)
    : root_(std::move(root)), options_(options) {
  MC_CHECK(options_.init_step >= 0, Value, "set_init_step: the step must be >= 0, but got ",
           options_.init_step, ".");
  int64_t pass = 0, index = options_.init_step;
  int64_t per_epoch = root_->size();
  if (per_epoch == kUnknownSize) {  // the step can't be located: replay up to it
    replay_ = index;
    index = 0;
  } else if (per_epoch > 0 && index > 0) {
    pass = index / per_epoch;
    index %= per_epoch;
  }
  MC_CHECK(options_.num_epochs < 0 || pass < options_.num_epochs || index == 0, Value,
           "set_init_step: step ", options_.init_step, " is beyond the ", options_.num_epochs,
           " epochs of ", per_epoch, " steps.");
  epoch_ = pass;
  Builder b{options_, ops_, {}, {}, {}};
  b.assign_keys(*root_);
  b.assign_epochs(*root_, 1);
  top_ = b.build(*root_, options_.num_epochs, pass, index);
  if (options_.autotune_interval >= 0) {
    tuner_ = std::make_unique<AutoTuner>(ops_, options_.autotune_interval,
                                         options_.autotune_max_workers);
    Profiler::instance().tuning(true);
    tuning_ = true;
  }
  if (options_.profile_interval_ms > 0) {
    profiled_ = Profiler::instance().attach(this, *root_, ops_, options_.num_epochs,
                                            options_.profile_interval_ms);
  }
}

Pipeline::~Pipeline() { stop(); }

std::vector<TunedOp> Pipeline::autotune_report() const {
  return tuner_ ? tuner_->report() : std::vector<TunedOp>{};
}

int64_t Pipeline::autotune_adjustments() const { return tuner_ ? tuner_->adjustments() : 0; }

Msg Pipeline::pop() {
  try {
    return top_->pop();
  } catch (const Cancelled&) {
    return Msg::marker(Msg::Kind::End);
  }
}

void Pipeline::settle(const Msg& m) {
  if (m.kind == Msg::Kind::End) {
    ended_ = true;
    stop();
  } else if (m.kind == Msg::Kind::Error) {
    failed_ = m.error;
    stop();
    std::rethrow_exception(failed_);
  }
}

void Pipeline::start() {
  if (started_) return;
  started_ = true;
  for (auto& op : ops_) op->start();
  if (replay_ == 0) return;
  const int64_t dropped = replay_;
  while (replay_ > 0) {
    Msg m = pop();
    if (m.kind == Msg::Kind::Row) {
      --replay_;
    } else if (m.kind == Msg::Kind::EndOfPass) {
      ++epoch_;
    } else {
      settle(m);
      MC_THROW(Value, "set_init_step: step ", options_.init_step, " is beyond the ",
               options_.num_epochs, " epochs, which have ", dropped - replay_, " steps.");
    }
  }
  // Step n is the first row after n rows: a step on an epoch boundary opens the next epoch.
  Msg m = pop();
  while (m.kind == Msg::Kind::EndOfPass) {
    ++epoch_;
    m = pop();
  }
  settle(m);
  peeked_ = std::move(m);
}

bool Pipeline::next(Row* row) {
  if (failed_) std::rethrow_exception(failed_);
  start();
  if (ended_) return false;
  Msg m;
  if (peeked_) {
    m = std::move(*peeked_);
    peeked_.reset();
  } else {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point t0 = profiled_ ? Clock::now() : Clock::time_point{};
    m = pop();
    if (profiled_ && m.kind == Msg::Kind::Row) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
      Profiler::instance().record_batch(this, rows_taken_ + 1, ms.count());
    }
  }
  switch (m.kind) {
    case Msg::Kind::Row:
      *row = std::move(m.row);
      ++rows_taken_;
      if (tuner_) tuner_->step(false);
      return true;
    case Msg::Kind::EndOfPass:
      ++epoch_;
      if (tuner_) tuner_->step(true);
      return false;
    case Msg::Kind::End:
    case Msg::Kind::Error:
      settle(m);
      return false;
  }
  return false;
}

void Pipeline::stop() {
  if (profiled_) {  // before the threads end: their last CPU readings
    Profiler::instance().detach(this);
    profiled_ = false;
  }
  if (tuning_) {
    Profiler::instance().tuning(false);
    tuning_ = false;
  }
  for (auto& op : ops_) op->close();
  for (auto& op : ops_) op->join();
}

}  // namespace mycel::data
