// The .ms file (schema: src/lite/schema/model.fbs) and its reader and writer.
//
//   offset 0   "MYCELITE"                       magic (8 bytes)
//          8   uint32 crc32                     zlib's CRC-32 of bytes [12, end)
//         12   uint32 format version            kFormatVersion
//         16   uint64 meta size                 the FlatBuffer's bytes
//         24   uint64 weights size              the weight area's bytes
//         32   the FlatBuffer (identifier "MCLT", root Model, whose version repeats the above)
//          W   the weight area, W = 32 + meta size rounded up to 64; the file ends at W +
//              weights size exactly. Constants are 64-byte aligned in it.
//
// The checksum covers the header fields after itself, the metadata and the weights: integrity
// against damage, not security. Little-endian only (the preamble and FlatBuffers both are).
// Reading checks, in order: size and magic, version, sizes against the file size, the CRC
// (unless skipped for trusted files), the FlatBuffers verifier, then every enum, index,
// shape, offset and byte count, the graph's structure (lite::validate) and its shapes
// (lite::infer_shapes, compared with those stored): a damaged or foreign file is a
// ValueError naming the file and what is wrong, never a crash or a wrong answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "lite/graph.h"

namespace mycel::lite {

constexpr uint32_t kFormatVersion = 1;
constexpr size_t kPreambleSize = 32;
constexpr size_t kWeightAlign = 64;

// The bytes of a .ms file holding `g` (constants from TensorDesc::data).
std::string write_model(const Graph& g, const std::string& producer);

// Parses the file `bytes` (which must outlive the result: constants point into them).
// `what` names the file in errors; `verify_checksum` false skips the CRC only.
Graph read_model(const uint8_t* bytes, size_t size, const std::string& what,
                 bool verify_checksum = true);

// A read-only memory map of a whole file (ValueError naming it when it cannot be opened).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace mycel::lite
