"""The spectral and filter transforms of mindspore.dataset.audio, on C++ kernels
(src/data/transforms_audio*.cc): Spectrogram, InverseSpectrogram, GriffinLim, MelScale,
MelSpectrogram, MFCC, LFCC, AmplitudeToDB, SpectralCentroid, LFilter and the biquads.

A transform is a list of steps. A step is a C++ transform (run by the pipeline's workers
without the GIL) or a numpy function; a transform made only of C++ steps gives them to the
pipeline (``_c_ops``), one with a numpy step runs as a Python callable. Called directly on a
numpy array, a transform runs its steps in order. Waveforms are <..., time>, spectrograms
<..., freq, time>; float64 input gives float64 output, any other numeric type float32.
"""
import math

import numpy as np

from mycel import _mycel
from mycel.dataset import config
from mycel.dataset.audio import utils
from mycel.dataset.audio.utils import (BorderType, MelType, NormMode, NormType, ScaleType,
                                       WindowType)
from mycel.dataset.audio.validators import (check_bool, check_enum, check_float, check_int,
                                            check_not_zero, check_range, type_check)
from mycel.dataset.transforms import TensorOperation, _as_array

_data = _mycel._data
_FI = (float, int)  # the type order of MindSpore's messages for filter arguments


def _input_array(op, x):
    """A sample as a numeric numpy array; RuntimeError (MindSpore's message) otherwise."""
    arr = _as_array(x)
    if arr.dtype.kind not in "iuf":
        raise RuntimeError(f"{op}: the data type of input tensor does not match the requirement "
                           f"of operator. Expecting tensor in type of [int, float, double]. But "
                           f"got type {arr.dtype}.")
    return arr


def _out_dtype(arr):
    return np.float64 if arr.dtype == np.float64 else np.float32


def _float_type(arr):
    """The float type an audio op computes in for arr (float64 stays, the rest float32)."""
    return _out_dtype(arr)


class AudioOp(TensorOperation):
    """Base of the audio transforms: self._steps, C++ transforms or numpy functions applied in
    order to one column."""

    _steps = ()

    @property
    def _random(self):
        return any(not callable(s) and s.random for s in self._steps)

    @property
    def _batchable(self):
        return False

    def _c_ops(self):
        if self._steps and all(not callable(s) for s in self._steps):
            return list(self._steps)
        return None

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expected one input, but got {len(inputs)}.")
        x = _input_array(type(self).__name__, inputs[0])
        for step in self._steps:
            if callable(step):
                x = step(x)
            else:
                x = step.apply([x], 0, self._seed() if step.random else 0)[0]
        return x

    def _seed(self):
        if not hasattr(self, "_stream"):
            self._stream = config._next_stream()
        self._calls = getattr(self, "_calls", 0) + 1
        entropy = config._entropy(self._calls) + [self._stream]
        return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


# ----- the STFT family -----

