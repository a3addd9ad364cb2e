// The short-time Fourier transforms of mindspore.dataset.audio: Spectrogram (and so the
// first stage of MelSpectrogram, MFCC and LFCC), InverseSpectrogram and GriffinLim, on the
// FFT of audio_fft.h. Each row of the input (every leading axis is a batch axis) is
// transformed on its own, in double precision.
#include <algorithm>
#include <cmath>
#include <memory>

#include "data/audio_fft.h"
#include "data/transforms_audio.h"
#include "tensor/size.h"

namespace mycel::data {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The in-range index a padded position i (of a signal of n samples) reads.
int64_t fold_index(int64_t i, int64_t n, BorderMode mode) {
  if (i >= 0 && i < n) return i;
  if (mode == BorderMode::Edge || n == 1) return i < 0 ? 0 : n - 1;
  if (mode == BorderMode::Reflect) {  // ... 2 1 | 0 1 2 ... n-1 | n-2 ...
    int64_t period = 2 * (n - 1);
    int64_t k = ((i % period) + period) % period;
    return k < n ? k : period - k;
  }
  int64_t period = 2 * n;  // Symmetric: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...
  int64_t k = ((i % period) + period) % period;
  return k < n ? k : period - 1 - k;
}

// One row of the waveform as STFT input: opt.pad zeros each side, then n_fft / 2 more each
// side by pad_mode when centring.
std::vector<double> framed_signal(const double* x, int64_t n, const StftOptions& opt,
                                  std::string_view op) {
  std::vector<double> sig(static_cast<size_t>(n + 2 * opt.pad), 0.0);
  for (int64_t i = 0; i < n; ++i) sig[static_cast<size_t>(i + opt.pad)] = x[i];
  if (!opt.center) return sig;
  int64_t m = static_cast<int64_t>(sig.size()), p = opt.n_fft / 2;
  MC_CHECK(m > 0, Value, op, ": the waveform is empty.");
  MC_CHECK(opt.pad_mode != BorderMode::Reflect || p < m || m == 1, Value, op,
           ": reflect padding of ", p, " samples needs a longer waveform, but got ", m,
           " samples.");
  std::vector<double> out(static_cast<size_t>(m + 2 * p), 0.0);
  for (int64_t i = -p; i < m + p; ++i) {
    bool inside = i >= 0 && i < m;
    if (inside || opt.pad_mode != BorderMode::Constant) {
      out[static_cast<size_t>(i + p)] = sig[static_cast<size_t>(fold_index(i, m, opt.pad_mode))];
    }
  }
  return out;
}

int64_t stft_bins(const StftOptions& opt) { return opt.onesided ? opt.n_fft / 2 + 1 : opt.n_fft; }

double window_norm(const std::vector<double>& w) {
  double s = 0;
  for (double v : w) s += v * v;
  return std::sqrt(s);
}

// The STFT of one waveform row: [bins, frames] complex values, row-major.
std::vector<cdouble> stft_row(const double* x, int64_t n, const StftOptions& opt,
                              const std::vector<double>& win, const RealFftPlan& plan,
                              int64_t* frames_out, std::string_view op) {
  std::vector<double> sig = framed_signal(x, n, opt, op);
  auto len = static_cast<int64_t>(sig.size());
  MC_CHECK(len >= opt.n_fft, Runtime, op, ": n_fft should be more than 0 and less than ", len,
           ", but got n_fft: ", opt.n_fft, ".");
  int64_t frames = 1 + (len - opt.n_fft) / opt.hop_length, bins = stft_bins(opt);
  double scale = opt.normalized ? 1.0 / window_norm(win) : 1.0;
  // Frame-major first ([frames, n_fft / 2 + 1], contiguous writes), then transposed in blocks.
  int64_t half_bins = opt.n_fft / 2 + 1;
  std::vector<cdouble> by_frame(static_cast<size_t>(frames * half_bins));
  std::vector<double> windowed(static_cast<size_t>(opt.n_fft));
  for (int64_t f = 0; f < frames; ++f) {
    const double* frame = sig.data() + f * opt.hop_length;
    for (int64_t k = 0; k < opt.n_fft; ++k) {
      windowed[static_cast<size_t>(k)] = frame[k] * win[static_cast<size_t>(k)];
    }
    plan.forward(windowed.data(), by_frame.data() + f * half_bins);
  }
  std::vector<cdouble> out(static_cast<size_t>(bins * frames));
  constexpr int64_t kBlock = 32;
  for (int64_t f0 = 0; f0 < frames; f0 += kBlock) {
    int64_t f1 = std::min(frames, f0 + kBlock);
    for (int64_t b = 0; b < bins; ++b) {  // bins past n_fft / 2 mirror (real input)
      bool mirror = b >= half_bins;
      int64_t src = mirror ? opt.n_fft - b : b;
      for (int64_t f = f0; f < f1; ++f) {
        cdouble v = by_frame[static_cast<size_t>(f * half_bins + src)];
        out[static_cast<size_t>(b * frames + f)] = (mirror ? std::conj(v) : v) * scale;
      }
    }
  }
  *frames_out = frames;
  return out;
}

// torch.istft of one row of [bins, frames] complex values (opt.normalized is applied by the
// caller); length < 0: the natural length.
std::vector<double> istft_row(const cdouble* spec, int64_t frames, const StftOptions& opt,
                              const std::vector<double>& win, const FftPlan& plan, int64_t length,
                              std::string_view op) {
  int64_t n_fft = opt.n_fft, hop = opt.hop_length, bins = stft_bins(opt);
  int64_t total = n_fft + hop * (frames - 1);
  std::vector<double> y(static_cast<size_t>(total), 0.0), env(static_cast<size_t>(total), 0.0);
  std::vector<cdouble> buf(static_cast<size_t>(n_fft));
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t k = 0; k < n_fft; ++k) buf[static_cast<size_t>(k)] = cdouble(0, 0);
    if (opt.onesided) {  // Hermitian completion, as irfft: the DC (and Nyquist) imaginary parts are
                         // dropped
      for (int64_t b = 0; b < bins; ++b) buf[static_cast<size_t>(b)] = spec[b * frames + f];
      buf[0] = cdouble(buf[0].real(), 0.0);
      if (n_fft % 2 == 0)
        buf[static_cast<size_t>(n_fft / 2)] =
            cdouble(buf[static_cast<size_t>(n_fft / 2)].real(), 0.0);
      for (int64_t b = 1; b < (n_fft + 1) / 2; ++b)
        buf[static_cast<size_t>(n_fft - b)] = std::conj(buf[static_cast<size_t>(b)]);
    } else {
      for (int64_t b = 0; b < n_fft; ++b) buf[static_cast<size_t>(b)] = spec[b * frames + f];
    }
    plan.inverse(buf.data());
    for (int64_t k = 0; k < n_fft; ++k) {
      double w = win[static_cast<size_t>(k)];
      y[static_cast<size_t>(f * hop + k)] +=
          buf[static_cast<size_t>(k)].real() / static_cast<double>(n_fft) * w;
      env[static_cast<size_t>(f * hop + k)] += w * w;
    }
  }
  int64_t start = opt.center ? n_fft / 2 : 0;
  int64_t end = length >= 0 ? start + length : (opt.center ? total - n_fft / 2 : total);
  int64_t stop = std::min(end, total);
  MC_CHECK(stop >= start, Value, op, ": the spectrogram's ", frames,
           " frame(s) are too few for n_fft = ", n_fft, ".");
  std::vector<double> out(static_cast<size_t>(end - start), 0.0);
  for (int64_t i = start; i < stop; ++i) {
    MC_CHECK(env[static_cast<size_t>(i)] > 1e-11, Value, op,
             ": the window's overlap-add is zero at sample ", i,
             " (the window and hop_length do not satisfy the NOLA condition).");
    out[static_cast<size_t>(i - start)] = y[static_cast<size_t>(i)] / env[static_cast<size_t>(i)];
  }
  return out;
}

