// Fuzzes the video reader (src/data/video_plugin.cc: FFmpeg demuxing and decoding, mycel's
// frame selection, colour conversion and audio gathering, as DecodeVideo runs it on a file's
// bytes): mycel_video_read on the input bytes, every frame kept. A failure must come back as
// the interface's error code and message; a crash, a sanitizer report or a leak is a finding.
// FFmpeg itself is not instrumented (Debian's build), mycel's side is.
//
// Run: make fuzz, or build-fuzz/fuzz_video CORPUS fuzz/corpus/video
#include <cstddef>
#include <cstdint>

#include "data/video_plugin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  MycelVideoResult r{};
  char err[256];
  if (mycel_video_read(nullptr, data, size, 0, 2147483647.0, 0, &r, err, sizeof err) == 0) {
    // touch the outputs: their sizes must be what the header says
    volatile uint8_t sink = 0;
    const int64_t n = r.frames * r.height * r.width * 3;
    if (n > 0) sink = static_cast<uint8_t>(sink ^ r.video[n - 1]);
    mycel_video_free(&r);
  }
  return 0;
}
