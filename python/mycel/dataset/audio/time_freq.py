"""Time and rate transforms of mindspore.dataset.audio: PhaseVocoder, TimeStretch, Resample,
PitchShift (STFT and inverse in C++, the phase vocoder and the polyphase sinc resampler in
numpy) and Filtfilt (the C++ LFilter run forwards and backwards). Semantics are MindSpore's,
which follow torchaudio's."""
import math

import numpy as np

from mycel.dataset.audio.transforms import (AudioOp, _check_stft, _data, _float_type,
                                            _spectrogram_op)
from mycel.dataset.audio.utils import (BorderType, MelType, NormType, ResampleMethod,
                                       WindowType)
from mycel.dataset.audio.validators import (check_bool, check_enum, check_float, check_int,
                                            check_not_zero, type_check)


def _complex_input(op, x):
    if x.ndim < 3 or x.shape[-1] != 2:
        raise RuntimeError(f"{op}: the shape of input tensor does not match the requirement of "
                           f"operator. Expecting tensor in shape of <..., freq, num_frame, "
                           f"complex=2>. But got tensor with dimension {x.ndim}.")
    return x.astype(_float_type(x), copy=False)


def phase_vocoder(spec, rate, phase_advance):
    """Stretches complex spec <..., freq, time, 2> in time by 1 / rate (phase_advance:
    [freq, 1] expected phase advance per hop)."""
    dtype = spec.dtype
    z = spec[..., 0].astype(np.float64) + 1j * spec[..., 1].astype(np.float64)
    steps = np.arange(0, z.shape[-1], rate, dtype=dtype).astype(np.float64)  # the spec's type
    alphas = steps % 1.0
    phase_0 = np.angle(z[..., :1])
    z = np.concatenate([z, np.zeros(z.shape[:-1] + (2,), z.dtype)], axis=-1)
    z0 = z[..., steps.astype(np.int64)]
    z1 = z[..., steps.astype(np.int64) + 1]
    adv = np.asarray(phase_advance, np.float64).reshape(-1, 1)
    phase = np.angle(z1) - np.angle(z0) - adv
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi))
    phase = phase + adv
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    acc = np.cumsum(phase, axis=-1)
    mag = alphas * np.abs(z1) + (1 - alphas) * np.abs(z0)
    return np.stack([mag * np.cos(acc), mag * np.sin(acc)], axis=-1).astype(dtype)


class PhaseVocoder(AudioOp):
    """PhaseVocoder(rate, phase_advance): speeds a complex spectrogram <..., freq, time, 2> up
    by rate (> 0) without changing its pitch; phase_advance is the expected phase advance of
    each bin per hop, an array [freq, 1] of the spectrogram's float type."""

    def __init__(self, rate, phase_advance):
        check_float(rate, "rate", 0, left_open=True)
        type_check(phase_advance, (np.ndarray,), "phase_advance")
        self.rate, self.phase_advance = rate, phase_advance

        def run(x):
            x = _complex_input("PhaseVocoder", x)
            if phase_advance.ndim != 2 or phase_advance.shape[1] != 1:
                raise RuntimeError(f"PhaseVocoder: invalid parameter, 'phase_advance' should be in "
                                   f"shape of <freq, 1>. Got {list(phase_advance.shape)}.")
            if phase_advance.shape[0] != x.shape[-3]:
                raise RuntimeError(f"PhaseVocoder: invalid parameter, 'first dimension of "
                                   f"'phase_advance'' should be equal to 'freq dimension of input', "
                                   f"but got {phase_advance.shape[0]} and {x.shape[-3]}.")
            if phase_advance.dtype != x.dtype:
                raise RuntimeError(f"PhaseVocoder: invalid parameter, data type of phase_advance "
                                   f"should be equal to data type of input tensor, but got "
                                   f"{phase_advance.dtype} and {x.dtype}.")
            return phase_vocoder(x, rate, phase_advance)
        self._steps = [run]