def _check_stft(n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                onesided, win_low=1, hop_low=1, win_msg=None):
    """MindSpore's checks of the STFT arguments; returns (win_length, hop_length) resolved."""
    check_int(n_fft, "n_fft", 1)
    if win_length is not None:
        check_int(win_length, "win_length", win_low)
        if win_length > n_fft:
            raise ValueError(win_msg or f"Input win_length should be no more than n_fft, but got "
                             f"win_length: {win_length} and n_fft: {n_fft}.")
    if hop_length is not None:
        check_int(hop_length, "hop_length", hop_low)
    check_int(pad, "pad", 0)
    check_enum(window, WindowType, "window")
    check_bool(normalized, "normalized")
    check_bool(center, "center")
    check_enum(pad_mode, BorderType, "pad_mode")
    check_bool(onesided, "onesided")
    win = win_length if win_length else n_fft
    hop = hop_length if hop_length else max(win // 2, 1)
    return win, hop


def _spectrogram_op(n_fft, win, hop, pad, window, power, normalized, center, pad_mode, onesided):
    return _data.Spectrogram(n_fft, win, hop, pad, window.value, float(power), normalized, center,
                             pad_mode.value, onesided)


class Spectrogram(AudioOp):
    """Spectrogram(n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
    power=2.0, normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
    <..., time> -> <..., n_fft // 2 + 1, frames> of |STFT|^power; power 0 gives the complex STFT
    <..., freq, frames, 2>. win_length defaults to n_fft, hop_length to win_length // 2."""

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 power=2.0, normalized=False, center=True, pad_mode=BorderType.REFLECT,
                 onesided=True):
        win, hop = _check_stft(n_fft, win_length, hop_length, pad, window, normalized, center,
                               pad_mode, onesided)
        check_float(power, "power", 0)
        self.n_fft, self.win_length, self.hop_length, self.pad = n_fft, win, hop, pad
        self.window, self.power, self.normalized, self.center = window, power, normalized, center
        self.pad_mode, self.onesided = pad_mode, onesided
        self._steps = [_spectrogram_op(n_fft, win, hop, pad, window, power, normalized, center,
                                       pad_mode, onesided)]


class InverseSpectrogram(AudioOp):
    """InverseSpectrogram(length=None, n_fft=400, win_length=None, hop_length=None, pad=0,
    window=WindowType.HANN, normalized=False, center=True, pad_mode=BorderType.REFLECT,
    onesided=True): a complex spectrogram <..., freq, time, 2> back to <..., time> (overlap-add,
    as torch.istft); length cuts or zero-pads the result."""

    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0,
                 window=WindowType.HANN, normalized=False, center=True,
                 pad_mode=BorderType.REFLECT, onesided=True):
        if length is not None:
            check_int(length, "length", 0)
        win, hop = _check_stft(n_fft, win_length, hop_length, pad, window, normalized, center,
                               pad_mode, onesided)
        self.length, self.n_fft, self.win_length, self.hop_length = length, n_fft, win, hop
        self._steps = [_data.InverseSpectrogram(-1 if length is None else length, n_fft, win, hop,
                                                pad, window.value, normalized, center,
                                                pad_mode.value, onesided)]


