// Kernel test cases for the elementwise family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> elementwise_cases() {
  return {};
}

}  // namespace mycel::test
