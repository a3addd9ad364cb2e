// RIFF WAVE and NIST SPHERE decoding (audio_file.h).
#include "data/audio_file.h"

#include <cstring>
#include <limits>
#include <sstream>

#include "base/error.h"

namespace mycel::data {
namespace {

uint32_t le16(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8; }
uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

struct PcmFormat {
  bool is_float = false;
  int bits = 0;
  int64_t channels = 0;
  int64_t sample_rate = 0;
  bool big_endian = false;
};

// One sample at p (format f) as a float in [-1, 1).
float read_sample(const uint8_t* p, const PcmFormat& f) {
  int bytes = f.bits / 8;
  uint8_t b[8];
  for (int i = 0; i < bytes; ++i) b[i] = f.big_endian ? p[bytes - 1 - i] : p[i];
  if (f.is_float) {
    if (bytes == 4) {
      float v;
      std::memcpy(&v, b, 4);
      return v;
    }
    double v;
    std::memcpy(&v, b, 8);
    return static_cast<float>(v);
  }
  switch (bytes) {
    case 1:
      return static_cast<float>(static_cast<int>(b[0]) - 128) / 128.0f;
    case 2:
      return static_cast<float>(static_cast<int16_t>(le16(b))) / 32768.0f;
    case 3: {
      auto v =
          static_cast<int32_t>(uint32_t{b[0]} << 8 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 24) >>
          8;
      return static_cast<float>(v) / 8388608.0f;
    }
    default:
      return static_cast<float>(static_cast<double>(static_cast<int32_t>(le32(b))) / 2147483648.0);
  }
}

// De-interleaves the whole frames of [p, p + bytes).
AudioClip decode_pcm(const uint8_t* p, size_t bytes, const PcmFormat& f) {
  AudioClip clip;
  clip.channels = f.channels;
  clip.sample_rate = f.sample_rate;
  size_t frame_bytes = static_cast<size_t>(f.channels) * static_cast<size_t>(f.bits / 8);
  clip.frames = static_cast<int64_t>(bytes / frame_bytes);
  clip.samples.resize(static_cast<size_t>(clip.frames * clip.channels));
  for (int64_t t = 0; t < clip.frames; ++t) {
    for (int64_t c = 0; c < clip.channels; ++c) {
      const uint8_t* s = p + static_cast<size_t>(t) * frame_bytes +
                         static_cast<size_t>(c) * static_cast<size_t>(f.bits / 8);
      clip.samples[static_cast<size_t>(c * clip.frames + t)] = read_sample(s, f);
    }
  }
  return clip;
}

void check_format(const PcmFormat& f, std::string_view what, std::string_view kind) {
  bool ok_bits = f.is_float ? (f.bits == 32 || f.bits == 64)
                            : (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32);
  MC_CHECK(ok_bits, Runtime, what, ": unsupported ", kind, " sample format (",
           f.is_float ? "float" : "integer", ", ", f.bits, " bits).");
  MC_CHECK(f.channels >= 1 && f.channels <= 1024, Runtime, what, ": invalid ", kind,
           " channel count ", f.channels, ".");
  MC_CHECK(f.sample_rate >= 1, Runtime, what, ": invalid ", kind, " sample rate ", f.sample_rate,
           ".");
}

}  // namespace

AudioClip decode_wav(const uint8_t* data, size_t size, std::string_view what) {
  MC_CHECK(size >= 12 && std::memcmp(data, "RIFF", 4) == 0 && std::memcmp(data + 8, "WAVE", 4) == 0,
           Runtime, what, ": not a RIFF WAVE file.");
  PcmFormat fmt;
  bool have_fmt = false;
  size_t at = 12;
  while (at + 8 <= size) {
    const uint8_t* chunk = data + at;
    size_t len = le32(chunk + 4);
    size_t body = at + 8;
    size_t avail = size - body;
    if (std::memcmp(chunk, "fmt ", 4) == 0) {
      MC_CHECK(len >= 16 && len <= avail, Runtime, what, ": truncated WAVE fmt chunk.");
      uint32_t tag = le16(data + body);
      fmt.channels = le16(data + body + 2);
      fmt.sample_rate = le32(data + body + 4);
      fmt.bits = static_cast<int>(le16(data + body + 14));
      if (tag == 0xFFFE) {  // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID's first 2 bytes
        MC_CHECK(len >= 40, Runtime, what, ": truncated WAVE_FORMAT_EXTENSIBLE fmt chunk.");
        tag = le16(data + body + 24);
      }
      MC_CHECK(tag == 1 || tag == 3, Runtime, what, ": unsupported WAVE format tag ", tag,
               " (PCM and IEEE float are read).");
      fmt.is_float = tag == 3;
      check_format(fmt, what, "WAVE");
      have_fmt = true;
    } else if (std::memcmp(chunk, "data", 4) == 0) {
      MC_CHECK(have_fmt, Runtime, what, ": the WAVE data chunk comes before its fmt chunk.");
      return decode_pcm(data + body, std::min(len, avail), fmt);
    }
    if (len > avail) break;
    at = body + len + (len & 1);
  }
  MC_THROW(Runtime, what,
           have_fmt ? ": the WAVE file has no data chunk." : ": the WAVE file has no fmt chunk.");
}

AudioClip decode_sph(const uint8_t* data, size_t size, std::string_view what) {
  MC_CHECK(size >= 16 && std::memcmp(data, "NIST_1A", 7) == 0, Runtime, what,
           ": not a NIST SPHERE file.");
  // Second line: the header size in bytes.
  std::string head(reinterpret_cast<const char*>(data), std::min<size_t>(size, 64));
  std::istringstream first(head);
  std::string magic;
  long long header_size = 0;
  first >> magic >> header_size;
  MC_CHECK(header_size >= 16 && static_cast<unsigned long long>(header_size) <= size, Runtime, what,
           ": invalid SPHERE header size ", header_size, ".");
  std::istringstream lines(
      std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(header_size)));
  std::string line;
  std::getline(lines, line);
  std::getline(lines, line);
  PcmFormat fmt;
  fmt.channels = 1;
  fmt.bits = 16;
  std::string coding = "pcm", byte_format = "01";
  bool ended = false;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string key, type, value;
    fields >> key;
    if (key == "end_head") {
      ended = true;
      break;
    }
    fields >> type >> value;
    auto as_int = [&](int64_t lo, int64_t hi) {
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      MC_CHECK(end && *end == '\0' && !value.empty() && v >= lo && v <= hi, Runtime, what,
               ": invalid SPHERE field ", key, " '", value, "'.");
      return static_cast<int64_t>(v);
    };
    if (key == "channel_count") fmt.channels = as_int(1, 1024);
    if (key == "sample_rate") fmt.sample_rate = as_int(1, std::numeric_limits<int32_t>::max());
    if (key == "sample_n_bytes") fmt.bits = static_cast<int>(as_int(1, 4) * 8);
    if (key == "sample_coding") coding = value;
    if (key == "sample_byte_format") byte_format = value;
  }
  MC_CHECK(ended, Runtime, what, ": the SPHERE header has no end_head.");
  MC_CHECK(coding.rfind("pcm", 0) == 0, Runtime, what, ": unsupported SPHERE sample coding '",
           coding, "' (linear PCM is read).");
  fmt.big_endian = byte_format == "10";
  check_format(fmt, what, "SPHERE");
  return decode_pcm(data + header_size, size - static_cast<size_t>(header_size), fmt);
}

}  // namespace mycel::data