class GriffinLim(AudioOp):
    """GriffinLim(n_fft=400, n_iter=32, win_length=None, hop_length=None,
    window_type=WindowType.HANN, power=2.0, momentum=0.99, length=None, rand_init=True): a
    waveform whose spectrogram approximates the given magnitude^power spectrogram
    <..., n_fft // 2 + 1, time> (fast Griffin-Lim). rand_init starts from random phases drawn
    from the dataset seed."""

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None,
                 window_type=WindowType.HANN, power=2.0, momentum=0.99, length=None,
                 rand_init=True):
        check_int(n_fft, "n_fft", 1)
        check_int(n_iter, "n_iter", 1)
        if win_length is not None:
            check_int(win_length, "win_length", 0)
            if win_length > n_fft:
                raise ValueError(f"Input win_length should be no more than n_fft, but got "
                                 f"win_length: {win_length} and n_fft: {n_fft}.")
        if hop_length is not None:
            check_int(hop_length, "hop_length", 0)
        check_enum(window_type, WindowType, "window_type")
        check_float(power, "power", 0, left_open=True)
        check_float(momentum, "momentum", 0)
        if momentum >= 1:
            raise ValueError(f"GriffinLim: momentum equal to or greater than 1 can be unstable, "
                             f"but got {momentum}.")
        if length is not None:
            check_int(length, "length", 0)
        check_bool(rand_init, "rand_init")
        win = win_length if win_length else n_fft
        hop = hop_length if hop_length else max(win // 2, 1)
        self.n_fft, self.n_iter, self.win_length, self.hop_length = n_fft, n_iter, win, hop
        self._steps = [_data.GriffinLim(n_fft, n_iter, win, hop, window_type.value, float(power),
                                        float(momentum), -1 if length is None else length,
                                        rand_init)]


def _check_mel_freqs(op, f_min, f_max, sample_rate, f_max_low_open=True):
    check_float(f_min, "f_min")
    if f_max is not None:
        check_float(f_max, "f_max", 0, left_open=f_max_low_open)
        if f_min >= f_max:
            raise ValueError(f"{op}: f_max should be greater than f_min.")
    elif f_min >= sample_rate // 2:
        raise ValueError(f"{op}: sample_rate // 2 should be greater than f_min when f_max is set "
                         f"to None.")
    return float(sample_rate // 2) if f_max is None else float(f_max)


def _matrix_op(op, matrix):
    rows, cols = matrix.shape
    return _data.FreqMatrix(op, [float(v) for v in matrix.ravel()], rows, cols)


class MelScale(AudioOp):
    """MelScale(n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201,
    norm=NormType.NONE, mel_type=MelType.HTK): a spectrogram <..., n_stft, time> to
    <..., n_mels, time> through the mel filter bank (utils.melscale_fbanks)."""

    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201,
                 norm=NormType.NONE, mel_type=MelType.HTK):
        check_int(n_mels, "n_mels", 1)
        check_int(sample_rate, "sample_rate", 1)
        f_max = _check_mel_freqs("MelScale", f_min, f_max, sample_rate)
        check_int(n_stft, "n_stft", 1)
        check_enum(norm, NormType, "norm")
        check_enum(mel_type, MelType, "mel_type")
        self.n_mels, self.sample_rate, self.f_min, self.f_max = n_mels, sample_rate, f_min, f_max
        fb = utils._mel_fbanks(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type)
        self._steps = [_matrix_op("MelScale", fb)]


def _mel_spectrogram_steps(op, sample_rate, n_fft, win_length, hop_length, f_min, f_max, pad,
                           n_mels, window, power, normalized, center, pad_mode, onesided, norm,
                           mel_scale, power_interval_open=True, before_f_min=None, win_low=1):
    check_int(sample_rate, "sample_rate", 0)
    win, hop = _check_stft(n_fft, win_length, hop_length, pad, window, normalized, center,
                           pad_mode, onesided, win_low=win_low)
    check_float(power, "power", 0, left_open=power_interval_open)
    check_int(n_mels, "n_mels", 1)
    check_enum(norm, NormType, "norm")
    check_enum(mel_scale, MelType, "mel_type")
    if f_max is not None:
        check_float(f_max, "f_max", 0, left_open=not power_interval_open)
        if f_min > f_max:
            raise ValueError(f"f_max should be greater than or equal to f_min, but got f_min: "
                             f"{f_min} and f_max: {f_max}.")
    if before_f_min is not None:
        before_f_min(n_mels)
    type_check(f_min, (int, float), "f_min")
    if f_min != 0:  # 0 is no low cut; a cut must be positive
        check_float(f_min, "f_min", 0, left_open=True)
    if f_max is None and f_min >= sample_rate // 2:
        raise ValueError(f"{op}: sample_rate // 2 should be greater than f_min when f_max is set "
                         f"to None, but got f_min: {f_min}.")
    f_max = float(sample_rate // 2) if f_max is None else float(f_max)
    n_freqs = n_fft // 2 + 1 if onesided else n_fft
    fb = utils._mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_scale)
    return [_spectrogram_op(n_fft, win, hop, pad, window, power, normalized, center, pad_mode,
                            onesided), _matrix_op(op, fb)]


class MelSpectrogram(AudioOp):
    """MelSpectrogram(sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0,
    f_max=None, pad=0, n_mels=128, window=WindowType.HANN, power=2.0, normalized=False,
    center=True, pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE,
    mel_scale=MelType.HTK): Spectrogram then MelScale, <..., time> -> <..., n_mels, frames>."""

    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0,
                 f_max=None, pad=0, n_mels=128, window=WindowType.HANN, power=2.0,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True,
                 norm=NormType.NONE, mel_scale=MelType.HTK):
        self.sample_rate, self.n_fft, self.n_mels = sample_rate, n_fft, n_mels
        self._steps = _mel_spectrogram_steps(
            "MelSpectrogram", sample_rate, n_fft, win_length, hop_length, f_min, f_max, pad,
            n_mels, window, power, normalized, center, pad_mode, onesided, norm, mel_scale)


