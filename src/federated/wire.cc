#include "federated/wire.h"

#include <bit>
#include <cstring>
#include <unordered_set>

#include "base/error.h"

namespace mycel::federated {

static_assert(std::endian::native == std::endian::little, "the wire form is little-endian");

namespace {

constexpr std::string_view kMagic = "MCFL";
constexpr uint8_t kVersion = 1;

class Writer {
 public:
  template <class T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void put_str(std::string_view s, size_t limit, const char* what) {
    MC_CHECK(s.size() <= limit, Value, "federated message: the ", what, " has ", s.size(),
             " bytes, more than the limit ", limit, ".");
    put<uint16_t>(static_cast<uint16_t>(s.size()));
    out.append(s);
  }
  void put_weights(const Weights& w) {
    MC_CHECK(w.size() <= kMaxParams, Value, "federated message: ", w.size(),
             " parameters, more than the limit ", kMaxParams, ".");
    put<uint32_t>(static_cast<uint32_t>(w.size()));
    for (const Param& p : w) {
      put_str(p.name, kMaxNameBytes, "parameter name");
      MC_CHECK(p.shape.size() <= kMaxRank, Value, "federated message: parameter '", p.name,
               "' has ", p.shape.size(), " dimensions, more than ", int(kMaxRank), ".");
      MC_CHECK(p.bytes.size() == static_cast<uint64_t>(p.numel()) * dtype_size(p.dtype), Value,
               "federated message: parameter '", p.name, "' holds ", p.bytes.size(),
               " bytes, not its shape's ", p.numel(), " elements of ", dtype_name(p.dtype), ".");
      put<uint8_t>(static_cast<uint8_t>(p.dtype));
      put<uint8_t>(static_cast<uint8_t>(p.shape.size()));
      for (int64_t d : p.shape) put<int64_t>(d);
      put<uint64_t>(p.bytes.size());
      out.append(p.bytes);
    }
  }
  void head(MsgKind k) {
    out.append(kMagic);
    put<uint8_t>(kVersion);
    put<uint8_t>(static_cast<uint8_t>(k));
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(std::string_view b) : buf(b) {}
  [[noreturn]] void bad(const std::string& what) const {
    MC_THROW(Value, "malformed federated message: ", what, " (at byte ", at, " of ", buf.size(),
             ").");
  }
  std::string_view take(uint64_t n, const char* what) {
    if (n > buf.size() - at) bad(str(what, " needs ", n, " bytes, ", buf.size() - at, " are left"));
    std::string_view s = buf.substr(at, n);
    at += n;
    return s;
  }
  template <class T>
  T get(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what).data(), sizeof(T));
    return v;
  }
  std::string get_str(size_t limit, const char* what) {
    auto n = get<uint16_t>(what);
    if (n > limit) bad(str("the ", what, " has ", n, " bytes, more than the limit ", limit));
    return std::string(take(n, what));
  }
  Param get_param() {
    Param p;
    p.name = get_str(kMaxNameBytes, "parameter name");
    const std::string name = printable(p.name);
    auto code = get<uint8_t>("dtype");
    if (code >= kNumDTypes)
      bad(str("parameter '", name, "' has an unknown dtype code ", int(code)));
    p.dtype = static_cast<DType>(code);
    auto rank = get<uint8_t>("rank");
    if (rank > kMaxRank) bad(str("parameter '", name, "' has rank ", int(rank)));
    uint64_t numel = 1;
    for (uint8_t i = 0; i < rank; ++i) {
      auto d = get<int64_t>("dimension");
      if (d < 0) bad(str("parameter '", name, "' has a negative dimension ", d));
      p.shape.push_back(d);
      if (__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel))
        bad(str("parameter '", name, "' has too many elements"));
    }
    uint64_t nbytes = get<uint64_t>("content size"), want;
    if (__builtin_mul_overflow(numel, dtype_size(p.dtype), &want) || nbytes != want)
      bad(str("parameter '", name, "' has ", nbytes, " bytes of content, its shape needs ", numel,
              " elements of ", dtype_name(p.dtype)));
    p.bytes = std::string(take(nbytes, "content"));
    return p;
  }
  Weights get_weights() {
    auto n = get<uint32_t>("parameter count");
    if (n > kMaxParams) bad(str(n, " parameters, more than the limit ", kMaxParams));
    Weights w;
    std::unordered_set<std::string> seen;
    for (uint32_t i = 0; i < n; ++i) {
      w.push_back(get_param());
      if (!seen.insert(w.back().name).second)
        bad(str("parameter '", printable(w.back().name), "' occurs twice"));
    }
    return w;
  }
  MsgKind head() {
    if (take(kMagic.size(), "magic") != kMagic) bad("not a federated message (bad magic)");
    auto v = get<uint8_t>("version");
    if (v != kVersion) bad(str("version ", int(v), ", this server speaks ", int(kVersion)));
    auto k = get<uint8_t>("kind");
    if (k < 1 || k > kLastKind) bad(str("unknown kind ", int(k)));
    return static_cast<MsgKind>(k);
  }
  void end() const {
    if (at != buf.size()) bad(str(buf.size() - at, " bytes after the message"));
  }
  std::string_view buf;
  size_t at = 0;
};

}  // namespace

