// Kernel test cases for the array family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> array_cases() {
  return {};
}

}  // namespace mycel::test