def _log_offset(op):
    """log(x + 1e-6): MFCC's log_mels and LFCC's log_lf."""
    return _data.LogOffset(op, 1e-6)


def _power_to_db(op):
    """AmplitudeToDB(ScaleType.POWER, ref 1, amin 1e-10, top_db 80): MFCC's and LFCC's."""
    return _data.AmplitudeToDB(op, 10.0, 1e-10, 0.0, 80.0)


def _check_dct(dct_type, norm):
    type_check(dct_type, (int,), "dct_type")
    if dct_type != 2:
        raise ValueError(f"dct_type must be 2, but got : {dct_type}.")
    check_enum(norm, NormMode, "norm")


class MFCC(AudioOp):
    """MFCC(sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False,
    melkwargs=None): MelSpectrogram(sample_rate, **melkwargs), then decibels (AmplitudeToDB,
    top_db 80) or log(x + 1e-6) with log_mels, then the DCT-II over the mel axis:
    <..., time> -> <..., n_mfcc, frames>."""

    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO,
                 log_mels=False, melkwargs=None):
        check_int(sample_rate, "sample_rate", 0)
        check_int(n_mfcc, "n_mfcc", 0)
        _check_dct(dct_type, norm)
        check_bool(log_mels, "log_mels")
        kwargs = {"n_fft": 400, "win_length": None, "hop_length": None, "f_min": 0.0,
                  "f_max": None, "pad": 0, "n_mels": 128, "window": WindowType.HANN,
                  "power": 2.0, "normalized": False, "center": True,
                  "pad_mode": BorderType.REFLECT, "onesided": True, "norm": NormType.NONE,
                  "mel_scale": MelType.HTK}
        if melkwargs is not None:
            type_check(melkwargs, (dict,), "melkwargs")
            kwargs.update(melkwargs)
        def check_n_mels(n_mels):
            if n_mels < n_mfcc:
                raise ValueError(f"Input n_mels should be greater than or equal to n_mfcc, but "
                                 f"got n_mfcc: {n_mfcc} and n_mels: {n_mels}.")

        steps = _mel_spectrogram_steps("MFCC", sample_rate, kwargs["n_fft"],
                                       kwargs["win_length"], kwargs["hop_length"],
                                       kwargs["f_min"], kwargs["f_max"], kwargs["pad"],
                                       kwargs["n_mels"], kwargs["window"], kwargs["power"],
                                       kwargs["normalized"], kwargs["center"],
                                       kwargs["pad_mode"], kwargs["onesided"], kwargs["norm"],
                                       kwargs["mel_scale"], power_interval_open=False,
                                       before_f_min=check_n_mels, win_low=0)
        n_mels = kwargs["n_mels"]
        self.sample_rate, self.n_mfcc, self.log_mels = sample_rate, n_mfcc, log_mels
        steps.append(_log_offset("MFCC") if log_mels else _power_to_db("MFCC"))
        steps.append(_matrix_op("MFCC", utils._dct(n_mfcc, n_mels, norm)))
        self._steps = steps


