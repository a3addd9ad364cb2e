// Image codecs of the data engine: JPEG (libjpeg-turbo) and PNG (libpng's simplified API),
// decoded to what MindSpore's vision.Decode gives: an RGB uint8 array [H, W, 3] (gray images
// expanded to RGB, alpha dropped, 16-bit samples scaled to 8 bits). Encoders exist so that
// tests and benchmarks can make image folders. Decoding is thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "data/array.h"

namespace mycel::data {

// Decodes a JPEG or PNG image (sniffed from its magic bytes) into uint8 [H, W, 3]. `what`
// names the data in messages (a file path, "the input (123 bytes)"). Corrupt, truncated or
// unknown data: a RuntimeError "Decode: ... <what>: <the codec's message>".
Array decode_image(const uint8_t* data, size_t size, std::string_view what);

// Encodes a uint8 image [H, W], [H, W, 1] or [H, W, 3] as a baseline JPEG (quality 1..100).
std::vector<uint8_t> encode_jpeg(const Array& hwc, int quality);
// Encodes a uint8 image [H, W], [H, W, C] with C in 1..4 (gray, gray+alpha, RGB, RGBA) as PNG.
std::vector<uint8_t> encode_png(const Array& hwc);

}  // namespace mycel::data
