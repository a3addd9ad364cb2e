// JPEG through libjpeg's classic API with a setjmp/longjmp error manager (libjpeg's default
// handler calls exit()), PNG through libpng's simplified API (which reports errors itself).
// Every setjmp lives in a small function whose locals are all trivially destructible, so a
// longjmp never skips a C++ destructor; the C++ side allocates and throws outside them.
#include "data/image_codec.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstring>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

namespace mycel::data {
namespace {

// Images bigger than this many pixels are refused before allocating (a corrupt or hostile
// header can claim 65500 x 65500); PIL refuses at about 179M pixels.
constexpr int64_t kMaxPixels = int64_t{1} << 28;

void check_pixels(int64_t h, int64_t w, std::string_view format, std::string_view what) {
  MC_CHECK(h > 0 && w > 0, Runtime, "Decode: invalid ", format, " data in ", what,
           ": the image is ", h, " x ", w, " pixels.");
  MC_CHECK(h * w <= kMaxPixels, Runtime, "Decode: the ", format, " image in ", what, " is ", h,
           " x ", w, " pixels, more than the limit of ", kMaxPixels, " pixels.");
}

// ----- JPEG -----

struct JpegError {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_fail(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings (level -1) are ignored as libjpeg, PIL and OpenCV do ("extraneous bytes before
// marker"), except data that ends early: PIL too refuses a truncated image.
void jpeg_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(cinfo);
}

void jpeg_init_error(JpegError* err) {
  jpeg_std_error(&err->mgr);
  err->mgr.error_exit = jpeg_fail;
  err->mgr.emit_message = jpeg_message;
  err->message[0] = '\0';
}

// A libjpeg decompressor or compressor (Info) with our error manager; destroyed if created.
template <class Info>
struct JpegObject {
  Info cinfo{};
  JpegError err{};
  bool created = false;
  JpegObject() {
    jpeg_init_error(&err);
    cinfo.err = &err.mgr;
  }
  ~JpegObject() {
    if (created) jpeg_destroy(reinterpret_cast<j_common_ptr>(&cinfo));
  }
  JpegObject(const JpegObject&) = delete;
  JpegObject& operator=(const JpegObject&) = delete;
};

using JpegDecoder = JpegObject<jpeg_decompress_struct>;

// Reads the header (RGB out, or CMYK converted by the caller).
bool jpeg_begin(JpegDecoder* d, const uint8_t* data, size_t size) {
  if (setjmp(d->err.jump)) return false;
  jpeg_create_decompress(&d->cinfo);
  d->created = true;
  jpeg_mem_src(&d->cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&d->cinfo, TRUE);
  bool cmyk = d->cinfo.jpeg_color_space == JCS_CMYK || d->cinfo.jpeg_color_space == JCS_YCCK;
  d->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  return true;
}

// Starts decompressing: for a progressive or multi-scan image, libjpeg allocates the whole
// image's coefficients here, so the size must be checked before (fuzz/fuzz_image.cc found a
// 325-byte file that took gigabytes).
bool jpeg_start(JpegDecoder* d) {
  if (setjmp(d->err.jump)) return false;
  jpeg_start_decompress(&d->cinfo);
  return true;
}

// Reads every scanline into dst (rows of row_bytes). No jpeg_finish_decompress: a file that
// lacks only its final EOI marker still decodes, as in PIL.
bool jpeg_read_rows(JpegDecoder* d, uint8_t* dst, size_t row_bytes) {
  if (setjmp(d->err.jump)) return false;
  constexpr int kRows = 16;
  JSAMPROW rows[kRows];
  while (d->cinfo.output_scanline < d->cinfo.output_height) {
    JDIMENSION first = d->cinfo.output_scanline;
    int n = static_cast<int>(std::min<JDIMENSION>(kRows, d->cinfo.output_height - first));
    for (int i = 0; i < n; ++i) rows[i] = dst + (first + i) * row_bytes;
    jpeg_read_scanlines(&d->cinfo, rows, static_cast<JDIMENSION>(n));
  }
  return true;
}

Array decode_jpeg(const uint8_t* data, size_t size, std::string_view what) {
  JpegDecoder d;
  auto fail = [&] {
    MC_THROW(Runtime, "Decode: invalid JPEG data in ", what, ": ", d.err.message, ".");
  };
  if (!jpeg_begin(&d, data, size)) fail();
  check_pixels(d.cinfo.image_height, d.cinfo.image_width, "JPEG", what);
  if (!jpeg_start(&d)) fail();
  int64_t h = d.cinfo.output_height, w = d.cinfo.output_width;
  check_pixels(h, w, "JPEG", what);
  Array out = Array::empty(DataType::UInt8, {h, w, 3});
  auto* dst = out.mutable_data<uint8_t>();
  if (d.cinfo.out_color_space == JCS_RGB) {
    if (!jpeg_read_rows(&d, dst, static_cast<size_t>(w) * 3)) fail();
    return out;
  }
  // CMYK as Adobe writes it (inverted): R = C * K / 255, as PIL and OpenCV convert.
  std::vector<uint8_t> cmyk(static_cast<size_t>(h * w) * 4);
  if (!jpeg_read_rows(&d, cmyk.data(), static_cast<size_t>(w) * 4)) fail();
  for (int64_t i = 0; i < h * w; ++i) {
    const uint8_t* p = &cmyk[i * 4];
    for (int c = 0; c < 3; ++c) dst[i * 3 + c] = static_cast<uint8_t>((p[c] * p[3] + 127) / 255);
  }
  return out;
}

// A libjpeg destination that appends to a std::vector.
struct VectorDest {
  jpeg_destination_mgr pub;
  std::vector<uint8_t>* out;
};

void vector_dest_init(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<VectorDest*>(cinfo->dest);
  dest->out->resize(size_t{1} << 16);
  dest->pub.next_output_byte = dest->out->data();
  dest->pub.free_in_buffer = dest->out->size();
}

boolean vector_dest_grow(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<VectorDest*>(cinfo->dest);
  size_t used = dest->out->size();
  dest->out->resize(used * 2);
  dest->pub.next_output_byte = dest->out->data() + used;
  dest->pub.free_in_buffer = used;
  return TRUE;
}

void vector_dest_term(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<VectorDest*>(cinfo->dest);
  dest->out->resize(dest->out->size() - dest->pub.free_in_buffer);
}

struct JpegEncoder : JpegObject<jpeg_compress_struct> {
  VectorDest dest{};
  JpegEncoder() {
    dest.pub.init_destination = vector_dest_init;
    dest.pub.empty_output_buffer = vector_dest_grow;
    dest.pub.term_destination = vector_dest_term;
  }
};

bool jpeg_encode_rows(JpegEncoder* e, const uint8_t* src, int h, int w, int c, int quality) {
  if (setjmp(e->err.jump)) return false;
  jpeg_create_compress(&e->cinfo);
  e->created = true;
  e->cinfo.dest = &e->dest.pub;
  e->cinfo.image_width = static_cast<JDIMENSION>(w);
  e->cinfo.image_height = static_cast<JDIMENSION>(h);
  e->cinfo.input_components = c;
  e->cinfo.in_color_space = c == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&e->cinfo);
  jpeg_set_quality(&e->cinfo, quality, TRUE);
  jpeg_start_compress(&e->cinfo, TRUE);
  while (e->cinfo.next_scanline < e->cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(src) + static_cast<size_t>(e->cinfo.next_scanline) * w * c;
    jpeg_write_scanlines(&e->cinfo, &row, 1);
  }
  jpeg_finish_compress(&e->cinfo);
  return true;
}

// ----- PNG -----

struct PngImage {
  png_image image{};
  PngImage() { image.version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(&image); }  // a no-op once libpng freed it
};

Array decode_png(const uint8_t* data, size_t size, std::string_view what) {
  PngImage png;
  png_image& img = png.image;
  auto fail = [&] {
    MC_THROW(Runtime, "Decode: invalid PNG data in ", what, ": ", img.message, ".");
  };
  if (!png_image_begin_read_from_memory(&img, data, size)) fail();
  // 16-bit samples without gamma information are sRGB like 8-bit ones (libpng would assume
  // linear light): scaling them to 8 bits then keeps their values, as PIL and OpenCV do.
  img.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
  int64_t h = img.height, w = img.width;
  check_pixels(h, w, "PNG", what);
  Array out = Array::empty(DataType::UInt8, {h, w, 3});
  auto* dst = out.mutable_data<uint8_t>();
  if (!(img.format & PNG_FORMAT_FLAG_ALPHA)) {
    img.format = PNG_FORMAT_RGB;
    if (!png_image_finish_read(&img, nullptr, dst, 0, nullptr)) fail();
    return out;
  }
  // Alpha is dropped, not composited (libpng would blend onto a background), as OpenCV's
  // IMREAD_COLOR and MindSpore do.
  img.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(static_cast<size_t>(h * w) * 4);
  if (!png_image_finish_read(&img, nullptr, rgba.data(), 0, nullptr)) fail();
  for (int64_t i = 0; i < h * w; ++i) std::memcpy(dst + i * 3, &rgba[i * 4], 3);
  return out;
}

// The image's (h, w, channels) for the encoders; a ValueError naming op otherwise.
void encoder_shape(const Array& a, std::string_view op, int max_channels, int* h, int* w, int* c) {
  MC_CHECK(a.dtype() == DataType::UInt8, Type, op, ": the image must be uint8, but got ",
           describe(a), ".");
  bool ok = a.ndim() == 2 || (a.ndim() == 3 && a.shape()[2] >= 1 && a.shape()[2] <= max_channels);
  MC_CHECK(ok, Value, op, ": the image must be <H, W> or <H, W, C> with C in 1..", max_channels,
           ", but got shape ", shape_str(a.shape()), ".");
  MC_CHECK(a.shape()[0] > 0 && a.shape()[1] > 0 && a.shape()[0] <= 65500 && a.shape()[1] <= 65500,
           Value, op, ": the image's height and width must be in [1, 65500], but got shape ",
           shape_str(a.shape()), ".");
  *h = static_cast<int>(a.shape()[0]);
  *w = static_cast<int>(a.shape()[1]);
  *c = a.ndim() == 2 ? 1 : static_cast<int>(a.shape()[2]);
}

}  // namespace

Array decode_image(const uint8_t* data, size_t size, std::string_view what) {
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) {
    return decode_jpeg(data, size, what);
  }
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) return decode_png(data, size, what);
  std::string head;
  for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, "%s%02x", i ? " " : "", data[i]);
    head += hex;
  }
  MC_THROW(Runtime, "Decode: ", what, " is not an image in a supported format (JPEG, PNG): ",
           size == 0 ? std::string("it is empty") : str("its first bytes are ", head), ".");
}

