// Encrypted MindRecord files: the layout and its checks are in mindrecord_crypto.h.
#include "data/mindrecord_crypto.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/error.h"

namespace mycel::data::mindrecord {

namespace {

constexpr size_t kChunk = size_t{4} << 20;  // plain bytes per encrypted chunk
constexpr size_t kIv = 16, kTag = 16;
constexpr size_t kMaxBlock = (size_t{64} << 20) + 64;  // MindSpore's largest block, with room
constexpr std::string_view kEndFlag = "ENCRYPT";
constexpr size_t kModeLen = 7;
constexpr size_t kTrailer = 4 + kModeLen + kEndFlag.size();  // be32(0) mode "ENCRYPT"

std::string errno_text() { return std::strerror(errno); }

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

// The cipher for mode and a key of key_len bytes; nullptr when they do not fit.
const EVP_CIPHER* cipher_of(std::string_view mode, size_t key_len) {
  if (mode == "AES-GCM") {
    if (key_len == 16) return EVP_aes_128_gcm();
    if (key_len == 24) return EVP_aes_192_gcm();
    if (key_len == 32) return EVP_aes_256_gcm();
  } else if (mode == "AES-CBC") {
    if (key_len == 16) return EVP_aes_128_cbc();
    if (key_len == 24) return EVP_aes_192_cbc();
    if (key_len == 32) return EVP_aes_256_cbc();
  } else if (mode == "SM4-CBC") {
#ifndef OPENSSL_NO_SM4
    if (key_len == 16) return EVP_sm4_cbc();
#endif
  }
  return nullptr;
}

uint32_t magic_of(std::string_view mode) {
  if (mode == "AES-GCM") return 0x7F3A5ED8u;
  if (mode == "AES-CBC") return 0x7F3A5ED9u;
  return 0x7F3A5EDAu;  // SM4-CBC
}

void put_le32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_be32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint32_t be32(const unsigned char* p) {
  return uint32_t{p[3]} | uint32_t{p[2]} << 8 | uint32_t{p[1]} << 16 | uint32_t{p[0]} << 24;
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// One block (the layout in the header) holding plain, under a fresh IV.
std::string encrypt_block(std::string_view plain, std::string_view key, std::string_view mode) {
  const EVP_CIPHER* cipher = cipher_of(mode, key.size());
  MC_CHECK(cipher != nullptr, Value, "mindrecord: no cipher for ", mode, " with a ", key.size(),
           "-byte key.");
  unsigned char iv[kIv];
  MC_CHECK(RAND_bytes(iv, kIv) == 1, Runtime, "mindrecord: cannot draw a random IV.");
  Ctx ctx(EVP_CIPHER_CTX_new());
  bool gcm = mode == "AES-GCM";
  bool ok = ctx != nullptr;
  if (gcm) {
    ok = ok && EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, nullptr, nullptr) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kIv, nullptr) == 1 &&
         EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, bytes(key), iv) == 1;
  } else {
    ok = ok && EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, bytes(key), iv) == 1;
  }
  std::string body(plain.size() + 32, '\0');
  int n = 0, fin = 0;
  auto* out = reinterpret_cast<unsigned char*>(body.data());
  ok = ok &&
       EVP_EncryptUpdate(ctx.get(), out, &n, bytes(plain), static_cast<int>(plain.size())) == 1 &&
       EVP_EncryptFinal_ex(ctx.get(), out + n, &fin) == 1;
  unsigned char tag[kTag];
  if (gcm) ok = ok && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTag, tag) == 1;
  MC_CHECK(ok, Runtime, "mindrecord: OpenSSL failed to encrypt with ", mode, ".");
  body.resize(static_cast<size_t>(n + fin));
  std::string block;
  block.reserve(body.size() + 64);
  put_le32(&block, magic_of(mode));
  if (gcm) block.append(reinterpret_cast<const char*>(tag), kTag);
  put_le32(&block, static_cast<uint32_t>(4 + kIv + 4 + body.size()));
  put_le32(&block, kIv);
  block.append(reinterpret_cast<const char*>(iv), kIv);
  put_le32(&block, static_cast<uint32_t>(body.size()));
  block += body;
  return block;
}

