// The FFmpeg side of dataset.vision's video reading (data/video.h): a plugin,
// libmycel_video.so, that mycel loads with dlopen on first use, so that `import mycel` does not
// load libavcodec and its dozens of codec libraries. It exports a small C interface.
//
// Semantics (MindSpore's read_video / DecodeVideo / read_video_timestamps, which data/video.h
// describes): every packet is decoded; a video frame is kept when its timestamp (the frame's
// best-effort timestamp, with MindSpore's adjustments for streams counting one tick per frame)
// lies in [start, end] (in the stream's time base); frames are ordered by frame number and
// converted to RGB24 by swscale. The whole audio track is decoded in its native sample type,
// channel-major, and then cut in proportion to the video frames kept.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/video_plugin.h"

#define MYCEL_VIDEO_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Fail {
  std::string msg;
};

[[noreturn]] void fail(const std::string& m) { throw Fail{m}; }

// Reads the caller's bytes (DecodeVideo) through an AVIOContext.
struct Memory {
  const uint8_t* p;
  size_t left;
};

int read_memory(void* opaque, uint8_t* buf, int n) {
  auto* m = static_cast<Memory*>(opaque);
  size_t k = std::min(static_cast<size_t>(n), m->left);
  if (k == 0) return AVERROR_EOF;
  std::memcpy(buf, m->p, k);
  m->p += k;
  m->left -= k;
  return static_cast<int>(k);
}

struct Stream {
  int index = -1;
  AVStream* st = nullptr;
  AVCodecContext* ctx = nullptr;
  ~Stream() { avcodec_free_context(&ctx); }
};

// One opened input, its streams and decoders; frees everything on scope exit.
struct Input {
  AVFormatContext* fmt = nullptr;
  AVIOContext* avio = nullptr;
  Memory mem{nullptr, 0};
  AVPacket* pkt = nullptr;
  AVFrame* frame = nullptr;
  SwsContext* sws = nullptr;
  Stream video, audio;

  ~Input() {
    sws_freeContext(sws);
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avformat_close_input(&fmt);
    if (avio != nullptr) {
      av_freep(&avio->buffer);
      avio_context_free(&avio);
    }
  }

  void open(const char* path, const uint8_t* data, size_t size) {
    av_log_set_level(AV_LOG_FATAL);
    fmt = avformat_alloc_context();
    if (fmt == nullptr) fail("out of memory");
    fmt->flags |= AVFMT_FLAG_DISCARD_CORRUPT;
    if (path == nullptr) {
      mem = Memory{data, size};
      const int n = static_cast<int>(std::min<size_t>(size, 1 << 20));
      auto* buf = static_cast<uint8_t*>(av_malloc(static_cast<size_t>(n)));
      if (buf == nullptr) fail("out of memory");
      avio = avio_alloc_context(buf, n, 0, &mem, &read_memory, nullptr, nullptr);
      if (avio == nullptr) {
        av_free(buf);
        fail("out of memory");
      }
      fmt->pb = avio;
    }
    if (avformat_open_input(&fmt, path, nullptr, nullptr) < 0)
      fail(path ? std::string("Failed to open the file ") + path + "."
                : "Failed to open the input.");
    if (avformat_find_stream_info(fmt, nullptr) < 0) fail("Failed to find stream information.");
    pkt = av_packet_alloc();
    frame = av_frame_alloc();
    if (pkt == nullptr || frame == nullptr) fail("out of memory");
  }

