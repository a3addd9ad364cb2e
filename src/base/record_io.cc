#include "base/record_io.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "base/error.h"

namespace mycel {
namespace {

const std::array<uint32_t, 256>& crc32c_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

void store_le(char* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

}  // namespace

uint32_t crc32c(const char* p, size_t n) {
  const auto& t = crc32c_table();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = t[(c ^ static_cast<uint8_t>(p[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(const char* p, size_t n) {
  const uint32_t c = crc32c(p, n);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

RecordWriter::RecordWriter(std::string path, std::string who, bool append)
    : path_(std::move(path)), who_(std::move(who)) {
  file_ = std::fopen(path_.c_str(), append ? "ab" : "wb");
  MC_CHECK(file_ != nullptr, Runtime, who_, ": cannot open ", path_,
           " for writing: ", std::strerror(errno), ".");
}

RecordWriter::~RecordWriter() {
  if (file_ != nullptr) std::fclose(file_);  // errors here have nowhere to go: close() reports
}

void RecordWriter::put(const char* p, size_t n) {
  MC_CHECK(std::fwrite(p, 1, n, file_) == n, Runtime, who_, ": writing ", path_,
           " failed: ", std::strerror(errno), ".");
  bytes_ += n;
}

void RecordWriter::write(std::string_view data) {
  MC_CHECK(file_ != nullptr, Runtime, who_, ": ", path_, " is closed; no record can be written.");
  char header[12];
  store_le(header, data.size(), 8);
  store_le(header + 8, masked_crc32c(header, 8), 4);
  char footer[4];
  store_le(footer, masked_crc32c(data.data(), data.size()), 4);
  put(header, sizeof header);
  put(data.data(), data.size());
  put(footer, sizeof footer);
}

void RecordWriter::flush() {
  MC_CHECK(file_ != nullptr, Runtime, who_, ": ", path_, " is closed; nothing to flush.");
  MC_CHECK(std::fflush(file_) == 0, Runtime, who_, ": flushing ", path_,
           " failed: ", std::strerror(errno), ".");
}

void RecordWriter::close() {
  if (file_ == nullptr) return;
  std::FILE* f = std::exchange(file_, nullptr);
  MC_CHECK(std::fclose(f) == 0, Runtime, who_, ": closing ", path_,
           " failed: ", std::strerror(errno), ".");
}

}  // namespace mycel