void check_stft(const StftOptions& opt, std::string_view op) {
  MC_CHECK(opt.n_fft >= 1 && opt.win_length >= 1 && opt.win_length <= opt.n_fft, Value, op,
           ": win_length must be in [1, n_fft], but got win_length ", opt.win_length, " and n_fft ",
           opt.n_fft, ".");
  MC_CHECK(opt.hop_length >= 1 && opt.pad >= 0, Value, op,
           ": hop_length must be positive and pad non-negative, but got ", opt.hop_length, " and ",
           opt.pad, ".");
}

// Splits a shape <..., last> into its rows; a ValueError naming op for a 0-d input.
int64_t row_count(const Array& x, int64_t min_rank, std::string_view op, const char* layout) {
  MC_CHECK(x.ndim() >= min_rank, Value, op, ": the input must be of shape ", layout, ", but got ",
           describe(x), ".");
  int64_t last = x.shape().back();
  return last == 0 ? 0 : x.numel() / last;
}

class Spectrogram final : public UnaryTransform {
 public:
  Spectrogram(const StftOptions& opt, double power)
      : opt_(opt),
        power_(power),
        win_(stft_window(opt.window, opt.n_fft, opt.win_length)),
        plan_(opt.n_fft) {
    check_stft(opt, name());
    MC_CHECK(power >= 0, Value, "Spectrogram: power must be non-negative, but got ", power, ".");
  }
  std::string_view name() const override { return "Spectrogram"; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    int64_t rows = row_count(x, 1, name(), "<..., time>");
    std::vector<double> in = audio::as_doubles(x, name());
    int64_t n = x.shape().back(), bins = stft_bins(opt_), frames = 0;
    MC_CHECK(rows > 0 && n > 0, Runtime, "Spectrogram: the input ", describe(x), " is empty.");
    std::vector<double> out;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<cdouble> spec =
          stft_row(in.data() + r * n, n, opt_, win_, plan_, &frames, name());
      if (r == 0) out.reserve(static_cast<size_t>(rows * bins * frames * (power_ == 0 ? 2 : 1)));
      for (const cdouble& c : spec) {
        if (power_ == 0) {
          out.push_back(c.real());
          out.push_back(c.imag());
        } else if (power_ == 1) {
          out.push_back(std::abs(c));
        } else if (power_ == 2) {
          out.push_back(std::norm(c));
        } else {
          out.push_back(std::pow(std::abs(c), power_));
        }
      }
    }
    Shape shape(x.shape().begin(), x.shape().end() - 1);
    shape.push_back(bins);
    shape.push_back(frames);
    if (power_ == 0) shape.push_back(2);
    return audio::from_doubles(out, audio::out_type(x), shape);
  }

 private:
  StftOptions opt_;
  double power_;
  std::vector<double> win_;
  RealFftPlan plan_;
};

