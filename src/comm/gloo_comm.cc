#include "comm/gloo_comm.h"

#include <gloo/allgather.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <algorithm>
#include <atomic>

#include <cstring>

#include "base/error.h"

namespace mycel {

class GlooDevice {
 public:
  std::shared_ptr<gloo::transport::Device> dev;
};

std::shared_ptr<GlooDevice> make_gloo_device(const std::string& hostname) {
  gloo::transport::tcp::attr attr;
  attr.hostname = hostname;  // explicit: this machine's hostname may not resolve elsewhere
  auto d = std::make_shared<GlooDevice>();
  try {
    d->dev = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    MC_THROW(Runtime, "cannot open a Gloo TCP device on '", hostname, "': ", e.what());
  }
  return d;
}

namespace {

// mycel's Store seen as Gloo's: get and wait block up to the group's timeout.
class StoreAdapter : public gloo::rendezvous::Store {
 public:
  StoreAdapter(mycel::Store& s, std::chrono::milliseconds timeout) : s_(s), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    s_.set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    std::string v = s_.get(key, timeout_);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    for (const std::string& k : keys) s_.get(k, t);
  }

 private:
  mycel::Store& s_;
  std::chrono::milliseconds timeout_;
};

// Calls f(T*) with T an unsigned integer type of the dtype's size: Gloo needs only the
// element size; the reduction is reduce_into's.
template <class F>
void with_element(DType t, F&& f) {
  switch (dtype_size(t)) {
    case 1:
      return f(static_cast<uint8_t*>(nullptr));
    case 2:
      return f(static_cast<uint16_t*>(nullptr));
    case 4:
      return f(static_cast<uint32_t*>(nullptr));
    case 8:
      return f(static_cast<uint64_t*>(nullptr));
  }
  MC_THROW(Internal, "no Gloo element type of ", dtype_size(t), " bytes");
}

constexpr uint8_t kP2PSlotPrefix = 0x40;  // above Gloo's collective slot prefixes
constexpr uint8_t kAllReduceSlotPrefix = 0x41;
constexpr uint8_t kAllGatherSlotPrefix = 0x42;  // halves()'s second message stream
// The all-reduce's segment size (Gloo's ring's), and the largest buffer two ranks reduce in
// one exchange (one round trip instead of the ring's two, the same bytes on the wire).
constexpr size_t kMaxSegmentBytes = size_t(1) << 20;
constexpr size_t kExchangeBytes = size_t(1) << 20;
// Segments halves() keeps in flight when it must receive into a scratch buffer (in place).
constexpr size_t kHalvesInFlight = 4;

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(std::string group, std::shared_ptr<gloo::rendezvous::Context> ctx, Store* store)
      : group_(std::move(group)), ctx_(std::move(ctx)), store_(store) {}

  const std::string& group() const override { return group_; }
  int rank() const override { return ctx_->rank; }
  int size() const override { return ctx_->size; }
  std::string backend() const override { return "gloo"; }

  void all_reduce(const void* in, void* out, size_t count, DType t, ReduceOp op) override {
    if (count == 0) return;
    run("AllReduce", [&] {
      const uint32_t tag = seq_++;
      const uint64_t slot = gloo::Slot::build(kAllReduceSlotPrefix, tag);
      const size_t bytes = count * dtype_size(t);
      const char* src = static_cast<const char*>(in);
      char* dst = static_cast<char*>(out);
      if (size() == 1) {
        if (src != dst) std::memcpy(dst, src, bytes);
      } else if (size() == 2 && bytes <= kExchangeBytes) {
        exchange(src, dst, count, t, op, slot);
      } else if (size() == 2) {
        halves(src, dst, count, t, op, tag);
      } else {
        ring(src, dst, count, t, op, slot);
      }
    });
  }

  void all_gather(const void* in, void* out, size_t count, DType t) override {
    if (count == 0) return;
    run("AllGather", [&] {
      with_element(t, [&](auto* tag) {
        using E = std::remove_pointer_t<decltype(tag)>;
        gloo::AllgatherOptions o(ctx_);
        o.setInput(const_cast<E*>(static_cast<const E*>(in)), count);
        o.setOutput(static_cast<E*>(out), count * size());
        prepare(o);
        gloo::allgather(o);
      });
    });
  }

  void all_to_all(const void* in, void* out, size_t count, DType t) override {
    if (count == 0) return;
    run("AlltoAll", [&] { alltoall(in, out, count, t); });
  }

  void reduce_scatter(const void* in, void* out, size_t count, DType t, ReduceOp op) override {
    if (count == 0) return;
    const size_t block = count * dtype_size(t);
    std::vector<char> blocks(block * size());
    run("ReduceScatter", [&] { alltoall(in, blocks.data(), count, t); });
    // Reduced in rank order on every rank: the same order whoever holds the block.
    std::memcpy(out, blocks.data(), block);
    for (int r = 1; r < size(); ++r) reduce_into(t, op, out, out, blocks.data() + r * block, count);
  }

