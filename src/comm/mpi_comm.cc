#include "comm/mpi_comm.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.h"

namespace mycel {

namespace {

// MPI runs with MPI_THREAD_SERIALIZED: one call at a time in the process. Collectives and
// point-to-point lanes (ProcessGroups::p2p_queue) run on different threads, each posting
// non-blocking requests and polling them, so each MPI call of a communicator holds this
// lock while it runs, and only then: a lane waiting for its peer leaves MPI to the others.
std::mutex g_mpi;

bool g_inited = false;     // MPI allows one init per process
bool g_finalized = false;  // ... and nothing after finalize
MPI_Datatype g_types[kNumDTypes];
MPI_Op g_ops[4];

DType dtype_of_mpi(MPI_Datatype d) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (g_types[i] == d) return static_cast<DType>(i);
  }
  MC_THROW(Internal, "an MPI reduction on a datatype mycel did not make");
}

template <ReduceOp Op>
void user_op(void* in, void* inout, int* len, MPI_Datatype* dt) {
  reduce_into(dtype_of_mpi(*dt), Op, inout, inout, in, static_cast<size_t>(*len));
}

// One MPI datatype per dtype: each its own handle (16-bit floats are 2-byte contiguous
// types), so a user operation can tell them apart.
void make_types_and_ops() {
  for (int i = 0; i < kNumDTypes; ++i) {
    MPI_Type_contiguous(static_cast<int>(dtype_size(static_cast<DType>(i))), MPI_BYTE, &g_types[i]);
    MPI_Type_commit(&g_types[i]);
  }
  MPI_Op_create(&user_op<ReduceOp::Sum>, 1, &g_ops[0]);
  MPI_Op_create(&user_op<ReduceOp::Max>, 1, &g_ops[1]);
  MPI_Op_create(&user_op<ReduceOp::Min>, 1, &g_ops[2]);
  MPI_Op_create(&user_op<ReduceOp::Prod>, 1, &g_ops[3]);
}

int mpi_count(size_t n, std::string_view op) {
  MC_CHECK(n <= static_cast<size_t>(INT_MAX), Value, op, ": ", n,
           " elements are more than MPI can move in one call (", INT_MAX, ")");
  return static_cast<int>(n);
}

