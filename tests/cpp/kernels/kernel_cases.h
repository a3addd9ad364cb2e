// Kernel test cases: each op family lists cases (op, inputs, attributes); the harness in
// test_kernels_vs_ref.cc runs every case through the optimised kernel and the reference
// kernel and compares, and test_op_table.cc fails on any op without a case.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "ops/op_table.h"
#include "tensor/tensor.h"

namespace mycel::test {

// How an input is filled (deterministically, from the case's seed).
enum class Gen {
  Normal,    // standard normal
  Positive,  // uniform in [0.5, 2)
  Unit,      // uniform in (-1, 1)
  Int,       // integers in [lo, hi)
  Bool,      // random true/false
};

struct InputSpec {
  Shape shape;
  DType dtype = DType::Float32;
  Gen gen = Gen::Normal;
  int64_t lo = 0, hi = 10;  // for Gen::Int
};

struct KernelCase {
  std::string op;
  std::vector<InputSpec> inputs;
  Attrs attrs;  // user-level; defaults are filled in by make_attrs
  double rtol = 1e-5;
  double atol = 1e-6;
  // Optional: builds inputs itself (e.g. unique indices), overriding `inputs`.
  std::function<std::vector<Tensor>()> make_inputs;
  std::string label;  // shown in failures
};

Tensor make_input(const InputSpec& s, uint64_t seed);

// The harnesses that run every case (test_kernels_vs_ref.cc on the CPU, tests/cpp/cuda's
// test_cuda_vs_cpu.cc on a GPU) build inputs and name cases alike:
//
// A case's inputs: make_inputs(), or input i filled from seed 1000 * index + i + 1.
std::vector<Tensor> inputs_for(const KernelCase& c, size_t index);
// inputs_for(c, 7) as the dispatcher hands them to op's kernels: cast to the promoted dtypes,
// contiguous unless the op takes strided inputs (F_STRIDED). *metas: their dtypes and shapes.
std::vector<Tensor> kernel_inputs(const OpDef& op, const KernelCase& c,
                                  std::vector<TensorMeta>* metas);
// A test name for case number `index`: "<op>_<index>", other characters as '_'.
std::string case_name(const KernelCase& c, size_t index);
// The same as gtest's name generator (INSTANTIATE_TEST_SUITE_P's last argument).
struct CaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return case_name(info.param, info.index);
  }
};

// One list per family, defined in cases_<family>.cc.
std::vector<KernelCase> elementwise_cases();
std::vector<KernelCase> reduce_cases();
std::vector<KernelCase> linalg_cases();
std::vector<KernelCase> nn_cases();
std::vector<KernelCase> array_cases();
std::vector<KernelCase> random_cases();
std::vector<KernelCase> optim_cases();
std::vector<KernelCase> all_kernel_cases();  // every family above, not comm_cases
// The collective family's cases, which need several processes (cases_comm.cc).
std::vector<KernelCase> comm_cases();

// Small builders for Attrs in case tables: A({{"axis", i64(1)}, {"keep_dims", true}}).
Attrs A(std::initializer_list<std::pair<const char*, AttrValue>> kv);
inline AttrValue i64(int64_t v) { return v; }
inline AttrValue ints(std::initializer_list<int64_t> v) { return std::vector<int64_t>(v); }

// Compares two tensors elementwise (same shape and dtype); returns "" or a description of
// the first mismatch. NaNs must match NaNs.
std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol);

}  // namespace mycel::test