std::string_view status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::Rejected:
      return "rejected";
    case Status::Unauthorized:
      return "unauthorized";
    case Status::Malformed:
      return "malformed";
    case Status::NotReady:
      return "not ready";
    case Status::Finished:
      return "finished";
  }
  return "unknown";
}

std::string printable(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

int64_t Param::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string encode(const Request& r) {
  MC_CHECK(r.kind != MsgKind::Reply, Value, "federated message: a request cannot be a Reply.");
  Writer w;
  w.head(r.kind);
  w.put_str(r.client_id, kMaxIdBytes, "client_id");
  w.put_str(r.token, kMaxIdBytes, "token");
  w.put<uint64_t>(r.iteration);
  w.put<uint64_t>(r.nonce);
  w.put<uint64_t>(r.data_size);
  w.put_weights(r.weights);
  return std::move(w.out);
}

std::string encode(const Reply& r) {
  Writer w;
  w.head(MsgKind::Reply);
  w.put<uint8_t>(static_cast<uint8_t>(r.status));
  std::string reason = r.reason.substr(0, kMaxNameBytes);
  w.put_str(reason, kMaxNameBytes, "reason");
  w.put<uint64_t>(r.iteration);
  w.put_str(r.token, kMaxIdBytes, "token");
  w.put_weights(r.weights);
  return std::move(w.out);
}

Request decode_request(std::string_view body) {
  Reader rd(body);
  Request r;
  r.kind = rd.head();
  if (r.kind == MsgKind::Reply) rd.bad("a reply where a request was expected");
  r.client_id = rd.get_str(kMaxIdBytes, "client_id");
  r.token = rd.get_str(kMaxIdBytes, "token");
  r.iteration = rd.get<uint64_t>("iteration");
  r.nonce = rd.get<uint64_t>("nonce");
  r.data_size = rd.get<uint64_t>("data_size");
  r.weights = rd.get_weights();
  rd.end();
  return r;
}

Reply decode_reply(std::string_view body) {
  Reader rd(body);
  Reply r;
  if (rd.head() != MsgKind::Reply) rd.bad("a request where a reply was expected");
  auto s = rd.get<uint8_t>("status");
  if (s > static_cast<uint8_t>(Status::Finished)) rd.bad(str("unknown status ", int(s)));
  r.status = static_cast<Status>(s);
  r.reason = rd.get_str(kMaxNameBytes, "reason");
  r.iteration = rd.get<uint64_t>("iteration");
  r.token = rd.get_str(kMaxIdBytes, "token");
  r.weights = rd.get_weights();
  rd.end();
  return r;
}

}  // namespace mycel::federated
