// Kernel test cases for the linalg family (see kernel_cases.h).
#include <cmath>

#include "kernel_cases.h"

namespace mycel::test {

namespace {

InputSpec spec(Shape s, DType t) {
  if (t == DType::UInt8) return {s, t, Gen::Int, 0, 12};
  if (!is_floating(t) && !is_complex(t)) return {s, t, Gen::Int, -12, 12};
  return {s, t, Gen::Normal};
}

KernelCase mm(const char* op, Shape a, Shape b, DType t, bool ta = false, bool tb = false,
              std::string label = "") {
  KernelCase c;
  c.op = op;
  c.inputs = {spec(a, t), spec(b, t)};
  c.attrs = A({{"transpose_a", ta}, {"transpose_b", tb}});
  const bool half = t == DType::Float16 || t == DType::BFloat16;
  const bool single = t == DType::Float32 || t == DType::Complex64;
  c.rtol = half ? 1e-2 : single ? 1e-4 : 1e-10;
  c.atol = half ? 5e-2 : single ? 1e-4 : 1e-10;
  c.label = shape_str(a) + " x " + shape_str(b) + " " + std::string(dtype_name(t)) +
            (ta ? " ta" : "") + (tb ? " tb" : "") + (label.empty() ? "" : " " + label);
  return c;
}

KernelCase bias(Shape x, int64_t c, DType t, const char* fmt) {
  KernelCase k;
  k.op = "BiasAdd";
  k.inputs = {spec(x, t), spec({c}, t)};
  k.attrs = A({{"data_format", std::string(fmt)}});
  k.rtol = t == DType::Float16 || t == DType::BFloat16 ? 1e-2 : 1e-6;
  k.label = shape_str(x) + " " + fmt + " " + std::string(dtype_name(t));
  return k;
}

// FFTN: tolerances scale with the result's magnitude (sqrt(N) * scale for unit-normal input)
// and the rounding steps (log2 N).
KernelCase fft(Shape x, DType t, std::vector<int64_t> axes, std::vector<int64_t> sizes,
               bool inverse, const char* norm, const char* mode) {
  KernelCase c;
  c.op = "FFTN";
  c.inputs = {spec(x, t)};
  c.attrs = A({{"axes", axes},
               {"sizes", sizes},
               {"inverse", inverse},
               {"norm", std::string(norm)},
               {"mode", std::string(mode)}});
  double n = 1;
  for (int64_t s : sizes) n *= static_cast<double>(s);
  const std::string nm = norm;
  const bool scaled = nm == "ortho" ? false : (nm == "forward") != inverse;
  const double mag = nm == "ortho" ? 1.0 : scaled ? 1.0 / std::sqrt(n) : std::sqrt(n);
  const double steps = 2.0 + std::log2(n);
  const bool single = t == DType::Float32 || t == DType::Complex64;
  c.rtol = single ? 1e-4 : 1e-10;
  c.atol = (single ? 2e-6 : 1e-14) * mag * steps;
  std::string sz;
  for (int64_t s : sizes) sz += std::to_string(s) + " ";
  c.label = shape_str(x) + " " + std::string(dtype_name(t)) + " " + mode + " n=" + sz + norm +
            (inverse ? " inverse" : "");
  return c;
}

void add_fft(std::vector<KernelCase>& v) {
  const char* norms[] = {"backward", "forward", "ortho"};
  int k = 0;
  auto next_norm = [&] { return norms[k++ % 3]; };
  for (DType t : {DType::Complex64, DType::Complex128}) {
    for (int64_t n : {1, 2, 3, 5, 7, 12, 17, 64, 100}) {
      for (bool inv : {false, true}) v.push_back(fft({3, n}, t, {1}, {n}, inv, next_norm(), "c2c"));
    }
    v.push_back(fft({10, 4}, t, {0}, {16}, false, next_norm(), "c2c"));  // padding
    v.push_back(fft({10, 4}, t, {0}, {7}, true, next_norm(), "c2c"));    // truncation
    v.push_back(fft({5, 3, 12}, t, {0, 2}, {5, 12}, false, next_norm(), "c2c"));
    v.push_back(fft({5, 3, 12}, t, {2, 0}, {9, 8}, true, next_norm(), "c2c"));
    v.push_back(fft({4, 6, 5}, t, {0, 1, 2}, {4, 6, 5}, false, next_norm(), "c2c"));
    for (int64_t n : {1, 2, 5, 8, 17, 100}) {
      for (bool inv : {false, true})
        v.push_back(fft({3, n / 2 + 1}, t, {1}, {n}, inv, next_norm(), "c2r"));
    }
    v.push_back(fft({6, 5}, t, {0, 1}, {6, 8}, true, next_norm(), "c2r"));
    v.push_back(fft({4, 9}, t, {1}, {8}, true, next_norm(), "c2r"));   // half spectrum truncated
    v.push_back(fft({4, 3}, t, {1}, {12}, true, next_norm(), "c2r"));  // and padded
    v.push_back(fft({7, 4, 3}, t, {2, 0}, {5, 7}, false, next_norm(), "c2r"));
  }
  for (DType t : {DType::Float32, DType::Float64}) {
    for (int64_t n : {1, 2, 5, 8, 17, 100}) {
      for (bool inv : {false, true}) v.push_back(fft({3, n}, t, {1}, {n}, inv, next_norm(), "r2c"));
    }
    v.push_back(fft({6, 9}, t, {0, 1}, {6, 9}, false, next_norm(), "r2c"));
    v.push_back(fft({6, 9}, t, {1, 0}, {4, 12}, false, next_norm(), "r2c"));
    v.push_back(fft({2, 13, 3}, t, {1}, {13}, false, next_norm(), "c2c"));  // real promoted
    v.push_back(fft({2, 6, 3}, t, {0, 1}, {3, 10}, true, next_norm(), "c2c"));
  }
  // Lengths exercising each butterfly of the CPU kernel's mixed-radix plan (3, 9, 243: radix 3;
  // 25: radix 5; 15, 45, 60, 1000: mixed; 4096: radix 4; 49: the generic prime radix) and
  // Bluestein (997 prime, 4097 = 17 * 241), in every mode; even real lengths take the
  // half-length complex transform.
  for (int64_t n : {3, 9, 15, 25, 45, 49, 60, 243, 997, 1000, 4096, 4097}) {
    const int64_t lead = n > 1000 ? 1 : 2;  // the reference is O(n^2) per line
    for (DType t : {DType::Complex64, DType::Complex128}) {
      v.push_back(fft({lead, n}, t, {1}, {n}, n % 2 == 0, next_norm(), "c2c"));
      v.push_back(fft({lead, n / 2 + 1}, t, {1}, {n}, n % 3 != 0, next_norm(), "c2r"));
    }
    for (DType t : {DType::Float32, DType::Float64})
      v.push_back(fft({lead, n}, t, {1}, {n}, n % 5 == 0, next_norm(), "r2c"));
  }
  for (DType t : {DType::Complex64, DType::Float64}) {  // strided real axes (axis 0), both ways
    v.push_back(fft({5, 4, 3}, is_complex(t) ? t : DType::Complex128, {2, 0}, {5, 8}, true,
                    next_norm(), "c2r"));
    v.push_back(fft({5, 4, 3}, is_complex(t) ? t : DType::Complex128, {2, 0}, {6, 8}, false,
                    next_norm(), "c2r"));
    v.push_back(fft({10, 3}, is_complex(t) ? DType::Float32 : t, {1, 0}, {3, 10}, true, next_norm(),
                    "r2c"));
  }
  // Strided axes of at least a block of columns (inner >= 16), transformed in place of the
  // gather (FftPlan::run_lines): a short last block, truncation, the generic radix 7 and
  // Bluestein (37); and rows of odd count.
  for (DType t : {DType::Complex64, DType::Complex128}) {
    v.push_back(fft({12, 40}, t, {0}, {12}, false, next_norm(), "c2c"));
    v.push_back(fft({12, 40}, t, {0}, {10}, true, next_norm(), "c2c"));
    v.push_back(fft({7, 24}, t, {0}, {7}, false, next_norm(), "c2c"));
    v.push_back(fft({37, 20}, t, {0}, {37}, true, next_norm(), "c2c"));
    v.push_back(fft({2, 16, 3, 64}, t, {1, 3}, {16, 64}, false, next_norm(), "c2c"));
    v.push_back(fft({3, 512}, t, {1}, {512}, false, next_norm(), "c2c"));
  }
  // Real transforms of a strided axis whose lines lie side by side (inner >= 16: blocks of 16
  // columns, a short last block), with padding and an odd count read.
  for (DType t : {DType::Float32, DType::Float64}) {
    v.push_back(fft({16, 20}, t, {0}, {16}, false, next_norm(), "r2c"));
    v.push_back(fft({9, 18}, t, {0}, {12}, true, next_norm(), "r2c"));
  }
  for (DType t : {DType::Complex64, DType::Complex128}) {
    v.push_back(fft({9, 20}, t, {0}, {16}, false, next_norm(), "c2r"));
    v.push_back(fft({5, 2, 17}, t, {0}, {12}, true, next_norm(), "c2r"));
  }
  // Real transforms of odd length (no half-length transform: blocks of complex lines, r2c
  // keeping n / 2 + 1 bins, c2r extending the half spectrum): rows in blocks with a short last
  // one, padded and truncated input, strided columns.
  for (int64_t n : {3, 15, 63, 999, 4095}) {
    const int64_t lead = n >= 999 ? 3 : 17;  // blocks: 16 lines below 512 entries, 2 at 4095
    const int64_t h = n / 2 + 1;
    for (DType t : {DType::Float32, DType::Float64}) {
      v.push_back(fft({lead, n}, t, {1}, {n}, n % 7 == 0, next_norm(), "r2c"));
      if (n > 999) continue;  // the reference is O(n^2) per line: 4095's full rows only
      v.push_back(fft({lead, std::max<int64_t>(1, n - 2)}, t, {1}, {n}, false, next_norm(), "r2c"));
      v.push_back(fft({lead, n + 4}, t, {1}, {n}, true, next_norm(), "r2c"));
      if (n <= 63) v.push_back(fft({n, 20}, t, {0}, {n}, false, next_norm(), "r2c"));
    }
    for (DType t : {DType::Complex64, DType::Complex128}) {
      v.push_back(fft({lead, h}, t, {1}, {n}, n % 5 != 0, next_norm(), "c2r"));
      if (n > 999) continue;
      v.push_back(fft({lead, std::max<int64_t>(1, h - 2)}, t, {1}, {n}, true, next_norm(), "c2r"));
      v.push_back(fft({lead, h + 5}, t, {1}, {n}, false, next_norm(), "c2r"));
      if (n <= 63) v.push_back(fft({h, 20}, t, {0}, {n}, true, next_norm(), "c2r"));
    }
  }
  // Several passes over groups of leading slices (512 KiB of work a group: 512 slices of 8 x 8
  // complex128, 1024 of complex64, then a last group of one), in every mode.
  v.push_back(fft({513, 8, 8}, DType::Complex128, {1, 2}, {8, 8}, false, "ortho", "c2c"));
  v.push_back(fft({1025, 8, 8}, DType::Float32, {1, 2}, {8, 8}, false, "backward", "r2c"));
  v.push_back(fft({1025, 8, 5}, DType::Complex64, {1, 2}, {8, 8}, true, "backward", "c2r"));
  v.push_back(fft({0, 5}, DType::Complex64, {1}, {5}, false, "backward", "c2c"));
  v.push_back(fft({64, 256}, DType::Float32, {0, 1}, {64, 256}, false, "backward", "r2c"));
}

// Eig of random (*, N, N) matrices: the kernel's QR algorithm against the reference's
// characteristic-polynomial roots, both in canonical order and scaling.
KernelCase eig(Shape x, DType t, bool vectors, std::string label = "") {
  KernelCase c;
  c.op = "Eig";
  c.inputs = {spec(x, t)};
  c.attrs = A({{"compute_v", vectors}});
  const bool single = t == DType::Float32 || t == DType::Complex64;
  c.rtol = single ? 2e-4 : 1e-7;
  c.atol = single ? 2e-4 : 1e-7;
  c.label = shape_str(x) + " " + std::string(dtype_name(t)) + (vectors ? " vectors" : "") +
            (label.empty() ? "" : " " + label);
  return c;
}

// CSRMM of a random CSR matrix [m, k] (about `per_row` entries a row, some rows empty,
// columns unordered and repeated within a row) with a random dense operand of n columns.
KernelCase csrmm(int64_t m, int64_t k, int64_t n, int64_t per_row, DType t, DType it, bool ta,
                 std::string label = "") {
  KernelCase c;
  c.op = "CSRMM";
  c.attrs = A({{"dense_shape", ints({m, k})}, {"transpose_a", ta}});
  const bool single = t == DType::Float32;
  c.rtol = single ? 1e-4 : 1e-10;
  c.atol = single ? 1e-4 : 1e-10;
  c.make_inputs = [=] {
    uint64_t state = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(m * 131 + k * 7 + n);
    auto next = [&state](int64_t bound) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return bound <= 0 ? int64_t{0}
                        : static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(bound));
    };
    std::vector<int64_t> ptr{0}, cols;
    for (int64_t r = 0; r < m; ++r) {
      const int64_t cnt = k == 0 || next(5) == 0 ? 0 : next(2 * per_row + 1);
      for (int64_t j = 0; j < cnt; ++j) cols.push_back(next(k));
      ptr.push_back(static_cast<int64_t>(cols.size()));
    }
    const int64_t nnz = static_cast<int64_t>(cols.size());
    Tensor tp = Tensor::empty({m + 1}, it), ti = Tensor::empty({nnz}, it);
    for (int64_t i = 0; i <= m; ++i) {
      if (it == DType::Int32)
        tp.data<int32_t>()[i] = static_cast<int32_t>(ptr[static_cast<size_t>(i)]);
      else
        tp.data<int64_t>()[i] = ptr[static_cast<size_t>(i)];
    }
    for (int64_t j = 0; j < nnz; ++j) {
      if (it == DType::Int32)
        ti.data<int32_t>()[j] = static_cast<int32_t>(cols[static_cast<size_t>(j)]);
      else
        ti.data<int64_t>()[j] = cols[static_cast<size_t>(j)];
    }
    return std::vector<Tensor>{tp, ti, make_input(spec({nnz}, t), 11),
                               make_input(spec({ta ? m : k, n}, t), 12)};
  };
  c.label = std::to_string(m) + "x" + std::to_string(k) + " @ " + std::to_string(n) + " cols " +
            std::string(dtype_name(t)) + " " + std::string(dtype_name(it)) + (ta ? " ta" : "") +
            (label.empty() ? "" : " " + label);
  return c;
}

