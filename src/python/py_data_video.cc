// dataset.vision's video reading (src/data/video.h) as _mycel._data.read_video,
// read_video_timestamps and DecodeVideo; Python front ends in mycel/dataset/vision_video.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "data/video.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_video(pyb::module_& m) {
  m.def(
      "read_video",
      [](const std::string& path, double start, double end, bool unit_sec) {
        data::VideoRead r;
        {
          pyb::gil_scoped_release nogil;  // decoding takes a while
          r = data::read_video(path, start, end, unit_sec);
        }
        return pyb::make_tuple(data_array_to_numpy(r.video), data_array_to_numpy(r.audio),
                               r.video_fps, r.audio_fps);
      },
      pyb::arg("path"), pyb::arg("start"), pyb::arg("end"), pyb::arg("unit_sec"),
      "(video [T, H, W, 3] uint8, audio [channels, samples], video_fps, audio_fps) of a video "
      "file; a rate is negative when its stream is missing.");
  m.def(
      "read_video_timestamps",
      [](const std::string& path) {
        data::VideoTimestamps t;
        {
          pyb::gil_scoped_release nogil;
          t = data::read_video_timestamps(path);
        }
        return pyb::make_tuple(t.pts, t.fps, t.time_base);
      },
      pyb::arg("path"), "(timestamps in stream ticks, video fps, time base in seconds).");
  m.def("DecodeVideo", &data::make_decode_video);
}

}  // namespace mycel::py