class TimeStretch(AudioOp):
    """TimeStretch(hop_length=None, n_freq=201, fixed_rate=None): PhaseVocoder with the phase
    advance of an STFT of n_freq bins and hop_length (default n_freq - 1) hops; fixed_rate
    (default 1) speeds the complex spectrogram <..., freq, time, 2> up."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        if hop_length is not None:
            check_int(hop_length, "hop_length", 1)
        check_int(n_freq, "n_freq", 1)
        if fixed_rate is not None:
            check_float(fixed_rate, "fixed_rate", 0, left_open=True)
        n_fft = (n_freq - 1) * 2
        self.hop_length = hop_length if hop_length is not None else n_fft // 2
        self.n_freq = n_freq
        self.fixed_rate = 1.0 if fixed_rate is None else fixed_rate
        advance = np.linspace(0, math.pi * self.hop_length, n_freq)[:, None]

        def run(x):
            x = _complex_input("TimeStretch", x)
            if x.shape[-3] != n_freq:
                raise RuntimeError(f"TimeStretch: the frequency of the input should equal to "
                                   f"n_freq {n_freq}, but got {x.shape[-3]}.")
            if self.fixed_rate == 1.0:
                return x
            return phase_vocoder(x, self.fixed_rate, advance)
        self._steps = [run]


def _sinc_kernel(orig, new, width_param, rolloff, kaiser, beta):
    """The polyphase sinc kernels [new, 2 * width + orig] and width (reduced frequencies)."""
    base = min(orig, new) * rolloff
    width = math.ceil(width_param * orig / base)
    idx = np.arange(-width, width + orig, dtype=np.float64)[None, :] / orig
    t = np.arange(0, -new, -1, dtype=np.float64)[:, None] / new + idx
    t *= base
    t = np.clip(t, -width_param, width_param)
    if kaiser:
        window = np.i0(beta * np.sqrt(1 - (t / width_param) ** 2)) / np.i0(beta)
    else:
        window = np.cos(t * math.pi / width_param / 2) ** 2
    t *= math.pi
    with np.errstate(invalid="ignore", divide="ignore"):
        kernels = np.where(t == 0, 1.0, np.sin(t) / np.where(t == 0, 1.0, t))
    return kernels * window * (base / orig), width


def resample(x, orig_freq, new_freq, kaiser=False, lowpass_filter_width=6, rolloff=0.99,
             beta=None):
    """x <..., time> resampled from orig_freq to new_freq (band-limited sinc interpolation,
    Hann or Kaiser windowed), in x's float type."""
    if orig_freq == new_freq:
        return x
    g = math.gcd(int(orig_freq), int(new_freq))
    orig, new = int(orig_freq) // g, int(new_freq) // g
    kernel, width = _sinc_kernel(orig, new, lowpass_filter_width, rolloff, kaiser,
                                 14.769656459379492 if beta is None else beta)
    shape = x.shape
    length = shape[-1]
    flat = x.reshape(-1, length).astype(np.float64)
    padded = np.pad(flat, [(0, 0), (width, width + orig)])
    k = kernel.shape[1]
    n_out = (padded.shape[1] - k) // orig + 1
    frames = np.lib.stride_tricks.sliding_window_view(padded, k, axis=1)[:, ::orig][:, :n_out]
    out = np.einsum("bnk,pk->bnp", frames, kernel).reshape(flat.shape[0], -1)
    target = int(math.ceil(new * length / orig))
    return out[:, :target].reshape(shape[:-1] + (-1,)).astype(x.dtype)


