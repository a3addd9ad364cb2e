// The data engine's pipeline profiler (MindSpore's MindData profiling manager,
// `mindspore._c_dataengine.GlobalContext.profiling_manager()`): while it runs it records, for
// the one pipeline registered with it, what each op does, and writes three files.
//
// Lifecycle (MindSpore's states and messages):
//   init()   arms the profiler and forgets the registered pipeline and its data. Refused while
//            it runs ("Stop MD Profiler before reinitializing it.") or while a pipeline is
//            autotuned ("Stop MD Autotune before initializing the MD Profiler.").
//   start()  starts recording ("MD ProfilingManager is already running." if it runs). Starting
//            again after stop() drops what the last run recorded: the files then describe the
//            last start..stop window only.
//   stop()   stops recording ("MD ProfilingManager has not started yet." before any start);
//            stopping twice returns false (the binding logs MindSpore's warning).
//   save(dir) writes the files of the registered pipeline (none when no pipeline registered).
// A pipeline registers when it is created while the profiler is armed (init or start) and no
// other pipeline is registered; it stays registered, with its data, after it ends, until the
// next init(). The iterators ask for it (PipelineOptions::profile_interval_ms); pipelines that
// only read a row to answer a question (output_shapes) are not profiled.
//
// What is recorded while running, per op of the registered pipeline:
//  - pipeline_profiling_<rank>.json: the ops, root first (op_id = position, children ids),
//    op_type in MindSpore's names (GeneratorOp, MapOp, BatchOp, ShuffleOp, ...; see
//    op_type()), num_workers, and for ops with an output queue of their own (ThreadedOps) its
//    capacity ("length") and its fill at each sample ("size"); ops run inline in their
//    consumer's thread (shuffle, repeat, skip, take, project, rename, zip, concat) have
//    "metrics": null. A pipeline of num_epochs != 1 has MindSpore's EpochCtrlOp on top: the
//    Pipeline's own epoch counting, an inline entry.
//  - minddata_cpu_utilization_<rank>.json: at each sample, each op's CPU use (user and sys, in
//    percent of one core: [0, 100 * cores]) summed over its worker threads
//    (/proc/self/task/<tid>/stat; inline ops have no threads of their own and read 0), the
//    process's (/proc/self/stat), the system's (/proc/stat, percent of all cores), the
//    process memory (vss and rss from /proc/self/statm, pss from /proc/self/smaps_rollup) and
//    the system memory (/proc/meminfo: total, available, used = total - available), in MB.
//  - dataset_iterator_profiling_<rank>.txt: 4 lines per row the iterator took while running,
//    MindSpore's records "type extra_info batch_num value time_stamp": 0 1 n 0 (push time: no
//    device), 0 2 n t (batch time, ms), 0 0 n t (pipeline time, ms), 1 capacity n size (the
//    root's output queue, or the nearest queue below an inline root).
// Samples are taken by a monitor thread every `interval` ms (config.set_monitor_sampling_
// interval), plus one when recording starts or stops and when the pipeline stops, so a short
// run still has its figures. Queue fills are read with the autotuner's QueueProbe
// (autotune.h). <rank> is the RANK_ID environment variable (default 0).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "data/autotune.h"

namespace mycel::data {

class Op;
class Pipeline;
struct Node;

class Profiler {
 public:
  enum class State { Unbegun, Running, Finished };
  // What the profiler would do with a pipeline created now.
  enum class Claim { Off, Free, Taken };  // not armed; would register it; another is registered

  // The process's one profiler.
  static Profiler& instance();

  void init();
  void start();
  bool stop();  // false: it had already stopped (MindSpore warns)
  // Writes the files into the existing directory dir; the paths written (empty: no pipeline).
  std::vector<std::string> save(const std::string& dir);
  State state() const;
  bool armed() const;
  Claim claim() const;

  // A pipeline asks to be profiled (from its constructor); true when it now is.
  bool attach(const Pipeline* p, const Node& root, const std::vector<std::unique_ptr<Op>>& ops,
              int64_t num_epochs, int64_t interval_ms);
  // The registered pipeline stops: a last sample, then its ops are no longer read.
  void detach(const Pipeline* p);
  // The registered pipeline's iterator took row number `batch` (1-based) in `ms` ms.
  void record_batch(const Pipeline* p, int64_t batch, int64_t ms);
  // Autotuned pipelines come and go (init() is refused while one lives).
  void tuning(bool on);

  // One reading of a process's CPU counters (clock ticks), kept between samples.
  struct Ticks {
    uint64_t user = 0, sys = 0;
  };

 private:
  Profiler() = default;
  struct OpRecord {
    std::string type;
    int workers = 0;
    std::vector<int> children;
    int probe = -1;  // index in probe->ops(), -1: inline (no queue of its own)
    int64_t capacity = 0;
    std::vector<int64_t> sizes;
    std::vector<double> user, sys;
    std::vector<std::pair<int, Ticks>> threads;  // last reading per worker thread
    Ticks last;                                  // the sum at the last sample
  };
  struct Sys {  // /proc/stat: the "cpu" line in ticks, context switches, running processes
    uint64_t user = 0, sys = 0, idle = 0, io = 0, total = 0, ctxt = 0, running = 0;
  };

  void reset_data();  // drops the samples and the trace
  void baseline();    // reads the counters the next sample compares to
  void sample();      // one sample (holding mu_)
  void monitor();     // the monitor thread's loop
  void stop_monitor(std::unique_lock<std::mutex>& lock);
  Ticks op_ticks(OpRecord& r, const ThreadedOp* op);  // its threads' ticks now
  static void read_sys(Sys* out);

  mutable std::mutex mu_;
  std::condition_variable wake_;
  State state_ = State::Unbegun;
  bool armed_ = false;
  int tuned_ = 0;  // autotuned pipelines alive

  // The registered pipeline (registered_ stays true after it ends, until init()).
  bool registered_ = false;
  const Pipeline* pipeline_ = nullptr;  // null once it has stopped
  std::unique_ptr<QueueProbe> probe_;
  int root_queue_ = -1;  // probe index of the queue the iterator reads through
  int64_t interval_ms_ = 1000;
  std::vector<OpRecord> ops_;
  std::vector<int64_t> queued_;  // scratch for QueueProbe::read

  std::vector<int64_t> stamps_;
  std::vector<double> sys_user_, sys_sys_, sys_idle_, sys_io_, proc_user_, proc_sys_;
  std::vector<int64_t> ctx_switches_, runnable_;
  std::vector<double> vss_, rss_, pss_, mem_total_, mem_avail_, mem_used_;
  std::vector<std::string> trace_;
  int64_t last_ms_ = 0;  // time of the baseline or the last sample
  Ticks proc_last_;
  Sys sys_last_;

  std::thread monitor_;
  bool quit_ = false;
};

// MindSpore's name of the op that runs node n ("GeneratorOp", "MapOp", "TFReaderOp", ...).
std::string op_type(const Node& n);

}  // namespace mycel::data
