// The data engine's autotuner (MindSpore's dataset AutoTune, config.set_enable_autotune): while
// a pipeline runs it measures how full each parallel op's output queue is and gives a worker
// to the op that holds the pipeline back.
//
// The rule: every next() of the pipeline samples each ThreadedOp's output queue (filled
// slots / capacity). At each tuning point (every `interval` rows of the root, or at the end of
// each epoch when interval is 0) it averages the samples since the last point. An op whose
// output queue stays nearly empty (mean fill < kStarved) while its input is there (its child's
// queue at least half full, or it reads a source itself) is the bottleneck: its consumer waits
// for it, not for its input. The tuner adds one worker to the most starved such op (a live
// thread: ThreadedOp::add_worker), up to max_workers. Ops whose rows must stay in one thread
// (Python sources, maps with callbacks) are left alone. Queue sizes (prefetch) are not tuned:
// connectors are fixed-size rings.
//
// report() lists, per op, its node, worker counts before and after and the mean fill; the
// Python side writes them into the autotune config file (mycel/dataset/autotune.py).
//
// The queue readings themselves are a QueueProbe, which the pipeline profiler (profiling.h)
// reads too, at its sampling interval: one way of measuring the queues for both.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "data/pipeline.h"

namespace mycel::data {

class Op;
class ThreadedOp;

// The measured ops of a pipeline (its ThreadedOps, in the pipeline's order: children before
// parents) and one reading of their output queues.
class QueueProbe {
 public:
  explicit QueueProbe(const std::vector<std::unique_ptr<Op>>& ops);
  const std::vector<ThreadedOp*>& ops() const { return ops_; }
  // queued[i]: the messages waiting in ops()[i]'s output queue now (resized to ops().size()).
  void read(std::vector<int64_t>* queued) const;
  // Filled slots / capacity of each queue now, in [0, 1].
  void read_fill(std::vector<double>* fill) const;

 private:
  std::vector<ThreadedOp*> ops_;
};

struct TunedOp {
  const Node* node = nullptr;
  std::string kind;  // Node::kind_name()
  int initial_workers = 0;
  int workers = 0;
  double mean_fill = 0;  // mean output-queue fill over the whole run, in [0, 1]
  bool tunable = false;
};

class AutoTuner {
 public:
  static constexpr double kStarved = 0.25;
  static constexpr double kAmple = 0.5;

  // ops: the pipeline's ops, children before parents (only ThreadedOps are measured).
  AutoTuner(const std::vector<std::unique_ptr<Op>>& ops, int64_t interval, int max_workers);
  // After each row the root gave (epoch_end: after each end of an epoch instead).
  void step(bool epoch_end);
  std::vector<TunedOp> report() const;
  int64_t adjustments() const { return adjustments_; }

 private:
  struct Entry {
    ThreadedOp* op;  // probe_.ops()[index in entries_]
    int child;       // index in entries_ of the nearest measured op below it, -1 if none
    TunedOp info;
    double fill_sum = 0, total_sum = 0;
    int64_t samples = 0, total_samples = 0;
  };
  void tune();

  QueueProbe probe_;
  std::vector<double> fill_;  // the last reading
  std::vector<Entry> entries_;
  int64_t interval_;
  int max_workers_;
  int64_t rows_ = 0;
  int64_t adjustments_ = 0;
};

}  // namespace mycel::data
