// Kernel test cases for the random family (see kernel_cases.h). Every case names its seeds, so
// the kernel and the reference draw the same stream (seeds 0, 0 would take two different
// ranges of the global generator).
#include <cmath>

#include "kernel_cases.h"

namespace mycel::test {

namespace {

KernelCase rnd(const char* op, std::initializer_list<int64_t> shape, DType t, int64_t seed = 1,
               int64_t seed2 = 2) {
  KernelCase c;
  c.op = op;
  c.attrs = A({{"shape", ints(shape)}, {"seed", i64(seed)}, {"seed2", i64(seed2)}, {"dtype", t}});
  const bool half = t == DType::Float16 || t == DType::BFloat16;
  c.rtol = half ? 1e-2 : t == DType::Float32 ? 1e-6 : 1e-12;
  c.atol = half ? 1e-2 : t == DType::Float32 ? 1e-6 : 1e-12;
  c.label =
      std::string(dtype_name(t)) + " seeds " + std::to_string(seed) + "," + std::to_string(seed2);
  return c;
}

}  // namespace

std::vector<KernelCase> random_cases() {
  std::vector<KernelCase> v;
  for (const char* op : {"StandardNormal", "UniformReal"}) {
    for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      v.push_back(rnd(op, {7, 33}, t));
      v.push_back(rnd(op, {1031}, t));
      v.push_back(rnd(op, {}, t));
      v.push_back(rnd(op, {3, 0}, t));
      v.push_back(rnd(op, {300001}, t));
    }
    v.push_back(rnd(op, {5, 7}, DType::Float32, 0, 9));
    v.push_back(rnd(op, {5, 7}, DType::Float32, 123456789, 0));
    v.push_back(rnd(op, {2, 3, 4, 5}, DType::Float64, 42, 43));
  }
  // RandomPoisson: rates on both sides of the method switch at 10 (and 0), every output
  // dtype, rate dtypes float and int, a scalar rate, an empty shape; rates with no count
  // (negative, infinite, NaN: NaN or -1 out).
  auto poisson = [](std::initializer_list<int64_t> shape, DType rate_t, Shape rate_shape, DType t,
                    int64_t seed = 3, int64_t seed2 = 4, bool invalid = false) {
    KernelCase c;
    c.op = "RandomPoisson";
    c.attrs = A({{"shape", ints(shape)}, {"seed", i64(seed)}, {"seed2", i64(seed2)}, {"dtype", t}});
    c.rtol = c.atol = 0;  // counts: exact in every dtype used here
    c.label = std::string(dtype_name(t)) + " rate " + std::string(dtype_name(rate_t)) + " " +
              shape_str(rate_shape);
    if (invalid) c.label += " invalid rates";
    c.make_inputs = [rate_t, rate_shape, invalid] {
      Tensor r = Tensor::empty(rate_shape, DType::Float64);
      const double vals[] = {0.0, 0.5, 3.0, 9.99, 10.0, 17.0, 250.0, 4000.0};
      const double bad[] = {-0.5, 2.0, INFINITY, NAN, -INFINITY, 12.0, -1e9, 0.0};
      for (int64_t i = 0; i < r.numel(); ++i) r.data<double>()[i] = (invalid ? bad : vals)[i % 8];
      return std::vector<Tensor>{r.cast(rate_t)};
    };
    return c;
  };
  for (DType t : {DType::Float16, DType::Float32, DType::Float64, DType::Int32, DType::Int64})
    v.push_back(poisson({5, 3}, DType::Float32, {8}, t));
  v.push_back(poisson({4000}, DType::Float64, {8}, DType::Int64, 7, 0));
  v.push_back(poisson({2, 3}, DType::Int32, {2, 4}, DType::Int64));
  v.push_back(poisson({6}, DType::Float32, {}, DType::Float32));
  v.push_back(poisson({0, 3}, DType::Float32, {8}, DType::Int32));
  v.push_back(poisson({}, DType::Float32, {8}, DType::Float64));
  v.push_back(poisson({3}, DType::Float32, {8}, DType::Float32, 3, 4, true));
  v.push_back(poisson({3}, DType::Float64, {8}, DType::Int32, 3, 4, true));
  return v;
}

}  // namespace mycel::test
