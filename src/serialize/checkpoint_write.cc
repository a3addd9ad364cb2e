#include <zlib.h>

#include <bit>
#include <cstring>

#include "base/error.h"
#include "serialize/checkpoint.h"

namespace mycel::serialize {

namespace {

static_assert(std::endian::native == std::endian::little,
              "checkpoint contents are little-endian: only little-endian hosts write them as is");

constexpr std::string_view kMagic = "MYCELCKP";
constexpr uint32_t kVersion = 1;
constexpr int kFooterField = 1000, kHeaderField = 1001;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_key(std::string& out, int field, int wire_type) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
}

void put_bytes(std::string& out, int field, std::string_view payload) {
  put_key(out, field, 2);
  put_varint(out, payload.size());
  out.append(payload);
}

template <class T>
void put_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

}  // namespace

std::string encode_checkpoint(const std::vector<CheckpointEntry>& entries) {
  std::string out, header;
  header.append(kMagic);
  put_le<uint32_t>(header, kVersion);
  put_bytes(out, kHeaderField, header);
  for (const CheckpointEntry& e : entries) {
    MC_CHECK(!e.is_str && e.tensor.defined(), Value, "encode_checkpoint: entry '", e.name,
             "' is not a tensor (the C++ writer writes tensors only).");
    Tensor t = e.tensor.cpu().contiguous();
    std::string tensor;
    for (int64_t d : t.shape()) {
      put_key(tensor, 1, 0);
      put_varint(tensor, static_cast<uint64_t>(d));
    }
    put_bytes(tensor, 2, dtype_name(t.dtype()));
    put_bytes(tensor, 3, std::string_view(static_cast<const char*>(t.raw_data()), t.nbytes()));
    std::string value;
    put_bytes(value, 1, e.name);
    put_bytes(value, 2, tensor);
    put_bytes(out, 1, value);
  }
  auto crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<z_size_t>(out.size())));
  std::string footer;
  footer.append(kMagic);
  put_le<uint32_t>(footer, kVersion);
  put_le<uint64_t>(footer, entries.size());
  put_le<uint32_t>(footer, crc);
  put_bytes(out, kFooterField, footer);
  return out;
}

}  // namespace mycel::serialize
