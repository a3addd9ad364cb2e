// The audio kernels' building blocks: the FFT (radix-2 and Bluestein) against the O(n^2) DFT
// and against known transforms (an impulse, a cosine), the STFT windows by their formulas,
// and the WAVE / SPHERE parsers on files assembled here, including malformed ones (typed
// errors, never a read past the buffer).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "data/audio_fft.h"
#include "data/audio_file.h"
#include "data/transforms_audio.h"

namespace mycel::data {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<cdouble> pseudo_random(int64_t n, uint32_t seed) {
  std::vector<cdouble> x(static_cast<size_t>(n));
  uint32_t s = seed;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return static_cast<double>(s >> 8) / 16777216.0 - 0.5;
  };
  for (auto& v : x) {
    double re = next();
    v = cdouble(re, next());
  }
  return x;
}

TEST(AudioFft, MatchesTheNaiveDftForManySizes) {
  // powers of two (radix-2), 7-smooth sizes (mixed radix), others (Bluestein)
  for (int64_t n :
       {1, 2, 3, 4, 5, 7, 8, 9, 16, 30, 31, 49, 64, 100, 127, 210, 256, 400, 401, 882, 1000}) {
    std::vector<cdouble> x = pseudo_random(n, static_cast<uint32_t>(n));
    for (bool inverse : {false, true}) {
      std::vector<cdouble> want = naive_dft(x, inverse);
      std::vector<cdouble> got = x;
      FftPlan plan(n);
      if (inverse) {
        plan.inverse(got.data());
      } else {
        plan.forward(got.data());
      }
      for (int64_t k = 0; k < n; ++k) {
        ASSERT_NEAR(std::abs(got[static_cast<size_t>(k)] - want[static_cast<size_t>(k)]), 0.0,
                    1e-10 * static_cast<double>(n))
            << "n=" << n << " k=" << k << " inverse=" << inverse;
      }
    }
  }
}

TEST(AudioFft, RealInputMatchesTheComplexDft) {
  for (int64_t n : {1, 2, 6, 9, 16, 50, 400, 401, 512}) {
    std::vector<cdouble> x = pseudo_random(n, 7u + static_cast<uint32_t>(n));
    std::vector<double> re(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      re[static_cast<size_t>(j)] = x[static_cast<size_t>(j)].real();
      x[static_cast<size_t>(j)] = cdouble(re[static_cast<size_t>(j)], 0.0);
    }
    std::vector<cdouble> want = naive_dft(x, false);
    std::vector<cdouble> got(static_cast<size_t>(n / 2 + 1));
    RealFftPlan(n).forward(re.data(), got.data());
    for (int64_t k = 0; k <= n / 2; ++k) {
      ASSERT_NEAR(std::abs(got[static_cast<size_t>(k)] - want[static_cast<size_t>(k)]), 0.0,
                  1e-10 * static_cast<double>(n))
          << "n=" << n << " k=" << k;
    }
  }
}

TEST(AudioFft, ImpulseAndCosine) {
  for (int64_t n : {12, 16}) {
    std::vector<cdouble> x(static_cast<size_t>(n), cdouble(0, 0));
    x[1] = cdouble(1, 0);  // an impulse at 1: X[k] = exp(-2 pi i k / n)
    FftPlan(n).forward(x.data());
    for (int64_t k = 0; k < n; ++k) {
      double a = -2 * kPi * static_cast<double>(k) / static_cast<double>(n);
      EXPECT_NEAR(x[static_cast<size_t>(k)].real(), std::cos(a), 1e-12);
      EXPECT_NEAR(x[static_cast<size_t>(k)].imag(), std::sin(a), 1e-12);
    }
    std::vector<cdouble> c(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      c[static_cast<size_t>(j)] =
          std::cos(2 * kPi * 3 * static_cast<double>(j) / static_cast<double>(n));
    }
    FftPlan(n).forward(c.data());  // n / 2 at bins 3 and n - 3, 0 elsewhere
    for (int64_t k = 0; k < n; ++k) {
      double want = (k == 3 || k == n - 3) ? static_cast<double>(n) / 2 : 0.0;
      EXPECT_NEAR(std::abs(c[static_cast<size_t>(k)]), want, 1e-10) << k;
    }
  }
}

