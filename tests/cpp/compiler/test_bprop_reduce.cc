// Numerical checks of the reduce and linalg families' backward rules (see test_bprop_util.h).
#include "test_bprop_util.h"

namespace mycel::bproptest {
namespace {

Attrs red(std::vector<int64_t> axis, bool keep) {
  Attrs a;
  a.set("axis", std::move(axis));
  a.set("keep_dims", keep);
  return a;
}

Attrs mm(bool ta, bool tb) {
  Attrs a;
  a.set("transpose_a", ta);
  a.set("transpose_b", tb);
  return a;
}

}  // namespace

std::vector<Case> reduce_cases() {
  std::vector<Case> c;
  struct R {
    const char* n;
    OpId op;
    double lo, hi;
  };
  for (R r : {R{"Sum", OpId::ReduceSum, -1, 1}, R{"Mean", OpId::ReduceMean, -1, 1},
              R{"Max", OpId::ReduceMax, -1, 1}, R{"Min", OpId::ReduceMin, -1, 1},
              R{"Prod", OpId::ReduceProd, 0.5, 1.5}}) {
    std::string n = r.n;
    c.push_back(C(n + "_all", r.op, {f64({2, 3, 4}, r.lo, r.hi)}, red({}, false)));
    c.push_back(C(n + "_all_keep", r.op, {f64({2, 3, 4}, r.lo, r.hi)}, red({}, true)));
    c.push_back(C(n + "_axis1", r.op, {f64({2, 3, 4}, r.lo, r.hi)}, red({1}, false)));
    c.push_back(C(n + "_neg_axes_keep", r.op, {f64({2, 3, 4}, r.lo, r.hi)}, red({-1, 0}, true)));
    c.push_back(C(n + "_0d", r.op, {f64({}, r.lo, r.hi)}, red({}, false)));
  }
  return c;
}

std::vector<Case> linalg_cases() {
  std::vector<Case> c;
  c.push_back(C("MatMul_nn", OpId::MatMul, {f64({2, 3}), f64({3, 4})}, mm(false, false)));
  c.push_back(C("MatMul_nt", OpId::MatMul, {f64({2, 3}), f64({4, 3})}, mm(false, true)));
  c.push_back(C("MatMul_tn", OpId::MatMul, {f64({3, 2}), f64({3, 4})}, mm(true, false)));
  c.push_back(C("MatMul_tt", OpId::MatMul, {f64({3, 2}), f64({4, 3})}, mm(true, true)));
  c.push_back(
      C("BatchMatMul_nn", OpId::BatchMatMul, {f64({2, 2, 3}), f64({2, 3, 4})}, mm(false, false)));
  c.push_back(
      C("BatchMatMul_tt", OpId::BatchMatMul, {f64({2, 3, 2}), f64({2, 4, 3})}, mm(true, true)));
  c.push_back(C("BatchMatMul_bcast", OpId::BatchMatMul, {f64({2, 1, 2, 3}), f64({3, 3, 4})},
                mm(false, false)));
  c.push_back(C("BatchMatMul_rank2_b_nt", OpId::BatchMatMul, {f64({2, 2, 3}), f64({4, 3})},
                mm(false, true)));
  c.push_back(C("BatchMatMul_rank2_a_tn", OpId::BatchMatMul, {f64({3, 2}), f64({2, 3, 4})},
                mm(true, false)));
  Attrs nhwc;
  nhwc.set("data_format", std::string("NHWC"));
  c.push_back(C("BiasAdd_NCHW", OpId::BiasAdd, {f64({2, 3, 2, 2}), f64({3})}));
  c.push_back(C("BiasAdd_2d", OpId::BiasAdd, {f64({4, 3}), f64({3})}));
  c.push_back(C("BiasAdd_NHWC", OpId::BiasAdd, {f64({2, 2, 2, 3}), f64({3})}, nhwc));
  return c;
}

namespace {

class BpropReduce : public testing::TestWithParam<Case> {};
TEST_P(BpropReduce, MatchesFiniteDifferences) { check_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bprop, BpropReduce, testing::ValuesIn(reduce_cases()), case_name);

class BpropLinalg : public testing::TestWithParam<Case> {};
TEST_P(BpropLinalg, MatchesFiniteDifferences) { check_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bprop, BpropLinalg, testing::ValuesIn(linalg_cases()), case_name);

}  // namespace
}  // namespace mycel::bproptest