  void open_decoder(Stream& s, AVMediaType type, bool frame_threads) {
    int i = av_find_best_stream(fmt, type, -1, -1, nullptr, 0);
    if (i < 0) return;
    s.index = i;
    s.st = fmt->streams[i];
    const AVCodec* codec = avcodec_find_decoder(s.st->codecpar->codec_id);
    if (codec == nullptr)
      fail(std::string("Failed to find a decoder for ") +
           avcodec_get_name(s.st->codecpar->codec_id));
    s.ctx = avcodec_alloc_context3(codec);
    if (s.ctx == nullptr || avcodec_parameters_to_context(s.ctx, s.st->codecpar) < 0)
      fail(std::string("Failed to set up the decoder ") + codec->name);
    s.ctx->thread_count = 0;
    s.ctx->thread_type = FF_THREAD_SLICE;
    if (frame_threads && (codec->capabilities & AV_CODEC_CAP_FRAME_THREADS) && s.st->nb_frames > 1)
      s.ctx->thread_type |= FF_THREAD_FRAME;
    s.ctx->flags |= AV_CODEC_FLAG_UNALIGNED;
    s.ctx->pkt_timebase = s.st->time_base;
    if (avcodec_open2(s.ctx, codec, nullptr) < 0)
      fail(std::string("Failed to open the decoder ") + codec->name);
  }
};

double frame_rate(AVStream* st) {
  if (st->avg_frame_rate.den > 0 && st->avg_frame_rate.num > 0) return av_q2d(st->avg_frame_rate);
  if (st->time_base.den > 0 && st->time_base.num > 0)
    return static_cast<double>(st->time_base.den / st->time_base.num);
  fail("Failed to calculate the video frame rate.");
}

// Ticks of the stream's time base per frame (1 for streams that count frames).
int64_t ticks_per_frame(AVStream* st) {
  AVRational r = st->avg_frame_rate;
  if (r.den <= 0 || r.num <= 0) r = AVRational{st->time_base.den, st->time_base.num};
  const int64_t den = static_cast<int64_t>(st->time_base.num) * r.num;
  return den > 0 ? static_cast<int64_t>(st->time_base.den) * r.den / den : 1;
}

// The presentation timestamp MindSpore assigns to decoded frame `n`: the best-effort
// timestamp; for streams counting one tick per frame, the first frame at most 1 and, when the
// stream's decode timestamps run one ahead of the frame count, the later ones one less.
struct PtsRule {
  int64_t increment = 1;
  bool adjust = false;
  int64_t pts(const AVFrame* f, int64_t n) {
#if LIBAVUTIL_VERSION_MAJOR < 59
    const int64_t coded = f->coded_picture_number;
#else
    const int64_t coded = -1;
#endif
    if (n == 1 && increment == 1 && f->pts == AV_NOPTS_VALUE && f->pkt_dts == coded &&
        f->pkt_dts - 1 == n + 1)
      adjust = true;
    int64_t p = f->best_effort_timestamp;
    if (p == AV_NOPTS_VALUE) return n * increment;
    if (increment == 1) {
      if (n == 0) return p > 1 ? 1 : p;
      if (adjust) return p - 1;
    }
    return p;
  }
};

// Audio samples, channel-major, in the decoder's native type (T).
struct Audio {
  std::vector<std::vector<uint8_t>> ch;  // bytes per channel
  int type = 0;
  size_t elem = 4;
  int64_t samples = 0;
  bool broken = false;  // a decode error: the rest of the track is skipped, as MindSpore
};

int sample_type(AVSampleFormat f, size_t* elem) {
  switch (av_get_packed_sample_fmt(f)) {
    case AV_SAMPLE_FMT_DBL:
      *elem = 8;
      return 1;
    case AV_SAMPLE_FMT_S16:
      *elem = 2;
      return 2;
    case AV_SAMPLE_FMT_S32:
      *elem = 4;
      return 3;
    case AV_SAMPLE_FMT_S64:
      *elem = 8;
      return 4;
    case AV_SAMPLE_FMT_U8:
      *elem = 1;
      return 5;
    default:
      *elem = 4;
      return 0;
  }
}

