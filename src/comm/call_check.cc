// check_same_call, send_checked, recv_checked (comm/communicator.h): each rank's call as a
// descriptor of 13 int64: the op's name (16 characters), the dtype, the rank, the element
// count and the first 8 dimensions (later ones folded into the 8th).
#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>

#include "comm/communicator.h"

namespace mycel {

namespace {

constexpr size_t kNameWords = 2, kDims = 8, kWords = kNameWords + 3 + kDims;
using Descriptor = std::array<int64_t, kWords>;
// A Send's signature travels under tag + kSignatureTag: user tags are below kMaxUserTag
// (ops/infer_comm.cc checks), and the sums stay below MPI's smallest tag bound (32767).
constexpr int kSignatureTag = 16384;
static_assert(kSignatureTag + kMaxUserTag <= 32000, "signature tags meet the references'");

Descriptor describe(const CallSignature& s) {
  Descriptor d{};
  std::memcpy(d.data(), s.op.data(), std::min(s.op.size(), kNameWords * sizeof(int64_t)));
  d[kNameWords] = static_cast<int64_t>(s.dtype);
  d[kNameWords + 1] = static_cast<int64_t>(s.ndim);
  int64_t numel = 1;
  for (size_t i = 0; i < s.ndim; ++i) {
    numel *= s.dims[i];
    int64_t& slot = d[kNameWords + 3 + std::min(i, kDims - 1)];
    slot = i < kDims ? s.dims[i] : slot * 1000003 + s.dims[i];  // folded, still compared
  }
  d[kNameWords + 2] = numel;
  return d;
}

// "AllReduce(Float32[4, 3])"
std::string text(const Descriptor& d) {
  char name[kNameWords * sizeof(int64_t) + 1] = {0};
  std::memcpy(name, d.data(), kNameWords * sizeof(int64_t));
  std::ostringstream s;
  // A peer's descriptor is network input: a dtype out of range is printed as a number.
  const int64_t t = d[kNameWords];
  s << name << "(";
  if (t >= 0 && t < kNumDTypes)
    s << static_cast<DType>(t);
  else
    s << "dtype#" << t;
  s << "[";
  const int64_t nd = d[kNameWords + 1];  // any value: only the first kDims are read
  for (int64_t i = 0; i < std::min<int64_t>(nd, kDims); ++i)
    s << (i ? ", " : "") << d[kNameWords + 3 + static_cast<size_t>(i)];
  if (nd > static_cast<int64_t>(kDims)) s << ", ...";
  s << "])";
  return s.str();
}

}  // namespace

namespace {

// FNV-1a over the descriptor: what the ranks compare first (8 bytes on the wire).
int64_t fingerprint(const Descriptor& d) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t w : d) {
    for (int b = 0; b < 8; ++b) {
      h ^= (static_cast<uint64_t>(w) >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return static_cast<int64_t>(h);
}

// The ranks disagree: all-gather the whole descriptors and name each rank's call.
[[noreturn]] void throw_disagreement(Communicator& c, const CallSignature& s,
                                     const Descriptor& mine) {
  std::vector<Descriptor> all(static_cast<size_t>(c.size()));
  c.all_gather(mine.data(), all.data(), kWords, DType::Int64);
  std::ostringstream bad;
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r] != all[0]) bad << "; rank " << r << " called " << text(all[r]);
  MC_THROW(Value, "For '", s.op, "', the ranks of group '", c.group(),
           "' disagree on the call: rank 0 called ", text(all[0]), bad.str(),
           " (every rank must call the same collective with the same dtype and shape)");
}

}  // namespace

CallData check_same_call(Communicator& c, const CallSignature& s, const void* data, size_t nbytes) {
  // Each rank's message: the fingerprint of its call, then up to kInlineBytes of its data
  // (zero padded). Only when fingerprints differ do the whole descriptors travel.
  constexpr size_t kHead = sizeof(int64_t), kMsg = kHead + kInlineBytes;
  static_assert(kMsg % sizeof(int64_t) == 0);
  if (!c.checks_calls()) return {};
  const Descriptor d = describe(s);
  const int64_t fp = fingerprint(d);
  std::vector<char> mine(kMsg, 0);
  std::memcpy(mine.data(), &fp, kHead);
  const bool inline_data = data != nullptr && nbytes <= kInlineBytes;
  if (inline_data && nbytes > 0) std::memcpy(mine.data() + kHead, data, nbytes);
  CallData out;
  out.blocks.resize(kMsg * static_cast<size_t>(c.size()));
  try {
    c.all_gather(mine.data(), out.blocks.data(), kMsg / sizeof(int64_t), DType::Int64);
    for (int r = 0; r < c.size(); ++r) {
      int64_t theirs;
      std::memcpy(&theirs, out.blocks.data() + kMsg * static_cast<size_t>(r), kHead);
      if (theirs != fp) throw_disagreement(c, s, d);  // every rank sees it: all come here
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Runtime) throw;
    // A peer that died or never came: name the user's op.
    throw Error(e.kind(), str("For '", s.op, "' (the ranks comparing their calls), ", e.message()));
  }
  // Same calls: the same nbytes everywhere, so every rank decides alike.
  out.inlined = inline_data;
  out.stride = kMsg;
  out.offset = kHead;
  return out;
}

int64_t call_fingerprint(const CallSignature& s) { return fingerprint(describe(s)); }

int64_t agree_on_call(Communicator& c, const CallSignature& s) {
  check_same_call(c, s);
  return call_fingerprint(s);
}

void send_checked(Communicator& c, const CallSignature& s, const void* buf, size_t nbytes, int dst,
                  int tag) {
  if (c.checks_calls()) {
    const Descriptor d = describe(s);
    c.send(d.data(), sizeof(d), dst, kSignatureTag + tag);
  }
  c.send(buf, nbytes, dst, tag);
}

void recv_checked(Communicator& c, const CallSignature& expected, void* buf, size_t nbytes, int src,
                  int tag) {
  if (!c.checks_calls()) return c.recv(buf, nbytes, src, tag);
  Descriptor got{};
  c.recv(got.data(), sizeof(got), src, kSignatureTag + tag);
  const Descriptor want = describe(expected);
  // The name differs (Send vs Receive): compare the tensor only.
  if (std::equal(got.begin() + kNameWords, got.end(), want.begin() + kNameWords)) {
    c.recv(buf, nbytes, src, tag);
    return;
  }
  const int64_t count = got[kNameWords + 2], dtype = got[kNameWords];
  // The descriptor is network input: drain only a plausible message (a dtype, a size up to
  // 1 GiB), so that the sender is not left waiting; anything else is not allocated.
  const bool known =
      dtype >= 0 && dtype < kNumDTypes && count >= 0 && count <= (int64_t{1} << 30) / 8;
  if (known) {
    std::vector<char> scratch(static_cast<size_t>(count) * dtype_size(static_cast<DType>(dtype)));
    c.recv(scratch.data(), scratch.size(), src, tag);
  }
  MC_THROW(Value, "For 'Receive', rank ", src, " of group '", c.group(), "' sent ", text(got),
           " but this rank (", c.rank(), ") expects ", text(want),
           ": the Receive's shape and dtype must be those of the Send (sr_tag ", tag, ")");
}

}  // namespace mycel