// COOMM of `nnz` random entries of an [m, k] matrix (unsorted, some positions repeated), int32
// or int64 rows and cols (ri, ci), with a random dense operand of n columns.
KernelCase coomm(int64_t m, int64_t k, int64_t n, int64_t nnz, DType t, DType ri, DType ci, bool ta,
                 std::string label = "") {
  KernelCase c;
  c.op = "COOMM";
  c.attrs = A({{"dense_shape", ints({m, k})}, {"transpose_a", ta}});
  const bool single = t == DType::Float32;
  c.rtol = single ? 1e-4 : 1e-10;
  c.atol = single ? 1e-4 : 1e-10;
  c.make_inputs = [=] {
    uint64_t state = 0x2545f4914f6cdd1dull ^ static_cast<uint64_t>(m * 131 + k * 7 + n + nnz);
    auto next = [&state](int64_t bound) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return bound <= 0 ? int64_t{0}
                        : static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(bound));
    };
    Tensor tr = Tensor::empty({nnz}, ri), tc = Tensor::empty({nnz}, ci);
    auto put = [](Tensor& x, int64_t j, int64_t v) {
      if (x.dtype() == DType::Int32)
        x.data<int32_t>()[j] = static_cast<int32_t>(v);
      else
        x.data<int64_t>()[j] = v;
    };
    for (int64_t j = 0; j < nnz; ++j) {
      put(tr, j, next(m));
      put(tc, j, next(k));
    }
    return std::vector<Tensor>{tr, tc, make_input(spec({nnz}, t), 11),
                               make_input(spec({ta ? m : k, n}, t), 12)};
  };
  c.label = std::to_string(m) + "x" + std::to_string(k) + " (" + std::to_string(nnz) +
            " entries) @ " + std::to_string(n) + " cols " + std::string(dtype_name(t)) + " " +
            std::string(dtype_name(ri)) + "/" + std::string(dtype_name(ci)) + (ta ? " ta" : "") +
            (label.empty() ? "" : " " + label);
  return c;
}