void take_audio(const AVFrame* f, Audio& a) {
  const int channels = f->ch_layout.nb_channels;
  const auto fmt = static_cast<AVSampleFormat>(f->format);
  if (a.ch.empty()) a.ch.resize(static_cast<size_t>(channels));
  if (static_cast<int>(a.ch.size()) != channels) {
    a.broken = true;
    return;
  }
  const size_t n = static_cast<size_t>(f->nb_samples);
  for (int c = 0; c < channels; ++c) {
    std::vector<uint8_t>& dst = a.ch[static_cast<size_t>(c)];
    if (av_sample_fmt_is_planar(fmt)) {
      const uint8_t* p = f->extended_data[c];
      dst.insert(dst.end(), p, p + n * a.elem);
    } else {  // interleaved: channel c's samples are every channels-th
      const uint8_t* p = f->extended_data[0] + static_cast<size_t>(c) * a.elem;
      for (size_t i = 0; i < n; ++i, p += static_cast<size_t>(channels) * a.elem)
        dst.insert(dst.end(), p, p + a.elem);
    }
  }
  a.samples += f->nb_samples;
}

struct Reader {
  Input in;
  PtsRule rule;
  int64_t start = 0, end = 0;
  int64_t frame_number = 0, start_frame = 0, end_frame = 0;
  std::map<int64_t, std::vector<uint8_t>> frames;  // frame number -> RGB
  int width = 0, height = 0;
  Audio audio;

  void setup_video() {
    Stream& v = in.video;
    if (v.index < 0) return;
    width = v.st->codecpar->width;
    height = v.st->codecpar->height;
    if (width <= 0 || height <= 0 || v.ctx->pix_fmt == AV_PIX_FMT_NONE)
      fail("The video stream has no picture size or pixel format.");
    rule.increment = ticks_per_frame(v.st);
    in.sws = sws_getContext(width, height, v.ctx->pix_fmt, width, height, AV_PIX_FMT_RGB24, 0,
                            nullptr, nullptr, nullptr);
    if (in.sws == nullptr) fail("Failed to get the colour conversion context.");
  }

  void keep_frame(const AVFrame* f) {
    if (f->width != width || f->height != height || f->format != in.video.ctx->pix_fmt)
      fail("The picture size or format changes at video frame " + std::to_string(frame_number) +
           ".");
    std::vector<uint8_t> rgb(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    uint8_t* dst[4] = {rgb.data(), nullptr, nullptr, nullptr};
    int stride[4] = {width * 3, 0, 0, 0};
    if (sws_scale(in.sws, f->data, f->linesize, 0, height, dst, stride) < 1)
      fail("Failed to convert video frame " + std::to_string(frame_number) + ".");
    frames[frame_number] = std::move(rgb);
  }

  void video_frames(const AVPacket* p) {
    if (avcodec_send_packet(in.video.ctx, p) < 0)
      fail("Failed to decode the packet of video frame " + std::to_string(frame_number) + ".");
    for (;;) {
      int st = avcodec_receive_frame(in.video.ctx, in.frame);
      if (st == AVERROR_EOF || st == AVERROR(EAGAIN)) return;
      if (st < 0) fail("Failed to decode video frame " + std::to_string(frame_number) + ".");
      const int64_t pts = rule.pts(in.frame, frame_number);
      if (pts == 1 && frame_number == 0 && start == 1) start = 0;
      if (pts >= start && pts <= end) {
        keep_frame(in.frame);
        if (start > 0 && start_frame == 0) start_frame = frame_number;
        end_frame = frame_number + 1;
      }
      av_frame_unref(in.frame);
      ++frame_number;
    }
  }

  void audio_frames(const AVPacket* p) {
    if (audio.broken) return;
    if (avcodec_send_packet(in.audio.ctx, p) < 0) {
      audio.broken = true;
      return;
    }
    for (;;) {
      int st = avcodec_receive_frame(in.audio.ctx, in.frame);
      if (st == AVERROR_EOF || st == AVERROR(EAGAIN)) return;
      if (st < 0) {
        audio.broken = true;
        return;
      }
      if (static_cast<AVSampleFormat>(in.frame->format) != in.audio.ctx->sample_fmt) {
        audio.broken = true;
        av_frame_unref(in.frame);
        return;
      }
      take_audio(in.frame, audio);
      av_frame_unref(in.frame);
    }
  }

  void run() {
    while (av_read_frame(in.fmt, in.pkt) >= 0) {
      if (in.pkt->stream_index == in.audio.index) audio_frames(in.pkt);
      if (in.pkt->stream_index == in.video.index) video_frames(in.pkt);
      av_packet_unref(in.pkt);
    }
    if (in.audio.index >= 0) audio_frames(nullptr);
    if (in.video.index >= 0) video_frames(nullptr);
  }
};

void set_error(char* err, size_t n, const std::string& m) {
  if (n > 0) std::snprintf(err, n, "%s", m.c_str());
}

}  // namespace