// The plain bytes of one block; false when it does not parse, fails its tag or padding.
bool decrypt_block(std::string_view block, std::string_view key, std::string_view mode,
                   std::string* plain) {
  const EVP_CIPHER* cipher = cipher_of(mode, key.size());
  bool gcm = mode == "AES-GCM";
  size_t head = 4 + (gcm ? kTag : 0) + 4;
  if (cipher == nullptr || block.size() < head + 4 + kIv + 4) return false;
  const unsigned char* p = bytes(block);
  if (le32(p) != magic_of(mode)) return false;
  const unsigned char* tag = p + 4;
  uint64_t m = le32(p + head - 4);
  if (m != block.size() - head || le32(p + head) != kIv) return false;
  const unsigned char* iv = p + head + 4;
  uint64_t c = le32(iv + kIv);
  if (c + 4 + kIv + 4 != m) return false;
  const unsigned char* body = iv + kIv + 4;
  Ctx ctx(EVP_CIPHER_CTX_new());
  bool ok = ctx != nullptr;
  if (gcm) {
    ok = ok && EVP_DecryptInit_ex(ctx.get(), cipher, nullptr, nullptr, nullptr) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kIv, nullptr) == 1 &&
         EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, bytes(key), iv) == 1;
  } else {
    ok = ok && EVP_DecryptInit_ex(ctx.get(), cipher, nullptr, bytes(key), iv) == 1;
  }
  plain->assign(static_cast<size_t>(c) + 32, '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain->data());
  int n = 0, fin = 0;
  ok = ok && EVP_DecryptUpdate(ctx.get(), out, &n, body, static_cast<int>(c)) == 1;
  if (gcm)
    ok = ok && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTag,
                                   const_cast<unsigned char*>(tag)) == 1;
  ok = ok && EVP_DecryptFinal_ex(ctx.get(), out + n, &fin) == 1;
  if (!ok) return false;
  plain->resize(static_cast<size_t>(n + fin));
  return true;
}

void write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t r = ::write(fd, data.data(), data.size());
    if (r < 0 && errno == EINTR) continue;
    MC_CHECK(r > 0, Runtime, "mindrecord: cannot write ", path, ": ", errno_text(), ".");
    data.remove_prefix(static_cast<size_t>(r));
  }
}

// Up to n bytes at offset (fewer only at the end of the file).
std::string read_at(int fd, uint64_t offset, size_t n, const std::string& path) {
  std::string buf(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    MC_CHECK(r >= 0, Runtime, "mindrecord: cannot read ", path, ": ", errno_text(), ".");
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  buf.resize(got);
  return buf;
}

// The size of the regular file at path; -1 when it is missing or not a regular file.
int64_t regular_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return static_cast<int64_t>(st.st_size);
}

}  // namespace

bool crypto_mode_known(std::string_view mode) { return cipher_of(mode, 16) != nullptr; }

void check_crypto_key(std::string_view key, std::string_view mode, std::string_view op) {
  MC_CHECK(crypto_mode_known(mode), Value, op, ": the mode '", mode,
           "' is not one of AES-GCM, AES-CBC, SM4-CBC (or this OpenSSL lacks it).");
  MC_CHECK(cipher_of(mode, key.size()) != nullptr, Value, op, ": a ", mode, " key must be ",
           mode == "SM4-CBC" ? "16" : "16, 24 or 32", " bytes long, but got ", key.size(),
           " bytes.");
}