// Reads the complex <..., bins, frames, 2> input of InverseSpectrogram.
void check_complex_spec(const Array& x, int64_t bins, std::string_view op) {
  MC_CHECK(x.ndim() >= 3 && x.shape().back() == 2, Runtime, op,
           ": the shape of input tensor does not match the requirement of operator. Expecting "
           "tensor in shape of <..., freq, time, complex=2>. But got ",
           describe(x), ".");
  int64_t freq = x.shape()[static_cast<size_t>(x.ndim() - 3)];
  MC_CHECK(freq == bins, Runtime, op, ": the frequency of the input should equal to ", bins,
           " (n_fft and onesided), but got ", freq, ".");
}

class InverseSpectrogram final : public UnaryTransform {
 public:
  InverseSpectrogram(const StftOptions& opt, int64_t length)
      : opt_(opt),
        length_(length),
        win_(stft_window(opt.window, opt.n_fft, opt.win_length)),
        plan_(opt.n_fft) {
    check_stft(opt, name());
  }
  std::string_view name() const override { return "InverseSpectrogram"; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    int64_t bins = stft_bins(opt_);
    check_complex_spec(x, bins, name());
    int64_t frames = x.shape()[static_cast<size_t>(x.ndim() - 2)];
    MC_CHECK(frames >= 1, Runtime, "InverseSpectrogram: the input ", describe(x),
             " has no frames.");
    int64_t rows = x.numel() / (bins * frames * 2);
    std::vector<double> in = audio::as_doubles(x, name());
    double scale = opt_.normalized ? window_norm(win_) : 1.0;
    int64_t length = length_ >= 0 ? length_ + 2 * opt_.pad : -1;
    std::vector<double> out;
    int64_t out_len = 0;
    std::vector<cdouble> spec(static_cast<size_t>(bins * frames));
    for (int64_t r = 0; r < rows; ++r) {
      const double* src = in.data() + r * bins * frames * 2;
      for (int64_t i = 0; i < bins * frames; ++i) {
        spec[static_cast<size_t>(i)] = cdouble(src[2 * i], src[2 * i + 1]) * scale;
      }
      std::vector<double> y = istft_row(spec.data(), frames, opt_, win_, plan_, length, name());
      int64_t cut = length_ >= 0 ? opt_.pad : 0;  // the pad is removed only with a length
      out_len = static_cast<int64_t>(y.size()) - 2 * cut;
      out.insert(out.end(), y.begin() + cut, y.end() - cut);
    }
    Shape shape(x.shape().begin(), x.shape().end() - 3);
    shape.push_back(out_len);
    return audio::from_doubles(out, audio::out_type(x), shape);
  }

