// Audio file decoding for the audio dataset sources (YesNo, LJSpeech, SpeechCommands, GTZAN,
// CMUArctic, LibriTTS: RIFF WAVE; Tedlium: NIST SPHERE). Both parsers take untrusted bytes:
// every length and offset is checked against the buffer before use, and a malformed file is
// a RuntimeError naming `what` (the file), never a read past the end (fuzz/fuzz_audio.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mycel::data {

// A decoded waveform: samples[c * frames + t] for channel c (planar), scaled to [-1, 1)
// (integer PCM divided by 2^(bits - 1); 8-bit WAV is unsigned with offset 128).
struct AudioClip {
  int64_t channels = 0;
  int64_t frames = 0;
  int64_t sample_rate = 0;
  std::vector<float> samples;
};

// RIFF WAVE: PCM (format 1) of 8, 16, 24 or 32 bits, IEEE float (format 3) of 32 or 64 bits,
// or WAVE_FORMAT_EXTENSIBLE with one of those sub-formats. Chunks other than "fmt " and
// "data" are skipped (odd sizes padded, as RIFF requires); a data chunk running past the end
// of the file (a truncated recording) is read up to the last whole frame.
AudioClip decode_wav(const uint8_t* data, size_t size, std::string_view what);

// NIST SPHERE (.sph, TED-LIUM): the "NIST_1A" text header (its size on the second line) of
// "key -type value" fields up to "end_head", then 16-bit (or 8 / 32-bit) linear PCM samples,
// interleaved, little-endian unless sample_byte_format is "10". Compressed (shorten) sample
// codings are a RuntimeError.
AudioClip decode_sph(const uint8_t* data, size_t size, std::string_view what);

}  // namespace mycel::data

#include <array>

#include "data/source.h"

namespace mycel::data {

// The source of the audio datasets: row i is the decoded file paths[i] (SPHERE when sph,
// else WAVE) as a waveform [channels, frames] of waveform_type (float32 or float64), cut to
// the [start, end) seconds of segments[i] when segments is not empty, then its sample rate
// (a 0-d uint32, or int32 when signed_rate: TedliumDataset's), then the arrays of extras[i] (the
// metadata columns the Python class parsed from the dataset's text files). columns names all of
// them. Files are decoded when read (on the engine's worker threads); a missing or malformed file
// is a RuntimeError naming `name`, the file and the row.
SourcePtr audio_file_source(std::string name, std::vector<std::string> columns,
                            std::vector<std::string> paths,
                            std::vector<std::array<double, 2>> segments,
                            std::vector<std::vector<Array>> extras, bool sph,
                            DataType waveform_type, bool signed_rate);

}  // namespace mycel::data