std::vector<uint8_t> encode_jpeg(const Array& hwc, int quality) {
  int h, w, c;
  encoder_shape(hwc, "encode_jpeg", 3, &h, &w, &c);
  MC_CHECK(c != 2, Value, "encode_jpeg: the image must have 1 or 3 channels, but got shape ",
           shape_str(hwc.shape()), ".");
  MC_CHECK(quality >= 1 && quality <= 100, Value,
           "encode_jpeg: quality must be in [1, 100], but got ", quality, ".");
  std::vector<uint8_t> out;
  JpegEncoder e;
  e.dest.out = &out;
  MC_CHECK(jpeg_encode_rows(&e, hwc.data<uint8_t>(), h, w, c, quality), Runtime,
           "encode_jpeg: ", e.err.message, ".");
  return out;
}

std::vector<uint8_t> encode_png(const Array& hwc) {
  int h, w, c;
  encoder_shape(hwc, "encode_png", 4, &h, &w, &c);
  static constexpr png_uint_32 kFormats[4] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                              PNG_FORMAT_RGBA};
  PngImage png;
  png.image.width = static_cast<png_uint_32>(w);
  png.image.height = static_cast<png_uint_32>(h);
  png.image.format = kFormats[c - 1];
  png_alloc_size_t size = 0;
  MC_CHECK(png_image_write_get_memory_size(png.image, size, 0, hwc.raw(), 0, nullptr), Runtime,
           "encode_png: ", png.image.message, ".");
  std::vector<uint8_t> out(size);
  MC_CHECK(png_image_write_to_memory(&png.image, out.data(), &size, 0, hwc.raw(), 0, nullptr),
           Runtime, "encode_png: ", png.image.message, ".");
  out.resize(size);
  return out;
}

}  // namespace mycel::data
