// A diagnostic, not part of `make bench`: times oneDNN's dnnl_sgemm (row-major C = A * B) with
// the operands page-aligned (as mycel's 64-byte-aligned allocator gives large blocks) against
// the same call with a 16-byte offset, on the shapes of the MLP training benchmark. On a 2-core
// AMD EPYC (AVX2) with Debian's oneDNN 2.6 some shapes ran up to 1.8x slower aligned (oneDNN's
// AVX2 no-copy path); others are faster aligned. See bench/RESULTS.md for the MLP row.
//
//   g++ -O2 -fopenmp bench/sgemm_alignment.cc -o /tmp/sgemm_alignment -ldnnl
//   OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=2 /tmp/sgemm_alignment
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Median microseconds per call of f over 7 rounds of 50 calls, after 10 warm-up calls.
template <class F>
double time_us(F f) {
  for (int i = 0; i < 10; ++i) f();
  std::vector<double> rounds;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 50; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 50);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[3];
}

// n floats at `offset` bytes past a page boundary, filled with small values.
float* buffer(size_t n, size_t offset) {
  size_t bytes = n * sizeof(float) + 8192;
  auto* p = static_cast<char*>(std::aligned_alloc(4096, bytes));
  std::memset(p, 0, bytes);
  auto* f = reinterpret_cast<float*>(p + offset);
  for (size_t i = 0; i < n; ++i) f[i] = static_cast<float>(i % 7) * 0.1f;
  return f;
}

}  // namespace

int main() {
  struct Case {
    const char* name;
    int m, k, n;
    bool ta, tb;
  } cases[] = {{"MLP fwd 1 (x W^T)", 64, 784, 512, false, true},
               {"MLP dW 1 (dy^T x)", 512, 64, 784, true, false},
               {"MLP fwd 2", 64, 512, 256, false, true},
               {"MLP dx 2 (dy W)", 64, 256, 512, false, false},
               {"MLP dW 2", 256, 64, 512, true, false},
               {"64 x 784 x 512 NN", 64, 784, 512, false, false},
               {"256 x 1024 x 1024 NN", 256, 1024, 1024, false, false},
               {"1024 x 512 x 512 NN", 1024, 512, 512, false, false}};
  std::printf("%-22s %14s %14s\n", "shape (M x K x N)", "aligned us", "offset 16 us");
  for (const Case& c : cases) {
    int lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n;
    double t[2];
    for (int o = 0; o < 2; ++o) {
      size_t off = o ? 16 : 0;
      float *a = buffer(size_t(c.m) * c.k, off), *b = buffer(size_t(c.k) * c.n, off);
      float* y = buffer(size_t(c.m) * c.n, 0);
      t[o] = time_us([&] {
        dnnl_sgemm(c.ta ? 'T' : 'N', c.tb ? 'T' : 'N', c.m, c.n, c.k, 1.0f, a, lda, b, ldb, 0.0f, y,
                   c.n);
      });
    }
    std::printf("%-22s %14.1f %14.1f\n", c.name, t[0], t[1]);
  }
  return 0;
}
