#include "federated/psi.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <thread>
#include <unordered_set>

#include "base/error.h"

namespace mycel::federated::psi {

namespace {

constexpr char kDomain[] = "mycel.federated.psi.v1";

// f(i) for i in [0, n) on `threads` threads; the first error is rethrown.
template <class F>
void parallel_for(size_t n, int threads, F f) {
  size_t k = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), n / 64 + 1));
  if (k == 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(k);
  for (size_t t = 0; t < k; ++t) {
    pool.emplace_back([&, t] {
      try {
        for (size_t i = t * n / k; i < (t + 1) * n / k; ++i) f(i);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

Point hash_to_group(const std::string& id, uint64_t bucket) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(bucket >> (8 * i));
  unsigned char h[crypto_core_ristretto255_HASHBYTES];
  crypto_generichash_state st;
  crypto_generichash_init(&st, reinterpret_cast<const unsigned char*>(kDomain), sizeof kDomain - 1,
                          sizeof h);
  crypto_generichash_update(&st, le, sizeof le);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(id.data()), id.size());
  crypto_generichash_final(&st, h, sizeof h);
  Point p;
  crypto_core_ristretto255_from_hash(p.data(), h);
  return p;
}

Point blind(const Point& p, const std::array<uint8_t, 32>& secret, const char* what, size_t i) {
  Point q;
  MC_CHECK(!sodium_is_zero(p.data(), p.size()) &&
               crypto_core_ristretto255_is_valid_point(p.data()) == 1 &&
               crypto_scalarmult_ristretto255(q.data(), secret.data(), p.data()) == 0,
           Value, "RunPSI: point ", i, " of ", what,
           " is not a valid Ristretto255 group element (or is the identity).");
  return q;
}

std::string key(const Point& p) {
  return std::string(reinterpret_cast<const char*>(p.data()), p.size());
}

}  // namespace

Party::Party(const std::vector<std::string>& ids, uint64_t bucket_id, int threads)
    : threads_(threads) {
  MC_CHECK(sodium_init() >= 0, Runtime, "RunPSI: libsodium failed to initialise.");
  MC_CHECK(threads >= 1 && threads <= 64, Value, "RunPSI: thread_num must be in [1, 64], got ",
           threads, ".");
  std::set<std::string> unique(ids.begin(), ids.end());
  MC_CHECK(unique.size() <= kMaxIds, Value, "RunPSI: ", unique.size(),
           " unique ids, more than the limit of ", kMaxIds, ".");
  ids_.assign(unique.begin(), unique.end());
  for (size_t i = ids_.size(); i > 1; --i)  // Fisher-Yates with libsodium's uniform draws
    std::swap(ids_[i - 1], ids_[randombytes_uniform(static_cast<uint32_t>(i))]);
  crypto_core_ristretto255_scalar_random(secret_.data());
  blinded_.resize(ids_.size());
  parallel_for(ids_.size(), threads_, [&](size_t i) {
    blinded_[i] = blind(hash_to_group(ids_[i], bucket_id), secret_, "our ids", i);
  });
}

Party::~Party() { sodium_memzero(secret_.data(), secret_.size()); }

std::vector<Point> Party::blind_again(const std::vector<Point>& peer) const {
  std::vector<Point> out(peer.size());
  parallel_for(peer.size(), threads_,
               [&](size_t i) { out[i] = blind(peer[i], secret_, "the peer's blinded ids", i); });
  return out;
}

std::vector<std::string> Party::intersect(const std::vector<Point>& ours,
                                          const std::vector<Point>& theirs) const {
  MC_CHECK(ours.size() == ids_.size(), Value, "RunPSI: the peer returned ", ours.size(),
           " twice-blinded points for our ", ids_.size(), " ids.");
  std::unordered_set<std::string> peer;
  peer.reserve(theirs.size());
  for (const Point& p : theirs) peer.insert(key(p));
  std::vector<std::string> out;
  for (size_t i = 0; i < ids_.size(); ++i)
    if (peer.count(key(ours[i]))) out.push_back(ids_[i]);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Point> points_from(const Param& p, const std::string& what) {
  MC_CHECK(p.name == what, Value, "RunPSI: expected the message '", what, "', got '",
           printable(p.name), "'.");
  MC_CHECK(p.dtype == DType::UInt8 && p.shape.size() == 2 && p.shape[1] == int64_t(kPointBytes),
           Value, "RunPSI: '", what, "' must be UInt8 of shape (n, ", kPointBytes, "), got ",
           dtype_name(p.dtype), " of rank ", p.shape.size(), ".");
  MC_CHECK(p.shape[0] >= 0 && static_cast<uint64_t>(p.shape[0]) <= kMaxIds, Value, "RunPSI: '",
           what, "' holds ", p.shape[0], " points, more than the limit of ", kMaxIds, ".");
  std::vector<Point> pts(static_cast<size_t>(p.shape[0]));
  MC_CHECK(p.bytes.size() == pts.size() * kPointBytes, Value, "RunPSI: '", what,
           "' has the wrong number of bytes.");
  if (!pts.empty()) std::memcpy(pts.data(), p.bytes.data(), p.bytes.size());
  return pts;
}

Param points_param(const std::string& name, const std::vector<Point>& pts) {
  Param p;
  p.name = name;
  p.dtype = DType::UInt8;
  p.shape = {static_cast<int64_t>(pts.size()), static_cast<int64_t>(kPointBytes)};
  p.bytes.assign(reinterpret_cast<const char*>(pts.data()), pts.size() * kPointBytes);
  return p;
}

std::vector<std::string> run(vertical::Communicator& comm, const std::string& peer_host,
                             int peer_port, const std::vector<std::string>& ids, uint64_t bucket_id,
                             int threads) {
  Party me(ids, bucket_id, threads);
  const std::string prefix = str("psi/", bucket_id, "/");
  auto one = [&](const std::string& what) {
    Weights w = comm.receive();
    MC_CHECK(w.size() == 1, Value, "RunPSI: expected one entry '", what, "' from the peer, got ",
             w.size(), ".");
    return points_from(w[0], what);
  };
  comm.send(peer_host, peer_port, {points_param(prefix + "blinded", me.blinded())});
  std::vector<Point> theirs = me.blind_again(one(prefix + "blinded"));
  comm.send(peer_host, peer_port, {points_param(prefix + "double", theirs)});
  std::vector<Point> ours = one(prefix + "double");
  return me.intersect(ours, theirs);
}

}  // namespace mycel::federated::psi