class Resample(AudioOp):
    """Resample(orig_freq=16000, new_freq=16000,
    resample_method=ResampleMethod.SINC_INTERPOLATION, lowpass_filter_width=6, rolloff=0.99,
    beta=None): band-limited resampling of <..., time> with a Hann (sinc interpolation) or
    Kaiser (beta, default 14.77) windowed sinc of lowpass_filter_width zero crossings, cut off at
    rolloff times the lower Nyquist frequency."""

    def __init__(self, orig_freq=16000, new_freq=16000,
                 resample_method=ResampleMethod.SINC_INTERPOLATION, lowpass_filter_width=6,
                 rolloff=0.99, beta=None):
        check_float(orig_freq, "orig_freq", 0, left_open=True)
        check_float(new_freq, "new_freq", 0, left_open=True)
        check_enum(resample_method, ResampleMethod, "resample_method")
        check_int(lowpass_filter_width, "lowpass_filter_width", 1)
        check_float(rolloff, "rolloff", 0, 1, left_open=True)
        if beta is not None:
            check_float(beta, "beta", 0)
        self.orig_freq, self.new_freq = orig_freq, new_freq
        self.resample_method, self.lowpass_filter_width = resample_method, lowpass_filter_width
        self.rolloff, self.beta = rolloff, beta
        kaiser = resample_method == ResampleMethod.KAISER_WINDOW

        def run(x):
            x = x.astype(_float_type(x), copy=False)
            return resample(x, orig_freq, new_freq, kaiser, lowpass_filter_width, rolloff, beta)
        self._steps = [run]


class PitchShift(AudioOp):
    """PitchShift(sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None,
    hop_length=None, window=WindowType.HANN): shifts the pitch of <..., time> by n_steps steps
    of 1 / bins_per_octave octave: a phase-vocoder time stretch by 2^(-n_steps / bins), then
    resampling back to the original length."""

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None,
                 hop_length=None, window=WindowType.HANN):
        check_int(sample_rate, "sample_rate", 0)
        check_int(n_steps, "n_steps", -2**31)
        check_not_zero(bins_per_octave, "bins_per_octave")
        win, hop = _check_stft(n_fft, win_length, hop_length, 0, window, False, True,
                               BorderType.REFLECT, True)
        hop = hop_length if hop_length is not None else win // 4
        self.sample_rate, self.n_steps, self.bins_per_octave = sample_rate, n_steps, bins_per_octave
        self.n_fft, self.win_length, self.hop_length, self.window = n_fft, win, hop, window
        rate = 2.0 ** (-float(n_steps) / bins_per_octave)
        stft = _spectrogram_op(n_fft, win, hop, 0, window, 0, False, True, BorderType.REFLECT,
                               True)

        def run(x):
            x = x.astype(_float_type(x), copy=False)
            length = x.shape[-1]
            spec = stft.apply([x], 0, 0)[0]
            advance = np.linspace(0, math.pi * hop, spec.shape[-3])[:, None]
            stretched = phase_vocoder(spec, rate, advance)
            len_stretch = int(round(length / rate))
            istft = _data.InverseSpectrogram(len_stretch, n_fft, win, hop, 0, window.value, False,
                                             True, "reflect", True)
            wave = istft.apply([stretched], 0, 0)[0]
            shifted = resample(wave, int(sample_rate / rate), sample_rate)
            if shifted.shape[-1] >= length:
                return shifted[..., :length]
            pad = [(0, 0)] * (shifted.ndim - 1) + [(0, length - shifted.shape[-1])]
            return np.pad(shifted, pad)
        self._steps = [run]


class Filtfilt(AudioOp):
    """Filtfilt(a_coeffs, b_coeffs, clamp=True): LFilter forwards (unclipped), then backwards
    over the result, so the phase delay cancels; clamp clips the output to [-1, 1]."""

    def __init__(self, a_coeffs, b_coeffs, clamp=True):
        from mycel.dataset.audio.transforms import LFilter
        forward = LFilter(a_coeffs, b_coeffs, False)  # the argument checks
        check_bool(clamp, "clamp")
        self.a_coeffs, self.b_coeffs, self.clamp = list(a_coeffs), list(b_coeffs), clamp
        a = [float(v) for v in a_coeffs]
        b = [float(v) for v in b_coeffs]
        backward = _data.LFilter("Filtfilt", a, b, clamp)

        def flip(x):
            return np.ascontiguousarray(x[..., ::-1])
        self._steps = [forward._steps[0], flip, backward, flip]


