#include "comm/process_groups.h"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "base/env.h"
#include "base/error.h"
#include "comm/exec_order.h"
#include "comm/gloo_comm.h"
#include "comm/mpi_comm.h"
#include "comm/store.h"

namespace mycel {

namespace {
int env_int(const char* name, int dflt, int lo) {
  std::string v = env_string(name);
  if (v.empty()) return dflt;
  size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  MC_CHECK(used == v.size() && x >= lo && x <= INT32_MAX, Value, "the environment variable ", name,
           "='", v, "' is not an integer >= ", lo);
  return static_cast<int>(x);
}

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}
}  // namespace

CommOptions CommOptions::from_env(const std::string& backend) {
  CommOptions o;
  const bool under_mpirun = !env_string("OMPI_COMM_WORLD_SIZE").empty();
  if (backend.empty() || backend == "hccl" || backend == "nccl") {
    o.backend = under_mpirun ? "mpi" : "gloo";
  } else {
    MC_CHECK(backend == "gloo" || backend == "mpi", Value, "init: backend_name '", backend,
             "' is not one of 'gloo', 'mpi' (or 'hccl'/'nccl', which mean the default)");
    o.backend = backend;
  }
  int secs = env_int("MYCEL_COMM_TIMEOUT", 600, 1);
  o.timeout = std::chrono::seconds(secs);
  const int check = env_int("MYCEL_COMM_CHECK", 1, 0);
  MC_CHECK(check <= 1, Value, "the environment variable MYCEL_COMM_CHECK='", check,
           "' is not 0 or 1");
  o.check_calls = check == 1;
  if (o.backend == "mpi") return o;  // MPI tells rank and size itself
  o.size = env_int("MS_WORKER_NUM", 1, 1);
  o.rank = env_int("RANK_ID", 0, 0);
  MC_CHECK(o.rank < o.size, Value, "RANK_ID=", o.rank, " is not below MS_WORKER_NUM=", o.size);
  std::string addr = env_string("MS_SCHED_HOST");
  if (!addr.empty()) o.master_addr = addr;
  o.master_port = env_int("MS_SCHED_PORT", o.size == 1 ? 0 : 8118, 0);
  o.host = env_string("MYCEL_COMM_HOST");
  if (o.host.empty()) {
    char name[256] = {0};
    o.host = is_loopback(o.master_addr) || gethostname(name, sizeof(name) - 1) != 0
                 ? std::string("127.0.0.1")
                 : std::string(name);
  }
  return o;
}

struct ProcessGroups::Backend {         // Gloo's shared state (MPI keeps its own)
  std::unique_ptr<StoreServer> server;  // rank 0's
  std::unique_ptr<HttpStore> store;
  std::shared_ptr<GlooDevice> device;
};

namespace {
// Each rank checks in: its rank is claimed once, and its world size is rank 0's.
void check_in(Store& store, const CommOptions& o) {
  MC_CHECK(store.add("world/rank/" + std::to_string(o.rank), 1) == 1, Value,
           "init: two processes have world rank ", o.rank,
           " (check RANK_ID, or the launcher's --node_rank and --local_worker_num)");
  if (o.rank == 0) store.set("world/size", std::to_string(o.size));
  const int size0 = std::stoi(store.get("world/size", o.timeout));
  MC_CHECK(size0 == o.size, Value, "init: this process (rank ", o.rank, ") was told the world has ",
           o.size, " ranks, rank 0 was told ", size0);
}
}  // namespace

ProcessGroups::ProcessGroups(const CommOptions& o) : o_(o), b_(std::make_unique<Backend>()) {
  Group world;
  if (o.backend == "mpi") {
    world.comm = mpi_world(o.timeout);
    o_.rank = world.comm->rank();
    o_.size = world.comm->size();
    mpi_local_rank(&local_rank_, &local_size_);
  } else {
    if (o.rank == 0) b_->server = std::make_unique<StoreServer>(o.master_addr, o.master_port);
    const int port = b_->server ? b_->server->port() : o.master_port;
    b_->store = std::make_unique<HttpStore>(o.master_addr, port, o.timeout);
    check_in(*b_->store, o);
    b_->device = make_gloo_device(o.host);
    world.comm = connect_gloo(b_->device, *b_->store, kWorldGroup, o.rank, o.size, o.timeout);
    // Local ranks: the world ranks of this rank's node. A launcher (mycel.run) names its node
    // (MS_NODE_RANK), so two launchers on one machine are two nodes, as with msrun; without
    // one, the ranks that share this rank's transport address.
    const std::string node_rank = env_string("MS_NODE_RANK");
    const std::string node = node_rank.empty() ? o.host : "node " + node_rank + " on " + o.host;
    b_->store->set("world/host/" + std::to_string(o.rank), node);
    local_size_ = 0;
    for (int r = 0; r < o.size; ++r) {
      if (b_->store->get("world/host/" + std::to_string(r), o.timeout) != node) continue;
      if (r < o.rank) ++local_rank_;
      ++local_size_;
    }
  }
  for (int r = 0; r < o_.size; ++r) world.ranks.push_back(r);
  world.comm->set_checks_calls(o_.check_calls);
  CommOrderRecorder::instance().set_group(*world.comm, kWorldGroup, world.ranks, o_.rank);
  groups_.emplace(kWorldGroup, std::move(world));
}