class LFCC(AudioOp):
    """LFCC(sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
    norm=NormMode.ORTHO, log_lf=False, speckwargs=None): Spectrogram(**speckwargs), the linear
    triangular filter bank (utils.linear_fbanks), decibels or log(x + 1e-6) with log_lf, then
    the DCT-II: <..., time> -> <..., n_lfcc, frames>."""

    def __init__(self, sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None,
                 dct_type=2, norm=NormMode.ORTHO, log_lf=False, speckwargs=None):
        check_int(sample_rate, "sample_rate", 0)
        check_int(n_filter, "n_filter", 1)
        check_int(n_lfcc, "n_lfcc", 1)
        check_bool(log_lf, "log_lf")
        _check_dct(dct_type, norm)
        check_float(f_min, "f_min", 0)
        if f_max is not None:
            check_float(f_max, "f_max", 0)
            if f_min > f_max:
                raise ValueError(f"f_max should be greater than or equal to f_min, but got "
                                 f"f_min: {f_min} and f_max: {f_max}.")
        elif f_min >= sample_rate // 2:
            raise ValueError(f"LFCC: sample_rate // 2 should be greater than f_min when f_max is "
                             f"set to None, but got f_min: {f_min}.")
        spec = {"n_fft": 400, "win_length": None, "hop_length": None, "pad": 0,
                "window": WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
                "pad_mode": BorderType.REFLECT, "onesided": True}
        if speckwargs is not None:
            type_check(speckwargs, (dict,), "speckwargs")
            spec.update(speckwargs)
        win, hop = _check_stft(spec["n_fft"], spec["win_length"], spec["hop_length"],
                               spec["pad"], spec["window"], spec["normalized"], spec["center"],
                               spec["pad_mode"], spec["onesided"],
                               win_msg=f"LFCC: win_length must be less than or equal to n_fft, "
                                       f"but got win_length: {spec['win_length']} and n_fft: "
                                       f"{spec['n_fft']}.")
        type_check(spec["power"], (float,), "power")
        check_float(spec["power"], "power", 0)
        n_fft = spec["n_fft"]
        if n_fft < n_lfcc:
            raise ValueError(f"n_fft should be greater than or equal to n_lfcc, but got n_fft: "
                             f"{n_fft} and n_lfcc: {n_lfcc}.")
        f_max = float(sample_rate // 2) if f_max is None else float(f_max)
        n_freqs = n_fft // 2 + 1 if spec["onesided"] else n_fft
        fb = utils._linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate)
        self.sample_rate, self.n_filter, self.n_lfcc = sample_rate, n_filter, n_lfcc
        self._steps = [_spectrogram_op(n_fft, win, hop, spec["pad"], spec["window"],
                                       spec["power"], spec["normalized"], spec["center"],
                                       spec["pad_mode"], spec["onesided"]),
                       _matrix_op("LFCC", fb),
                       _log_offset("LFCC") if log_lf else _power_to_db("LFCC"),
                       _matrix_op("LFCC", utils._dct(n_lfcc, n_filter, norm))]


class AmplitudeToDB(AudioOp):
    """AmplitudeToDB(stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0): a power
    (10 log10) or magnitude (20 log10) spectrogram <..., freq, time> in decibels relative to
    ref_value, floored at the maximum of each <channel, freq, time> block minus top_db."""

    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0):
        check_enum(stype, ScaleType, "stype")
        check_float(ref_value, "ref_value", 0, left_open=True)
        check_float(amin, "amin", 0, left_open=True)
        check_float(top_db, "top_db", 0, left_open=True)
        self.stype, self.ref_value, self.amin, self.top_db = stype, ref_value, amin, top_db
        mult = 10.0 if stype == ScaleType.POWER else 20.0
        self._steps = [_data.AmplitudeToDB("AmplitudeToDB", mult, float(amin),
                                           math.log10(max(amin, ref_value)), float(top_db))]