class InverseMelScale(AudioOp):
    """InverseMelScale(n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None,
    max_iter=100000, tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None,
    norm=NormType.NONE, mel_type=MelType.HTK): a non-negative spectrogram <..., n_stft, time>
    whose mel projection (utils.melscale_fbanks) matches the input <..., n_mels, time>, found as
    MindSpore does: SGD with momentum (sgdargs {"sgd_lr": 0.1, "sgd_momentum": 0.9}) on the
    squared error from a uniform [0, 1) start drawn from the dataset seed, stopped after max_iter
    steps or when the loss falls under tolerance_loss or changes by less than tolerance_change,
    then clipped at 0."""

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None,
                 max_iter=100000, tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None,
                 norm=NormType.NONE, mel_type=MelType.HTK):
        from mycel.dataset.audio.transforms import _check_mel_freqs
        from mycel.dataset.audio import utils
        check_int(n_mels, "n_mels", 1)
        check_int(sample_rate, "sample_rate", 1)
        f_max = _check_mel_freqs("InverseMelScale", f_min, f_max, sample_rate)
        check_int(n_stft, "n_stft", 1)
        check_enum(norm, NormType, "norm")
        check_enum(mel_type, MelType, "mel_type")
        check_int(max_iter, "max_iter", 1)
        check_float(tolerance_loss, "tolerance_loss", 0, left_open=True)
        check_float(tolerance_change, "tolerance_change", 0, left_open=True)
        args = {"sgd_lr": 0.1, "sgd_momentum": 0.9}
        if sgdargs is not None:
            type_check(sgdargs, (dict,), "sgdargs")
            args.update(sgdargs)
        check_float(args["sgd_lr"], "sgd_lr", 0)
        check_float(args["sgd_momentum"], "sgd_momentum", 0)
        self.n_stft, self.n_mels, self.sample_rate = n_stft, n_mels, sample_rate
        self.f_min, self.f_max, self.max_iter = f_min, f_max, max_iter
        self.tolerance_loss, self.tolerance_change, self.sgdargs = (tolerance_loss,
                                                                    tolerance_change, args)
        self._fb = utils._mel_fbanks(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type)
        self._steps = [self._run]

    @property
    def _random(self):
        return True

    def _run(self, x):
        x = x.astype(_float_type(x), copy=False)
        if x.ndim < 2 or x.shape[-2] != self.n_mels:
            raise RuntimeError(f"InverseMelScale: n_mels must be equal to the penultimate "
                               f"dimension of input, but got n_mels {self.n_mels} and input "
                               f"shape {list(x.shape)}.")
        rng = np.random.default_rng(self._seed())
        shape = x.shape
        mels = x.reshape(-1, shape[-2], shape[-1]).astype(np.float64)
        fb = self._fb  # [n_stft, n_mels]
        lr, momentum = self.sgdargs["sgd_lr"], self.sgdargs["sgd_momentum"]
        time = shape[-1]
        out = np.empty((mels.shape[0], self.n_stft, time))
        for c, mel in enumerate(mels):
            spec = rng.uniform(0, 1, (self.n_stft, time))
            buf = None
            loss = np.inf
            for _ in range(self.max_iter):
                diff = mel - fb.T @ spec
                new_loss = float(np.mean(diff ** 2))
                grad = -(fb @ diff) / time
                if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                    break
                buf = grad if buf is None else momentum * buf + grad
                spec = spec - lr * buf
                loss = new_loss
            out[c] = np.maximum(spec, 0)
        return out.reshape(shape[:-2] + (self.n_stft, time)).astype(x.dtype)
