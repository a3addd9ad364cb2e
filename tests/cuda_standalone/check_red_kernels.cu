// A standalone GPU check of the reduce/array-index/random device code (the .cu launchers),
// without the rest of mycel: host references written here, from the CPU kernels' rules.
//   nvcc -std=c++17 -O2 -Isrc -arch=sm_90 --expt-relaxed-constexpr \
//     tests/cuda_standalone/check_red_kernels.cu src/kernels/cuda/{reduce,array_index,random}.cu
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/array_index.h"
#include "kernels/cuda/random.h"
#include "kernels/cuda/reduce.h"
#include "tensor/random.h"

using namespace mycel::cuda;

static int failures = 0, checks = 0;
#define CHECK(cond, ...)                                      \
  do {                                                        \
    ++checks;                                                 \
    if (!(cond)) {                                            \
      if (++failures < 40) {                                  \
        std::printf("FAIL line %d: ", __LINE__);              \
        std::printf(__VA_ARGS__);                             \
        std::printf("\n");                                    \
      }                                                       \
    }                                                         \
  } while (0)

template <class T>
T* to_dev(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, (h.size() ? h.size() : 1) * sizeof(T));
  if (h.size()) cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
std::vector<T> to_host(const void* d, size_t n) {
  cudaDeviceSynchronize();
  std::vector<T> h(n);
  if (n) cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}
static double rnd(uint64_t i) {
  auto w = mycel::philox(77, 0, i);
  return mycel::uniform_double(w[0], w[1]) * 2 - 1;
}
static bool same(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= tol * (1 + std::fabs(b));
}

// x: [shape] contiguous; mask: reduced dims. Builds the descriptors reduce.cc builds.
struct Desc {
  Strided<1> kept{}, red{};
  int64_t O = 1, R = 1;
};
static Desc desc(const std::vector<int64_t>& shape, const std::vector<bool>& mask) {
  Desc d;
  std::vector<int64_t> st(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) st[i] = s, s *= shape[i];
  for (size_t i = 0; i < shape.size(); ++i) {
    Strided<1>& t = mask[i] ? d.red : d.kept;
    t.size[t.ndim] = shape[i];
    t.stride[0][t.ndim] = st[i];
    ++t.ndim;
    (mask[i] ? d.R : d.O) *= shape[i];
  }
  return d;
}
// Host reference over the same descriptors (double accumulation; kind as reduce.h).
static std::vector<double> ref_reduce(int kind, bool mean, const std::vector<double>& x,
                                      const Desc& d) {
  std::vector<double> y(d.O);
  for (int64_t o = 0; o < d.O; ++o) {
    int64_t base = 0, rest = o;
    for (int k = d.kept.ndim - 1; k >= 0; --k)
      base += (rest % d.kept.size[k]) * d.kept.stride[0][k], rest /= d.kept.size[k];
    double a = kind == kReduceSum ? 0 : kind == kReduceProd ? 1
             : kind == kReduceMax ? -INFINITY : INFINITY;
    bool nan = false;
    for (int64_t r = 0; r < d.R; ++r) {
      int64_t off = 0, rr = r;
      for (int k = d.red.ndim - 1; k >= 0; --k)
        off += (rr % d.red.size[k]) * d.red.stride[0][k], rr /= d.red.size[k];
      double v = x[base + off];
      nan |= std::isnan(v);
      a = kind == kReduceSum ? a + v : kind == kReduceProd ? a * v
        : kind == kReduceMax ? std::max(a, v) : std::min(a, v);
    }
    if (nan && kind >= kReduceMax) a = NAN;
    y[o] = mean ? a / static_cast<double>(d.R) : a;
  }
  return y;
}

static std::vector<double> data(int64_t n, bool nans = false, bool ints = false) {
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = ints ? std::floor(rnd(i) * 3) : rnd(i);
    if (nans && i % 97 == 5) x[i] = NAN;
  }
  return x;
}