class SpectralCentroid(AudioOp):
    """SpectralCentroid(sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0,
    window=WindowType.HANN): the magnitude-weighted mean frequency of each frame,
    <..., time> -> <..., 1, frames>."""

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0,
                 window=WindowType.HANN):
        check_int(sample_rate, "sample_rate", 0)
        win, hop = _check_stft(n_fft, win_length, hop_length, pad, window, False, True,
                               BorderType.REFLECT, True)
        freqs = np.linspace(0, sample_rate // 2, n_fft // 2 + 1)[:, None]

        def centroid(spec):
            return ((freqs * spec).sum(axis=-2, keepdims=True) /
                    spec.sum(axis=-2, keepdims=True)).astype(spec.dtype)

        self.sample_rate, self.n_fft = sample_rate, n_fft
        self._steps = [_spectrogram_op(n_fft, win, hop, pad, window, 1.0, False, True,
                                       BorderType.REFLECT, True), centroid]


# ----- filters -----

class LFilter(AudioOp):
    """LFilter(a_coeffs, b_coeffs, clamp=True): the IIR filter
    a[0] y[n] = sum_k b[k] x[n-k] - sum_{k>0} a[k] y[n-k] along the last axis, from zero state;
    clamp clips the output to [-1, 1]."""

    def __init__(self, a_coeffs, b_coeffs, clamp=True):
        type_check(a_coeffs, (list, tuple), "a_coeffs")
        type_check(b_coeffs, (list, tuple), "b_coeffs")
        for name, coeffs in (("a_coeffs", a_coeffs), ("b_coeffs", b_coeffs)):
            for i, v in enumerate(coeffs):
                check_float(v, f"{name}[{i}]", types=_FI)
        if len(a_coeffs) != len(b_coeffs):
            raise ValueError(f"The size of a_coeffs and b_coeffs must be the same, but got "
                             f"{len(a_coeffs)} and {len(b_coeffs)}.")
        check_bool(clamp, "clamp")
        if not a_coeffs or a_coeffs[0] == 0:
            raise ValueError("LFilter: the first value of a_coeffs must not be 0.")
        self.a_coeffs, self.b_coeffs, self.clamp = list(a_coeffs), list(b_coeffs), clamp
        self._steps = [_data.LFilter("LFilter", [float(v) for v in a_coeffs],
                                     [float(v) for v in b_coeffs], clamp)]


class _Biquad(AudioOp):
    """A second-order filter: LFilter([a0, a1, a2], [b0, b1, b2]) with clamping, the
    coefficients computed by the subclass (the formulas of the Audio EQ Cookbook, as SoX)."""

    def _set(self, b, a):
        self._steps = [_data.LFilter(type(self).__name__, [float(v) for v in a],
                                     [float(v) for v in b], True)]


def _check_sr(sample_rate):
    check_not_zero(sample_rate, "sample_rate")


def _check_q(q):
    type_check(q, (float, int), "Q")
    check_range(q, 0, 1, "Q", left_open=True)


def _w0_alpha(sample_rate, freq, q):
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / q


class AllpassBiquad(_Biquad):
    """AllpassBiquad(sample_rate, central_freq, Q=0.707): a two-pole all-pass filter."""

    def __init__(self, sample_rate, central_freq, Q=0.707):  # noqa: N803 (MindSpore's name)
        _check_sr(sample_rate)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
        c = math.cos(w0)
        self._set([1 - alpha, -2 * c, 1 + alpha], [1 + alpha, -2 * c, 1 - alpha])


class BandBiquad(_Biquad):
    """BandBiquad(sample_rate, central_freq, Q=0.707, noise=False): a two-pole band-pass filter
    (SoX's band); noise selects the mode for noise-like audio."""

    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False):  # noqa: N803
        _check_sr(sample_rate)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        check_bool(noise, "noise")
        self.sample_rate, self.central_freq, self.Q, self.noise = sample_rate, central_freq, Q, noise
        w0 = 2 * math.pi * central_freq / sample_rate
        bw_hz = central_freq / Q
        a2 = math.exp(-2 * math.pi * bw_hz / sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if noise:
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        self._set([b0, 0.0, 0.0], [1.0, a1, a2])


class BandpassBiquad(_Biquad):
    """BandpassBiquad(sample_rate, central_freq, Q=0.707, const_skirt_gain=False): a two-pole
    band-pass filter, constant skirt gain (peak Q) or constant 0 dB peak gain."""

    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):  # noqa: N803
        _check_sr(sample_rate)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        check_bool(const_skirt_gain, "const_skirt_gain")
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        self.const_skirt_gain = const_skirt_gain
        w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
        temp = math.sin(w0) / 2 if const_skirt_gain else alpha
        self._set([temp, 0.0, -temp], [1 + alpha, -2 * math.cos(w0), 1 - alpha])


