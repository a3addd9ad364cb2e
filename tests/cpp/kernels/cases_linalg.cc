// Kernel test cases for the linalg family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> linalg_cases() {
  return {};
}

}  // namespace mycel::test
