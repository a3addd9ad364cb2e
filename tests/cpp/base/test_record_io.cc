// base/record_io: CRC-32C against its check value and a bitwise computation, the masking, and
// RecordWriter's framing (read back byte by byte) and errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "base/error.h"
#include "base/record_io.h"

namespace mycel {
namespace {

namespace fs = std::filesystem;

uint32_t crc32c_bitwise(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0u);
  }
  return c ^ 0xFFFFFFFFu;
}

uint64_t load_le(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

TEST(RecordIo, Crc32cCheckValueAndBitwise) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  EXPECT_EQ(crc32c(data.data(), data.size()), crc32c_bitwise(data));
  const uint32_t c = crc32c_bitwise(data);
  EXPECT_EQ(masked_crc32c(data.data(), data.size()), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

TEST(RecordIo, WriterFramesRecords) {
  char tmpl[] = "/tmp/mycel_test_record_XXXXXX";
  fs::path dir = ::mkdtemp(tmpl);
  const std::string path = (dir / "f").string();
  const std::string a = "first", b(300, 'x');
  {
    RecordWriter w(path, "test");
    w.write(a);
    w.write(b);
    w.close();
    EXPECT_TRUE(w.closed());
    EXPECT_EQ(w.bytes(), a.size() + b.size() + 2 * 16);
    EXPECT_THROW(w.write("late"), Error);
    w.close();  // a no-op
  }
  std::ifstream in(path, std::ios::binary);
  std::string blob((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  for (const std::string& rec : {a, b}) {
    ASSERT_EQ(load_le(blob, pos, 8), rec.size());
    EXPECT_EQ(load_le(blob, pos + 8, 4), masked_crc32c(blob.data() + pos, 8));
    EXPECT_EQ(blob.substr(pos + 12, rec.size()), rec);
    EXPECT_EQ(load_le(blob, pos + 12 + rec.size(), 4), masked_crc32c(rec.data(), rec.size()));
    pos += 16 + rec.size();
  }
  EXPECT_EQ(pos, blob.size());
  EXPECT_THROW(RecordWriter((dir / "missing" / "f").string(), "test"), Error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mycel
