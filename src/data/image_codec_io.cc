// read_image's decoding modes and encode_png's compression level (image_codec_io.h). The
// full libpng write API reports errors by longjmp: its setjmp lives in a small function whose
// locals are trivially destructible, as in image_codec.cc.
#include "data/image_codec_io.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>

#include <png.h>

#include "data/image_codec.h"

namespace mycel::data {

namespace {

constexpr uint8_t kPngMagic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

bool is_png(const uint8_t* data, size_t size) {
  return size >= 8 && std::memcmp(data, kPngMagic, 8) == 0;
}

// The number of colour components a JPEG's frame header (SOFn) declares, or 0 when none is
// found. Markers are walked by their lengths; entropy-coded data comes only after SOS.
int jpeg_components(const uint8_t* data, size_t size) {
  size_t i = 2;
  while (i + 4 <= size) {
    if (data[i] != 0xff) return 0;
    uint8_t marker = data[i + 1];
    if (marker == 0xff) {  // fill byte
      ++i;
      continue;
    }
    size_t len = (static_cast<size_t>(data[i + 2]) << 8) | data[i + 3];
    bool sof =
        marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
    if (sof) return i + 9 < size ? data[i + 9] : 0;
    if (marker == 0xda || len < 2) return 0;  // start of scan before any frame header
    i += 2 + len;
  }
  return 0;
}

// OpenCV 4's RGB2GRAY on integers (15-bit weights, rounded).
Array rgb_to_gray(const Array& rgb) {
  int64_t h = rgb.shape()[0], w = rgb.shape()[1];
  Array out = Array::empty(DataType::UInt8, {h, w, 1});
  const uint8_t* s = rgb.data<uint8_t>();
  uint8_t* d = out.mutable_data<uint8_t>();
  for (int64_t i = 0; i < h * w; ++i) {
    int r = s[i * 3], g = s[i * 3 + 1], b = s[i * 3 + 2];
    d[i] = static_cast<uint8_t>((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15);
  }
  return out;
}

Array decode_png_as(const uint8_t* data, size_t size, ReadMode mode, std::string_view what) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  struct Free {
    png_image* p;
    ~Free() { png_image_free(p); }
  } guard{&img};
  if (!png_image_begin_read_from_memory(&img, data, size)) {
    MC_THROW(Runtime, "Decode: invalid PNG data in ", what, ": ", img.message, ".");
  }
  img.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
  int64_t h = img.height, w = img.width;
  MC_CHECK(h > 0 && w > 0 && h * w <= (int64_t{1} << 28), Runtime, "Decode: the PNG image in ",
           what, " is ", h, " x ", w, " pixels, outside [1, 2^28] pixels.");
  bool color = (img.format & PNG_FORMAT_FLAG_COLOR) != 0;
  bool alpha = (img.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  // Gray files stay one channel unless colour is asked for; alpha is dropped, as MindSpore's
  // read_image does in every mode.
  bool gray = mode == ReadMode::Grayscale || (mode == ReadMode::Unchanged && !color);
  int64_t c = gray ? 1 : 3;
  png_uint_32 format = gray ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  img.format = format;
  Array out = Array::empty(DataType::UInt8, {h, w, c});
  // Alpha is dropped, not composited: read RGBA / GA and copy the colour.
  if (alpha) {
    img.format = c == 1 ? PNG_FORMAT_GA : PNG_FORMAT_RGBA;
    int64_t cin = c + 1;
    std::vector<uint8_t> buf(static_cast<size_t>(h * w * cin));
    if (!png_image_finish_read(&img, nullptr, buf.data(), 0, nullptr)) {
      MC_THROW(Runtime, "Decode: invalid PNG data in ", what, ": ", img.message, ".");
    }
    uint8_t* d = out.mutable_data<uint8_t>();
    for (int64_t i = 0; i < h * w; ++i) std::memcpy(d + i * c, &buf[i * cin], c);
    return out;
  }
  if (!png_image_finish_read(&img, nullptr, out.mutable_raw(), 0, nullptr)) {
    MC_THROW(Runtime, "Decode: invalid PNG data in ", what, ": ", img.message, ".");
  }
  return out;
}

// ----- PNG writing with a compression level -----

struct PngWriter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::vector<uint8_t>* out = nullptr;
  char message[256] = {0};
  ~PngWriter() {
    if (png) png_destroy_write_struct(&png, info ? &info : nullptr);
  }
};

void png_write_vec(png_structp png, png_bytep bytes, png_size_t n) {
  auto* w = static_cast<PngWriter*>(png_get_io_ptr(png));
  w->out->insert(w->out->end(), bytes, bytes + n);
}
void png_flush_none(png_structp) {}
[[noreturn]] void png_fail(png_structp png, png_const_charp msg) {
  auto* w = static_cast<PngWriter*>(png_get_error_ptr(png));
  std::snprintf(w->message, sizeof w->message, "%s", msg);
  png_longjmp(png, 1);
}
void png_warn(png_structp, png_const_charp) {}

bool png_write_rows(PngWriter* w, const uint8_t* src, int h, int wd, int c, int level) {
  if (setjmp(png_jmpbuf(w->png))) return false;
  png_set_write_fn(w->png, w, png_write_vec, png_flush_none);
  png_set_compression_level(w->png, level);
  png_set_IHDR(w->png, w->info, static_cast<png_uint_32>(wd), static_cast<png_uint_32>(h), 8,
               c == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(w->png, w->info);
  for (int y = 0; y < h; ++y) {
    png_write_row(w->png, const_cast<png_bytep>(src + static_cast<size_t>(y) * wd * c));
  }
  png_write_end(w->png, nullptr);
  return true;
}

}  // namespace

Array decode_image_mode(const uint8_t* data, size_t size, ReadMode mode, std::string_view what) {
  if (is_png(data, size)) return decode_png_as(data, size, mode, what);
  Array rgb = decode_image(data, size, what);  // JPEG, or the unsupported-format error
  if (mode == ReadMode::Color) return rgb;
  if (mode == ReadMode::Grayscale || jpeg_components(data, size) == 1) return rgb_to_gray(rgb);
  return rgb;
}

std::vector<uint8_t> encode_png_level(const Array& hwc, int level) {
  MC_CHECK(hwc.dtype() == DataType::UInt8, Runtime,
           "EncodePng: The type of the image data should be UINT8, but got ", describe(hwc), ".");
  MC_CHECK(hwc.ndim() == 2 || hwc.ndim() == 3, Runtime,
           "EncodePng: The image has invalid dimensions. It should have two or three dimensions, "
           "but got ",
           hwc.ndim(), " dimensions.");
  int64_t c = hwc.ndim() == 3 ? hwc.shape()[2] : 1;
  MC_CHECK(c == 1 || c == 3, Runtime,
           "EncodePng: The image has invalid channels. It should have 1 or 3 channels, but got ", c,
           " channels.");
  MC_CHECK(level >= 0 && level <= 9, Runtime, "EncodePng: Invalid compression_level ", level,
           ", should be in range of [0, 9].");
  int64_t h = hwc.shape()[0], w = hwc.shape()[1];
  MC_CHECK(h > 0 && w > 0 && h <= 65500 && w <= 65500, Runtime,
           "EncodePng: the image's height and width must be in [1, 65500], but got shape ",
           shape_str(hwc.shape()), ".");
  std::vector<uint8_t> out;
  PngWriter wr;
  wr.out = &out;
  wr.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &wr, png_fail, png_warn);
  MC_CHECK(wr.png != nullptr, Runtime, "EncodePng: libpng could not start a writer.");
  wr.info = png_create_info_struct(wr.png);
  MC_CHECK(wr.info != nullptr, Runtime, "EncodePng: libpng could not start a writer.");
  MC_CHECK(png_write_rows(&wr, hwc.data<uint8_t>(), static_cast<int>(h), static_cast<int>(w),
                          static_cast<int>(c), level),
           Runtime, "EncodePng: ", wr.message, ".");
  return out;
}

}  // namespace mycel::data
