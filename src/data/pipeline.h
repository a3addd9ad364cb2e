// The data engine: a pipeline description (a tree of Nodes built from the Python Dataset
// objects) and its execution (a Pipeline: one op per node, on worker threads, joined by
// ordered bounded Connectors; see ops.h).
//
// Nodes are immutable descriptions and may be shared by many pipelines (each iterator runs
// its own). What a pipeline yields is a pure function of the nodes, the seed and the start
// step: every random draw is keyed by (seed, op, pass, row) (random.h), and connectors keep
// single-thread order, so the worker counts change only the speed.
//
// Passes and epochs. Every op runs passes over its input, each ended by an EndOfPass marker;
// the root's passes are the iterator's epochs, a repeat(n) op makes one pass of n of its
// child's. Sources know how many passes they will run (num_epochs times the repeats above
// them) and end with End.
//
// Resuming (set_init_step). A pipeline can start at step n of an uninterrupted run without
// producing the first n rows: the start position (pass, index) is pushed down the tree
// (batch multiplies the index by its size, repeat turns it into a child pass, skip adds its
// count) to the sources, whose samplers start there. Ops whose input position can't be
// derived from their output position (shuffle buffers, filters, concat, Python iterables)
// read their input from the start of the pass instead and drop the rows before the start:
// still exact, because no random draw depends on what was read before. When the root's size
// per epoch is unknown (a filter, an unsized stream), the step can't be located as (pass,
// index) at all: the pipeline then runs from step 0 and drops the first n rows itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/array.h"
#include "data/connector.h"
#include "data/sampler.h"
#include "data/source.h"
#include "data/transform.h"

namespace mycel::data {

// A source that can only be read front to back (a Python iterable): one Stream per pass.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual bool next(Row* row) = 0;  // false at the end
};
class StreamSource {
 public:
  virtual ~StreamSource() = default;
  virtual std::string_view name() const = 0;
  virtual std::unique_ptr<Stream> open() const = 0;
};
using StreamSourcePtr = std::shared_ptr<StreamSource>;

// filter's predicate and batch's per_batch_map (Python callables; they take the GIL).
using Predicate = std::function<bool(const std::vector<Array>& columns)>;
// per_batch_map gets each input column as the list of the batch's rows (as MindSpore: before
// stacking, so rows may differ in shape) and returns the output columns likewise; equal lengths.
// When the result is `whole` (MindSpore's rule when per_batch_map returns a Python dict for a
// column), each output column holds one value: the whole batch's, emitted without stacking.
using BatchColumns = std::vector<std::vector<Array>>;
struct BatchResult {
  BatchColumns columns;
  bool whole = false;
};
using BatchMap =
    std::function<BatchResult(BatchColumns columns, int64_t batch_num, int64_t epoch_num)>;
// batch's callable batch_size: the size of batch batch_num of pass epoch_num (>= 1).
using BatchSizeFn = std::function<int64_t(int64_t batch_num, int64_t epoch_num)>;
// map's dataset callbacks (MindSpore's DSCallback), called on the map's one worker in row
// order: hooks(event, epoch, step_in_epoch, step) with event kHookBegin (once, all zero),
// kHookEpochBegin, kHookStepBegin / kHookStepEnd (around each row's operations) and
// kHookEpochEnd. Epochs are the iterator's (1-based; a repeat above the map makes one epoch
// of several of its passes), steps count the map's rows (1-based, in the epoch and in all).
using MapHooks = std::function<void(int event, int64_t epoch, int64_t step_in_epoch, int64_t step)>;
inline constexpr int kHookBegin = 0, kHookEpochBegin = 1, kHookStepBegin = 2, kHookStepEnd = 3,
                     kHookEpochEnd = 4;

// padded_batch: column `column` is padded to `shape` (-1: the batch's largest) with `value`.
struct PadSpec {
  int column = 0;
  std::vector<int64_t> shape;  // empty: pad every dimension to the batch's largest
  bool has_shape = false;
  double value = 0;
  std::string text;  // the pad value of string columns
};

inline constexpr int64_t kUnknownSize = -1;   // depends on the data (filter, generators)
inline constexpr int64_t kInfiniteSize = -2;  // repeat() forever

struct Node;
using NodePtr = std::shared_ptr<Node>;

struct Node {
  enum class Kind {
    Source,
    Stream,
    Map,
    Filter,
    Batch,
    Shuffle,
    Repeat,
    Skip,
    Take,
    Project,
    Zip,
    Concat
  };
  Kind kind = Kind::Source;
  std::vector<NodePtr> children;
  std::vector<std::string> columns;  // output column names (messages)
  int workers = 1;
  SourcePtr source;
  SamplerPtr sampler;
  StreamSourcePtr stream;
  int64_t stream_size = kUnknownSize;
  std::vector<TransformPtr> transforms;  // map
  std::vector<int> in_cols;              // map, filter, per_batch_map: input column indices
  int n_out = 0;                         // map, per_batch_map: output column count
  int lead = 0;                          // map: 1 when it runs on whole batches
  std::string label;                     // map: the input columns as the user named them
  std::string out_label;                 // map: the output columns, likewise
  // map: what a row whose operations raise becomes (MindSpore's ErrorSamplesMode): the
  // pipeline's error (Raise), a good row of the same epoch (Replace: the epoch's erroneous
  // rows follow its good ones, each a copy of one of the epoch's first kReplaceCache good
  // rows, taken in turn), or nothing (Skip: the epoch's size then depends on the data).
  enum class OnError { Raise, Replace, Skip };
  OnError on_error = OnError::Raise;
  MapHooks hooks;  // map: set only with workers == 1
  Predicate predicate;
  BatchMap batch_map;
  BatchSizeFn batch_size_fn;  // batch: a size per batch instead of count (size unknown)
  int64_t count = 0;          // batch size, shuffle buffer, repeat count (-1: forever), skip, take
  bool drop_remainder = false;
  std::vector<PadSpec> pads;
  std::vector<int> project;  // project: child column indices in output order

