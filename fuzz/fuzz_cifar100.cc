// Fuzzes the CIFAR-100 binary reader (src/data/cifar100.cc, Cifar100Dataset): the input is a
// whole file; data::check_cifar100 validates it and every record it accepts is read as a row
// (data::cifar100_row). Only mycel's typed errors are accepted.
//
// Run: make fuzz, or build-fuzz/fuzz_cifar100 CORPUS fuzz/corpus/cifar100
#include "data/cifar100.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] {
    const int64_t records = mycel::data::check_cifar100(data, size, "fuzz");
    for (int64_t r = 0; r < records; ++r) {
      mycel::data::Row row = mycel::data::cifar100_row(data, r);
      (void)row;
    }
  });
  return 0;
}
