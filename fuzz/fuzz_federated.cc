// Fuzzes the federated server's message parser (src/federated/wire.h): decode_request and
// decode_reply on the input bytes; only mycel's typed errors are accepted. The form is
// canonical (one encoding per message), so a body that decodes must encode back to the same
// bytes: a difference is a finding too (a field read but not checked, or skipped).
//
// Run: make fuzz (every target, FUZZ_TIME seconds each), or by hand:
//   build-fuzz/fuzz_federated -dict=fuzz/federated.dict build-fuzz/corpus/federated \
//       fuzz/corpus/federated
#include <cstdlib>
#include <string_view>

#include "federated/wire.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  mycel::fuzz::expect_typed_errors([&] {
    if (mycel::federated::encode(mycel::federated::decode_request(body)) != body) std::abort();
  });
  mycel::fuzz::expect_typed_errors([&] {
    if (mycel::federated::encode(mycel::federated::decode_reply(body)) != body) std::abort();
  });
  return 0;
}
