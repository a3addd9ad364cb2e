// Fuzzes the federated server's message parser (src/federated/wire.h): decode_request and
// decode_reply on the input bytes; only mycel's typed errors are accepted. The form is
// canonical (one encoding per message), so a body that decodes must encode back to the same
// bytes: a difference is a finding too (a field read but not checked, or skipped).
//
// A request or reply that decodes also has its weights handed, as a secure-aggregation payload
// (federated/secagg.h), to every parser of a round in progress: the server's (keys, shares,
// masked update, reconstruction shares, then the unmasking) and a client's (key list, sealed
// shares, client list, update to mask), and to compression's (a quantized model, a sparse
// difference; federated/compress.h). Each may refuse it, by reason or ValueError, never
// otherwise.
//
// Run: make fuzz (every target, FUZZ_TIME seconds each), or by hand:
//   build-fuzz/fuzz_federated -dict=fuzz/federated.dict build-fuzz/corpus/federated \
//       fuzz/corpus/federated
#include <cstdlib>
#include <string_view>

#include "federated/compress.h"
#include "federated/secagg.h"
#include "federated/wire.h"
#include "fuzz_common.h"

namespace {

using namespace mycel::federated;

// A round of three clients: `keyed` after exchangeKeys, `shared` after shareSecrets and c0's
// and c1's masked uploads; the clients as they are before their next step.
struct Round {
  Weights model{Param{"w", mycel::DType::Float32, {3}, std::string(12, '\0')}};
  secagg::ServerRound keyed{2, model}, shared{2, model};
  std::vector<secagg::Client> clients{secagg::Client("c0"), secagg::Client("c1"),
                                      secagg::Client("c2")};
  std::vector<secagg::Client> after_shares;
  Round() {
    for (size_t i = 0; i < 3; ++i) keyed.add_keys(clients[i].client_id(), 5, clients[i].keys());
    shared = keyed;
    for (auto& c : clients) shared.add_shares(c.client_id(), c.shares(keyed.key_list(), 5));
    after_shares = clients;
    for (auto& c : after_shares) c.accept_shares(shared.sealed_for(c.client_id()));
    for (size_t i = 0; i < 2; ++i)
      shared.add_masked(after_shares[i].client_id(), after_shares[i].mask(model));
  }
};

void secure_payloads(const Weights& w) {
  static const Round base;  // built once: key generation is the slow part
  using mycel::fuzz::expect_typed_errors;
  secagg::ServerRound keyed = base.keyed, shared = base.shared;
  expect_typed_errors([&] { keyed.add_keys("x", 5, w); });
  expect_typed_errors([&] { keyed.add_shares("c0", w); });
  expect_typed_errors([&] { shared.add_masked("c2", w); });
  expect_typed_errors([&] {
    if (shared.add_reveal("c0", w).empty()) shared.unmask();  // too few shares: a ValueError
  });
  secagg::Client fresh = base.clients[2], opened = base.after_shares[0];
  expect_typed_errors([&] { fresh.shares(w, 5); });
  expect_typed_errors([&] { fresh.accept_shares(w); });
  expect_typed_errors([&] { opened.mask(w); });
  expect_typed_errors([&] { opened.reveal(w); });
  expect_typed_errors([&] { compress::dequantize(w); });
  expect_typed_errors([&] { compress::apply_sparse_diff(w, base.model, 0.5); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  mycel::fuzz::expect_typed_errors([&] {
    Request r = decode_request(body);
    if (encode(r) != body) std::abort();
    secure_payloads(r.weights);
  });
  mycel::fuzz::expect_typed_errors([&] {
    Reply r = decode_reply(body);
    if (encode(r) != body) std::abort();
    secure_payloads(r.weights);
  });
  return 0;
}