static void reduce_f32(int kind, bool mean, std::vector<int64_t> shape, std::vector<bool> mask,
                       bool nans = false) {
  Desc d = desc(shape, mask);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> x = data(n, nans);
  std::vector<float> xf(x.begin(), x.end());
  std::vector<double> xd(xf.begin(), xf.end());
  float* dx = to_dev(xf);
  float* dy = to_dev(std::vector<float>(d.O));
  void* scratch = nullptr;
  size_t sb = reduce_scratch_bytes(kind, kFloat32, d.O, d.R);
  if (sb) cudaMalloc(&scratch, sb);
  launch_reduce(kind, mean, kFloat32, dx, dy, d.kept, d.red, d.O, d.R, scratch, 0);
  CHECK(cudaGetLastError() == cudaSuccess, "launch");
  std::vector<float> y = to_host<float>(dy, d.O);
  std::vector<double> want = ref_reduce(kind, mean, xd, d);
  int bad = 0;
  for (int64_t o = 0; o < d.O; ++o) bad += !same(y[o], static_cast<float>(want[o]), 1e-6);
  CHECK(bad == 0, "reduce kind %d mean %d O %lld R %lld: %d bad (y0 %g want %g)", kind, mean,
        (long long)d.O, (long long)d.R, bad, y[0], want[0]);
  cudaFree(dx);
  cudaFree(dy);
  if (scratch) cudaFree(scratch);
}

static void reduce_other() {
  // int8 sum wraps as the CPU's uint64 accumulation cast to int8.
  {
    Desc d = desc({1000, 300}, {false, true});
    std::vector<int8_t> x(300000);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i * 37 % 251);
    int8_t* dx = to_dev(x);
    int8_t* dy = to_dev(std::vector<int8_t>(1000));
    launch_reduce(kReduceSum, false, kInt8, dx, dy, d.kept, d.red, d.O, d.R, nullptr, 0);
    auto y = to_host<int8_t>(dy, 1000);
    int bad = 0;
    for (int o = 0; o < 1000; ++o) {
      uint64_t a = 0;
      for (int r = 0; r < 300; ++r) a += static_cast<uint64_t>(static_cast<int64_t>(x[o * 300 + r]));
      bad += y[o] != static_cast<int8_t>(static_cast<int64_t>(a));
    }
    CHECK(bad == 0, "int8 sum: %d bad", bad);
  }
  // bool sum -> int64; bool max.
  {
    Desc d = desc({50, 40}, {true, false});
    std::vector<uint8_t> xb(2000);
    for (int i = 0; i < 2000; ++i) xb[i] = (i * 7 % 3) == 0;
    void* dx = to_dev(xb);
    int64_t* dy = to_dev(std::vector<int64_t>(40));
    launch_reduce(kReduceSum, false, kBool, dx, dy, d.kept, d.red, d.O, d.R, nullptr, 0);
    auto y = to_host<int64_t>(dy, 40);
    int bad = 0;
    for (int i = 0; i < 40; ++i) {
      int64_t a = 0;
      for (int r = 0; r < 50; ++r) a += xb[r * 40 + i];
      bad += y[i] != a;
    }
    CHECK(bad == 0, "bool sum: %d bad", bad);
  }
  // half mean over rows, through double then float.
  {
    Desc d = desc({300, 1001}, {false, true});
    std::vector<double> x = data(300 * 1001);
    std::vector<__half> xh(x.size());
    std::vector<double> xd(x.size());
    for (size_t i = 0; i < x.size(); ++i) xh[i] = __float2half(static_cast<float>(x[i])),
                                          xd[i] = __half2float(xh[i]);
    __half* dx = to_dev(xh);
    __half* dy = to_dev(std::vector<__half>(300));
    launch_reduce(kReduceSum, true, kFloat16, dx, dy, d.kept, d.red, d.O, d.R, nullptr, 0);
    auto y = to_host<__half>(dy, 300);
    auto want = ref_reduce(kReduceSum, true, xd, d);
    int bad = 0;
    for (int o = 0; o < 300; ++o)
      bad += __half2float(y[o]) != __half2float(__float2half(static_cast<float>(want[o])));
    CHECK(bad == 0, "half mean: %d bad", bad);
  }
  // empty reduction: sum 0, mean NaN, prod 1.
  {
    Desc d = desc({3, 0}, {false, true});
    float* dy = to_dev(std::vector<float>(3, 5.0f));
    float* dx = to_dev(std::vector<float>());
    launch_reduce(kReduceSum, true, kFloat32, dx, dy, d.kept, Strided<1>{}, 3, 0, nullptr, 0);
    auto y = to_host<float>(dy, 3);
    CHECK(std::isnan(y[0]) && std::isnan(y[2]), "empty mean");
    launch_reduce(kReduceProd, false, kFloat32, dx, dy, d.kept, Strided<1>{}, 3, 0, nullptr, 0);
    y = to_host<float>(dy, 3);
    CHECK(y[0] == 1.0f && y[2] == 1.0f, "empty prod");
  }
}

