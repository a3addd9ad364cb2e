// The C++ kernels of mindspore.dataset.audio (python/mycel/dataset/audio/): the short-time
// Fourier transforms (transforms_audio.cc: Spectrogram, InverseSpectrogram, GriffinLim, the
// first stages of MelSpectrogram, MFCC, LFCC) and the filters and matrices
// (transforms_audio_filter.cc: LFilter and the biquads built on it, the mel / linear filter
// banks and DCTs applied along the frequency axis, AmplitudeToDB). The Python classes compute
// coefficient tables (filter banks, biquad coefficients) and validate arguments with
// MindSpore's messages; these factories check their arguments again (ValueError naming op).
//
// Waveforms are <..., time> and spectrograms <..., freq, time> (complex ones <..., freq,
// time, 2>, the last axis real and imaginary parts), as MindSpore's. Every leading axis is a
// batch axis. Any numeric input is read as double; float64 input gives float64 output, every
// other dtype gives float32 (MindSpore's audio ops compute in the input's float type).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/transforms.h"

namespace mycel::data {

// MindSpore's audio.WindowType, the periodic windows of torch.*_window (kaiser with
// beta = 12).
enum class AudioWindow : uint8_t { Bartlett, Blackman, Hamming, Hann, Kaiser };
// "bartlett", "blackman", "hamming", "hann", "kaiser"; a ValueError naming op otherwise.
AudioWindow audio_window_from_name(std::string_view name, std::string_view op);
// The window of win_length samples, zero-padded on both sides (left (n_fft - win) / 2) to
// n_fft.
std::vector<double> stft_window(AudioWindow w, int64_t n_fft, int64_t win_length);

// What Spectrogram, InverseSpectrogram and GriffinLim share. hop_length and win_length are
// given (the Python defaults resolved). pad zero-pads the waveform on both sides first;
// center pads n_fft / 2 on both sides by pad_mode so frame t is centred on sample t * hop.
// normalized divides the frames by sqrt(sum(window^2)).
struct StftOptions {
  int64_t n_fft = 400;
  int64_t win_length = 400;
  int64_t hop_length = 200;
  int64_t pad = 0;
  AudioWindow window = AudioWindow::Hann;
  bool normalized = false;
  bool center = true;
  BorderMode pad_mode = BorderMode::Reflect;
  bool onesided = true;
};

// Spectrogram: <..., time> -> <..., freq, frames> of |X|^power, freq = n_fft / 2 + 1 when
// onesided (else n_fft); power == 0 gives the complex STFT <..., freq, frames, 2>.
TransformPtr make_spectrogram(const StftOptions& opt, double power);
// InverseSpectrogram: complex <..., freq, frames, 2> -> <..., time> by overlap-add of the
// windowed inverse DFTs divided by the summed squared window (torch.istft); length < 0 gives
// the natural length, otherwise the result is cut or zero-padded to length. opt.pad samples
// are removed from both ends afterwards.
TransformPtr make_inverse_spectrogram(const StftOptions& opt, int64_t length);
// GriffinLim: a magnitude^power spectrogram <..., freq, frames> -> <..., time>, n_iter rounds
// of the fast Griffin-Lim phase estimate (momentum); phases start at 1 or, with rand_init,
// at complex numbers with uniform [0, 1) parts (drawn from the row's stream).
TransformPtr make_griffin_lim(const StftOptions& opt, int n_iter, double power, double momentum,
                              int64_t length, bool rand_init);

// LFilter (and every biquad): y[n] = (sum_k b[k] x[n-k] - sum_{k>0} a[k] y[n-k]) / a[0] along
// the last axis, from zero state; clamp clips the output (not the recursion) to [-1, 1].
// op names the transform in messages ("BandBiquad").
TransformPtr make_lfilter(std::string op, std::vector<double> a, std::vector<double> b, bool clamp);
// A fixed matrix along the frequency axis: <..., rows, time> -> <..., cols, time>,
// out[c, t] = sum_r matrix[r * cols + c] * x[r, t] (MelScale's filter bank, MFCC's DCT).
TransformPtr make_freq_matrix(std::string op, std::vector<double> matrix, int64_t rows,
                              int64_t cols);
// AmplitudeToDB: multiplier * (log10(max(x, amin)) - db_multiplier), then, when top_db >= 0,
// clipped below at (the maximum over each <channel, freq, time> block) - top_db.
TransformPtr make_amplitude_to_db(std::string op, double multiplier, double amin,
                                  double db_multiplier, double top_db);

// log(x + offset), element-wise (MFCC's log_mels and LFCC's log_lf, offset 1e-6).
TransformPtr make_log_offset(std::string op, double offset);

// Helpers shared by the audio transform files.
namespace audio {
// The output dtype: float64 for float64 input, float32 otherwise.
DataType out_type(const Array& x);
// x's elements as doubles (row-major).
std::vector<double> as_doubles(const Array& x, std::string_view op);
// An array of out's dtype and shape holding values.
Array from_doubles(const std::vector<double>& values, DataType t, const Shape& shape);
}  // namespace audio

}  // namespace mycel::data