void add_eig_csrmm(std::vector<KernelCase>& v) {
  for (DType t : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    for (int64_t n : {1, 2, 3, 5, 6}) {
      v.push_back(eig({n, n}, t, false));
      v.push_back(eig({n, n}, t, true));
    }
    v.push_back(eig({3, 4, 4}, t, true, "batched"));
    v.push_back(eig({2, 0, 0}, t, true, "N = 0"));
    v.push_back(eig({0, 3, 3}, t, false, "no matrices"));
  }
  KernelCase nan = eig({2, 3, 3}, DType::Float64, true, "NaN in one matrix");
  nan.make_inputs = [] {
    Tensor x = make_input({{2, 3, 3}, DType::Float64, Gen::Normal}, 5);
    x.data<double>()[4] = std::nan("");
    return std::vector<Tensor>{x};
  };
  v.push_back(nan);
  for (DType t : {DType::Float32, DType::Float64}) {
    for (DType it : {DType::Int32, DType::Int64}) {
      for (bool ta : {false, true}) {
        v.push_back(csrmm(7, 5, 3, 2, t, it, ta));
        v.push_back(csrmm(300, 200, 67, 6, t, it, ta, "threaded"));
        v.push_back(csrmm(4, 6, 1, 3, t, it, ta, "one column"));
      }
    }
    v.push_back(csrmm(0, 4, 3, 2, t, DType::Int64, false, "M = 0"));
    v.push_back(csrmm(5, 0, 3, 2, t, DType::Int64, true, "K = 0"));
    v.push_back(csrmm(5, 4, 0, 2, t, DType::Int32, false, "N = 0"));
    for (bool ta : {false, true}) {
      v.push_back(coomm(7, 5, 3, 12, t, DType::Int32, DType::Int64, ta));
      v.push_back(coomm(6, 9, 4, 30, t, DType::Int64, DType::Int32, ta, "repeats"));
      // past kSerialWork (nnz * N >= 2^20): the counting sort and the row-parallel loop
      v.push_back(coomm(300, 200, 64, 17000, t, DType::Int64, DType::Int64, ta, "threaded"));
    }
    v.push_back(coomm(0, 4, 3, 0, t, DType::Int64, DType::Int64, false, "M = 0"));
    v.push_back(coomm(5, 0, 3, 0, t, DType::Int64, DType::Int64, true, "K = 0"));
    v.push_back(coomm(5, 4, 0, 6, t, DType::Int32, DType::Int32, false, "N = 0"));
    v.push_back(coomm(5, 4, 3, 0, t, DType::Int32, DType::Int32, true, "no entries"));
  }
}

}  // namespace