TEST(AudioWindows, PeriodicFormulasAndCentring) {
  std::vector<double> hann = stft_window(AudioWindow::Hann, 8, 8);
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(hann[k], 0.5 - 0.5 * std::cos(2 * kPi * k / 8), 1e-15);
  std::vector<double> padded = stft_window(AudioWindow::Hamming, 10, 6);  // 2 zeros each side
  EXPECT_EQ(padded[0], 0.0);
  EXPECT_EQ(padded[1], 0.0);
  EXPECT_NEAR(padded[2], 0.08, 1e-15);
  EXPECT_EQ(padded[8], 0.0);
  std::vector<double> bartlett = stft_window(AudioWindow::Bartlett, 4, 4);
  EXPECT_NEAR(bartlett[1], 0.5, 1e-15);
  EXPECT_NEAR(bartlett[2], 1.0, 1e-15);
}

void put_u32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u16(std::string* s, uint32_t v) {
  for (int i = 0; i < 2; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// A PCM WAVE file of 16-bit samples (interleaved), data chunk size as given (or exact).
std::string wav16(const std::vector<int16_t>& samples, int channels, int rate,
                  int64_t data_size = -1) {
  std::string fmt, out;
  put_u16(&fmt, 1);
  put_u16(&fmt, static_cast<uint32_t>(channels));
  put_u32(&fmt, static_cast<uint32_t>(rate));
  put_u32(&fmt, static_cast<uint32_t>(rate * channels * 2));
  put_u16(&fmt, static_cast<uint32_t>(channels * 2));
  put_u16(&fmt, 16);
  std::string body = "WAVEfmt ";
  put_u32(&body, static_cast<uint32_t>(fmt.size()));
  body += fmt + "data";
  put_u32(&body, data_size >= 0 ? static_cast<uint32_t>(data_size)
                                : static_cast<uint32_t>(samples.size() * 2));
  for (int16_t v : samples) put_u16(&body, static_cast<uint16_t>(v));
  out = "RIFF";
  put_u32(&out, static_cast<uint32_t>(body.size()));
  return out + body;
}

AudioClip wav_of(const std::string& bytes) {
  return decode_wav(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "test.wav");
}

TEST(AudioFile, WaveStereoIsPlanarAndScaled) {
  AudioClip clip = wav_of(wav16({1, -2, 16384, -32768, 32767, 0}, 2, 22050));
  EXPECT_EQ(clip.channels, 2);
  EXPECT_EQ(clip.frames, 3);
  EXPECT_EQ(clip.sample_rate, 22050);
  std::vector<float> want = {1 / 32768.f, 0.5f, 32767 / 32768.f, -2 / 32768.f, -1.f, 0.f};
  ASSERT_EQ(clip.samples.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(clip.samples[i], want[i]);
}

TEST(AudioFile, TruncatedAndMalformedWaves) {
  // A data chunk claiming more than the file holds: the whole frames present are read.
  AudioClip clip = wav_of(wav16({1, 2, 3}, 1, 8000, 1000));
  EXPECT_EQ(clip.frames, 3);
  std::string good = wav16({1, 2, 3, 4}, 1, 8000);
  // Every prefix of a valid file decodes or fails with a typed error.
  for (size_t n = 0; n < good.size(); ++n) {
    try {
      AudioClip c = wav_of(good.substr(0, n));
      EXPECT_LE(c.frames, 4);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Runtime) << n;
    }
  }
  std::string bad_bits = good;
  bad_bits[34] = 12;  // bits per sample
  EXPECT_THROW(wav_of(bad_bits), Error);
  std::string no_channels = good;
  no_channels[22] = 0;
  EXPECT_THROW(wav_of(no_channels), Error);
}

TEST(AudioFile, SphereBigEndian) {
  std::string head =
      "NIST_1A\n   1024\nsample_n_bytes -i 2\nchannel_count -i 1\nsample_byte_format -s2 10\n"
      "sample_rate -i 16000\nsample_coding -s3 pcm\nend_head\n";
  head.resize(1024, ' ');
  std::string data = head + std::string("\x01\x00\xff\xff", 4);  // 256 and -1, big-endian
  AudioClip clip =
      decode_sph(reinterpret_cast<const uint8_t*>(data.data()), data.size(), "test.sph");
  ASSERT_EQ(clip.frames, 2);
  EXPECT_FLOAT_EQ(clip.samples[0], 256 / 32768.f);
  EXPECT_FLOAT_EQ(clip.samples[1], -1 / 32768.f);
  std::string shortened = data.substr(0, 20);
  EXPECT_THROW(
      decode_sph(reinterpret_cast<const uint8_t*>(shortened.data()), shortened.size(), "test.sph"),
      Error);
}

}  // namespace
}  // namespace mycel::data
