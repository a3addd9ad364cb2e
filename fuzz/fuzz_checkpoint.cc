// Fuzzes the checkpoint reader (src/serialize/checkpoint.cc, mycel.load_checkpoint):
// serialize::parse_checkpoint on the input bytes; only mycel's typed errors are accepted.
//
// Structure-aware: plain bit flips stop at the CRC-32 footer, so the custom mutator parses a
// mycel checkpoint with the generated classes of checkpoint.proto, changes one field (dims,
// tensor_type, content sizes, names with non-UTF-8 bytes, entries removed, duplicated or
// swapped: fuzz/proto_mutator.h), or mutates the bytes between header and footer, and then
// writes a valid header and footer (entry count, CRC-32) around the result. One mutation in
// four is plain (libFuzzer's, no fix-up), as are all mutations of inputs that do not parse.
//
// Run: make fuzz (every target, FUZZ_TIME seconds each), or by hand:
//   build-fuzz/fuzz_checkpoint -dict=fuzz/checkpoint.dict build-fuzz/corpus/checkpoint \
//       fuzz/corpus/checkpoint
#include <zlib.h>

#include <random>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "proto_mutator.h"
#include "serialize/checkpoint.h"
#include "src/serialize/checkpoint.pb.h"  // generated in the build tree

namespace {

using mycel::fuzz::append_le;

constexpr std::string_view kMagic = "MYCELCKP";

// A mycel file around `body` (the serialised values): header, body, footer with `count`
// entries and the CRC-32 of everything before the footer.
std::string frame(const std::string& body, uint64_t count) {
  std::string out = "\xca\x3e\x0c";  // field 1001, length 12
  out += kMagic;
  append_le<uint32_t>(out, 1);
  out += body;
  auto crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<z_size_t>(out.size())));
  out += "\xc2\x3e\x18";  // field 1000, length 24
  out += kMagic;
  append_le<uint32_t>(out, 1);
  append_le<uint64_t>(out, count);
  append_le<uint32_t>(out, crc);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] {
    mycel::serialize::parse_checkpoint(std::string_view(reinterpret_cast<const char*>(data), size));
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  mycel::ckpt::Checkpoint ckpt;
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 ||
      !ckpt.ParsePartialFromArray(data, static_cast<int>(size)))
    return mycel::fuzz::plain_mutate(data, size, max_size);
  ckpt.clear_mycel_header();
  ckpt.clear_mycel_footer();
  std::string body;
  uint64_t count = static_cast<uint64_t>(ckpt.value_size());
  if (rng() % 4 == 0) {  // wire-level damage inside a valid frame
    ckpt.SerializePartialToString(&body);
    mycel::fuzz::mutate_bytes(body);
  } else {
    mycel::fuzz::mutate_message(ckpt, rng);
    count = static_cast<uint64_t>(ckpt.value_size());
    ckpt.SerializePartialToString(&body);
  }
  if (rng() % 32 == 0) count += rng() % 3 - 1;               // rarely, a wrong entry count
  std::string out = rng() % 16 ? frame(body, count) : body;  // or MindSpore's (no frame)
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}
