#include <gtest/gtest.h>

#include "tensor/tensor.h"

TEST(Smoke, EmptyTensor) {
  mycel::Tensor t = mycel::Tensor::zeros({2, 3}, mycel::DType::Float32);
  EXPECT_EQ(t.numel(), 6);
}
