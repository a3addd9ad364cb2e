// TFRecord framing, shared by every reader and writer of it in mycel: the TFRecord data
// source (data/sources_tfrecord.cc) and the summary event files (mycel.train.summary). A file
// is a sequence of records, each: uint64 length (little-endian), uint32 masked CRC-32C of those
// 8 bytes, `length` bytes of data, uint32 masked CRC-32C of the data. One CRC implementation
// lives here so the two sides cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace mycel {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of n bytes; crc32c("123456789") is
// 0xE3069283.
uint32_t crc32c(const char* p, size_t n);

// TFRecord's stored form of a CRC: the CRC-32C rotated right by 15 bits plus 0xA282EAD8 (so a
// CRC of data that itself holds CRCs does not degenerate).
uint32_t masked_crc32c(const char* p, size_t n);

// Appends framed records to a file. Opening truncates (or, with append, extends) the file;
// every error (cannot open, short write, write after close) is a RuntimeError naming `who` and
// the path. Not thread-safe: one writer per file, used from one thread at a time.
class RecordWriter {
 public:
  RecordWriter(std::string path, std::string who, bool append = false);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Writes one record (its header, data and CRCs) into the file's buffer.
  void write(std::string_view data);
  // Pushes the buffered records to the operating system (fflush).
  void flush();
  // Flushes and closes; later writes fail. Closing twice is a no-op.
  void close();
  bool closed() const { return file_ == nullptr; }
  const std::string& path() const { return path_; }
  // Bytes written since opening (headers and CRCs included).
  uint64_t bytes() const { return bytes_; }

 private:
  void put(const char* p, size_t n);
  std::string path_, who_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace mycel
