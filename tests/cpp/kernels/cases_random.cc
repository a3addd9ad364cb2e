// Kernel test cases for the random family (see kernel_cases.h). Every case names its seeds, so
// the kernel and the reference draw the same stream (seeds 0, 0 would take two different
// ranges of the global generator).
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
  return v;
}

}  // namespace mycel::test
