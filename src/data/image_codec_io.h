// The image codecs behind dataset.vision's read_image / decode_image (with ImageReadMode) and
// encode_png / write_png (with a compression level), in image_codec_io.cc. JPEG goes through
// image_codec.h's libjpeg decoder; PNG through libpng (the simplified API to read, the full
// API to write, which alone sets a compression level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "data/array.h"

namespace mycel::data {

// MindSpore's ImageReadMode: Unchanged keeps the file's channels (gray <H, W, 1>, colour
// <H, W, 3>), Grayscale gives <H, W, 1>, Color gives RGB <H, W, 3>. Alpha is dropped in every
// mode, as MindSpore's read_image does.
enum class ReadMode : uint8_t { Unchanged, Grayscale, Color };

// Decodes JPEG or PNG bytes as `mode` says. Gray from colour is OpenCV's RGB2GRAY
// ((4899 R + 9617 G + 1868 B + 8192) >> 14) of the decoded RGB for JPEG, libpng's conversion
// for PNG. Errors as decode_image's (RuntimeError "Decode: ... <what> ...").
Array decode_image_mode(const uint8_t* data, size_t size, ReadMode mode, std::string_view what);

// Encodes a uint8 <H, W>, <H, W, 1> or <H, W, 3> image as PNG with zlib compression level
// 0..9 (RuntimeErrors in MindSpore's words otherwise).
std::vector<uint8_t> encode_png_level(const Array& hwc, int level);

}  // namespace mycel::data
