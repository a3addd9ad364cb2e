#include "tensor/random.h"

#include <atomic>
#include <mutex>

namespace mycel {

namespace {
std::mutex g_mu;
uint64_t g_seed = 5489;  // the default seed when set_seed was never called
uint64_t g_offset = 0;
// Each seeded primitive instance's position in its stream (an entry per instance that drew:
// 16 bytes each; functional calls share one cached instance per seed).
std::unordered_map<int64_t, uint64_t> g_instance_offsets;
std::atomic<int64_t> g_next_instance{1};

uint64_t mix(uint64_t x) {  // splitmix64 finaliser: spreads nearby seeds apart
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

void set_global_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_seed = seed;
  g_offset = 0;
}

uint64_t global_seed() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_seed;
}

int64_t new_random_instance() { return g_next_instance.fetch_add(1); }

RandomState random_state() {
  std::lock_guard<std::mutex> lock(g_mu);
  return {g_seed, g_offset, g_instance_offsets};
}

void set_random_state(const RandomState& s) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_seed = s.seed;
  g_offset = s.offset;
  g_instance_offsets = s.instances;
}

RandomStream next_random_stream(int64_t seed, int64_t seed2, uint64_t count, int64_t instance) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (seed != 0 || seed2 != 0) {
    const uint64_t key =
        mix(static_cast<uint64_t>(seed) * 0x100000001B3ull ^ mix(static_cast<uint64_t>(seed2)));
    if (instance == 0) return {key, 0};
    uint64_t& at = g_instance_offsets[instance];
    const RandomStream s{key, at};
    at += count;
    return s;
  }
  RandomStream s{mix(g_seed), g_offset};
  g_offset += count;
  return s;
}

}  // namespace mycel
