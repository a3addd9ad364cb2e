// Fuzzes the SentencePiece plugin (src/data/sentencepiece_plugin.cc, dataset.text's
// SentencePieceTokenizer and SentencePieceVocab): the input is a model file (a serialized
// sentencepiece ModelProto, as SentencePieceVocab.save_model writes and users download),
// loaded with mycel_sp_load as from a vocab's bytes; a model that loads encodes a few
// sentences to pieces and to ids. Google's libsentencepiece (Debian's, not instrumented)
// parses the proto; the plugin's source is instrumented. A load or encode that fails must say
// so through the plugin's error path (return code and message); a crash, a sanitizer report in
// the plugin, a leak or an exception escaping the C interface is a finding.
//
// The target links the plugin alone, as mycel loads it (with its own protobuf-lite inside
// libsentencepiece, kept apart from libprotobuf: see the plugin's header comment), not mycel's
// core. Plain mutations with a dictionary of the proto's field keys (fuzz/sentencepiece.dict).
//
// Run: make fuzz, or build-fuzz/fuzz_sentencepiece -dict=fuzz/sentencepiece.dict CORPUS
//      fuzz/corpus/sentencepiece
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" {
void* mycel_sp_load(const char* model, size_t len, int from_file, char* err, size_t err_n);
void mycel_sp_free(void* h);
int mycel_sp_encode(void* h, const char* text, size_t len, int as_ids,
                    void (*emit)(void*, const char*, size_t, int), void* ctx, char* err,
                    size_t err_n);
}

namespace {

void emit(void* ctx, const char* piece, size_t size, int id) {
  auto* sum = static_cast<size_t*>(ctx);
  for (size_t i = 0; i < size; ++i) *sum += static_cast<unsigned char>(piece[i]);
  *sum += static_cast<size_t>(id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char err[512] = "";
  void* h = mycel_sp_load(reinterpret_cast<const char*>(data), size, 0, err, sizeof err);
  if (h == nullptr) {
    if (err[0] == '\0') std::abort();  // a failure must carry its message
    return 0;
  }
  static const std::string kTexts[] = {"Hello world, this is a test.",
                                       "",
                                       "a",
                                       "\xe4\xbd\xa0\xe5\xa5\xbd \xe4\xb8\x96\xe7\x95\x8c",
                                       std::string("x\0y \xff\xfe", 6),
                                       std::string(48, 'a') + std::string(8, '\0')};
  for (const std::string& t : kTexts) {
    for (int ids = 0; ids < 2; ++ids) {
      size_t sum = 0;
      err[0] = '\0';
      if (mycel_sp_encode(h, t.data(), t.size(), ids, emit, &sum, err, sizeof err) != 0 &&
          err[0] == '\0')
        std::abort();
    }
  }
  mycel_sp_free(h);
  return 0;
}