 private:
  StftOptions opt_;
  int64_t length_;
  std::vector<double> win_;
  FftPlan plan_;
};

class GriffinLim final : public UnaryTransform {
 public:
  GriffinLim(const StftOptions& opt, int n_iter, double power, double momentum, int64_t length,
             bool rand_init)
      : opt_(opt),
        n_iter_(n_iter),
        power_(power),
        momentum_(momentum),
        length_(length),
        rand_init_(rand_init),
        win_(stft_window(opt.window, opt.n_fft, opt.win_length)),
        plan_(opt.n_fft),
        rplan_(opt.n_fft) {
    check_stft(opt, name());
    MC_CHECK(n_iter >= 1 && power > 0 && momentum >= 0, Value,
             "GriffinLim: n_iter and power must be positive and momentum non-negative, but got ",
             n_iter, ", ", power, " and ", momentum, ".");
  }
  std::string_view name() const override { return "GriffinLim"; }
  bool random() const override { return rand_init_; }

 protected:
  Array apply1(const Array& x, int, RowRandom* rng) const override {
    int64_t bins = stft_bins(opt_);
    MC_CHECK(x.ndim() >= 2, Runtime,
             "GriffinLim: the shape of input tensor does not match the requirement of operator. "
             "Expecting tensor in shape of <..., freq, time>. But got ",
             describe(x), ".");
    MC_CHECK(x.shape()[static_cast<size_t>(x.ndim() - 2)] == bins, Runtime,
             "GriffinLim: the frequency of the input should equal to n_fft / 2 + 1 = ", bins,
             ", but got ", describe(x), ".");
    int64_t frames = x.shape().back();
    MC_CHECK(frames >= 1, Runtime, "GriffinLim: the input ", describe(x), " has no frames.");
    int64_t rows = x.numel() / (bins * frames);
    std::vector<double> in = audio::as_doubles(x, name());
    std::vector<double> out;
    int64_t out_len = 0;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> y = run_row(in.data() + r * bins * frames, bins, frames, rng);
      out_len = static_cast<int64_t>(y.size());
      out.insert(out.end(), y.begin(), y.end());
    }
    Shape shape(x.shape().begin(), x.shape().end() - 2);
    shape.push_back(out_len);
    return audio::from_doubles(out, audio::out_type(x), shape);
  }

 private:
  std::vector<double> run_row(const double* spec, int64_t bins, int64_t frames,
                              RowRandom* rng) const {
    int64_t n = bins * frames;
    std::vector<double> mag(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) mag[static_cast<size_t>(i)] = std::pow(spec[i], 1.0 / power_);
    std::vector<cdouble> angles(static_cast<size_t>(n), cdouble(1.0, 0.0));
    if (rand_init_) {
      for (auto& a : angles) {
        double re = rng->uniform();
        a = cdouble(re, rng->uniform());
      }
    }
    std::vector<cdouble> prev(static_cast<size_t>(n), cdouble(0, 0)),
        spec_c(static_cast<size_t>(n));
    auto combine = [&] {
      for (int64_t i = 0; i < n; ++i)
        spec_c[static_cast<size_t>(i)] =
            mag[static_cast<size_t>(i)] * angles[static_cast<size_t>(i)];
    };
    StftOptions fwd = opt_;  // the re-analysis: centred, reflect-padded, unnormalised
    fwd.center = true;
    fwd.pad_mode = BorderMode::Reflect;
    fwd.normalized = false;
    fwd.onesided = true;
    fwd.pad = 0;
    for (int it = 0; it < n_iter_; ++it) {
      combine();
      std::vector<double> wave =
          istft_row(spec_c.data(), frames, fwd, win_, plan_, length_, name());
      int64_t got = 0;
      std::vector<cdouble> rebuilt =
          stft_row(wave.data(), static_cast<int64_t>(wave.size()), fwd, win_, rplan_, &got, name());
      MC_CHECK(got == frames, Value, "GriffinLim: length ", length_, " gives ", got,
               " frames, but the spectrogram has ", frames, ".");
      double m = momentum_ / (1.0 + momentum_);
      for (int64_t i = 0; i < n; ++i) {
        cdouble a = rebuilt[static_cast<size_t>(i)] - prev[static_cast<size_t>(i)] * m;
        angles[static_cast<size_t>(i)] = a / (std::abs(a) + 1e-16);
        prev[static_cast<size_t>(i)] = rebuilt[static_cast<size_t>(i)];
      }
    }
    combine();
    return istft_row(spec_c.data(), frames, fwd, win_, plan_, length_, name());
  }

  StftOptions opt_;
  int n_iter_;
  double power_, momentum_;
  int64_t length_;
  bool rand_init_;
  std::vector<double> win_;
  FftPlan plan_;
  RealFftPlan rplan_;
};

}  // namespace

