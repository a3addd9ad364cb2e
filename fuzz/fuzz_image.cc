// Fuzzes the image decoders (src/data/image_codec.cc, vision.Decode and ImageFolderDataset):
// data::decode_image on the input bytes (JPEG through libjpeg-turbo, PNG through libpng,
// sniffed from the magic bytes); only mycel's typed errors are accepted.
//
// Structure-aware for PNG: libpng rejects a chunk whose CRC-32 is wrong, which stops plain
// mutations at the first changed chunk; after libFuzzer's mutation the custom mutator walks
// the chunks of a PNG and rewrites each chunk's CRC (one mutation in four is left plain).
// JPEG has no checksums: plain mutations with a dictionary of markers reach the decoder.
//
// Run: make fuzz, or build-fuzz/fuzz_image -dict=fuzz/image.dict CORPUS fuzz/corpus/image
#include <zlib.h>

#include <cstring>
#include <random>

#include "data/image_codec.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] { mycel::data::decode_image(data, size, "fuzz"); });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  size = mycel::fuzz::plain_mutate(data, size, max_size);
  static const uint8_t kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 || size < 8 || std::memcmp(data, kSig, 8) != 0)
    return size;
  size_t at = 8;  // chunks: length u32 BE, type, data, CRC-32 (BE) of type and data
  while (at + 12 <= size) {
    uint32_t len = uint32_t{data[at]} << 24 | uint32_t{data[at + 1]} << 16 |
                   uint32_t{data[at + 2]} << 8 | data[at + 3];
    if (len > size - at - 12) break;
    auto c = static_cast<uint32_t>(crc32_z(0, data + at + 4, len + 4));
    for (int k = 0; k < 4; ++k) data[at + 8 + len + k] = static_cast<uint8_t>(c >> (24 - 8 * k));
    at += 12 + len;
  }
  return size;
}
