// Fuzzes the audio file parsers (src/data/audio_file.cc: the audio datasets' RIFF WAVE and
// NIST SPHERE readers): data::decode_wav and data::decode_sph on the input bytes; only mycel's
// typed errors are accepted. The first byte picks the parser (even: WAVE, odd: SPHERE) so one
// corpus reaches both; the rest is the file.
//
// Run: make fuzz, or build-fuzz/fuzz_audio -dict=fuzz/audio.dict CORPUS fuzz/corpus/audio
#include "data/audio_file.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bool sph = (data[0] & 1) != 0;
  mycel::fuzz::expect_typed_errors([&] {
    mycel::data::AudioClip clip = sph ? mycel::data::decode_sph(data + 1, size - 1, "fuzz")
                                      : mycel::data::decode_wav(data + 1, size - 1, "fuzz");
    (void)clip;
  });
  return 0;
}
