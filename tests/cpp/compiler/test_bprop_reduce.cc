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
  // Scans, every flag combination; CumProd's inputs away from 0 (its zeros are checked
  // against torch in tests/python/test_ops_sort_scan.py).
  for (OpId op : {OpId::CumSum, OpId::CumProd}) {
    const std::string n = op == OpId::CumSum ? "CumSum" : "CumProd";
    const double lo = op == OpId::CumSum ? -1 : 0.5, hi = op == OpId::CumSum ? 1 : 1.5;
    for (bool excl : {false, true}) {
      for (bool rev : {false, true}) {
        Attrs a;
        a.set("exclusive", excl);
        a.set("reverse", rev);
        a.set("axis", int64_t{excl ? -1 : 1});
        const std::string tag = std::string(excl ? "_excl" : "") + (rev ? "_rev" : "");
        c.push_back(C(n + tag, op, {f64({2, 5, 3}, lo, hi)}, a));
      }
    }
    Attrs a;
    a.set("axis", int64_t{0});
    c.push_back(C(n + "_0d", op, {f64({}, lo, hi)}, a));
  }
  // Sort and TopK: the values' cotangent goes back through the indices.
  for (bool desc : {false, true}) {
    Attrs a;
    a.set("axis", int64_t{desc ? 0 : -1});
    a.set("descending", desc);
    c.push_back(C(desc ? "Sort_desc_axis0" : "Sort_last", OpId::Sort, {f64({4, 3, 5})}, a, {0}));
  }
  for (bool sorted : {false, true}) {
    Attrs a;
    a.set("k", int64_t{3});
    a.set("sorted", sorted);
    c.push_back(C(sorted ? "TopK_sorted" : "TopK_unsorted", OpId::TopK, {f64({2, 3, 7})}, a, {0}));
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
  // FFTN on float64 inputs (complex inputs: against torch.autograd in tests/python/test_fft.py);
  // padding, truncation, every mode and norm.
  auto fft = [](std::vector<int64_t> axes, std::vector<int64_t> sizes, bool inv, const char* norm,
                const char* mode) {
    Attrs a;
    a.set("axes", axes);
    a.set("sizes", sizes);
    a.set("inverse", inv);
    a.set("norm", std::string(norm));
    a.set("mode", std::string(mode));
    return a;
  };
  c.push_back(
      C("FFTN_c2c_pad", OpId::FFTN, {f64({2, 5})}, fft({1}, {7}, false, "backward", "c2c")));
  c.push_back(
      C("FFTN_c2c_2d_trunc", OpId::FFTN, {f64({4, 3})}, fft({0, 1}, {3, 5}, true, "ortho", "c2c")));
  c.push_back(
      C("FFTN_r2c_even", OpId::FFTN, {f64({3, 8})}, fft({1}, {8}, false, "forward", "r2c")));
  c.push_back(C("FFTN_r2c_odd", OpId::FFTN, {f64({3, 6})}, fft({1}, {7}, true, "backward", "r2c")));
  c.push_back(
      C("FFTN_c2r_even", OpId::FFTN, {f64({2, 5})}, fft({1}, {8}, true, "backward", "c2r")));
  c.push_back(
      C("FFTN_c2r_odd_2d", OpId::FFTN, {f64({3, 4})}, fft({1, 0}, {7, 2}, false, "ortho", "c2r")));
  // CSRMM of a 4 x 3 CSR matrix (an empty row, a column repeated in a row, columns out of
  // order) with a dense operand; int32 and int64 index arrays, both transposes.
  for (DType it : {DType::Int32, DType::Int64}) {
    for (bool ta : {false, true}) {
      Attrs a;
      a.set("dense_shape", std::vector<int64_t>{4, 3});
      a.set("transpose_a", ta);
      Tensor ptr = ints(it, {5}, {0, 2, 2, 5, 6});
      Tensor idx = ints(it, {6}, {2, 0, 1, 1, 0, 2});
      c.push_back(
          C(std::string("CSRMM_") + (it == DType::Int32 ? "i32" : "i64") + (ta ? "_ta" : ""),
            OpId::CSRMM, {fixed(ptr), fixed(idx), f64({6}), f64({ta ? 4 : 3, 5})}, a));
    }
  }
  Attrs one_row;
  one_row.set("dense_shape", std::vector<int64_t>{1, 3});
  c.push_back(C("CSRMM_one_row", OpId::CSRMM,
                {fixed(ints(DType::Int64, {2}, {0, 2})), fixed(ints(DType::Int64, {2}, {2, 0})),
                 f64({2}), f64({3, 2})},
                one_row));
  // COOMM of 5 unsorted entries of a 4 x 3 matrix (one position twice, a row empty), int32 and
  // int64 indices, both transposes.
  for (DType it : {DType::Int32, DType::Int64}) {
    for (bool ta : {false, true}) {
      Attrs a;
      a.set("dense_shape", std::vector<int64_t>{4, 3});
      a.set("transpose_a", ta);
      Tensor rows = ints(it, {5}, {3, 0, 2, 0, 3});
      Tensor cols = ints(it, {5}, {1, 2, 0, 2, 0});
      c.push_back(
          C(std::string("COOMM_") + (it == DType::Int32 ? "i32" : "i64") + (ta ? "_ta" : ""),
            OpId::COOMM, {fixed(rows), fixed(cols), f64({5}), f64({ta ? 4 : 3, 2})}, a));
    }
  }
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