static void argmax(bool is_max, int64_t O, int64_t R, int64_t I) {
  std::vector<double> x = data(O * R * I, true, true);
  std::vector<float> xf(x.begin(), x.end());
  float* dx = to_dev(xf);
  int64_t* dy = to_dev(std::vector<int64_t>(O * I));
  launch_arg_reduce(is_max, kFloat32, dx, dy, true, O, R, I, 0);
  auto y = to_host<int64_t>(dy, O * I);
  int bad = 0;
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i) {
      int64_t best = 0;
      for (int64_t r = 0; r < R; ++r) {
        float v = xf[(o * R + r) * I + i], b = xf[(o * R + best) * I + i];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (is_max ? v > b : v < b)) best = r;
      }
      bad += y[o * I + i] != best;
    }
  CHECK(bad == 0, "arg max %d [%lld %lld %lld]: %d bad", is_max, (long long)O, (long long)R,
        (long long)I, bad);
}

static void index_ops() {
  int64_t* err = nullptr;
  cudaHostAlloc(&err, 16, cudaHostAllocMapped);
  err[0] = err[1] = 0;
  int64_t* derr = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&derr), err, 0);
  // Gather [4, 3] rows 1, 9 (bad), -1.
  std::vector<float> p(12);
  for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i + 1);
  float* dp = to_dev(p);
  int32_t* di = to_dev(std::vector<int32_t>{1, 9, -1});
  float* dout = to_dev(std::vector<float>(9, -7.0f));
  launch_gather(4, dp, di, false, dout, 1, 1, 4, 3, 3, derr, 42, 0);
  auto o = to_host<float>(dout, 9);
  CHECK(o[0] == 4 && o[2] == 6 && o[3] == 0 && o[5] == 0 && o[6] == 10 && o[8] == 12,
        "gather %g %g %g %g", o[0], o[3], o[6], o[8]);
  CHECK(err[0] == 43 && err[1] == 9, "gather error word %lld %lld", (long long)err[0],
        (long long)err[1]);
  err[0] = 0;
  // GatherD dim 0: x [3, 4], index [2, 4].
  std::vector<int64_t> gi{2, 0, 1, -1, 0, 0, 2, 1};
  int64_t* dgi = to_dev(gi);
  DimIndexDesc dd;
  dd.ndim = 2, dd.dim = 0, dd.n = 3;
  dd.shape[0] = 2, dd.shape[1] = 4, dd.xstride[0] = 4, dd.xstride[1] = 1;
  float* dgo = to_dev(std::vector<float>(8));
  launch_gather_d(4, dp, dgi, true, dgo, dd, 8, derr, 1, 0);
  auto go = to_host<float>(dgo, 8);
  bool ok = true;
  for (int e = 0; e < 8; ++e) {
    int64_t i = gi[e] < 0 ? gi[e] + 3 : gi[e];
    ok &= go[e] == p[i * 4 + e % 4];
  }
  CHECK(ok && err[0] == 0, "gather_d");
  // GatherDGrad (half: float scratch then rounded): dout ones at index into [3, 4].
  {
    std::vector<__half> ones(8, __float2half(1.0f));
    __half* dd1 = to_dev(ones);
    CHECK(accum_size(kFloat16) == 4, "accum size f16");
    float* acc = to_dev(std::vector<float>(12, 0.0f));
    __half* outh = to_dev(std::vector<__half>(12));
    launch_gather_d_grad(kFloat16, dgi, true, dd1, acc, dd, 8, derr, 1, 0);
    finish_accum(kFloat16, acc, outh, 12, 0);
    auto h = to_host<__half>(outh, 12);
    std::vector<float> want(12, 0);
    for (int e = 0; e < 8; ++e) want[(gi[e] < 0 ? gi[e] + 3 : gi[e]) * 4 + e % 4] += 1;
    bool ok2 = true;
    for (int i = 0; i < 12; ++i) ok2 &= __half2float(h[i]) == want[i];
    CHECK(ok2, "gather_d_grad f16");
  }
  // UnsortedSegmentSum int8 with wrap and an out-of-range id (skipped).
  {
    std::vector<int8_t> x{100, 1, 100, 2, 100, 3, 7, 7};
    int8_t* dx = to_dev(x);
    int32_t* ids = to_dev(std::vector<int32_t>{0, 1, 0, 5});
    CHECK(accum_size(kInt8) == 4, "accum size i8");
    int32_t* acc = to_dev(std::vector<int32_t>(4, 0));
    int8_t* out = to_dev(std::vector<int8_t>(4));
    launch_segment_sum(kInt8, dx, ids, false, acc, 4, 2, 2, 0);
    finish_accum(kInt8, acc, out, 4, 0);
    auto y = to_host<int8_t>(out, 4);
    CHECK(y[0] == static_cast<int8_t>(200) && y[1] == 4 && y[2] == 100 && y[3] == 3,
          "segment sum %d %d %d %d", y[0], y[1], y[2], y[3]);
  }
  // ScatterNd float into [4, 2] with a repeated row and a bad one; TensorScatterUpdate.
  {
    NdDesc nd;
    nd.k = 1, nd.shape[0] = 4, nd.stride[0] = 2;
    int64_t* idx = to_dev(std::vector<int64_t>{1, 1, 3, 4});
    int64_t* offs = to_dev(std::vector<int64_t>(4));
    launch_nd_offsets(idx, true, offs, nd, 4, derr, 7, 0);
    auto of = to_host<int64_t>(offs, 4);
    CHECK(of[0] == 2 && of[1] == 2 && of[2] == 6 && of[3] == -1 && err[0] == 8 && err[1] == 4,
          "nd offsets %lld %lld %lld %lld err %lld", (long long)of[0], (long long)of[1],
          (long long)of[2], (long long)of[3], (long long)err[0]);
    err[0] = 0;
    float* up = to_dev(std::vector<float>{1, 2, 10, 20, 5, 6, 99, 99});
    float* acc = to_dev(std::vector<float>(8, 0.0f));
    launch_scatter_add(kFloat32, offs, up, acc, 4, 2, 0);
    auto a = to_host<float>(acc, 8);
    CHECK(a[0] == 0 && a[2] == 11 && a[3] == 22 && a[6] == 5 && a[7] == 6, "scatter add");
    float* out = to_dev(std::vector<float>(8, -1.0f));
    unsigned long long* owner = to_dev(std::vector<unsigned long long>(4, 0));
    launch_scatter_update(4, offs, up, out, owner, 4, 2, 0);
    auto u = to_host<float>(out, 8);
    CHECK(u[0] == -1 && u[2] == 10 && u[3] == 20 && u[6] == 5 && u[7] == 6,
          "scatter update (last wins) %g %g", u[2], u[3]);
  }
  // OneHot: indices [0, 2, -1, 3], depth 3, axis -1.
  {
    int64_t* ind = to_dev(std::vector<int64_t>{0, 2, -1, 3});
    float* out = to_dev(std::vector<float>(12));
    float on = 1.0f, off = 0.5f;
    uint64_t onb = 0, offb = 0;
    std::memcpy(&onb, &on, 4);
    std::memcpy(&offb, &off, 4);
    launch_one_hot(4, kInt64, ind, out, 4, 3, 1, onb, offb, 0);
    auto y = to_host<float>(out, 12);
    CHECK(y[0] == 1 && y[1] == 0.5f && y[5] == 1 && y[6] == 0.5f && y[8] == 0.5f &&
              y[11] == 0.5f,
          "one hot");
    // axis 0: out [depth, n].
    launch_one_hot(4, kInt64, ind, out, 1, 3, 4, onb, offb, 0);
    y = to_host<float>(out, 12);
    CHECK(y[0] == 1 && y[1] == 0.5f && y[2 * 4 + 1] == 1 && y[4 + 0] == 0.5f, "one hot axis 0");
  }
  // Range.
  {
    float* out = to_dev(std::vector<float>(10));
    launch_range(kFloat32, out, 10, 1.0, 0.1, 0);
    auto y = to_host<float>(out, 10);
    bool ok3 = true;
    for (int i = 0; i < 10; ++i) ok3 &= y[i] == static_cast<float>(1.0 + i * 0.1);
    CHECK(ok3, "range");
    int32_t* oi = to_dev(std::vector<int32_t>(5));
    launch_range(kInt32, oi, 5, -2.0, 1.5, 0);
    auto yi = to_host<int32_t>(oi, 5);
    CHECK(yi[0] == -2 && yi[1] == 0 && yi[2] == 1 && yi[4] == 4, "range int32");
  }
}

