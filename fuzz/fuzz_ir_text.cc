// Fuzzes the IR text parser (src/ir/text.cc, the text form of print_graph used by pass
// tests): ir::parse_graph on the input text, then print_graph of what it built; only
// mycel's typed errors are accepted. Plain mutations with a dictionary of the grammar's
// keywords and punctuation (fuzz/ir_text.dict); the seeds are printed graphs.
//
// Run: make fuzz, or build-fuzz/fuzz_ir_text -dict=fuzz/ir_text.dict CORPUS fuzz/corpus/ir_text
#include <string>

#include "fuzz_common.h"
#include "ir/anf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  mycel::fuzz::expect_typed_errors([&] {
    mycel::ir::Module m;
    mycel::ir::FuncGraph* g = mycel::ir::parse_graph(m, text);
    mycel::ir::print_graph(g);
  });
  return 0;
}
