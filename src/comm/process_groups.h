// The process groups of a distributed job: the world and the named sub-groups, each a
// Communicator (comm/communicator.h) of the chosen backend. mycel.communication.init()
// makes one ProcessGroups and release() ends it; nothing else holds communicators. (The
// collective operators, next, will reach a group's communicator from here by name.)
//
// CommOptions::from_env is the one reader of the environment that describes the job (the
// launcher, python -m mycel.run, and mpirun set it):
//   MS_WORKER_NUM   the world size (unset: a world of one process)
//   RANK_ID         this process's world rank
//   MS_SCHED_HOST   the address of the rendezvous store, hosted by rank 0 (127.0.0.1)
//   MS_SCHED_PORT   its port (8118)
//   MYCEL_COMM_HOST the address the other ranks reach this one at (default: 127.0.0.1 when
//                   MS_SCHED_HOST is a loopback address, else this machine's hostname)
//   MYCEL_COMM_TIMEOUT  seconds any collective, connect or rendezvous may wait (600)
//   MYCEL_COMM_CHECK    0: the collective ops skip checking that every rank makes the same
//                       call (comm/communicator.h, check_same_call); unset or 1: they check
//   OMPI_COMM_WORLD_SIZE  set by Open MPI's mpirun: the backend is then MPI
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "comm/communicator.h"
#include "comm/work_queue.h"

namespace mycel {

inline constexpr const char* kWorldGroup = "hccl_world_group";  // GlobalComm.WORLD_COMM_GROUP

struct CommOptions {
  std::string backend;  // "gloo" or "mpi"
  int rank = 0;
  int size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 8118;
  std::string host;  // this rank's transport address
  std::chrono::milliseconds timeout{std::chrono::seconds(600)};
  bool check_calls = true;

  // From the environment (above). `backend` "" picks MPI under mpirun, else Gloo; a name
  // other than "gloo", "mpi" (or MindSpore's "hccl"/"nccl", which mean the default here) is a
  // ValueError. Bad numbers are ValueErrors naming the variable.
  static CommOptions from_env(const std::string& backend = "");
};

class ProcessGroups {
 public:
  // Connects the world: every rank must call it; returns when all have, or fails after the
  // timeout naming what was missing. A world size or rank that disagrees with the others'
  // is a ValueError.
  explicit ProcessGroups(const CommOptions& o);
  ~ProcessGroups();
  ProcessGroups(const ProcessGroups&) = delete;
  ProcessGroups& operator=(const ProcessGroups&) = delete;

  const CommOptions& options() const { return o_; }
  Communicator& world() { return *find(kWorldGroup).comm; }
  // The group's communicator; a ValueError naming the group when there is none (or when this
  // rank is not in it).
  Communicator& group(const std::string& name);
  bool has_group(const std::string& name) const;
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // Makes the group `name` of the given world ranks (distinct, in range, at least one; this
  // rank among them). Called by each member; returns when all members have.
  void create_group(const std::string& name, const std::vector<int>& world_ranks);
  // Closes the group on this rank after a barrier of its members (each member calls it): a
  // member that closed its connections while a peer still used them would fail that peer.
  // The world cannot be destroyed.
  void destroy_group(const std::string& name);
  // release(): a barrier of the world (so every rank has finished every operation of every
  // group), then every group closed, also when the barrier fails (its error is rethrown).
  // Destroying a ProcessGroups without close() closes without the barrier (error paths).
  void close();
  int world_rank(const std::string& group, int group_rank);  // ValueError when out of range
  // The process's communication queue (comm/work_queue.h): asynchronous collectives of any
  // group run there, in issue order. destroy_group and close() drain it first.
  CommQueue& queue() { return *queue_; }
  // A point-to-point lane: the queue of the Sends to group rank `peer` of `group` (send) or
  // of the Receives from it, made at first use. Matching is by (peer, tag) in issue order, so
  // each direction to each peer keeps its order; but a Send or Receive waiting for its peer
  // (Gloo's sends wait for the matching receive) holds up neither the collectives nor the
  // other lanes, so ranks may exchange in any order (a ring shift with every rank receiving
  // first, a send waiting across a collective), as with MPI's or PyTorch's isend/irecv.
  CommQueue& p2p_queue(const std::string& group, int peer, bool send);
  // Waits until nothing is pending on the queue or any lane.
  void drain();
  int group_rank(const std::string& group, int world_rank);  // ValueError when not a member

  struct Backend;  // the backend's shared state (store, transport device)

 private:
  struct Group {
    std::vector<int> ranks;  // world ranks, in group-rank order
    std::unique_ptr<Communicator> comm;
  };
  std::map<std::string, int> generations_;  // creations of each group name, for store keys
  const Group& find(const std::string& name) const;

  CommOptions o_;
  std::unique_ptr<Backend> b_;
  std::map<std::string, Group> groups_;
  int local_rank_ = 0, local_size_ = 1;
  std::unique_ptr<CommQueue> queue_ = std::make_unique<CommQueue>();                // ended first
  std::map<std::tuple<std::string, int, bool>, std::unique_ptr<CommQueue>> lanes_;  // likewise
};

}  // namespace mycel