static void random_ops() {
  const int64_t n = 1000003;
  const uint64_t key = 0x1234567887654321ull, offset = 77;
  {
    float* y = to_dev(std::vector<float>(n));
    launch_uniform_real(kFloat32, y, n, key, offset, 0);
    auto h = to_host<float>(y, n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      auto w = mycel::philox(key, 0, offset + i / 4);
      bad += h[i] != static_cast<float>(w[i % 4] >> 8) * 0x1p-24f;
    }
    CHECK(bad == 0, "uniform f32: %lld differ", (long long)bad);
    double* yd = to_dev(std::vector<double>(n));
    launch_uniform_real(kFloat64, yd, n, key, offset, 0);
    auto hd = to_host<double>(yd, n);
    bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      auto w = mycel::philox(key, 0, offset + i / 2);
      bad += hd[i] != mycel::uniform_double(w[2 * (i % 2)], w[2 * (i % 2) + 1]);
    }
    CHECK(bad == 0, "uniform f64: %lld differ", (long long)bad);
  }
  {
    double* yd = to_dev(std::vector<double>(n));
    launch_standard_normal(kFloat64, yd, n, key, offset, 0);
    auto hd = to_host<double>(yd, n);
    float* yf = to_dev(std::vector<float>(n));
    launch_standard_normal(kFloat32, yf, n, key, offset, 0);
    auto hf = to_host<float>(yf, n);
    double maxrel = 0;
    int64_t fdiff = 0;
    for (int64_t i = 0; i < n; ++i) {
      auto w = mycel::philox(key, 0, offset + i / 2);
      const double u1 = mycel::uniform_double(w[0], w[1]), u2 = mycel::uniform_double(w[2], w[3]);
      const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
      const double v = i % 2 == 0 ? r * std::cos(2 * M_PI * u2) : r * std::sin(2 * M_PI * u2);
      maxrel = std::max(maxrel, std::fabs(hd[i] - v) / (1e-3 + std::fabs(v)));
      fdiff += hf[i] != static_cast<float>(hd[i]);
    }
    CHECK(maxrel < 1e-12, "normal f64 vs glibc: max rel %g", maxrel);
    CHECK(fdiff == 0, "normal f32 != (float) f64: %lld", (long long)fdiff);
    std::printf("normal: max rel diff to the glibc formula %g\n", maxrel);
  }
}

