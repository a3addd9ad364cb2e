// Encrypted MindRecord files (data/mindrecord_crypto.h): every mode round-trips files of
// several chunks byte for byte; a wrong key, a flipped byte anywhere, a truncation or a wrong
// mode is an Error with MindSpore's message and leaves no decrypted file; the trailer records
// the mode. (tests/python/test_mindrecord_crypto.py checks the layout with an independent
// implementation.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "base/error.h"
#include "data/mindrecord_crypto.h"

namespace mycel::data::mindrecord {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "mycel-mrc-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~Dir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

void spill(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << data;
}

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xFF);
  return s;
}

void expect_decrypt_fails(const fs::path& src, const fs::path& dst, const std::string& key,
                          const std::string& mode) {
  try {
    decrypt_file(src.string(), dst.string(), key, mode, "test");
    ADD_FAILURE() << "decrypted " << src;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kDecryptFailed), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dst));
}

TEST(MindRecordCrypto, RoundTripsEveryModeOverSeveralChunks) {
  Dir dir;
  // 9 MiB + 5 bytes: three chunks, the last one short; and an empty file.
  for (size_t size : {size_t{(9u << 20) + 5}, size_t{0}, size_t{1}}) {
    std::string plain = random_bytes(size, 7);
    for (std::string mode : {"AES-GCM", "AES-CBC", "SM4-CBC"}) {
      if (!crypto_mode_known(mode)) continue;
      for (const std::string& key : {std::string(16, 'k'), std::string(24, 'q'),
                                     std::string("0123456789abcdef0123456789abcdef")}) {
        if (mode == "SM4-CBC" && key.size() != 16) {
          EXPECT_THROW(check_crypto_key(key, mode, "test"), Error);
          continue;
        }
        fs::path f = dir.path / "f", out = dir.path / "out";
        spill(f, plain);
        EXPECT_FALSE(file_is_encrypted(f.string()));
        encrypt_file(f.string(), key, mode);
        std::string sealed = slurp(f);
        EXPECT_TRUE(file_is_encrypted(f.string()));
        EXPECT_EQ(encrypted_file_mode(f.string()), mode);
        if (size > 64) {
          EXPECT_EQ(sealed.find(plain.substr(0, 64)), std::string::npos);
        }
        decrypt_file(f.string(), out.string(), key, mode, "test");
        EXPECT_EQ(slurp(out), plain) << mode << " " << key.size() << " " << size;
        EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
                  fs::perms::owner_read | fs::perms::owner_write);
      }
    }
  }
}

TEST(MindRecordCrypto, WrongKeysDamageAndWrongModesFail) {
  Dir dir;
  std::string plain = random_bytes(100000, 3), key(16, 'k');
  fs::path f = dir.path / "f", out = dir.path / "out";
  spill(f, plain);
  encrypt_file(f.string(), key, "AES-GCM");
  std::string good = slurp(f);
  expect_decrypt_fails(f, out, std::string(16, 'x'), "AES-GCM");
  expect_decrypt_fails(f, out, key, "AES-CBC");
  // Every 97th byte flipped in turn (framing, magic, tag, lengths, IV, ciphertext, trailer).
  for (size_t pos = 0; pos < good.size(); pos += 97) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x10);
    spill(f, bad);
    if (!file_is_encrypted(f.string())) continue;  // the trailer itself: not encrypted now
    expect_decrypt_fails(f, out, key, "AES-GCM");
  }
  for (size_t cut : {size_t{1}, size_t{15}, size_t{18}, size_t{19}, good.size() / 2}) {
    spill(f, good.substr(0, good.size() - cut) + good.substr(good.size() - 14));
    expect_decrypt_fails(f, out, key, "AES-GCM");
  }
  // CBC has no tag: a wrong key fails the padding, or yields bytes that are not the plain.
  spill(f, plain);
  encrypt_file(f.string(), key, "AES-CBC");
  try {
    decrypt_file(f.string(), out.string(), std::string(16, 'x'), "AES-CBC", "test");
    EXPECT_NE(slurp(out), plain);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kDecryptFailed), std::string::npos);
  }
  EXPECT_THROW(check_crypto_key("short", "AES-GCM", "test"), Error);
  EXPECT_THROW(check_crypto_key(key, "AES-ECB", "test"), Error);
}

}  // namespace
}  // namespace mycel::data::mindrecord
