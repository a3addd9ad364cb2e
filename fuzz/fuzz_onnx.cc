// Fuzzes ONNX import (src/serialize/onnx_import.h, mycel.lite.load_onnx):
// serialize::import_onnx on the input bytes (protobuf parse, the unsupported-operator scan,
// initializers and inputs decoded, every node translated and inferred, the IR verifier, the
// executable compiled); only mycel's typed errors are accepted. Nothing folds (the fuzz build
// has no kernels): constant expressions stay graph nodes.
//
// Structure-aware: one mutation in four is plain; the others parse the ModelProto, change one
// to three fields through reflection (dims, data types, attribute values, node inputs and op
// types, names with non-UTF-8 bytes: fuzz/proto_mutator.h) or damage the serialised bytes.
//
// Run: make fuzz, or build-fuzz/fuzz_onnx -dict=fuzz/onnx.dict CORPUS fuzz/corpus/onnx
#include <onnx/onnx_pb.h>

#include <random>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "proto_mutator.h"
#include "serialize/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] {
    mycel::serialize::import_onnx(std::string_view(reinterpret_cast<const char*>(data), size),
                                  "fuzz.onnx");
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  onnx::ModelProto model;
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 ||
      !model.ParsePartialFromArray(data, static_cast<int>(size)))
    return mycel::fuzz::plain_mutate(data, size, max_size);
  std::string out = mycel::fuzz::mutate_serialized(model, rng);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}
