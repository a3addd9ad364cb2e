// The C interface of the video plugin libmycel_video.so (data/video_plugin.cc), shared by its
// loader (data/video.cc) and the fuzz target (fuzz/fuzz_video.cc). Plain C types only: the
// plugin is built apart from mycel's libraries.
#pragma once

#include <stddef.h>
#include <stdint.h>

// What mycel_video_read gives back; its buffers are malloc'd (mycel_video_free releases them).
struct MycelVideoResult {
  uint8_t* video;  // [frames, height, width, 3] RGB
  int64_t frames, height, width;
  void* audio;     // [channels, samples] of audio_type
  int audio_type;  // 0 float32, 1 float64, 2 int16, 3 int32, 4 int64, 5 uint8
  int64_t channels, samples;
  double video_fps;   // < 0: no video stream
  int64_t audio_fps;  // < 0: no audio stream
};

extern "C" {
// Reads `path` (or, when path is null, the `size` bytes at `data`): the video frames whose
// timestamps lie in [start, end] (stream ticks, or seconds when unit_sec), the audio cut to
// them, and the rates. 0 on success; else the message in err.
int mycel_video_read(const char* path, const uint8_t* data, size_t size, double start, double end,
                     int unit_sec, MycelVideoResult* out, char* err, size_t err_n);
void mycel_video_free(MycelVideoResult* r);
// The presentation timestamps of the video frames of `path` (malloc'd into *pts, *count of
// them; free with mycel_video_free_buffer), the frame rate and the time base (1 and 1 without
// video). 0 on success; else the message in err.
int mycel_video_timestamps(const char* path, int64_t** pts, int64_t* count, double* fps,
                           double* time_base, char* err, size_t err_n);
void mycel_video_free_buffer(void* p);
}
