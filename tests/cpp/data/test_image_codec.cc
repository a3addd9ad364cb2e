// The image codecs: PNG round trips exactly (gray, gray+alpha, RGB, RGBA), JPEG round trips
// within its loss, and corrupt, truncated or unknown data give RuntimeErrors, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>

#include "data/image_codec.h"

namespace mycel::data {
namespace {

Array random_image(const Shape& shape, uint32_t seed) {
  Array a = Array::empty(DataType::UInt8, shape);
  uint8_t* p = a.mutable_data<uint8_t>();
  uint32_t s = seed;
  for (int64_t i = 0; i < a.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>(s >> 24);
  }
  return a;
}

// A smooth image (JPEG keeps it well): gradients per channel.
Array smooth_image(int64_t h, int64_t w, int64_t c) {
  Array a = Array::empty(DataType::UInt8, c == 0 ? Shape{h, w} : Shape{h, w, c});
  uint8_t* p = a.mutable_data<uint8_t>();
  int64_t cc = std::max<int64_t>(c, 1);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t k = 0; k < cc; ++k) {
        p[(y * w + x) * cc + k] = static_cast<uint8_t>((y * 3 + x * 2 + k * 40) % 256 / 2 + 40);
      }
    }
  }
  return a;
}

uint8_t at(const Array& a, int64_t i) { return a.data<uint8_t>()[i]; }

// Expects fn to throw a mycel::Error of `kind` whose message contains `text`.
template <class F>
void expect_error(F fn, ErrorKind kind, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

Array decode(const std::vector<uint8_t>& bytes) {
  return decode_image(bytes.data(), bytes.size(), "test.img");
}

TEST(ImageCodec, PngRoundTripsEveryChannelLayout) {
  for (int64_t c : {0, 1, 2, 3, 4}) {
    Array img = random_image(c == 0 ? Shape{7, 5} : Shape{7, 5, c}, 17 + c);
    Array out = decode(encode_png(img));
    ASSERT_EQ(out.dtype(), DataType::UInt8);
    ASSERT_EQ(out.shape(), (Shape{7, 5, 3})) << "channels " << c;
    int64_t cc = std::max<int64_t>(c, 1);
    for (int64_t p = 0; p < 35; ++p) {
      for (int64_t k = 0; k < 3; ++k) {
        // Gray (and gray+alpha) expand to RGB; alpha is dropped.
        int64_t src = cc >= 3 ? k : 0;
        ASSERT_EQ(at(out, p * 3 + k), at(img, p * cc + src)) << "channels " << c << " pixel " << p;
      }
    }
  }
}

TEST(ImageCodec, JpegRoundTripsWithinItsLoss) {
  for (int64_t c : {0, 3}) {
    Array img = smooth_image(24, 40, c);
    Array out = decode(encode_jpeg(img, 95));
    ASSERT_EQ(out.shape(), (Shape{24, 40, 3}));
    int64_t cc = std::max<int64_t>(c, 1);
    double err = 0;
    for (int64_t p = 0; p < 24 * 40; ++p) {
      for (int64_t k = 0; k < 3; ++k) {
        err += std::abs(at(out, p * 3 + k) - at(img, p * cc + (cc == 3 ? k : 0)));
        if (cc == 1) {
          ASSERT_EQ(at(out, p * 3 + k), at(out, p * 3));  // gray stays gray
        }
      }
    }
    EXPECT_LT(err / (24 * 40 * 3), 2.0) << "channels " << c;
  }
}

TEST(ImageCodec, TruncatedAndCorruptDataAreRuntimeErrors) {
  std::vector<uint8_t> jpeg = encode_jpeg(random_image({32, 32, 3}, 3), 90);
  std::vector<uint8_t> cut(jpeg.begin(), jpeg.begin() + jpeg.size() / 2);
  expect_error([&] { decode(cut); }, ErrorKind::Runtime,
               "Decode: invalid JPEG data in test.img: Premature end of JPEG file");
  std::vector<uint8_t> header_only(jpeg.begin(), jpeg.begin() + 20);
  expect_error([&] { decode(header_only); }, ErrorKind::Runtime, "invalid JPEG data in test.img");
  std::vector<uint8_t> bad = jpeg;
  for (size_t i = 4; i < 200; ++i) bad[i] = static_cast<uint8_t>(bad[i] ^ 0x5a);
  expect_error([&] { decode(bad); }, ErrorKind::Runtime, "invalid JPEG data in test.img");

  std::vector<uint8_t> png = encode_png(random_image({16, 16, 3}, 4));
  std::vector<uint8_t> png_cut(png.begin(), png.begin() + png.size() / 2);
  expect_error([&] { decode(png_cut); }, ErrorKind::Runtime,
               "Decode: invalid PNG data in test.img");
  std::vector<uint8_t> png_bad = png;
  png_bad[20] ^= 0xff;  // inside IHDR: its CRC no longer matches
  expect_error([&] { decode(png_bad); }, ErrorKind::Runtime, "invalid PNG data in test.img");

  expect_error(
      [&] {
        decode({'G', 'I', 'F', '8', '9', 'a'});
      },
      ErrorKind::Runtime,
      "test.img is not an image in a supported format (JPEG, PNG): its first bytes are "
      "47 49 46 38 39 61");
  expect_error([&] { decode({}); }, ErrorKind::Runtime, "it is empty");
}

TEST(ImageCodec, EncoderArgumentErrors) {
  Array f = Array::empty(DataType::Float32, {4, 4, 3});
  expect_error([&] { encode_png(f); }, ErrorKind::Type, "encode_png: the image must be uint8");
  expect_error(
      [&] {
        encode_jpeg(random_image({4, 4, 2}, 1), 90);
      },
      ErrorKind::Value, "1 or 3 channels");
  expect_error(
      [&] {
        encode_jpeg(random_image({4, 4, 3}, 1), 0);
      },
      ErrorKind::Value, "quality must be in [1, 100]");
  expect_error([&] { encode_png(random_image({4, 4, 5}, 1)); }, ErrorKind::Value, "C in 1..4");
}

TEST(ImageCodec, DecodesConcurrently) {
  std::vector<uint8_t> jpeg = encode_jpeg(smooth_image(48, 64, 3), 85);
  Array want = decode(jpeg);
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        Array got = decode(jpeg);
        same[t] += std::memcmp(got.raw(), want.raw(), want.nbytes()) == 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(same[t], 20);
}

}  // namespace
}  // namespace mycel::data
