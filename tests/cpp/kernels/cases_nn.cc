// Kernel test cases for the nn family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> nn_cases() {
  return {};
}

}  // namespace mycel::test