int main() {
  // Sum/Mean/Max/Min over the plans: per thread, block per row, G blocks per row.
  reduce_f32(kReduceSum, false, {3, 100000}, {false, true});
  reduce_f32(kReduceSum, false, {513, 600}, {true, false});
  reduce_f32(kReduceSum, false, {600, 513}, {false, true});
  reduce_f32(kReduceSum, false, {2000, 10}, {false, true});
  reduce_f32(kReduceSum, false, {4, 5, 6}, {true, false, true});
  reduce_f32(kReduceSum, true, {300001}, {true});
  reduce_f32(kReduceSum, true, {2, 3, 4, 5}, {false, true, false, true});
  reduce_f32(kReduceMin, false, {100000, 5}, {true, false});
  reduce_f32(kReduceProd, false, {64, 20}, {false, true});
  for (int k : {kReduceMax, kReduceMin, kReduceSum}) {
    reduce_f32(k, false, {37, 300}, {false, true}, true);
    reduce_f32(k, false, {37, 300}, {true, false}, true);
    reduce_f32(k, false, {37, 300}, {true, true}, true);
    reduce_f32(k, false, {37, 3000}, {true, true}, true);
  }
  reduce_other();
  for (bool mx : {true, false}) {
    argmax(mx, 37, 300, 1);
    argmax(mx, 1, 300, 37);
    argmax(mx, 4, 5000, 1);
    argmax(mx, 2, 3000, 3);
    argmax(mx, 3, 1, 4);
  }
  index_ops();
  random_ops();
  cudaError_t e = cudaDeviceSynchronize();
  CHECK(e == cudaSuccess, "cuda: %s", cudaGetErrorString(e));
  std::printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