  void broadcast(void* buf, size_t count, DType t, int root) override {
    if (count == 0) return;
    run("Broadcast", [&] {
      with_element(t, [&](auto* tag) {
        using E = std::remove_pointer_t<decltype(tag)>;
        gloo::BroadcastOptions o(ctx_);
        o.setOutput(static_cast<E*>(buf), count);
        o.setRoot(root);
        prepare(o);
        gloo::broadcast(o);
      });
    });
  }

  void send(const void* buf, size_t nbytes, int dst, int tag) override {
    if (nbytes == 0) return;
    run(
        "Send",
        [&] {
          auto ub = ctx_->createUnboundBuffer(const_cast<void*>(buf), nbytes);
          ub->send(dst, gloo::Slot::build(kP2PSlotPrefix, static_cast<uint32_t>(tag)));
          ub->waitSend(timeout());
        },
        false);
  }

  void recv(void* buf, size_t nbytes, int src, int tag) override {
    if (nbytes == 0) return;
    run(
        "Receive",
        [&] {
          auto ub = ctx_->createUnboundBuffer(buf, nbytes);
          ub->recv(src, gloo::Slot::build(kP2PSlotPrefix, static_cast<uint32_t>(tag)));
          ub->waitRecv(timeout());
        },
        false);
  }

  void barrier() override {
    run("Barrier", [&] {
      gloo::BarrierOptions o(ctx_);
      prepare(o);
      gloo::barrier(o);
    });
  }

 private:
  template <class O>
  void prepare(O& o) {
    o.setTag(seq_++);
    o.setTimeout(timeout());
  }

  // A buffer of at least n bytes, kept for the next call (no allocation, no page faults on
  // a fresh block per call). Collectives of a group run one at a time.
  char* scratch(size_t n) {
    if (scratch_.size() < n) scratch_.resize(n);
    return scratch_.data();
  }

  void wait_recv(gloo::transport::UnboundBuffer& b) {
    if (!b.waitRecv(timeout())) throw std::runtime_error("receive aborted");
  }
  void wait_send(gloo::transport::UnboundBuffer& b) {
    if (!b.waitSend(timeout())) throw std::runtime_error("send aborted");
  }

  // Two ranks, a small buffer: each sends its whole input and reduces the peer's into out,
  // rank 0's operand first on both (the same bits on both ranks).
  void exchange(const char* in, char* out, size_t count, DType t, ReduceOp op, uint64_t slot) {
    const size_t bytes = count * dtype_size(t);
    const int peer = 1 - rank();
    char* theirs = in == out ? scratch(bytes) : out;  // out of place: received where it ends
    auto tx = ctx_->createUnboundBuffer(const_cast<char*>(in), bytes);
    auto rx = ctx_->createUnboundBuffer(theirs, bytes);
    rx->recv(peer, slot);
    tx->send(peer, slot);
    wait_recv(*rx);
    wait_send(*tx);  // before an in-place reduction overwrites what is sent
    if (rank() == 0)
      reduce_into(t, op, out, in, theirs, count);
    else
      reduce_into(t, op, out, theirs, in, count);
  }

