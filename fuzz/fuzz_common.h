// Shared helpers of the libFuzzer targets in fuzz/ (build: cmake -DMYCEL_FUZZ=ON with
// clang++-14, see fuzz/CMakeLists.txt; run: `make fuzz`, or build-fuzz/fuzz_<name> CORPUS).
//
// A target feeds the bytes to a real C++ entry point and accepts only mycel's typed errors
// (mycel::Error: ValueError, TypeError, IndexError, RuntimeError). Anything else is a finding:
// a crash, an ASan/UBSan report, a leak, or any other exception (which escapes
// LLVMFuzzerTestOneInput, so libFuzzer reports it and keeps the input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "base/error.h"
#include "tensor/allocator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace mycel::fuzz {

// Runs fn(); a mycel::Error is the expected outcome of bad input and is swallowed. The
// tensor allocator's cache is emptied when it holds over 256 MiB, so that blocks kept across
// inputs do not add up to a false out-of-memory finding (each input's own peak is what is
// limited) while small blocks stay cached (emptying it after every input is 4x slower).
template <class F>
void expect_typed_errors(F&& fn) {
  try {
    fn();
  } catch (const mycel::Error&) {
  }
  if (mycel::allocator_stats().cached > (int64_t{256} << 20)) mycel::empty_cache();
}

// libFuzzer's own mutation of a string in place (bit flips, inserts, erases, dictionary
// words...), growing it by up to `grow` bytes.
inline void mutate_bytes(std::string& s, size_t grow = 64) {
  size_t size = s.size();
  s.resize(size + grow);
  size = LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(s.data()), size, s.size());
  s.resize(size);
}

// MYCEL_FUZZ_PLAIN=1 in the environment: the custom mutators make only plain mutations (to
// compare, or to test the integrity checks themselves); otherwise one in four is plain.
inline bool plain_only() {
  static const bool plain = [] {
    const char* v = std::getenv("MYCEL_FUZZ_PLAIN");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return plain;
}

// A plain mutation of the whole input (what libFuzzer does without a custom mutator).
inline size_t plain_mutate(uint8_t* data, size_t size, size_t max_size) {
  return LLVMFuzzerMutate(data, size, max_size);
}

// The value of a little-endian integer at p, and its store.
template <class T>
T load_le(const uint8_t* p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  return v;
}
template <class T>
void store_le(std::string& s, size_t at, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
template <class T>
void append_le(std::string& s, T v) {
  s.resize(s.size() + sizeof(T));
  store_le(s, s.size() - sizeof(T), v);
}

// Integers that break size arithmetic: 0, -1, powers of two near the int32/int64 limits.
inline int64_t interesting_int(std::mt19937_64& rng) {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    255,
                                    256,
                                    65535,
                                    int64_t{1} << 31,
                                    (int64_t{1} << 31) - 1,
                                    int64_t{1} << 32,
                                    int64_t{1} << 40,
                                    int64_t{1} << 62,
                                    INT64_MAX,
                                    INT64_MIN};
  if (rng() % 4 == 0) return static_cast<int64_t>(rng()) >> (rng() % 64);
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

}  // namespace mycel::fuzz
