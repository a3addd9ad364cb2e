// mycel_benchmark --modelFile=F [--loopCount=N --numThreads=T --inDataFile=a.bin,b.bin
// --benchmarkDataFile=ref.txt]: lite/benchmark.h. Links libmycel_lite.so alone. Errors print
// as "mycel_benchmark: <message>" with exit status 2; an accuracy check over its threshold
// exits 1.
#include <iostream>

#include "lite/benchmark.h"

int main(int argc, char** argv) {
  try {
    return mycel::lite::benchmark_main(std::vector<std::string>(argv + 1, argv + argc), std::cout);
  } catch (const std::exception& e) {
    std::cerr << "mycel_benchmark: " << e.what() << "\n";
    return 2;
  }
}
