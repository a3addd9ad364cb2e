// Randomness of the data engine. Every random decision (a sampler's permutation, a shuffle
// buffer's pick, a RandomCrop's offset) draws from Philox keyed by what it is about, not by
// who computes it: (seed, op, pass, row). A row gets the same crop whichever worker runs it
// and however many workers there are, and a resumed pipeline (set_init_step) redraws exactly
// what an uninterrupted one drew.
#pragma once

#include <cstdint>

#include "tensor/random.h"

namespace mycel::data {

// SplitMix64's finaliser: a cheap bijective mix for building keys.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The random stream of one (op, pass, row). `op` is the op's number in its pipeline, `pass`
// counts the op's passes over its input (epochs, repeats), `row` is the row's index in the
// pass.
class RowRandom {
 public:
  RowRandom(uint64_t seed, uint64_t op, uint64_t pass, uint64_t row)
      : key_(mix64(seed ^ mix64(op + 1))), hi_(pass << 24), lo_(row) {}

  uint32_t next_u32() {
    if (used_ == 4) {
      words_ = philox(key_, hi_ + block_++, lo_);
      used_ = 0;
    }
    return words_[used_++];
  }
  uint64_t next_u64() {
    uint64_t h = next_u32();
    return (h << 32) | next_u32();
  }
  // Uniform in [0, 1).
  double uniform() {
    uint32_t h = next_u32();
    return uniform_double(h, next_u32());
  }
  // Uniform integer in [lo, hi] (inclusive), unbiased.
  int64_t randint(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<int64_t>(next_u64());  // the whole int64 range
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do {
      x = next_u64();
    } while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }
  bool bernoulli(double p) { return uniform() < p; }

 private:
  uint64_t key_, hi_, lo_;
  uint64_t block_ = 0;
  Philox4 words_{};
  int used_ = 4;
};

}  // namespace mycel::data