std::string mpi_message(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, buf, &len);
  return std::string(buf, static_cast<size_t>(len));
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(std::string group, MPI_Comm comm) : group_(std::move(group)), comm_(comm) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm_dup(comm_, &fault_);  // collective: every member constructs its communicator
    MPI_Comm_set_errhandler(fault_, MPI_ERRORS_RETURN);
  }
  ~MpiCommunicator() override {
    if (g_finalized) return;
    MPI_Comm_free(&fault_);
    if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
  }
  MPI_Comm comm() const { return comm_; }

  const std::string& group() const override { return group_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }

  void all_reduce(const void* in, void* out, size_t count, DType t, ReduceOp op) override {
    if (count == 0) return;
    const int n = mpi_count(count, "AllReduce");
    const void* send = in == out ? MPI_IN_PLACE : in;
    collective("AllReduce", [&](MPI_Request* r) {
      return MPI_Iallreduce(send, out, n, type(t), g_ops[static_cast<int>(op)], comm_, r);
    });
  }
  void all_gather(const void* in, void* out, size_t count, DType t) override {
    if (count == 0) return;
    const int n = mpi_count(count * size_, "AllGather");
    collective("AllGather", [&](MPI_Request* r) {
      return MPI_Iallgather(in, n / size_, type(t), out, n / size_, type(t), comm_, r);
    });
  }
  void reduce_scatter(const void* in, void* out, size_t count, DType t, ReduceOp op) override {
    if (count == 0) return;
    const int n = mpi_count(count * size_, "ReduceScatter") / size_;
    collective("ReduceScatter", [&](MPI_Request* r) {
      return MPI_Ireduce_scatter_block(in, out, n, type(t), g_ops[static_cast<int>(op)], comm_, r);
    });
  }
  void all_to_all(const void* in, void* out, size_t count, DType t) override {
    if (count == 0) return;
    const int n = mpi_count(count * size_, "AlltoAll") / size_;
    collective("AlltoAll", [&](MPI_Request* r) {
      return MPI_Ialltoall(in, n, type(t), out, n, type(t), comm_, r);
    });
  }
  void broadcast(void* buf, size_t count, DType t, int root) override {
    if (count == 0) return;
    const int n = mpi_count(count, "Broadcast");
    collective("Broadcast",
               [&](MPI_Request* r) { return MPI_Ibcast(buf, n, type(t), root, comm_, r); });
  }
  void send(const void* buf, size_t nbytes, int dst, int tag) override {
    if (nbytes == 0) return;
    const int n = mpi_count(nbytes, "Send");
    post_and_wait("Send",
                  [&](MPI_Request* r) { return MPI_Isend(buf, n, MPI_BYTE, dst, tag, comm_, r); });
  }
  void recv(void* buf, size_t nbytes, int src, int tag) override {
    if (nbytes == 0) return;
    const int n = mpi_count(nbytes, "Receive");
    MPI_Status st = post_and_wait(
        "Receive", [&](MPI_Request* r) { return MPI_Irecv(buf, n, MPI_BYTE, src, tag, comm_, r); });
    int got = 0;
    check("Receive", MPI_Get_count(&st, MPI_BYTE, &got));
    // A shorter message would leave the rest of the buffer unwritten (a longer one is
    // MPI_ERR_TRUNCATE): the sender's tensor was not the one expected.
    if (static_cast<size_t>(got) != nbytes)
      throw_comm_error(*this, "Receive",
                       "expected " + std::to_string(nbytes) + " bytes from rank " +
                           std::to_string(src) + " but it sent " + std::to_string(got));
  }
  void barrier() override {
    collective("Barrier", [&](MPI_Request* r) { return MPI_Ibarrier(comm_, r); });
  }

 private:
  static MPI_Datatype type(DType t) { return g_types[static_cast<int>(t)]; }
  void check(std::string_view op, int rc) {
    if (rc != MPI_SUCCESS) throw_comm_error(*this, op, mpi_message(rc));
  }
  // Posts a non-blocking request (g_mpi held) and waits for it (the lock taken per poll).
  template <class Post>
  MPI_Status post_and_wait(std::string_view op, Post post, bool is_collective = false) {
    MPI_Request r;
    {
      std::lock_guard<std::mutex> lock(g_mpi);
      check(op, post(&r));
    }
    return wait(op, r, is_collective);
  }
  // A collective of the group: the seq_-th; after a timeout its error names the ranks that
  // never reached it (absent_ranks).
  template <class Post>
  void collective(std::string_view op, Post post) {
    ++seq_;
    post_and_wait(op, post, true);
  }
  // Polls the request until it completes (its status) or the timeout passes: a spin first
  // (latency), then short sleeps (a rank waiting long for a peer leaves its core to the others).
  MPI_Status wait(std::string_view op, MPI_Request& r, bool is_collective) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now(), deadline = start + timeout();
    for (int polls = 0;; ++polls) {
      int done = 0;
      MPI_Status st;
      {
        std::lock_guard<std::mutex> lock(g_mpi);
        check(op, MPI_Test(&r, &done, &st));
      }
      if (done) return st;
      if (Clock::now() > deadline) {
        throw_comm_error(*this, op,
                         std::string("a peer did not arrive within the timeout") +
                             (is_collective ? absent_ranks() : std::string()));
      }
      if (polls < 2000) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
  }

  // After the seq_-th collective timed out: this rank tells every other member so on the
  // group's fault communicator (a duplicate: no message of the user's can match) and listens
  // for theirs during a grace period (a fifth of the timeout, 1 to 10 s). The members not
  // heard from are named: they never called the collective (busy elsewhere, or gone; mpirun
  // ends a job whose rank died). Messages not exchanged are cancelled or left to MPI.
  std::string absent_ranks() {
    using Clock = std::chrono::steady_clock;
    const int tag = static_cast<int>(seq_ % 32768);  // MPI's tag bound is at least 32767
    const auto grace = std::clamp<std::chrono::milliseconds>(timeout() / 5, std::chrono::seconds(1),
                                                             std::chrono::seconds(10));
    std::vector<int> got(static_cast<size_t>(size_), 0);
    std::vector<MPI_Request> recvs(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    std::vector<bool> heard(static_cast<size_t>(size_), false);
    {
      std::lock_guard<std::mutex> lock(g_mpi);
      for (int r = 0; r < size_; ++r) {
        if (r == rank_) continue;
        MPI_Request s;
        if (MPI_Isend(&kFaultNote, 1, MPI_INT, r, tag, fault_, &s) == MPI_SUCCESS)
          MPI_Request_free(&s);  // a note of 4 bytes, sent eagerly; nothing waits for it
        MPI_Irecv(&got[r], 1, MPI_INT, r, tag, fault_, &recvs[r]);
      }
    }
    const auto deadline = Clock::now() + grace;
    for (int left = size_ - 1; left > 0 && Clock::now() < deadline;) {
      {
        std::lock_guard<std::mutex> lock(g_mpi);
        for (int r = 0; r < size_; ++r) {
          int done = 0;
          if (r == rank_ || heard[r]) continue;
          if (MPI_Test(&recvs[r], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done) {
            heard[r] = true;
            --left;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::string absent;
    std::lock_guard<std::mutex> lock(g_mpi);
    for (int r = 0; r < size_; ++r) {
      if (r == rank_ || heard[r]) continue;
      MPI_Status st;
      int cancelled = 0;
      MPI_Cancel(&recvs[r]);
      MPI_Wait(&recvs[r], &st);
      MPI_Test_cancelled(&st, &cancelled);
      if (cancelled) absent += (absent.empty() ? "" : ", ") + std::to_string(r);
    }
    return absent.empty() ? " (every rank of the group reached this collective)"
                          : " (rank(s) " + absent + " of the group never reached this collective)";
  }

  static constexpr int kFaultNote = 1;
  std::string group_;
  MPI_Comm comm_;
  MPI_Comm fault_ = MPI_COMM_NULL;  // the fault notes' communicator (absent_ranks)
  int rank_ = 0, size_ = 1;
  uint32_t seq_ = 0;  // collectives posted; collectives run one at a time (one queue)
};

}  // namespace

std::unique_ptr<Communicator> mpi_world(std::chrono::milliseconds timeout) {
  MC_CHECK(!g_finalized, Runtime,
           "MPI was released in this process and cannot be initialised again (an MPI rule)");
  if (!g_inited) {
    // Open MPI's default algorithm for the non-blocking all-reduce (libnbc), which this
    // backend calls so that every wait can time out, ran several times slower here than its
    // ring on large buffers (bench/RESULTS.md): the ring, unless the user chose.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", 0);
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    MC_CHECK(rc == MPI_SUCCESS, Runtime, "MPI_Init_thread failed: ", mpi_message(rc));
    make_types_and_ops();
    g_inited = true;
  }
  auto c = std::make_unique<MpiCommunicator>("hccl_world_group", MPI_COMM_WORLD);
  c->set_timeout(timeout);
  return c;
}

void mpi_local_rank(int* local_rank, int* local_size) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, local_rank);
  MPI_Comm_size(node, local_size);
  MPI_Comm_free(&node);
}

std::unique_ptr<Communicator> mpi_subgroup(Communicator& parent, const std::string& name,
                                           const std::vector<int>& parent_ranks) {
  auto& p = dynamic_cast<MpiCommunicator&>(parent);
  MPI_Group pg, g;
  MPI_Comm_group(p.comm(), &pg);
  MPI_Group_incl(pg, static_cast<int>(parent_ranks.size()), parent_ranks.data(), &g);
  MPI_Comm c = MPI_COMM_NULL;
  int rc = MPI_Comm_create_group(p.comm(), g, 0, &c);
  MPI_Group_free(&g);
  MPI_Group_free(&pg);
  MC_CHECK(rc == MPI_SUCCESS && c != MPI_COMM_NULL, Runtime, "creating group '", name,
           "' failed: ", mpi_message(rc));
  auto sub = std::make_unique<MpiCommunicator>(name, c);
  sub->set_timeout(parent.timeout());
  return sub;
}

void mpi_finalize() {
  if (!g_inited || g_finalized) return;
  for (MPI_Op& op : g_ops) MPI_Op_free(&op);
  for (MPI_Datatype& t : g_types) MPI_Type_free(&t);
  MPI_Finalize();
  g_finalized = true;
}

}  // namespace mycel
