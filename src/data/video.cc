#include "data/video.h"

#include <cstring>
#include <mutex>

#include "base/error.h"
#include "base/plugin.h"
#include "data/video_plugin.h"

#ifndef MYCEL_VIDEO_PLUGIN
#define MYCEL_VIDEO_PLUGIN "libmycel_video.so"
#endif

namespace mycel::data {
namespace {

using ReadFn = int (*)(const char*, const uint8_t*, size_t, double, double, int, MycelVideoResult*,
                       char*, size_t);
using FreeFn = void (*)(MycelVideoResult*);
using StampsFn = int (*)(const char*, int64_t**, int64_t*, double*, double*, char*, size_t);
using FreeBufferFn = void (*)(void*);

struct Plugin {
  ReadFn read = nullptr;
  FreeFn free = nullptr;
  StampsFn stamps = nullptr;
  FreeBufferFn free_buffer = nullptr;
  std::string error;
};

const Plugin& plugin() {
  static Plugin p;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = open_plugin("libmycel_video.so", MYCEL_VIDEO_PLUGIN, false, &p.error);
    if (h == nullptr) return;
    p.read = reinterpret_cast<ReadFn>(plugin_function(h, "mycel_video_read"));
    p.free = reinterpret_cast<FreeFn>(plugin_function(h, "mycel_video_free"));
    p.stamps = reinterpret_cast<StampsFn>(plugin_function(h, "mycel_video_timestamps"));
    p.free_buffer = reinterpret_cast<FreeBufferFn>(plugin_function(h, "mycel_video_free_buffer"));
    if (!p.read || !p.free || !p.stamps || !p.free_buffer)
      p.error = "the video plugin lacks its functions";
  });
  MC_CHECK(p.error.empty(), Runtime, "video: ", p.error);
  return p;
}

DataType audio_type(int code) {
  switch (code) {
    case 1:
      return DataType::Float64;
    case 2:
      return DataType::Int16;
    case 3:
      return DataType::Int32;
    case 4:
      return DataType::Int64;
    case 5:
      return DataType::UInt8;
    default:
      return DataType::Float32;
  }
}

VideoRead decode(const char* who, const char* path, const uint8_t* data, size_t size, double start,
                 double end, bool unit_sec) {
  const Plugin& p = plugin();
  MycelVideoResult r{};
  char err[512] = {0};
  MC_CHECK(p.read(path, data, size, start, end, unit_sec ? 1 : 0, &r, err, sizeof err) == 0,
           Runtime, who, ": ", err);
  VideoRead out;
  out.video = Array::empty(DataType::UInt8, {r.frames, r.height, r.width, 3});
  std::memcpy(out.video.mutable_data<uint8_t>(), r.video,
              static_cast<size_t>(r.frames * r.height * r.width * 3));
  out.audio = Array::empty(audio_type(r.audio_type), {r.channels, r.samples});
  std::memcpy(out.audio.mutable_raw(), r.audio, out.audio.nbytes());
  out.video_fps = r.video_fps;
  out.audio_fps = r.audio_fps;
  p.free(&r);
  return out;
}

class DecodeVideo : public Transform {
 public:
  std::string_view name() const override { return "DecodeVideo"; }
  std::vector<Array> apply(std::vector<Array> inputs, int, RowRandom*) const override {
    MC_CHECK(inputs.size() == 1, Value, "DecodeVideo: expected one input column, but got ",
             inputs.size(), ".");
    const Array& x = inputs[0];
    // MindSpore's messages (its DecodeVideo checks in C++: RuntimeErrors).
    MC_CHECK(x.dtype() == DataType::UInt8, Runtime,
             "DecodeVideo: The type of the elements of input data should be UINT8, but got ",
             data_type_name(x.dtype()), ".");
    MC_CHECK(x.ndim() == 1, Runtime,
             "DecodeVideo: invalid input shape, only support 1D input, got rank: ", x.ndim());
    MC_CHECK(x.numel() > 0, Runtime, "DecodeVideo: Input Tensor has no data.");
    VideoRead r = decode("DecodeVideo", nullptr, x.data<uint8_t>(), static_cast<size_t>(x.numel()),
                         0, 2147483647.0, false);
    return {r.video, r.audio};
  }
};

}  // namespace

VideoRead read_video(const std::string& path, double start, double end, bool unit_sec) {
  return decode("read_video", path.c_str(), nullptr, 0, start, end, unit_sec);
}

VideoTimestamps read_video_timestamps(const std::string& path) {
  const Plugin& p = plugin();
  int64_t* pts = nullptr;
  int64_t n = 0;
  VideoTimestamps out;
  char err[512] = {0};
  MC_CHECK(p.stamps(path.c_str(), &pts, &n, &out.fps, &out.time_base, err, sizeof err) == 0,
           Runtime, "read_video_timestamps: ", err);
  out.pts.assign(pts, pts + n);
  p.free_buffer(pts);
  return out;
}

TransformPtr make_decode_video() { return std::make_shared<DecodeVideo>(); }

}  // namespace mycel::data
