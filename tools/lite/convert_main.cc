// mycel_convert --fmk=MINDIR --modelFile=F --outputFile=BASE: writes BASE.ms
// (converter/converter.h). Errors print as "mycel_convert: <message>" with exit status 1.
#include <iostream>

#include "base/error.h"
#include "converter/converter.h"

int main(int argc, char** argv) {
  try {
    return mycel::converter::convert_main(std::vector<std::string>(argv + 1, argv + argc),
                                          std::cout);
  } catch (const std::exception& e) {
    std::cerr << "mycel_convert: " << e.what() << "\n";
    return 1;
  }
}
