// Bindings of the audio kernels (src/data/transforms_audio.h) for mycel.dataset.audio:
// factories returning _data.Transform objects; window and pad modes come as lower-case names
// ("hann", "reflect"). The FFT is exposed for the tests (fft).
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include "data/audio_fft.h"
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
}

}  // namespace mycel::py