  int64_t size() const;  // rows (batches) per pass; kUnknownSize or kInfiniteSize
  std::string kind_name() const;
};

// The smart constructors: they check what Python validation can't see and fix the output
// columns.
NodePtr source_node(SourcePtr source, SamplerPtr sampler, int workers);
NodePtr stream_node(StreamSourcePtr stream, std::vector<std::string> columns, int64_t size);
NodePtr map_node(NodePtr child, std::vector<TransformPtr> transforms, std::vector<int> in_cols,
                 std::vector<std::string> out_names, int workers, int lead, std::string label,
                 Node::OnError on_error = Node::OnError::Raise);
NodePtr filter_node(NodePtr child, Predicate predicate, std::vector<int> in_cols, int workers);
NodePtr batch_node(NodePtr child, int64_t batch_size, bool drop_remainder, int workers,
                   std::vector<PadSpec> pads, BatchMap batch_map, std::vector<int> in_cols,
                   std::vector<std::string> out_names);
NodePtr shuffle_node(NodePtr child, int64_t buffer_size);
NodePtr repeat_node(NodePtr child, int64_t count);
NodePtr skip_node(NodePtr child, int64_t count);
NodePtr take_node(NodePtr child, int64_t count);
NodePtr project_node(NodePtr child, std::vector<int> columns, std::vector<std::string> names);
NodePtr zip_node(std::vector<NodePtr> children);
NodePtr concat_node(std::vector<NodePtr> children);

// The file of the row the calling map worker is transforming (RandomAccessSource::file_of_row
// of the row's source; empty when unknown or outside a map): Python transforms name it in
// their errors, as the map op does for its own transforms.
std::string current_row_file();

struct PipelineOptions {
  uint64_t seed = 0;
  int64_t num_epochs = -1;  // -1: unlimited
  int64_t init_step = 0;    // the first row (batch) of the root to produce, counted over epochs
  int64_t prefetch = 16;    // messages each connector holds ahead of its consumer
  // The autotuner (autotune.h): -1 off; 0 tunes at each epoch end; n > 0 every n rows.
  int64_t autotune_interval = -1;
  int autotune_max_workers = 1;  // the most workers the tuner gives one op
  // > 0: the pipeline asks the profiler (profiling.h) to profile it, sampling every this many
  // ms; it is profiled when the profiler is armed and has no other pipeline.
  int64_t profile_interval_ms = 0;
};

class Op;
class AutoTuner;
struct TunedOp;

class Pipeline {
 public:
  Pipeline(NodePtr root, PipelineOptions options);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The next row of the current epoch (threads start on the first call); false at the end of
  // an epoch, and at the end of the last one (then ended() is true). Rethrows the error of a
  // worker (a transform that raised, a corrupt file) and stays failed.
  bool next(Row* row);
  // Starts the threads and, when resuming by replay, drops the rows before init_step (so
  // epoch() is then the resumed epoch). next() calls it; idempotent.
  void start();
  bool ended() const { return ended_; }
  // The epoch the next row belongs to (init_step may start past epoch 0).
  int64_t epoch() const { return epoch_; }
  // Stops and joins every thread; the pipeline yields nothing after. Idempotent.
  void stop();
  // The autotuner's view of the ops (empty when autotune is off), and its adjustments so far.
  std::vector<TunedOp> autotune_report() const;
  int64_t autotune_adjustments() const;
  // Whether the profiler records this pipeline.
  bool profiled() const { return profiled_; }

 private:
  NodePtr root_;
  PipelineOptions options_;
  std::vector<std::unique_ptr<Op>> ops_;  // children before parents
  Op* top_ = nullptr;
  bool started_ = false, ended_ = false;
  std::exception_ptr failed_;
  int64_t epoch_ = 0;
  int64_t replay_ = 0;         // rows still to drop before the first one returned
  std::optional<Msg> peeked_;  // a message start() read ahead (a step on an epoch boundary)
  std::unique_ptr<AutoTuner> tuner_;
  bool profiled_ = false;   // registered with the profiler (until stop())
  bool tuning_ = false;     // counted by the profiler as autotuned (until stop())
  int64_t rows_taken_ = 0;  // rows next() returned: the profiler's batch numbers

  // Pops the root's next message; a cancelled connector reads as End.
  Msg pop();
  // Records what an End or Error message means for the pipeline (Error rethrows).
  void settle(const Msg& m);
};

}  // namespace mycel::data
