// Encrypted MindRecord files (mindspore.mindrecord.set_enc_key / set_enc_mode / set_dec_mode),
// through OpenSSL's EVP ciphers. MindSpore encrypts a committed file as a whole (the shard and
// its `.db` index alike) and decrypts it into a private folder before reading; this is the same
// layout, so files encrypted by either are read by the other:
//
//   file   := chunk* be32(0) mode[7] "ENCRYPT"          mode: "AES-GCM", "AES-CBC", "SM4-CBC"
//   chunk  := be32(n) block                             n: the block's length in bytes
//   block  := le32(magic) [tag[16] if AES-GCM] le32(m) le32(16) iv[16] le32(c) cipher[c]
//             magic: 0x7F3A5ED8 AES-GCM, 0x7F3A5ED9 AES-CBC, 0x7F3A5EDA SM4-CBC; m = 24 + c
//
// Each chunk encrypts up to kChunk bytes of the plain file with a fresh random IV (RAND_bytes):
// AES-GCM (16-byte IV, no associated data, the 16-byte tag authenticates the chunk), AES-CBC or
// SM4-CBC (PKCS#7 padding; not authenticated). Keys: 16, 24 or 32 bytes for AES, 16 for SM4.
// Integrity beyond each chunk's tag: the chunks' framing must account for every byte of the
// file, so a truncated or spliced file fails too; a CBC file decrypted with a wrong key usually
// fails its padding, else the MindRecord reader's structure and checksum checks reject it.
// Internal to src/data (the Python side, python/mycel/mindrecord/config.py, holds the key).
#pragma once

#include <string>
#include <string_view>

namespace mycel::data::mindrecord {

// The message MindSpore gives for a wrong key or mode, or a damaged encrypted file.
inline constexpr std::string_view kDecryptFailed =
    "Failed to decrypt data, please check if enc_key and enc_mode / dec_mode is valid.";

// Whether mode is one of "AES-GCM", "AES-CBC", "SM4-CBC" (SM4 only when OpenSSL has it).
bool crypto_mode_known(std::string_view mode);

// A ValueError naming `op` unless mode is known and key's length fits it.
void check_crypto_key(std::string_view key, std::string_view mode, std::string_view op);

// Encrypts the file at `path` in place: the encrypted bytes go to `path`.encrypt (mode 0600),
// are synced and renamed over `path`. RuntimeError naming the file on any I/O failure.
void encrypt_file(const std::string& path, std::string_view key, std::string_view mode);

// Whether the regular file at path ends as an encrypted one: be32(0), 7 bytes, "ENCRYPT" (false
// for a short or missing file).
bool file_is_encrypted(const std::string& path);

// The 7-byte mode recorded before "ENCRYPT" ("" when the file is not encrypted).
std::string encrypted_file_mode(const std::string& path);

// Decrypts the encrypted file `src` into `dst` (mode 0600; written under a unique temporary
// name and renamed over dst when complete). A wrong key or mode, or a damaged file:
// RuntimeError kDecryptFailed naming `who` and `src`; `dst` is then removed.
void decrypt_file(const std::string& src, const std::string& dst, std::string_view key,
                  std::string_view mode, std::string_view who);

}  // namespace mycel::data::mindrecord
