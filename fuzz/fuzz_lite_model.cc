// Fuzzes the lite runtime's model reader and runtime (src/lite/model_file.cc, model.cc):
// Model::Build on the input bytes (preamble, CRC, FlatBuffers verifier, every index, shape,
// offset and byte count, the graph's structure and shapes), with activations limited to
// 64 MiB (Context::max_arena_bytes), then Predict on zero inputs; only mycel's typed errors
// are accepted.
//
// Plain bit flips stop at the CRC, so the mutator is structure-aware: it splits a file into
// its FlatBuffer and its weight area, mutates one with libFuzzer's mutator, and writes a
// valid preamble (sizes, version) and CRC around them; one mutation in four stays plain (all
// with MYCEL_FUZZ_PLAIN=1). Seeds: fuzz/corpus/lite_model (fuzz/make_corpus.py).
//
// Run: make fuzz, or build-fuzz/fuzz_lite_model CORPUS fuzz/corpus/lite_model
#include <zlib.h>

#include <cstring>
#include <string>

#include "fuzz_common.h"
#include "lite/model.h"
#include "lite/model_file.h"

namespace {

using mycel::lite::kPreambleSize;
using mycel::lite::kWeightAlign;

std::string frame(const std::string& meta, const std::string& weights) {
  std::string out("MYCELITE\0\0\0\0", 12);
  mycel::fuzz::append_le<uint32_t>(out, mycel::lite::kFormatVersion);
  mycel::fuzz::append_le<uint64_t>(out, meta.size());
  mycel::fuzz::append_le<uint64_t>(out, weights.size());
  out += meta;
  out.resize((out.size() + kWeightAlign - 1) / kWeightAlign * kWeightAlign, '\0');
  out += weights;
  auto crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(out.data()) + 12, out.size() - 12));
  mycel::fuzz::store_le<uint32_t>(out, 8, crc);
  return out;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 || size < kPreambleSize)
    return mycel::fuzz::plain_mutate(data, size, max_size);
  const uint64_t meta = mycel::fuzz::load_le<uint64_t>(data + 16);
  if (meta > size - kPreambleSize) return mycel::fuzz::plain_mutate(data, size, max_size);
  const uint64_t woff = (kPreambleSize + meta + kWeightAlign - 1) / kWeightAlign * kWeightAlign;
  std::string m(reinterpret_cast<const char*>(data) + kPreambleSize, meta);
  std::string w = woff < size ? std::string(reinterpret_cast<const char*>(data) + woff, size - woff)
                              : std::string();
  if (rng() % 4 != 0 || w.empty())
    mycel::fuzz::mutate_bytes(m);
  else
    mycel::fuzz::mutate_bytes(w);
  std::string out = frame(m, w);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mycel::fuzz::expect_typed_errors([&] {
    mycel::lite::Model model;
    mycel::lite::Context ctx;
    ctx.max_arena_bytes = size_t{64} << 20;
    model.Build(data, size, ctx);
    std::vector<mycel::lite::Tensor> outputs;
    model.Predict(model.GetInputs(), &outputs);
  });
  return 0;
}