void encrypt_file(const std::string& path, std::string_view key, std::string_view mode) {
  check_crypto_key(key, mode, "mindrecord");
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  MC_CHECK(in.fd >= 0, Runtime, "mindrecord: cannot open ", path, ": ", errno_text(), ".");
  std::string tmp = path + ".encrypt";
  Fd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  MC_CHECK(out.fd >= 0, Runtime, "mindrecord: cannot create ", tmp, ": ", errno_text(), ".");
  try {
    for (uint64_t at = 0;; at += kChunk) {
      std::string plain = read_at(in.fd, at, kChunk, path);
      if (plain.empty()) break;
      std::string chunk;
      std::string block = encrypt_block(plain, key, mode);
      put_be32(&chunk, static_cast<uint32_t>(block.size()));
      chunk += block;
      write_all(out.fd, chunk, tmp);
      if (plain.size() < kChunk) break;
    }
    std::string tail;
    put_be32(&tail, 0);
    tail.append(mode);
    tail.append(kEndFlag);
    write_all(out.fd, tail, tmp);
    MC_CHECK(::fsync(out.fd) == 0, Runtime, "mindrecord: cannot sync ", tmp, ": ", errno_text(),
             ".");
    MC_CHECK(::rename(tmp.c_str(), path.c_str()) == 0, Runtime, "mindrecord: cannot rename ", tmp,
             " to ", path, ": ", errno_text(), ".");
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

bool file_is_encrypted(const std::string& path) {
  int64_t size = regular_size(path);
  if (size < static_cast<int64_t>(kTrailer)) return false;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) return false;
  std::string tail = read_at(fd.fd, static_cast<uint64_t>(size) - kTrailer, kTrailer, path);
  return tail.size() == kTrailer && tail.compare(0, 4, std::string(4, '\0')) == 0 &&
         tail.compare(4 + kModeLen, kEndFlag.size(), kEndFlag) == 0;
}

std::string encrypted_file_mode(const std::string& path) {
  if (!file_is_encrypted(path)) return "";
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) return "";
  auto size = static_cast<uint64_t>(regular_size(path));
  return read_at(fd.fd, size - kModeLen - kEndFlag.size(), kModeLen, path);
}

void decrypt_file(const std::string& src, const std::string& dst, std::string_view key,
                  std::string_view mode, std::string_view who) {
  check_crypto_key(key, mode, who);
  Fd in(::open(src.c_str(), O_RDONLY | O_CLOEXEC));
  MC_CHECK(in.fd >= 0, Runtime, who, ": cannot open ", src, ": ", errno_text(), ".");
  struct stat st;
  MC_CHECK(::fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode), Runtime, who, ": ", src,
           " is not a regular file.");
  auto size = static_cast<uint64_t>(st.st_size);
  auto fail = [&](std::string_view why) {
    ::unlink(dst.c_str());
    MC_THROW(Runtime, who, ": ", kDecryptFailed, " (", src, ": ", why, ")");
  };
  if (size < kTrailer || read_at(in.fd, size - kModeLen - kEndFlag.size(), kModeLen, src) != mode ||
      read_at(in.fd, size - kEndFlag.size(), kEndFlag.size(), src) != kEndFlag)
    fail(str("not encrypted with ", mode));
  ::unlink(dst.c_str());  // a stale copy from an earlier run is never read
  // Written under a unique temporary name (mkstemp: 0600, never an existing file or link),
  // renamed over dst when complete, so a reader never sees half a file.
  std::string tmp = dst + ".XXXXXX";
  Fd out(::mkstemp(tmp.data()));
  MC_CHECK(out.fd >= 0, Runtime, who, ": cannot create ", tmp, ": ", errno_text(), ".");
  uint64_t end = size - kTrailer;  // where the be32(0) terminator must lie
  uint64_t at = 0;
  std::string plain;
  try {
    for (int64_t k = 0;; ++k) {
      std::string len4 = read_at(in.fd, at, 4, src);
      if (len4.size() < 4 || at > end) fail("the chunks overrun the trailer");
      uint32_t n = be32(bytes(len4));
      if (n == 0) {
        if (at != end) fail(str("the end mark lies at byte ", at, ", not ", end));
        break;
      }
      if (n > kMaxBlock || at + 4 + n > end) fail(str("chunk ", k, " overruns the file"));
      std::string block = read_at(in.fd, at + 4, n, src);
      if (block.size() != n || !decrypt_block(block, key, mode, &plain))
        fail(str("chunk ", k, " does not decrypt"));
      write_all(out.fd, plain, tmp);
      at += 4 + uint64_t{n};
    }
    MC_CHECK(::rename(tmp.c_str(), dst.c_str()) == 0, Runtime, who, ": cannot rename ", tmp, " to ",
             dst, ": ", errno_text(), ".");
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace mycel::data::mindrecord