class BandrejectBiquad(_Biquad):
    """BandrejectBiquad(sample_rate, central_freq, Q=0.707): a two-pole band-reject (notch)
    filter."""

    def __init__(self, sample_rate, central_freq, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
        c = math.cos(w0)
        self._set([1.0, -2 * c, 1.0], [1 + alpha, -2 * c, 1 - alpha])


def _shelf(sample_rate, gain, freq, q, treble):
    """Bass (low) or treble (high) shelving coefficients (b, a)."""
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    big_a = math.exp(gain / 40 * math.log(10))
    t1 = 2 * math.sqrt(big_a) * alpha
    t2 = (big_a - 1) * math.cos(w0)
    t3 = (big_a + 1) * math.cos(w0)
    if treble:
        b = [big_a * ((big_a + 1) + t2 + t1), -2 * big_a * ((big_a - 1) + t3),
             big_a * ((big_a + 1) + t2 - t1)]
        a = [(big_a + 1) - t2 + t1, 2 * ((big_a - 1) - t3), (big_a + 1) - t2 - t1]
    else:
        b = [big_a * ((big_a + 1) - t2 + t1), 2 * big_a * ((big_a - 1) - t3),
             big_a * ((big_a + 1) - t2 - t1)]
        a = [(big_a + 1) + t2 + t1, -2 * ((big_a - 1) + t3), (big_a + 1) + t2 - t1]
    return b, a


class BassBiquad(_Biquad):
    """BassBiquad(sample_rate, gain, central_freq=100.0, Q=0.707): a low-shelving filter
    boosting (or cutting) by gain dB."""

    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(gain, "gain", types=_FI)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.gain, self.central_freq, self.Q = sample_rate, gain, central_freq, Q
        self._set(*_shelf(sample_rate, gain, central_freq, Q, treble=False))


class TrebleBiquad(_Biquad):
    """TrebleBiquad(sample_rate, gain, central_freq=3000.0, Q=0.707): a high-shelving filter
    boosting (or cutting) by gain dB."""

    def __init__(self, sample_rate, gain, central_freq=3000.0, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(gain, "gain", types=_FI)
        check_float(central_freq, "central_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.gain, self.central_freq, self.Q = sample_rate, gain, central_freq, Q
        self._set(*_shelf(sample_rate, gain, central_freq, Q, treble=True))


class Biquad(_Biquad):
    """Biquad(b0, b1, b2, a0, a1, a2): the second-order filter of the given coefficients."""

    def __init__(self, b0, b1, b2, a0, a1, a2):
        for name, v in (("b0", b0), ("b1", b1), ("b2", b2)):
            check_float(v, name, types=_FI)
        check_not_zero(a0, "a0", _FI, 16777216)
        check_float(a1, "a1", types=_FI)
        check_float(a2, "a2", types=_FI)
        self.b0, self.b1, self.b2, self.a0, self.a1, self.a2 = b0, b1, b2, a0, a1, a2
        self._set([b0, b1, b2], [a0, a1, a2])


class DeemphBiquad(_Biquad):
    """DeemphBiquad(sample_rate): the CD de-emphasis filter (a treble shelf) for 44100 or
    48000 Hz."""

    def __init__(self, sample_rate):
        type_check(sample_rate, (int,), "sample_rate")
        if sample_rate not in (44100, 48000):
            raise ValueError(f"Argument sample_rate should be 44100 or 48000, but got "
                             f"{sample_rate}.")
        self.sample_rate = sample_rate
        freq, slope, gain = (5283, 0.4845, -9.477) if sample_rate == 44100 else (5356, 0.479,
                                                                                 -9.62)
        w0 = 2 * math.pi * freq / sample_rate
        big_a = math.exp(gain / 40 * math.log(10))
        alpha = math.sin(w0) / 2 * math.sqrt((big_a + 1 / big_a) * (1 / slope - 1) + 2)
        t1 = 2 * math.sqrt(big_a) * alpha
        t2 = (big_a - 1) * math.cos(w0)
        t3 = (big_a + 1) * math.cos(w0)
        b = [big_a * ((big_a + 1) + t2 + t1), -2 * big_a * ((big_a - 1) + t3),
             big_a * ((big_a + 1) + t2 - t1)]
        a = [(big_a + 1) - t2 + t1, 2 * ((big_a - 1) - t3), (big_a + 1) - t2 - t1]
        self._set(b, a)


class EqualizerBiquad(_Biquad):
    """EqualizerBiquad(sample_rate, center_freq, gain, Q=0.707): a peaking equaliser of gain dB
    around center_freq."""

    def __init__(self, sample_rate, center_freq, gain, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(center_freq, "central_freq", types=_FI)
        check_float(gain, "gain", types=_FI)
        _check_q(Q)
        self.sample_rate, self.center_freq, self.gain, self.Q = sample_rate, center_freq, gain, Q
        w0, alpha = _w0_alpha(sample_rate, center_freq, Q)
        big_a = math.exp(gain / 40 * math.log(10))
        c = math.cos(w0)
        self._set([1 + alpha * big_a, -2 * c, 1 - alpha * big_a],
                  [1 + alpha / big_a, -2 * c, 1 - alpha / big_a])


class HighpassBiquad(_Biquad):
    """HighpassBiquad(sample_rate, cutoff_freq, Q=0.707): a two-pole high-pass filter."""

    def __init__(self, sample_rate, cutoff_freq, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(cutoff_freq, "cutoff_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.cutoff_freq, self.Q = sample_rate, cutoff_freq, Q
        w0, alpha = _w0_alpha(sample_rate, cutoff_freq, Q)
        c = math.cos(w0)
        self._set([(1 + c) / 2, -1 - c, (1 + c) / 2], [1 + alpha, -2 * c, 1 - alpha])


class LowpassBiquad(_Biquad):
    """LowpassBiquad(sample_rate, cutoff_freq, Q=0.707): a two-pole low-pass filter."""

    def __init__(self, sample_rate, cutoff_freq, Q=0.707):  # noqa: N803
        _check_sr(sample_rate)
        check_float(cutoff_freq, "cutoff_freq", types=_FI)
        _check_q(Q)
        self.sample_rate, self.cutoff_freq, self.Q = sample_rate, cutoff_freq, Q
        w0, alpha = _w0_alpha(sample_rate, cutoff_freq, Q)
        c = math.cos(w0)
        self._set([(1 - c) / 2, 1 - c, (1 - c) / 2], [1 + alpha, -2 * c, 1 - alpha])


_RIAA = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
         48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
         88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
         96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946))}


class RiaaBiquad(_Biquad):
    """RiaaBiquad(sample_rate): the RIAA vinyl playback equalisation (44100, 48000, 88200 or
    96000 Hz), normalised to 0 dB at 1 kHz."""

    def __init__(self, sample_rate):
        type_check(sample_rate, (int,), "sample_rate")
        if sample_rate not in _RIAA:
            raise ValueError(f"sample_rate should be one of [44100, 48000, 88200, 96000], but got "
                             f"{sample_rate}.")
        self.sample_rate = sample_rate
        (z0, z1), (p0, p1) = _RIAA[sample_rate]
        b = [1.0, -(z0 + z1), z0 * z1]
        a = [1.0, -(p0 + p1), p0 * p1]
        y = 2 * math.pi * 1000 / sample_rate
        h_b = sum(c * complex(math.cos(-k * y), math.sin(-k * y)) for k, c in enumerate(b))
        h_a = sum(c * complex(math.cos(-k * y), math.sin(-k * y)) for k, c in enumerate(a))
        g = 1 / abs(h_b / h_a)
        self._set([v * g for v in b], a)
