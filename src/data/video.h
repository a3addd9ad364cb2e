// dataset.vision's video reading (MindSpore 2.x's read_video, read_video_timestamps and the
// DecodeVideo transform) through FFmpeg (libavformat/libavcodec/libswscale), reached through
// the plugin libmycel_video.so (data/video_plugin.cc), loaded on first use so that importing
// mycel does not load FFmpeg's codec libraries.
//
// read_video gives the video frames whose presentation timestamps lie in [start, end] (stream
// ticks, or seconds with unit "sec"), as a uint8 [T, H, W, 3] RGB array in frame order; the
// audio track as a [channels, samples] array in the decoder's sample type (float32 for the
// usual AAC/MP3/WMA decoders), cut in proportion to the frames kept (the whole track when all
// frames are); and the video frame rate and the audio sample rate (negative when the stream is
// missing). A file with neither stream, an unreadable or undecodable file is a RuntimeError
// naming it. DecodeVideo does the same on a 1-D uint8 array holding a file's bytes, keeping
// every frame.
#pragma once

#include <string>
#include <vector>

#include "data/array.h"
#include "data/transform.h"

namespace mycel::data {

struct VideoRead {
  Array video, audio;
  double video_fps = -1;   // < 0: no video stream
  int64_t audio_fps = -1;  // < 0: no audio stream
};

VideoRead read_video(const std::string& path, double start, double end, bool unit_sec);

// The presentation timestamps (stream ticks) of every video frame, the frame rate and the
// stream's time base in seconds (1.0 and 1.0 when there is no video stream).
struct VideoTimestamps {
  std::vector<int64_t> pts;
  double fps = 1.0, time_base = 1.0;
};
VideoTimestamps read_video_timestamps(const std::string& path);

// DecodeVideo: a 1-D uint8 array (a video file's bytes) -> (video, audio).
TransformPtr make_decode_video();

}  // namespace mycel::data
