// The audio datasets' source (audio_file.h): file paths, optional segments and metadata
// columns prepared by the Python classes (python/mycel/dataset/sources_audio.py); the waveform
// is decoded when a row is read.
#include <algorithm>
#include <cmath>
#include <memory>

#include "base/file.h"
#include "data/audio_file.h"
#include "tensor/size.h"

namespace mycel::data {
namespace {

class AudioFileSource final : public RandomAccessSource {
 public:
  AudioFileSource(std::string name, std::vector<std::string> columns,
                  std::vector<std::string> paths, std::vector<std::array<double, 2>> segments,
                  std::vector<std::vector<Array>> extras, bool sph, DataType waveform_type,
                  bool signed_rate)
      : name_(std::move(name)),
        columns_(std::move(columns)),
        paths_(std::move(paths)),
        segments_(std::move(segments)),
        extras_(std::move(extras)),
        sph_(sph),
        type_(waveform_type),
        signed_rate_(signed_rate) {
    MC_CHECK(segments_.empty() || segments_.size() == paths_.size(), Value, name_,
             ": one segment per file is needed.");
    MC_CHECK(extras_.size() == paths_.size(), Value, name_,
             ": one row of metadata per file is needed.");
    for (const auto& row : extras_) {
      MC_CHECK(row.size() + 2 == columns_.size(), Value, name_, ": ", columns_.size(),
               " columns but ", row.size() + 2, " values in a row.");
    }
    MC_CHECK(type_ == DataType::Float32 || type_ == DataType::Float64, Value, name_,
             ": the waveform type must be float32 or float64.");
  }
  std::string_view name() const override { return name_; }
  int64_t size() const override { return static_cast<int64_t>(paths_.size()); }
  std::vector<std::string> columns() const override { return columns_; }

  Row read(int64_t i) const override {
    const std::string& path = paths_[static_cast<size_t>(i)];
    std::string what = str(name_, ": file '", path, "' (row ", i, ")");
    const std::string file = read_regular_file(path, what);
    const auto* bytes = reinterpret_cast<const uint8_t*>(file.data());
    AudioClip clip =
        sph_ ? decode_sph(bytes, file.size(), what) : decode_wav(bytes, file.size(), what);
    int64_t begin = 0, end = clip.frames;
    if (!segments_.empty()) {
      const auto& seg = segments_[static_cast<size_t>(i)];
      auto rate = static_cast<double>(clip.sample_rate);
      begin =
          std::clamp<int64_t>(static_cast<int64_t>(std::llround(seg[0] * rate)), 0, clip.frames);
      end = std::clamp<int64_t>(static_cast<int64_t>(std::llround(seg[1] * rate)), begin,
                                clip.frames);
    }
    int64_t n = end - begin;
    Array wave = Array::empty(type_, {clip.channels, n});
    for (int64_t c = 0; c < clip.channels; ++c) {
      const float* src = clip.samples.data() + c * clip.frames + begin;
      if (type_ == DataType::Float32) {
        std::copy(src, src + n, wave.mutable_data<float>() + c * n);
      } else {
        double* dst = wave.mutable_data<double>() + c * n;
        for (int64_t t = 0; t < n; ++t) dst[t] = static_cast<double>(src[t]);
      }
    }
    Array rate = signed_rate_ ? Array::scalar<int32_t>(static_cast<int32_t>(clip.sample_rate))
                              : Array::scalar<uint32_t>(static_cast<uint32_t>(clip.sample_rate));
    Row row{wave, rate};
    const auto& extra = extras_[static_cast<size_t>(i)];
    row.insert(row.end(), extra.begin(), extra.end());
    return row;
  }

 private:
  std::string name_;
  std::vector<std::string> columns_, paths_;
  std::vector<std::array<double, 2>> segments_;
  std::vector<std::vector<Array>> extras_;
  bool sph_;
  DataType type_;
  bool signed_rate_;
};

}  // namespace

SourcePtr audio_file_source(std::string name, std::vector<std::string> columns,
                            std::vector<std::string> paths,
                            std::vector<std::array<double, 2>> segments,
                            std::vector<std::vector<Array>> extras, bool sph,
                            DataType waveform_type, bool signed_rate) {
  return std::make_shared<AudioFileSource>(std::move(name), std::move(columns), std::move(paths),
                                           std::move(segments), std::move(extras), sph,
                                           waveform_type, signed_rate);
}

}  // namespace mycel::data
