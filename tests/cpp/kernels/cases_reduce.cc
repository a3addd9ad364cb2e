// Kernel test cases for the reduce family (see kernel_cases.h).
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> reduce_cases() {
  return {};
}

}  // namespace mycel::test
