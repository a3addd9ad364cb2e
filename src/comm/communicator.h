// Communicators: the collective operations of one process group, and the narrow interface a
// collective library implements (comm/gloo_comm.h: Gloo over TCP, the default;
// comm/mpi_comm.h: Open MPI; a seam for NCCL where it is installed).
//
// A Communicator is one group of ranks (the world, or a sub-group made by
// ProcessGroups::create_group). Every operation is collective over the group unless it says
// otherwise, works on host buffers of `count` elements of one dtype, blocks until its result
// is in place, and gives up after the group's timeout: a peer that died or never arrives is
// a RuntimeError naming the operation, the group, this rank and the timeout, never a hang.
// Operations of one group run in the order the caller issues them; callers serialise their
// calls on a group.
//
// Device tensors are the caller's concern (kernels copy through the host until a device
// library such as NCCL is behind this interface).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace mycel {

// MindSpore's ops.ReduceOp. On bool, Sum and Max are "or", Prod and Min are "and"; integer
// sums wrap as the dtype does; 16-bit floats accumulate in float and round once per step.
enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };
std::string_view reduce_op_name(ReduceOp op);  // "sum", ...
// The ReduceOp named "sum", "max", "min" or "prod" (MindSpore's ReduceOp strings); nullopt
// for any other name.
std::optional<ReduceOp> reduce_op_from_name(std::string_view name);

// out[i] = op(a[i], b[i]) for n elements of dtype t (the reduction every backend applies
// to the blocks it receives; one definition so the backends agree bit for bit).
void reduce_into(DType t, ReduceOp op, void* out, const void* a, const void* b, size_t n);

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual const std::string& group() const = 0;  // "hccl_world_group" for the world
  virtual int rank() const = 0;                  // this process's rank in the group
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "gloo", "mpi"
  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) { timeout_ = t; }
  // Whether the collective ops check that the ranks agree on the op and the tensors first
  // (check_same_call below; MYCEL_COMM_CHECK, on by default).
  bool checks_calls() const { return checks_calls_; }
  void set_checks_calls(bool on) { checks_calls_ = on; }

  // out = op over ranks of `in` (in == out: in place). An out-of-place call lets the library
  // copy `in` piece by piece while the network is busy (Gloo's ring copies segment by
  // segment; MPI takes separate buffers), instead of a whole copy before the call.
  virtual void all_reduce(const void* in, void* out, size_t count, DType t, ReduceOp op) = 0;
  void all_reduce(void* buf, size_t count, DType t, ReduceOp op) {
    all_reduce(buf, buf, count, t, op);
  }
  // out = the ranks' `in` blocks concatenated in rank order; out holds size()*count.
  virtual void all_gather(const void* in, void* out, size_t count, DType t) = 0;
  // in holds size()*count; out = op over ranks of block rank() of `in` (count elements).
  virtual void reduce_scatter(const void* in, void* out, size_t count, DType t, ReduceOp op) = 0;
  // in and out hold size()*count: block j of `in` goes to rank j, block i of `out` came
  // from rank i.
  virtual void all_to_all(const void* in, void* out, size_t count, DType t) = 0;
  // buf on every rank = buf of `root` (a rank of this group).
  virtual void broadcast(void* buf, size_t count, DType t, int root) = 0;
  // Point to point, not collective: matched by (peer, tag) in issue order.
  virtual void send(const void* buf, size_t nbytes, int dst, int tag) = 0;
  virtual void recv(void* buf, size_t nbytes, int src, int tag) = 0;
  virtual void barrier() = 0;

 protected:
  std::chrono::milliseconds timeout_{std::chrono::seconds(600)};
  bool checks_calls_ = true;
};

// What one rank calls a collective with: the op's name, the dtype and the shape. Ranks that
// disagree would make the libraries fail badly: Gloo aborts the process on a message of
// another size, and a smaller buffer on one rank can give the others a silently wrong sum.
struct CallSignature {
  std::string_view op;
  DType dtype;
  const int64_t* dims;
  size_t ndim;
};

// Checks that every rank of the group makes the same call (one all-gather of a fixed-size
// message per rank: a fingerprint of its signature, then up to kInlineBytes of its input;
// the whole signatures travel only when fingerprints differ); a ValueError naming the op,
// the group and what each disagreeing rank called with otherwise, on every rank. When the input
// (`data`, `nbytes`; null for none) fits, the message carries it, and the caller computes the
// collective's result from the gathered bytes: a small collective costs one round trip, check
// included. A communicator that does not check calls (checks_calls()) returns at once, with
// nothing inlined.
inline constexpr size_t kInlineBytes = 1024;
struct CallData {
  bool inlined = false;      // every rank's input is in `blocks`
  std::vector<char> blocks;  // the ranks' messages, in rank order
  size_t stride = 0, offset = 0;
  const char* data_of(int rank) const { return blocks.data() + stride * rank + offset; }
};
CallData check_same_call(Communicator& c, const CallSignature& s, const void* data = nullptr,
                         size_t nbytes = 0);

// The fingerprint check_same_call compares: a hash of the op's name, the dtype and the shape.
int64_t call_fingerprint(const CallSignature& s);
// Agreement ahead of time, for a collective a program makes again and again (a gradient
// reducer's buckets): checks once, as check_same_call does, that every rank of the group
// makes this call, and returns its fingerprint. A kernel whose call has that fingerprint
// skips the per-call check (the op's `agreed` attribute, kernels/cpu/comm.cc): its ranks
// already agreed on the op, the dtype and the shape, and, running one program, they make
// their collectives in one order (a graph's run in its schedule on every rank).
int64_t agree_on_call(Communicator& c, const CallSignature& s);

// User tags of point-to-point messages are below this (the rest of MPI's guaranteed tag
// range carries mycel's own messages).
inline constexpr int kMaxUserTag = 15000;

// Point to point: send_checked sends the signature before the data; recv_checked receives
// it and, when it is not `expected`, still takes the data (so the sender is not left waiting)
// and raises a ValueError naming both signatures. Without checks_calls(), plain send/recv.
void send_checked(Communicator& c, const CallSignature& s, const void* buf, size_t nbytes, int dst,
                  int tag);
void recv_checked(Communicator& c, const CallSignature& expected, void* buf, size_t nbytes, int src,
                  int tag);

// The RuntimeError of a collective that did not complete: names the operation, the group,
// its size, the timeout and the backend's message.
[[noreturn]] void throw_comm_error(const Communicator& c, std::string_view op,
                                   std::string_view what);

}  // namespace mycel