  // Two ranks, a large buffer: the ring's reduce-scatter and all-gather fused segment by
  // segment. Rank 0 reduces the first half of the buffer, rank 1 the second; each sends the
  // peer its own input's other half, and sends each segment of its half back as soon as it
  // has reduced it, so both directions of the connection stay busy from the first segment to
  // the last (the ring finishes its reduce-scatter before its all-gather starts). The bytes
  // on the wire are the ring's. Out of place, the peer's segments are received straight into
  // `out` and every receive is posted at once; in place, they go through kHalvesInFlight
  // scratch segments. Rank 0's operand comes first on both ranks: the same bits everywhere.
  void halves(const char* in, char* out, size_t count, DType t, ReduceOp op, uint32_t tag) {
    const size_t es = dtype_size(t), total = count * es, split = count / 2 * es;
    const bool first = rank() == 0, direct = in != out;
    const int peer = 1 - rank();
    const size_t mine = first ? 0 : split, mine_end = first ? split : total;
    const size_t theirs = first ? split : 0, theirs_end = first ? total : split;
    const size_t seg = es * std::max<size_t>(1, kMaxSegmentBytes / es);
    const size_t n = (std::max(mine_end - mine, theirs_end - theirs) + seg - 1) / seg;
    const size_t depth = direct ? n : kHalvesInFlight;
    auto len = [&](size_t begin, size_t end, size_t k) {
      return begin + k * seg < end ? std::min(seg, end - begin - k * seg) : size_t(0);
    };
    char* tmp = direct ? nullptr : scratch(depth * seg);
    auto rs_at = [&](size_t k) { return direct ? mine + k * seg : k % depth * seg; };
    const uint64_t slot = gloo::Slot::build(kAllReduceSlotPrefix, tag);
    const uint64_t ag_slot = gloo::Slot::build(kAllGatherSlotPrefix, tag);
    auto ub_in = ctx_->createUnboundBuffer(const_cast<char*>(in), total);
    auto ub_rs = direct ? ctx_->createUnboundBuffer(out, total)
                        : ctx_->createUnboundBuffer(tmp, depth * seg);
    auto ub_ag_tx = ctx_->createUnboundBuffer(out, total);
    auto ub_ag_rx = ctx_->createUnboundBuffer(out, total);
    auto post = [&](size_t k) {  // segment k's reduce-scatter receive and send
      if (k >= n) return;
      if (size_t l = len(mine, mine_end, k)) ub_rs->recv(peer, slot, rs_at(k), l);
      if (size_t l = len(theirs, theirs_end, k)) ub_in->send(peer, slot, theirs + k * seg, l);
    };
    for (size_t k = 0; k < n; ++k)
      if (size_t l = len(theirs, theirs_end, k)) ub_ag_rx->recv(peer, ag_slot, theirs + k * seg, l);
    for (size_t k = 0; k < depth; ++k) post(k);
    for (size_t k = 0; k < n; ++k) {
      if (size_t l = len(mine, mine_end, k)) {
        wait_recv(*ub_rs);
        const char* peers = (direct ? out : tmp) + rs_at(k);
        const char* own = in + mine + k * seg;
        reduce_into(t, op, out + mine + k * seg, first ? own : peers, first ? peers : own, l / es);
        ub_ag_tx->send(peer, ag_slot, mine + k * seg, l);
      }
      if (len(theirs, theirs_end, k) > 0) wait_send(*ub_in);
      if (!direct) post(k + depth);  // its scratch segment is free again
    }
    for (size_t k = 0; k < n; ++k) {
      if (len(theirs, theirs_end, k) > 0) wait_recv(*ub_ag_rx);
      if (len(mine, mine_end, k) > 0) wait_send(*ub_ag_tx);
    }
  }

  // Gloo's ring schedule (gloo/allreduce.cc: a reduce-scatter then an all-gather over
  // segments of at most kMaxSegmentBytes, two in flight, receiving from rank + 1 and sending
  // to rank - 1), reading the input where it is: the first segments a rank sends leave from
  // `in`, and a segment it receives is reduced with its own from `in` straight into `out`
  // (Gloo's copies `in` to `out` first, one more pass over the buffer).
  void ring(const char* in, char* out, size_t count, DType t, ReduceOp op, uint64_t slot) {
    const size_t es = dtype_size(t), total = count * es, p = static_cast<size_t>(size());
    const size_t r = static_cast<size_t>(rank());
    const int from = static_cast<int>((r + 1) % p), to = static_cast<int>((r + p - 1) % p);
    const size_t max_seg = es * std::max<size_t>(1, kMaxSegmentBytes / es);
    const size_t nseg = gloo::roundUp(std::max((total + max_seg - 1) / max_seg, 2 * p), p);
    const size_t per = nseg / p, seg = gloo::roundUp((total + nseg - 1) / nseg, es);
    char* tmp = scratch(2 * seg);
    auto ub_out = ctx_->createUnboundBuffer(out, total);
    auto ub_own = in == out ? nullptr : ctx_->createUnboundBuffer(const_cast<char*>(in), total);
    auto ub_tmp = ctx_->createUnboundBuffer(tmp, 2 * seg);
    struct Step {
      size_t send_off, recv_off, send_len, recv_len;
    };
    // Step i of a phase whose first segment sent is chunk `first`'s.
    auto step = [&](size_t first, size_t i) {
      Step s;
      s.send_off = (first * per + i) % nseg * seg;
      s.recv_off = ((first + 1) * per + i) % nseg * seg;
      s.send_len = s.send_off < total ? std::min(seg, total - s.send_off) : 0;
      s.recv_len = s.recv_off < total ? std::min(seg, total - s.recv_off) : 0;
      return s;
    };
    const size_t steps = nseg - per;
    // Reduce-scatter: afterwards chunk r of out holds the reduction over every rank.
    for (size_t i = 0; i < steps + 2; ++i) {
      if (i >= 2) {
        const Step prev = step(r + 1, i - 2);
        if (prev.recv_len > 0) {
          wait_recv(*ub_tmp);
          reduce_into(t, op, out + prev.recv_off, in + prev.recv_off, tmp + (i & 1) * seg,
                      prev.recv_len / es);
        }
        if (prev.send_len > 0) wait_send(i - 2 < per && ub_own ? *ub_own : *ub_out);
      }
      if (i < steps) {
        const Step cur = step(r + 1, i);
        if (cur.recv_len > 0) ub_tmp->recv(from, slot, (i & 1) * seg, cur.recv_len);
        if (cur.send_len > 0)
          (i < per && ub_own ? *ub_own : *ub_out).send(to, slot, cur.send_off, cur.send_len);
      }
    }
    // All-gather of the reduced chunks, received in place.
    for (size_t i = 0; i < steps + 2; ++i) {
      if (i >= 2) {
        const Step prev = step(r, i - 2);
        if (prev.recv_len > 0) wait_recv(*ub_out);
        if (prev.send_len > 0) wait_send(*ub_out);
      }
      if (i < steps) {
        const Step cur = step(r, i);
        if (cur.recv_len > 0) ub_out->recv(from, slot, cur.recv_off, cur.recv_len);
        if (cur.send_len > 0) ub_out->send(to, slot, cur.send_off, cur.send_len);
      }
    }
  }