std::vector<KernelCase> linalg_cases() {
  std::vector<KernelCase> v;
  const DType numeric[] = {DType::Int8,     DType::UInt8,   DType::Int16,
                           DType::Int32,    DType::Int64,   DType::Float16,
                           DType::BFloat16, DType::Float32, DType::Float64};
  for (DType t : numeric) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Shape a = ta ? Shape{33, 7} : Shape{7, 33};
        Shape b = tb ? Shape{5, 33} : Shape{33, 5};
        v.push_back(mm("MatMul", a, b, t, ta, tb));
      }
    }
    // Past the small-product path of the blocked kernel: several blocks of M, N and K, edges.
    v.push_back(mm("MatMul", {101, 300}, {300, 67}, t));
    v.push_back(mm("MatMul", {300, 101}, {67, 300}, t, true, true));
    v.push_back(mm("BatchMatMul", {3, 7, 5}, {3, 5, 4}, t));
    v.push_back(mm("BatchMatMul", {2, 1, 9, 5}, {3, 5, 4}, t, false, false, "broadcast"));
    v.push_back(mm("BatchMatMul", {4, 6, 5}, {5, 3}, t, false, false, "shared x2"));
  }
  // Sizes for the threaded paths; zero sizes; 1-wide edges.
  v.push_back(mm("MatMul", {300, 257}, {257, 301}, DType::Float32));
  v.push_back(mm("MatMul", {257, 300}, {301, 257}, DType::Float32, true, true));
  v.push_back(mm("MatMul", {200, 520}, {520, 2100}, DType::Float64, false, false, "several nc/kc"));
  v.push_back(mm("MatMul", {131, 300}, {2100, 300}, DType::Int32, false, true, "several nc"));
  v.push_back(mm("MatMul", {1, 33}, {33, 1}, DType::Float32));
  v.push_back(mm("MatMul", {1, 1031}, {1031, 1}, DType::Float64));
  v.push_back(mm("MatMul", {0, 5}, {5, 3}, DType::Float32, false, false, "M = 0"));
  v.push_back(mm("MatMul", {4, 0}, {0, 3}, DType::Float32, false, false, "K = 0"));
  v.push_back(mm("MatMul", {4, 0}, {0, 3}, DType::Float64, false, false, "K = 0"));
  v.push_back(mm("MatMul", {4, 0}, {0, 3}, DType::Int32, false, false, "K = 0"));
  v.push_back(mm("MatMul", {4, 5}, {5, 0}, DType::Float32, false, false, "N = 0"));
  for (DType t : {DType::Float32, DType::Float64, DType::Int64}) {
    v.push_back(mm("BatchMatMul", {3, 5, 7}, {3, 4, 5}, t, true, true));
    v.push_back(mm("BatchMatMul", {3, 5, 7}, {1, 5, 4}, t, true, false, "x2 broadcast"));
    v.push_back(mm("BatchMatMul", {6, 5}, {2, 4, 5, 3}, t, false, false, "shared x1"));
    v.push_back(mm("BatchMatMul", {2, 4, 6, 5}, {5, 3}, t, false, false, "shared x2 rank 4"));
    v.push_back(mm("BatchMatMul", {2, 4, 5, 6}, {5, 3}, t, true, false, "shared x2, ta"));
    v.push_back(mm("BatchMatMul", {96, 16, 24}, {96, 24, 16}, t, false, false, "many small"));
    v.push_back(mm("BatchMatMul", {0, 3, 4}, {0, 4, 5}, t, false, false, "no batches"));
    v.push_back(mm("BatchMatMul", {2, 3, 0}, {2, 0, 5}, t, false, false, "K = 0"));
  }
  v.push_back(mm("BatchMatMul", {3, 200, 150}, {3, 170, 150}, DType::Float32, false, true, "big"));
  // bfloat16 on oneDNN's bf16 matmul: threaded sizes, transposes, batches (broadcast, shared
  // operands, many small ones), and more batch dims than the primitive takes (widened path).
  const DType bf = DType::BFloat16;
  v.push_back(mm("MatMul", {300, 257}, {257, 301}, bf, false, false, "threaded"));
  v.push_back(mm("MatMul", {257, 300}, {301, 257}, bf, true, true, "threaded"));
  v.push_back(mm("MatMul", {1, 1031}, {1031, 1}, bf));
  v.push_back(mm("BatchMatMul", {3, 200, 150}, {3, 170, 150}, bf, false, true, "big"));
  v.push_back(mm("BatchMatMul", {3, 5, 7}, {1, 5, 4}, bf, true, false, "x2 broadcast"));
  v.push_back(mm("BatchMatMul", {6, 5}, {2, 4, 5, 3}, bf, false, false, "shared x1"));
  v.push_back(mm("BatchMatMul", {2, 4, 5, 6}, {5, 3}, bf, true, false, "shared x2, ta"));
  v.push_back(mm("BatchMatMul", {96, 16, 24}, {96, 24, 16}, bf, false, false, "many small"));
  v.push_back(mm("BatchMatMul", {2, 3, 0}, {2, 0, 5}, bf, false, false, "K = 0"));
  v.push_back(mm("BatchMatMul", {2, 1, 2, 1, 2, 3, 4}, {1, 2, 1, 2, 1, 4, 5}, bf, false, false,
                 "5 batch dims"));
  v.push_back(mm("BatchMatMul", {8, 128, 64}, {64, 96}, DType::Float32, false, false, "folded"));
  // complex64/complex128: the blocked complex kernel (several k, n and m blocks) against the
  // reference triple loop.
  for (DType t : {DType::Complex64, DType::Complex128}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        v.push_back(mm("MatMul", ta ? Shape{33, 7} : Shape{7, 33}, tb ? Shape{5, 33} : Shape{33, 5},
                       t, ta, tb));
        v.push_back(mm("MatMul", ta ? Shape{300, 70} : Shape{70, 300},
                       tb ? Shape{290, 300} : Shape{300, 290}, t, ta, tb, "blocks"));
      }
    }
    v.push_back(mm("BatchMatMul", {2, 1, 9, 5}, {3, 5, 4}, t, false, false, "broadcast"));
    v.push_back(mm("BatchMatMul", {4, 6, 5}, {5, 3}, t, false, false, "shared x2"));
    v.push_back(mm("BatchMatMul", {3, 5, 7}, {1, 5, 4}, t, true, false, "x2 broadcast"));
    v.push_back(mm("MatMul", {4, 0}, {0, 3}, t, false, false, "K = 0"));
    v.push_back(mm("MatMul", {0, 5}, {5, 3}, t, false, false, "M = 0"));
  }
  v.push_back(mm("BatchMatMul", {2, 1, 140, 150}, {1, 3, 150, 130}, DType::Float64, false, false,
                 "broadcast big"));

  for (DType t : numeric) {
    v.push_back(bias({33, 7}, 7, t, "NCHW"));
    v.push_back(bias({4, 6, 5, 7}, 6, t, "NCHW"));
    v.push_back(bias({4, 6, 5, 7}, 7, t, "NHWC"));
  }
  v.push_back(bias({2, 3, 4, 5, 6}, 3, DType::Float32, "NCDHW"));
  v.push_back(bias({16, 64, 33, 31}, 64, DType::Float32, "NCHW"));
  v.push_back(bias({16, 33, 31, 64}, 64, DType::Float32, "NHWC"));
  v.push_back(bias({0, 5}, 5, DType::Float32, "NCHW"));
  v.push_back(bias({3, 5, 0}, 5, DType::Float32, "NCHW"));
  for (DType t : {DType::Complex64, DType::Complex128}) {  // complex (x + b exactly)
    v.push_back(bias({4, 6, 5, 7}, 6, t, "NCHW"));
    v.push_back(bias({4, 6, 5, 7}, 7, t, "NHWC"));
    v.push_back(bias({16, 33, 31, 64}, 64, t, "NHWC"));
  }
  add_fft(v);
  add_eig_csrmm(v);
  return v;
}

}  // namespace mycel::test
