// Private set intersection for vertical federated learning (mycel.federated.vertical.RunPSI):
// two parties learn which ids they share, and neither sends an id in the clear. ECDH-PSI over
// the prime-order group Ristretto255, every primitive libsodium's:
//
//   H(id)    = crypto_core_ristretto255_from_hash(BLAKE2b-512 keyed by a domain string, of the
//              bucket id (u64 LE) and the id's bytes): a point nobody knows the logarithm of.
//   blinding = crypto_scalarmult_ristretto255 by the party's secret scalar (a fresh random one
//              per run, crypto_core_ristretto255_scalar_random).
//
// Party A (secret a, ids X) and party B (secret b, ids Y) each:
//   1. send their blinded points {H(x)^a}, in a random order (the order tells nothing);
//   2. blind the peer's points again and send them back in the order they came: A returns
//      {H(y)^(ba)}, B returns {H(x)^(ab)};
//   3. an own id is in the intersection when its twice-blinded point (from the peer) is among
//      the twice-blinded points of the peer's ids (computed here). Since the group has prime
//      order and H is a random oracle, equal points mean equal ids (up to a hash collision).
// Both learn the intersection and the size of the other's set, nothing else (semi-honest
// parties: a party that lies about its points can make the other miss matches, not learn
// ids). The result is sorted by the ids' bytes, so both parties hold the same list in the same
// order (split learning aligns its rows by it). Duplicate ids count once.
//
// The messages are tensors (UInt8, (n, 32)) named "psi/<bucket>/blinded" and
// "psi/<bucket>/double" over a vertical::Communicator; a message of another name, dtype or
// shape, a count over kMaxIds, a reply whose count differs from what was sent, or a 32-byte
// string that is not a valid non-identity Ristretto255 point is a ValueError naming it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "federated/vertical.h"

namespace mycel::federated::psi {

inline constexpr size_t kPointBytes = 32;
inline constexpr size_t kMaxIds = size_t{1} << 22;  // a set's limit (128 MiB of points)
using Point = std::array<uint8_t, kPointBytes>;

// One party's side of a run: its unique ids, its secret, its blinded points.
class Party {
 public:
  // `threads` workers share the group operations (1..64).
  Party(const std::vector<std::string>& ids, uint64_t bucket_id, int threads);
  ~Party();
  Party(const Party&) = delete;
  Party& operator=(const Party&) = delete;

  // Step 1: H(id)^secret for every unique id, in a random order.
  const std::vector<Point>& blinded() const { return blinded_; }
  // Step 2: the peer's points times our secret, in their order (checked: valid points).
  std::vector<Point> blind_again(const std::vector<Point>& peer) const;
  // Step 3: our ids whose twice-blinded points (`ours`, the peer's answer to blinded(), in
  // its order) are among `theirs` (blind_again of the peer's points), sorted.
  std::vector<std::string> intersect(const std::vector<Point>& ours,
                                     const std::vector<Point>& theirs) const;

 private:
  std::vector<std::string> ids_;  // unique, in the order of blinded_
  std::vector<Point> blinded_;
  std::array<uint8_t, 32> secret_{};
  int threads_;
};

// The whole exchange with the peer over `comm` (sending to peer_host:peer_port), run by both
// parties at once; returns the sorted intersection.
std::vector<std::string> run(vertical::Communicator& comm, const std::string& peer_host,
                             int peer_port, const std::vector<std::string>& ids, uint64_t bucket_id,
                             int threads);

// The points of a message entry (UInt8, (n, 32)), checked; `what` names it in errors.
std::vector<Point> points_from(const Param& p, const std::string& what);
Param points_param(const std::string& name, const std::vector<Point>& pts);

}  // namespace mycel::federated::psi
