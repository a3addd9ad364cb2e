// A main for mycel_cuda_tests: installs the CUDA backend first (the CPU tests' gtest_main
// does not). Weak, so that a suite-wide main in tests/cpp/cuda/ replaces it at link time.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernels/cuda/cuda_kernels.h"

__attribute__((weak)) int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (mycel::cuda::install_cuda() == 0) {
    std::printf("no GPU: the CUDA tests need one\n");
    return 0;
  }
  return RUN_ALL_TESTS();
}
