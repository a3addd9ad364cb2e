// Tensor printing: to_string() is numpy 1.24's str(array) (expected strings are numpy's
// output for the same arrays), repr() is MindSpore's Tensor repr.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tensor/tensor.h"

namespace mycel {
namespace {

Tensor make(const std::vector<double>& v, const Shape& shape, DType t) {
  Tensor x = Tensor::empty(shape, DType::Float64);
  for (size_t i = 0; i < v.size(); ++i) x.data<double>()[i] = v[i];
  return x.cast(t);
}

Tensor arange(int64_t n, double scale, DType t) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i) * scale);
  return make(v, {n}, t);
}

TEST(Print, MatchesNumpyStr) {
  EXPECT_EQ(make({4, 10, 18}, {3}, DType::Float32).to_string(), "[ 4. 10. 18.]");
  EXPECT_EQ(make({1, -22, 3, 4, 5, 666}, {2, 3}, DType::Int64).to_string(),
            "[[  1 -22   3]\n [  4   5 666]]");
  EXPECT_EQ(make({1e-5, 1.0, 1e5}, {3}, DType::Float64).to_string(), "[1.e-05 1.e+00 1.e+05]");
  EXPECT_EQ(make({1.5, NAN, -INFINITY, 2.25}, {4}, DType::Float32).to_string(),
            "[1.5   nan -inf 2.25]");
  EXPECT_EQ(make({0.1, 57728, -3.5}, {3}, DType::Float16).to_string(),
            "[ 9.998e-02  5.773e+04 -3.500e+00]");
  EXPECT_EQ(make({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}, DType::Int32).to_string(),
            "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(make({1, 0, 0, 1}, {2, 2}, DType::Bool).to_string(), "[[ True False]\n [False  True]]");
  EXPECT_EQ(make({1.5, -2}, {2}, DType::BFloat16).to_string(), "[ 1.5 -2. ]");
}

TEST(Print, SummarisesAndWraps) {
  EXPECT_EQ(arange(2000, 0.125, DType::Float32).to_string(),
            "[0.00000e+00 1.25000e-01 2.50000e-01 ... 2.49625e+02 2.49750e+02\n 2.49875e+02]");
  EXPECT_EQ(arange(30, 1.25, DType::Float64).to_string(),
            "[ 0.    1.25  2.5   3.75  5.    6.25  7.5   8.75 10.   11.25 12.5  13.75\n"
            " 15.   16.25 17.5  18.75 20.   21.25 22.5  23.75 25.   26.25 27.5  28.75\n"
            " 30.   31.25 32.5  33.75 35.   36.25]");
}

TEST(Print, ScalarsEmptyAndViews) {
  EXPECT_EQ(Tensor::scalar(Scalar::from_float(3.0), DType::Float32).to_string(), "3.0");
  EXPECT_EQ(make({1e20}, {}, DType::Float64).to_string(), "1e+20");
  EXPECT_EQ(Tensor::scalar(Scalar::from_int(-7), DType::Int8).to_string(), "-7");
  EXPECT_EQ(Tensor::scalar(Scalar::from_bool(true), DType::Bool).to_string(), "True");
  EXPECT_EQ(Tensor::zeros({2, 0}, DType::Float32).to_string(), "[]");
  Tensor t = arange(6, 1.0, DType::Float64).reshape({2, 3}).permute({1, 0});
  EXPECT_EQ(t.to_string(), "[[0. 3.]\n [1. 4.]\n [2. 5.]]");
}

TEST(Print, ReprIsMindSpores) {
  EXPECT_EQ(make({4, 10, 18}, {3}, DType::Float32).repr(),
            "Tensor(shape=[3], dtype=Float32, value= [ 4.00000000e+00,  1.00000000e+01,  "
            "1.80000000e+01])");
  EXPECT_EQ(make({1, 20, 300, 4}, {2, 2}, DType::Int32).repr(),
            "Tensor(shape=[2, 2], dtype=Int32, value=\n[[  1,  20],\n [300,   4]])");
  EXPECT_EQ(make({1, 0}, {2}, DType::Bool).repr(),
            "Tensor(shape=[2], dtype=Bool, value= [ True, False])");
  EXPECT_EQ(Tensor::scalar(Scalar::from_float(2.5), DType::Float32).repr(),
            "Tensor(shape=[], dtype=Float32, value= 2.5)");
}

}  // namespace
}  // namespace mycel