// Reads `path` (or, when path is null, the `size` bytes at `data`): the video frames whose
// timestamps lie in [start, end] (stream ticks, or seconds when unit_sec), the audio cut to
// them, and the rates. 0 on success; else the message in err.
MYCEL_VIDEO_EXPORT int mycel_video_read(const char* path, const uint8_t* data, size_t size,
                                        double start, double end, int unit_sec,
                                        MycelVideoResult* out, char* err, size_t err_n) {
  std::memset(out, 0, sizeof *out);
  out->video_fps = -1;
  out->audio_fps = -1;
  try {
    Reader r;
    r.in.open(path, data, size);
    r.in.open_decoder(r.in.video, AVMEDIA_TYPE_VIDEO, true);
    r.in.open_decoder(r.in.audio, AVMEDIA_TYPE_AUDIO, false);
    if (r.in.video.index < 0 && r.in.audio.index < 0) fail("Neither audio nor video is found.");
    r.setup_video();
    if (r.in.video.index >= 0) {
      double tb = av_q2d(r.in.video.st->time_base);
      if (unit_sec && tb < 1e-9) fail("The time base of the video stream is too small.");
      r.start = static_cast<int64_t>(std::llround(unit_sec ? start / tb : start));
      r.end = static_cast<int64_t>(std::llround(unit_sec ? end / tb : end));
      out->video_fps = frame_rate(r.in.video.st);
    }
    if (r.in.audio.index >= 0) {
      out->audio_fps = r.in.audio.ctx->sample_rate;
      r.audio.type = sample_type(r.in.audio.ctx->sample_fmt, &r.audio.elem);
    }
    r.run();
    // Video: the kept frames in frame order.
    out->frames = static_cast<int64_t>(r.frames.size());
    out->height = r.in.video.index >= 0 ? r.height : 1;
    out->width = r.in.video.index >= 0 ? r.width : 1;
    const size_t plane = static_cast<size_t>(out->height * out->width * 3);
    out->video = static_cast<uint8_t*>(std::malloc(std::max<size_t>(plane * r.frames.size(), 1)));
    if (out->video == nullptr) fail("out of memory");
    size_t k = 0;
    for (auto& [n, rgb] : r.frames) std::memcpy(out->video + plane * k++, rgb.data(), plane);
    // Audio: the samples in proportion to the kept frames.
    int64_t first = 0, count = r.audio.samples;
    if (r.in.video.index >= 0 && r.audio.samples > 0 && r.frame_number > 0) {
      const double per_frame =
          static_cast<double>(r.audio.samples) / static_cast<double>(r.frame_number);
      const int64_t s = std::llround(static_cast<double>(r.start_frame) * per_frame);
      const int64_t e = s + std::llround(static_cast<double>(r.frames.size()) * per_frame);
      if (!(s < 1 && e >= r.audio.samples)) {
        first = std::min(s, r.audio.samples);
        count = std::max<int64_t>(0, std::min(e, r.audio.samples) - first);
      }
    }
    out->audio_type = r.audio.ch.empty() ? 0 : r.audio.type;
    out->channels = r.audio.ch.empty() ? 1 : static_cast<int64_t>(r.audio.ch.size());
    out->samples = r.audio.ch.empty() ? 0 : count;
    const size_t elem = r.audio.ch.empty() ? 4 : r.audio.elem;
    const size_t row = static_cast<size_t>(out->samples) * elem;
    out->audio = std::malloc(std::max<size_t>(row * static_cast<size_t>(out->channels), 1));
    if (out->audio == nullptr) fail("out of memory");
    for (size_t c = 0; c < r.audio.ch.size(); ++c)
      std::memcpy(static_cast<uint8_t*>(out->audio) + c * row,
                  r.audio.ch[c].data() + static_cast<size_t>(first) * elem, row);
    return 0;
  } catch (const Fail& f) {
    std::free(out->video);
    std::free(out->audio);
    out->video = nullptr;
    out->audio = nullptr;
    set_error(err, err_n, f.msg);
    return 1;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}

MYCEL_VIDEO_EXPORT void mycel_video_free(MycelVideoResult* r) {
  std::free(r->video);
  std::free(r->audio);
  r->video = nullptr;
  r->audio = nullptr;
}

// The presentation timestamps of the video frames of `path` (malloc'd into *pts, *count of
// them; free with free_buffer), the frame rate and the time base (1 and 1 without video).
MYCEL_VIDEO_EXPORT int mycel_video_timestamps(const char* path, int64_t** pts, int64_t* count,
                                              double* fps, double* time_base, char* err,
                                              size_t err_n) {
  *pts = nullptr;
  *count = 0;
  *fps = 1.0;
  *time_base = 1.0;
  try {
    Input in;
    in.open(path, nullptr, 0);
    in.open_decoder(in.video, AVMEDIA_TYPE_VIDEO, false);
    if (in.video.index < 0) return 0;
    in.video.ctx->flags2 |= AV_CODEC_FLAG2_FAST;
    *time_base = av_q2d(in.video.st->time_base);
    *fps = frame_rate(in.video.st);
    PtsRule rule;
    rule.increment = ticks_per_frame(in.video.st);
    std::vector<int64_t> out;
    // Streams written by libavcodec ("Lavc" in the extradata) give the packets' timestamps
    // without decoding, as MindSpore reads them.
    const AVCodecParameters* par = in.video.st->codecpar;
    bool by_packet = false;
    if (par->extradata_size > 4) {
      std::string extra(reinterpret_cast<const char*>(par->extradata),
                        static_cast<size_t>(par->extradata_size));
      by_packet = extra.find("Lavc") != std::string::npos;
    }
    int64_t n = 0, last = 0;
    while (av_read_frame(in.fmt, in.pkt) >= 0) {
      if (in.pkt->stream_index == in.video.index) {
        if (by_packet) {
          if (in.pkt->pts == AV_NOPTS_VALUE) fail("A video packet has no timestamp.");
          out.push_back(last = in.pkt->pts);
        } else {
          if (avcodec_send_packet(in.video.ctx, in.pkt) < 0)
            fail("Failed to decode a video packet.");
          while (avcodec_receive_frame(in.video.ctx, in.frame) >= 0) {
            out.push_back(last = rule.pts(in.frame, n++));
            av_frame_unref(in.frame);
          }
        }
      }
      av_packet_unref(in.pkt);
    }
    avcodec_send_packet(in.video.ctx, nullptr);  // flush the decoder
    while (avcodec_receive_frame(in.video.ctx, in.frame) >= 0) {
      last = in.frame->best_effort_timestamp != AV_NOPTS_VALUE ? in.frame->best_effort_timestamp
                                                               : last + rule.increment;
      out.push_back(last);
      av_frame_unref(in.frame);
    }
    *pts = static_cast<int64_t*>(std::malloc(std::max<size_t>(out.size(), 1) * sizeof(int64_t)));
    if (*pts == nullptr) fail("out of memory");
    std::memcpy(*pts, out.data(), out.size() * sizeof(int64_t));
    *count = static_cast<int64_t>(out.size());
    return 0;
  } catch (const Fail& f) {
    set_error(err, err_n, f.msg);
    return 1;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}

MYCEL_VIDEO_EXPORT void mycel_video_free_buffer(void* p) { std::free(p); }
