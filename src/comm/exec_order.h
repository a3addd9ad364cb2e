// The collective-communication execution order of this process, as MindSpore's
// `mindspore.utils.comm_exec_order_check("start" / "end")` collects it: while recording is on,
// every collective and point-to-point operator that runs (the kernels of ops/defs/comm.def,
// eager or in a graph, synchronous or from the communication queue) appends one row, in the
// order the operators run; stopping writes the rows to
//   <dir>/rank_<world rank>/execute_order/comm_execute_order.csv
// with MindSpore's columns (index, group, comm_rank, primitive, src_rank, dest_rank,
// root_rank, input_shape, input_type, output_shape, output_type, input_size, output_size).
// comm_rank is the group's world ranks separated by spaces; src/dest/root ranks are world
// ranks, empty where the operator has none. `mycel.utils.runtime_execution_order_check` reads
// the files of all ranks and reports collectives that the ranks issue in orders that can
// deadlock (a cycle among the orders) or that a peer never issues.
//
// Why here: the comm layer is the one place every collective passes through, whichever path
// (PyNative, graph VM, async queue) called it; recording costs one relaxed atomic load per
// operator while off.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "tensor/tensor.h"

namespace mycel {

struct CommOrderRow {
  std::string group, comm_rank, primitive, src_rank, dest_rank, root_rank;
  std::string input_shape, input_type, output_shape, output_type;
  size_t input_size = 0, output_size = 0;
};

class CommOrderRecorder {
 public:
  static CommOrderRecorder& instance();

  // Clears the rows and turns recording on.
  void start();
  // Turns recording off and writes the rows (none: no file) under `dir` as above, making
  // the folders. Returns the file's path, or "" when there was nothing to write. A
  // RuntimeError naming the path when it cannot be written.
  std::string stop(const std::string& dir);
  bool recording() const { return on_.load(std::memory_order_relaxed); }
  size_t rows() const;

  // The name and world ranks (group rank order) of the group whose communicator is c, and
  // this process's world rank: told by ProcessGroups when it makes a group, so rows name the
  // group as the user did (a communicator's own name may be a store key) and world ranks.
  void set_group(const Communicator& c, const std::string& name,
                 const std::vector<int>& world_ranks, int world_rank);

  // One row for operator `op` run on communicator c. in/out may be null (Barrier has no
  // input, Send no output); src/dest/root are group ranks, -1 for none.
  void record(const Communicator& c, const std::string& op, const Tensor* in, const Tensor* out,
              int src, int dest, int root);

 private:
  std::string world_rank_of(const std::string& group, int group_rank) const;

  std::atomic<bool> on_{false};
  mutable std::mutex mu_;
  std::vector<CommOrderRow> rows_;
  struct Group {
    std::string name;
    std::vector<int> ranks;
  };
  std::map<std::string, Group> groups_;  // by the communicator's group()
  int world_rank_ = 0;
};

}  // namespace mycel
