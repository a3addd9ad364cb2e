// Kernel test cases for the random family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> random_cases() {
  return {};
}

}  // namespace mycel::test