  void alltoall(const void* in, void* out, size_t count, DType t) {
    with_element(t, [&](auto* tag) {
      using E = std::remove_pointer_t<decltype(tag)>;
      gloo::AlltoallOptions o(ctx_);
      o.setInput(const_cast<E*>(static_cast<const E*>(in)), count * size());
      o.setOutput(static_cast<E*>(out), count * size());
      prepare(o);
      gloo::alltoall(o);
    });
  }

  // Gloo's exceptions (a timeout, a closed connection) as mycel's error; for a collective,
  // naming the ranks that never reached it (absent_ranks). Point-to-point work may run on
  // another thread beside a collective (ProcessGroups::p2p_queue): it reads no sequence.
  template <class F>
  void run(std::string_view op, F&& f, bool collective = true) {
    const uint32_t seq = collective ? seq_.load() : 0;
    try {
      f();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {  // gloo::Exception, gloo::EnforceNotMet
      const bool posted = collective && seq_.load() != seq;
      throw_comm_error(*this, op, e.what() + (posted ? absent_ranks(seq) : ""));
    }
  }

  // After a failed collective (the seq-th of the group): every rank that failed in it
  // records so in the store, and those that have not after a grace period (a fifth of the
  // timeout, 1 to 10 s) are named: they died, or never called it.
  std::string absent_ranks(uint32_t seq) {
    if (store_ == nullptr) return "";
    const std::string key = "fault/" + group_ + "/" + std::to_string(seq) + "/";
    const auto grace = std::clamp<std::chrono::milliseconds>(timeout() / 5, std::chrono::seconds(1),
                                                             std::chrono::seconds(10));
    std::string absent;
    try {
      store_->set(key + std::to_string(rank()), "1");
      const auto deadline = std::chrono::steady_clock::now() + grace;
      for (int r = 0; r < size(); ++r) {
        if (r == rank()) continue;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        try {
          store_->get(key + std::to_string(r), std::max(left, std::chrono::milliseconds(1)));
        } catch (const Error&) {
          absent += (absent.empty() ? "" : ", ") + std::to_string(r);
        }
      }
    } catch (const std::exception&) {
      return " (the rendezvous store, hosted by world rank 0, did not answer: rank 0 may be "
             "gone)";
    }
    return absent.empty() ? " (every rank of the group reached this collective)"
                          : " (rank(s) " + absent + " of the group never reached this collective)";
  }

  std::string group_;
  std::shared_ptr<gloo::rendezvous::Context> ctx_;
  Store* store_;                   // the job's rendezvous store; outlives the communicator
  std::atomic<uint32_t> seq_ = 0;  // collectives posted (their tags); on the collective thread
  std::vector<char> scratch_;      // all_reduce's receive buffer, reused
};

}  // namespace

std::unique_ptr<Communicator> connect_gloo(std::shared_ptr<GlooDevice> device, Store& store,
                                           const std::string& group, int rank, int size,
                                           std::chrono::milliseconds timeout) {
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
  ctx->setTimeout(timeout);
  StoreAdapter adapter(store, timeout);
  gloo::rendezvous::PrefixStore prefixed(group, adapter);
  try {
    ctx->connectFullMesh(prefixed, device->dev);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    MC_THROW(Runtime, "connecting group '", group, "' (rank ", rank, " of ", size,
             ", gloo) failed: ", e.what());
  }
  auto c = std::make_unique<GlooCommunicator>(group, std::move(ctx), &store);
  c->set_timeout(timeout);
  // A pair is connected on one side before the other; a member that went on and closed its
  // end would fail a peer still connecting ("connection closed by peer"). The barrier
  // returns on each member only once every pair is connected on both sides.
  c->barrier();
  return c;
}

}  // namespace mycel