ProcessGroups::~ProcessGroups() {
  queue_.reset();  // its pending work uses the communicators
  lanes_.clear();
  groups_.clear();  // the communicators before the store and device they use
  b_.reset();
  if (o_.backend == "mpi") mpi_finalize();
}

const ProcessGroups::Group& ProcessGroups::find(const std::string& name) const {
  auto it = groups_.find(name);
  MC_CHECK(it != groups_.end(), Value, "no communication group '", name,
           "' on this rank (create_group makes one, on its members only)");
  return it->second;
}

Communicator& ProcessGroups::group(const std::string& name) { return *find(name).comm; }

CommQueue& ProcessGroups::p2p_queue(const std::string& group, int peer, bool send) {
  std::unique_ptr<CommQueue>& q = lanes_[{group, peer, send}];
  if (!q) q = std::make_unique<CommQueue>();
  return *q;
}

void ProcessGroups::drain() {
  queue_->drain();
  for (auto& [key, q] : lanes_) q->drain();
}

bool ProcessGroups::has_group(const std::string& name) const { return groups_.count(name) > 0; }

void ProcessGroups::create_group(const std::string& name, const std::vector<int>& ranks) {
  MC_CHECK(!name.empty() && name != kWorldGroup, Value, "create_group: the name '", name, "' is ",
           name.empty() ? "empty" : "the world group's");
  MC_CHECK(!has_group(name), Value, "create_group: the group '", name, "' exists already");
  MC_CHECK(!ranks.empty(), Value, "create_group: rank_ids of '", name, "' is empty");
  std::set<int> seen;
  for (int r : ranks) {
    MC_CHECK(r >= 0 && r < o_.size, Value, "create_group: rank ", r, " of '", name,
             "' is not a world rank (the world has ", o_.size, ")");
    MC_CHECK(seen.insert(r).second, Value, "create_group: rank ", r, " appears twice in '", name,
             "'");
  }
  auto me = std::find(ranks.begin(), ranks.end(), o_.rank);
  MC_CHECK(me != ranks.end(), Value, "create_group: this rank (", o_.rank, ") is not in '", name,
           "'; only the members call create_group");
  const int my_group_rank = static_cast<int>(me - ranks.begin());
  drain();  // no communication runs beside the group's creation (MPI: serialized)
  Group g;
  g.ranks = ranks;
  if (o_.backend == "mpi") {
    g.comm = mpi_subgroup(world(), name, ranks);
  } else {
    const std::string key = "group/" + name + "/" + std::to_string(generations_[name]++);
    g.comm = connect_gloo(b_->device, *b_->store, key, my_group_rank,
                          static_cast<int>(ranks.size()), o_.timeout);
  }
  g.comm->set_checks_calls(o_.check_calls);
  CommOrderRecorder::instance().set_group(*g.comm, name, g.ranks, o_.rank);
  groups_.emplace(name, std::move(g));
}

void ProcessGroups::destroy_group(const std::string& name) {
  MC_CHECK(name != kWorldGroup, Value, "destroy_group: the world group cannot be destroyed");
  Communicator& c = group(name);
  drain();
  std::erase_if(lanes_, [&](const auto& lane) { return std::get<0>(lane.first) == name; });
  try {
    c.barrier();
  } catch (...) {  // closed all the same
    groups_.erase(name);
    throw;
  }
  groups_.erase(name);
}

void ProcessGroups::close() {
  if (groups_.empty()) return;
  drain();
  try {
    world().barrier();
  } catch (...) {  // closed all the same
    groups_.clear();
    throw;
  }
  groups_.clear();
}

int ProcessGroups::world_rank(const std::string& group, int group_rank) {
  const Group& g = find(group);
  MC_CHECK(group_rank >= 0 && group_rank < static_cast<int>(g.ranks.size()), Value, "group rank ",
           group_rank, " is not in group '", group, "' of ", g.ranks.size(), " ranks");
  return g.ranks[static_cast<size_t>(group_rank)];
}

int ProcessGroups::group_rank(const std::string& group, int world_rank) {
  const Group& g = find(group);
  auto it = std::find(g.ranks.begin(), g.ranks.end(), world_rank);
  MC_CHECK(it != g.ranks.end(), Value, "world rank ", world_rank, " is not in group '", group, "'");
  return static_cast<int>(it - g.ranks.begin());
}

}  // namespace mycel
