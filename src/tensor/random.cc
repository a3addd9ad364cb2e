#include "tensor/random.h"

#include <atomic>
#include <mutex>

namespace mycel {

namespace {
std::mutex g_mu;
uint64_t g_seed = 5489;  // the default seed when set_seed was never called
uint64_t g_offset = 0;

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

std::pair<uint64_t, uint64_t> global_random_state() {
  std::lock_guard<std::mutex> lock(g_mu);
  return {g_seed, g_offset};
}

void set_global_random_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_seed = seed;
  g_offset = offset;
}

RandomStream next_random_stream(int64_t seed, int64_t seed2, uint64_t count) {
  if (seed != 0 || seed2 != 0) {
    return {mix(static_cast<uint64_t>(seed) * 0x100000001B3ull ^ mix(static_cast<uint64_t>(seed2))),
            0};
  }
  std::lock_guard<std::mutex> lock(g_mu);
  RandomStream s{mix(g_seed), g_offset};
  g_offset += count;
  return s;
}

}  // namespace mycel
