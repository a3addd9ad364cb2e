// Bindings of the audio kernels (src/data/transforms_audio.h) for mycel.dataset.audio:
// factories returning _data.Transform objects; window and pad modes come as lower-case names
// ("hann", "reflect"). The FFT is exposed for the tests (fft).
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include "data/audio_fft.h"
#include "data/audio_file.h"
#include "data/transforms_audio.h"
#include "python/py_data.h"

namespace mycel::py {

namespace {

data::StftOptions stft_options(int64_t n_fft, int64_t win_length, int64_t hop_length, int64_t pad,
                               const std::string& window, bool normalized, bool center,
                               const std::string& pad_mode, bool onesided, std::string_view op) {
  data::StftOptions o;
  o.n_fft = n_fft;
  o.win_length = win_length;
  o.hop_length = hop_length;
  o.pad = pad;
  o.window = data::audio_window_from_name(window, op);
  o.normalized = normalized;
  o.center = center;
  o.pad_mode = data::border_from_name(pad_mode, op);
  o.onesided = onesided;
  return o;
}

}  // namespace

void bind_data_audio(pyb::module_& m) {
  using namespace pybind11::literals;
  namespace d = data;
  m.def(
      "Spectrogram",
      [](int64_t n_fft, int64_t win_length, int64_t hop_length, int64_t pad,
         const std::string& window, double power, bool normalized, bool center,
         const std::string& pad_mode, bool onesided) {
        return d::make_spectrogram(
            stft_options(n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                         onesided, "Spectrogram"),
            power);
      },
      "n_fft"_a, "win_length"_a, "hop_length"_a, "pad"_a, "window"_a, "power"_a, "normalized"_a,
      "center"_a, "pad_mode"_a, "onesided"_a);
  m.def(
      "InverseSpectrogram",
      [](int64_t length, int64_t n_fft, int64_t win_length, int64_t hop_length, int64_t pad,
         const std::string& window, bool normalized, bool center, const std::string& pad_mode,
         bool onesided) {
        return d::make_inverse_spectrogram(
            stft_options(n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                         onesided, "InverseSpectrogram"),
            length);
      },
      "length"_a, "n_fft"_a, "win_length"_a, "hop_length"_a, "pad"_a, "window"_a, "normalized"_a,
      "center"_a, "pad_mode"_a, "onesided"_a);
  m.def(
      "GriffinLim",
      [](int64_t n_fft, int n_iter, int64_t win_length, int64_t hop_length,
         const std::string& window, double power, double momentum, int64_t length, bool rand_init) {
        return d::make_griffin_lim(stft_options(n_fft, win_length, hop_length, 0, window, false,
                                                true, "reflect", true, "GriffinLim"),
                                   n_iter, power, momentum, length, rand_init);
      },
      "n_fft"_a, "n_iter"_a, "win_length"_a, "hop_length"_a, "window"_a, "power"_a, "momentum"_a,
      "length"_a, "rand_init"_a);
  m.def("LogOffset", &d::make_log_offset, "op"_a, "offset"_a);
  m.def("LFilter", &d::make_lfilter, "op"_a, "a_coeffs"_a, "b_coeffs"_a, "clamp"_a);
  m.def("FreqMatrix", &d::make_freq_matrix, "op"_a, "matrix"_a, "rows"_a, "cols"_a);
  m.def("AmplitudeToDB", &d::make_amplitude_to_db, "op"_a, "multiplier"_a, "amin"_a,
        "db_multiplier"_a, "top_db"_a);
  m.def(
      "stft_window",
      [](const std::string& window, int64_t n_fft, int64_t win_length) {
        return d::stft_window(d::audio_window_from_name(window, "stft_window"), n_fft, win_length);
      },
      "window"_a, "n_fft"_a, "win_length"_a);
  m.def(
      "fft",
      [](std::vector<d::cdouble> x, bool inverse, bool naive) {
        if (naive) return d::naive_dft(x, inverse);
        d::FftPlan plan(static_cast<int64_t>(x.size()));
        if (inverse) {
          plan.inverse(x.data());
        } else {
          plan.forward(x.data());
        }
        return x;
      },
      "x"_a, "inverse"_a = false, "naive"_a = false,
      "The unscaled DFT of x (the engine's FFT, or the O(n^2) definition when naive).");

  m.def(
      "audio_file_source",
      [](std::string name, std::vector<std::string> columns, std::vector<std::string> paths,
         std::vector<std::array<double, 2>> segments, const std::vector<pyb::list>& extras,
         bool sph, const std::string& waveform_type, bool signed_rate) -> d::SourcePtr {
        std::vector<std::vector<d::Array>> rows;
        rows.reserve(extras.size());
        for (const pyb::list& row : extras) {
          std::vector<d::Array> arrays;
          for (const pyb::handle& v : row) arrays.push_back(data_array_from_py(v, name));
          rows.push_back(std::move(arrays));
        }
        d::DataType t = waveform_type == "float64" ? d::DataType::Float64 : d::DataType::Float32;
        return d::audio_file_source(std::move(name), std::move(columns), std::move(paths),
                                    std::move(segments), std::move(rows), sph, t, signed_rate);
      },
      "name"_a, "columns"_a, "paths"_a, "segments"_a, "extras"_a, "sph"_a, "waveform_type"_a,
      "signed_rate"_a = false);
  m.def(
      "decode_audio",
      [](const pyb::bytes& data, bool sph) {
        std::string bytes = data;
        d::AudioClip clip;
        {
          pyb::gil_scoped_release nogil;
          const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
          clip = sph ? d::decode_sph(p, bytes.size(), "decode_audio")
                     : d::decode_wav(p, bytes.size(), "decode_audio");
        }
        d::Array wave = d::Array::empty(d::DataType::Float32, {clip.channels, clip.frames});
        std::copy(clip.samples.begin(), clip.samples.end(), wave.mutable_data<float>());
        return pyb::make_tuple(data_array_to_numpy(wave), clip.sample_rate);
      },
      "data"_a, "sph"_a = false,
      "Decodes WAVE (or SPHERE) bytes: (float32 [channels, frames] in [-1, 1), sample_rate).");
}

}  // namespace mycel::py
