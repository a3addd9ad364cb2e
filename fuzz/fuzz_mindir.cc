// Fuzzes MINDIR import (src/serialize/mindir_import.cc, mycel.load): serialize::import_mindir
// on the input bytes (checksum, protobuf parse, graph rebuild, IR verifier, re-inference,
// executable compilation); only mycel's typed errors are accepted.
//
// Structure-aware: the file ends with a CRC-32 field, which stops plain mutations; the custom
// mutator strips it, parses the ModelProto, changes one field through reflection (dims, data
// types, raw_data sizes, node names and inputs, op types, attributes, names with non-UTF-8
// bytes: fuzz/proto_mutator.h), or mutates the serialised bytes, then appends a valid
// checksum. One mutation in four is plain (libFuzzer's, no fix-up).
//
// Run: make fuzz, or build-fuzz/fuzz_mindir -dict=fuzz/mindir.dict CORPUS fuzz/corpus/mindir
#include <random>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "proto_mutator.h"
#include "serialize/mindir.h"
#include "serialize/mindir_format.h"

namespace fmt = mycel::serialize::format;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] {
    mycel::serialize::import_mindir(std::string_view(reinterpret_cast<const char*>(data), size),
                                    "fuzz.mindir");
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  mind_ir::ModelProto model;
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 || size < fmt::kFooterSize ||
      !model.ParsePartialFromArray(data, static_cast<int>(size - fmt::kFooterSize)))
    return mycel::fuzz::plain_mutate(data, size, max_size);
  model.clear_mycel_crc32();
  std::string out = mycel::fuzz::mutate_serialized(model, rng);  // then a valid checksum
  uint32_t crc = fmt::crc32(out);
  out += static_cast<char>(fmt::kCrcTagBytes[0]);
  out += static_cast<char>(fmt::kCrcTagBytes[1]);
  mycel::fuzz::append_le<uint32_t>(out, crc);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}