AudioWindow audio_window_from_name(std::string_view name, std::string_view op) {
  if (name == "bartlett") return AudioWindow::Bartlett;
  if (name == "blackman") return AudioWindow::Blackman;
  if (name == "hamming") return AudioWindow::Hamming;
  if (name == "hann") return AudioWindow::Hann;
  if (name == "kaiser") return AudioWindow::Kaiser;
  MC_THROW(Value, op, ": unknown window '", name, "'.");
}

std::vector<double> stft_window(AudioWindow w, int64_t n_fft, int64_t win_length) {
  std::vector<double> out(static_cast<size_t>(std::max<int64_t>(n_fft, 0)), 0.0);
  if (win_length < 1 || win_length > n_fft) return out;  // the factories report it
  int64_t left = (n_fft - win_length) / 2;
  auto len = static_cast<double>(win_length);  // periodic windows: the period is win_length
  double i0_beta = std::cyl_bessel_i(0.0, 12.0);
  for (int64_t k = 0; k < win_length; ++k) {
    double t = static_cast<double>(k), v = 1.0;
    switch (w) {
      case AudioWindow::Bartlett:
        v = 1.0 - std::abs(2.0 * t / len - 1.0);
        break;
      case AudioWindow::Blackman:
        v = 0.42 - 0.5 * std::cos(2 * kPi * t / len) + 0.08 * std::cos(4 * kPi * t / len);
        break;
      case AudioWindow::Hamming:
        v = 0.54 - 0.46 * std::cos(2 * kPi * t / len);
        break;
      case AudioWindow::Hann:
        v = 0.5 - 0.5 * std::cos(2 * kPi * t / len);
        break;
      case AudioWindow::Kaiser: {  // the symmetric window of win_length + 1, last sample dropped
        double r = 2.0 * t / len - 1.0;
        v = std::cyl_bessel_i(0.0, 12.0 * std::sqrt(std::max(0.0, 1.0 - r * r))) / i0_beta;
        break;
      }
    }
    out[static_cast<size_t>(left + k)] = win_length == 1 ? 1.0 : v;
  }
  return out;
}

TransformPtr make_spectrogram(const StftOptions& opt, double power) {
  return std::make_shared<Spectrogram>(opt, power);
}
TransformPtr make_inverse_spectrogram(const StftOptions& opt, int64_t length) {
  return std::make_shared<InverseSpectrogram>(opt, length);
}
TransformPtr make_griffin_lim(const StftOptions& opt, int n_iter, double power, double momentum,
                              int64_t length, bool rand_init) {
  return std::make_shared<GriffinLim>(opt, n_iter, power, momentum, length, rand_init);
}

}  // namespace mycel::data
