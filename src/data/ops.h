// The runtime ops of a Pipeline, one per Node (pipeline.h). Two kinds:
//  - ThreadedOp (source, stream, map, filter, batch): worker threads take work from the child
//    in order under one lock, do it in parallel, and put the results into the op's ordered
//    Connector at the sequence number they took; pop() reads the connector.
//  - inline ops (shuffle, repeat, skip, take, project, zip, concat): cheap reordering done
//    in the consumer's thread inside pop().
// Every op is popped by exactly one consumer (its parent's worker holding the parent's lock,
// or the iterator). Errors travel as Msg::Kind::Error in stream order; after one the op stops.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

#include "data/connector.h"
#include "data/pipeline.h"

namespace mycel::data {

// What the pipeline builder gives each op.
struct OpContext {
  uint64_t seed = 0;
  uint64_t key = 0;              // the op's random key (kind and rank, not position in the tree)
  int64_t max_passes = -1;       // passes this op runs in all (-1: unlimited)
  int64_t start_pass = 0;        // where a resumed pipeline starts this op
  int64_t start_index = 0;       // rows of the start pass that this op's input already skips
  int64_t passes_per_epoch = 1;  // this op's passes per epoch of the root (-1: one epoch)
  int64_t prefetch = 16;
};

class Op {
 public:
  Op(const Node& node, const OpContext& ctx) : node_(node), ctx_(ctx) {}
  virtual ~Op() = default;
  virtual Msg pop() = 0;
  virtual void start() {}
  virtual void close() {}
  virtual void join() {}
  // The node this op runs (an op of a repeated subtree shares it with the other passes').
  const Node& node() const { return node_; }

 protected:
  const Node& node_;
  OpContext ctx_;
};

class ThreadedOp : public Op {
 public:
  ThreadedOp(const Node& node, const OpContext& ctx, int workers)
      : Op(node, ctx), out_(ctx.prefetch), workers_(workers < 1 ? 1 : workers) {}
  Msg pop() override { return out_.pop(); }
  void start() override;
  void close() override { out_.close(); }
  void join() override;

  // For the autotuner (autotune.h): the output queue's fill and capacity, the worker count,
  // whether a worker may be added while running (tunable) and adding one (false once the op
  // is closed or at its limit).
  int64_t queued() const { return out_.queued(); }
  int64_t capacity() const { return out_.capacity(); }
  int workers() const { return workers_; }
  virtual bool tunable() const { return false; }
  bool add_worker();
  // For the profiler (profiling.h): the kernel thread ids of every worker this op has run
  // (a worker that has ended stays in the list).
  std::vector<int> thread_ids() const;

 protected:
  // One worker's loop; returns after End/Error. Cancelled (from a closed connector) ends it
  // too; any other exception must be sent downstream as an Error message.
  virtual void work() = 0;
  // A worker thread's body: records its thread id, then runs work() until it ends.
  void run_worker();

  Connector out_;
  std::mutex in_mu_;    // guards the input side: the child, seq_, ended_ and op state
  uint64_t seq_ = 0;    // the next output sequence number
  bool ended_ = false;  // the input gave End or Error: workers stop taking work
  std::atomic<int> workers_;
  std::mutex threads_mu_;  // guards threads_ and closed_ (add_worker against join)
  bool closed_ = false;
  std::vector<std::thread> threads_;
  mutable std::mutex tids_mu_;  // guards tids_ (workers add themselves as they start)
  std::vector<int> tids_;
};

std::unique_ptr<Op> make_source_op(const Node& node, const OpContext& ctx);
std::unique_ptr<Op> make_stream_op(const Node& node, const OpContext& ctx);
std::unique_ptr<Op> make_map_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_filter_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_batch_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_shuffle_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_repeat_op(const Node& node, const OpContext& ctx, Op* child,
                                   int64_t child_start_pass);
// Drops `count` rows at the start of every pass, and `first` (instead) in the first one.
std::unique_ptr<Op> make_skip_op(const Node& node, const OpContext& ctx, Op* child, int64_t count,
                                 int64_t first);
std::unique_ptr<Op> make_take_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_project_op(const Node& node, const OpContext& ctx, Op* child);
std::unique_ptr<Op> make_zip_op(const Node& node, const OpContext& ctx, std::vector<Op*> children);
std::unique_ptr<Op> make_concat_op(const Node& node, const OpContext& ctx,
                                   std::vector<Op*> children);

// The exception of a failed row with `context` in front of its message (the same error kind;
// Python exceptions pass unchanged: their Python wrapper names the op itself).
std::exception_ptr with_context(std::exception_ptr e, const std::string& context);

}  // namespace mycel::data
