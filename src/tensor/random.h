// Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11). A stream is a (key,
// counter) pair; each call of philox() turns one 128-bit counter into four 32-bit words, so
// any element of a random tensor can be computed independently of the others, in any order,
// on any thread. This is what makes random ops reproducible whatever the thread count.
//
// The global generator (mycel.set_seed) hands each random op a fresh range of counters. An
// op with its own seeds draws from a stream of those seeds alone; each primitive instance
// (a Python Primitive, and every node compiled from it) owns a position in that stream which
// advances with every call, as a MindSpore kernel's generator does: a fresh instance with
// the same seeds replays the same draws, a second call of one instance draws new ones.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

namespace mycel {

using Philox4 = std::array<uint32_t, 4>;

inline Philox4 philox(uint64_t key, uint64_t counter_hi, uint64_t counter_lo) {
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t{0xD2511F53u} * c0;
    uint64_t p1 = uint64_t{0xCD9E8D57u} * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

// A uniform float in [0, 1) from 24 random bits / a double from 53 bits.
inline float uniform_float(uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1p-24f; }
inline double uniform_double(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1p-53;
}

// Where a random op draws from: a key and the first of a range of counters it owns.
struct RandomStream {
  uint64_t key = 0;
  uint64_t offset = 0;
};

void set_global_seed(uint64_t seed);
uint64_t global_seed();
// Reserves `count` counters of the global generator, or, when seed or seed2 is nonzero, of
// the stream determined by them alone (MindSpore's op-level seeds): from the position of
// primitive instance `instance` in it, which then advances by `count`; instance 0 (a call
// with no instance: the kernel-vs-reference harness) always starts at the stream's start.
RandomStream next_random_stream(int64_t seed, int64_t seed2, uint64_t count, int64_t instance = 0);
// A new primitive instance's id (nonzero, never reused in the process).
int64_t new_random_instance();

// The generators' whole state: the global seed, the next counter it hands out, and each
// seeded primitive instance's position. mycel.recompute sets it back to draw a recomputed
// block's random numbers again from where its forward drew them.
struct RandomState {
  uint64_t seed = 0;
  uint64_t offset = 0;
  std::unordered_map<int64_t, uint64_t> instances;
};
RandomState random_state();
void set_random_state(const RandomState& s);

}  // namespace mycel
