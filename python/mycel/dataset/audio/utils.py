"""mindspore.dataset.audio.utils: the enums of the audio transforms and the filter-bank and
DCT matrices (melscale_fbanks, linear_fbanks, create_dct), computed in float64 numpy and
returned as float32 as MindSpore does."""
from enum import Enum

import numpy as np

from mycel.dataset.audio.validators import check_enum, check_float, check_int


class BorderType(str, Enum):
    """Padding modes: CONSTANT (zeros), EDGE (repeat the edge sample), REFLECT (mirror
    without the edge sample), SYMMETRIC (mirror with it)."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class DensityFunction(str, Enum):
    """Dither's noise distributions: triangular, rectangular, Gaussian."""
    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


class FadeShape(str, Enum):
    """Fade's curves."""
    LINEAR = "linear"
    EXPONENTIAL = "exponential"
    LOGARITHMIC = "logarithmic"
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"


class GainType(str, Enum):
    """Vol's gain units."""
    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class Interpolation(str, Enum):
    """Flanger's delay-line interpolation."""
    LINEAR = "linear"
    QUADRATIC = "quadratic"


class MelType(str, Enum):
    """Mel scales: HTK (2595 log10(1 + f / 700)) or Slaney's (linear below 1 kHz)."""
    HTK = "htk"
    SLANEY = "slaney"


class Modulation(str, Enum):
    """Flanger's modulation."""
    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class NormMode(str, Enum):
    """DCT normalisation: ORTHO (orthonormal) or NONE (scaled by 2)."""
    ORTHO = "ortho"
    NONE = "none"


class NormType(str, Enum):
    """Mel filter normalisation: SLANEY (each filter's area 1 per Hz) or NONE."""
    SLANEY = "slaney"
    NONE = "none"


class ResampleMethod(str, Enum):
    """Resample's interpolation windows."""
    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


class ScaleType(str, Enum):
    """AmplitudeToDB's input scale: MAGNITUDE (20 log10) or POWER (10 log10)."""
    MAGNITUDE = "mag"
    POWER = "power"


class WindowType(str, Enum):
    """STFT windows (periodic, as torch's)."""
    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


def _hz_to_mel(freq, mel_type):
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + freq / 700.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    if freq >= min_log_hz:
        return min_log_mel + np.log(freq / min_log_hz) / logstep
    return freq / f_sp


def _mel_to_hz(mels, mel_type):
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    freqs = f_sp * mels
    log_part = mels >= min_log_mel
    freqs[log_part] = min_log_hz * np.exp(logstep * (mels[log_part] - min_log_mel))
    return freqs


def _triangular(all_freqs, f_pts):
    """[n_freqs, len(f_pts) - 2] overlapping triangles with corners at f_pts."""
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def _mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type):
    """float64 [n_freqs, n_mels] mel filter bank (no argument checks)."""
    all_freqs = np.linspace(0, sample_rate / 2.0, n_freqs)
    m_min, m_max = _hz_to_mel(float(f_min), mel_type), _hz_to_mel(float(f_max), mel_type)
    f_pts = _mel_to_hz(np.linspace(m_min, m_max, n_mels + 2), mel_type)
    fb = _triangular(all_freqs, f_pts)
    if norm == NormType.SLANEY:
        fb *= (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb


def _linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    f_pts = np.linspace(f_min, f_max, n_filter + 2)
    return _triangular(all_freqs, f_pts)


def _dct(n_mfcc, n_mels, norm):
    """float64 [n_mels, n_mfcc] DCT-II matrix."""
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(np.pi / n_mels * (n + 0.5) * k)
    if norm == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / np.sqrt(2.0)
        dct *= np.sqrt(2.0 / n_mels)
    return dct.T


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE,
                    mel_type=MelType.HTK):
    """The mel filter bank [n_freqs, n_mels] (float32): triangles evenly spaced on the mel
    scale between f_min and f_max over the STFT bins 0 .. sample_rate / 2."""
    check_int(n_freqs, "n_freqs", 1)
    check_float(f_min, "f_min", 0)
    check_float(f_max, "f_max", 0, left_open=True)
    if f_min > f_max:
        raise ValueError(f"f_max should be greater than or equal to f_min, but got f_min: {f_min} "
                         f"and f_max: {f_max}.")
    check_int(n_mels, "n_mels", 1)
    check_int(sample_rate, "sample_rate", 1)
    check_enum(norm, NormType, "norm")
    check_enum(mel_type, MelType, "mel_type")
    return _mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type).astype(
        np.float32)


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """The linear triangular filter bank [n_freqs, n_filter] (float32) between f_min and
    f_max."""
    check_int(n_freqs, "n_freqs", 1)
    check_float(f_min, "f_min", 0)
    check_float(f_max, "f_max", 0, left_open=True)
    if f_min > f_max:
        raise ValueError(f"f_max should be greater than or equal to f_min, but got f_min: {f_min} "
                         f"and f_max: {f_max}.")
    check_int(n_filter, "n_filter", 1)
    check_int(sample_rate, "sample_rate", 1)
    return _linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate).astype(np.float32)


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """The DCT-II matrix [n_mels, n_mfcc] (float32), orthonormal for NormMode.ORTHO, scaled by 2
    for NONE."""
    for name, value in (("n_mfcc", n_mfcc), ("n_mels", n_mels)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} with value {value} is not of type {int}, but got "
                            f"{type(value)}.")
        if value <= 0:
            raise ValueError(f"{name} must be greater than 0, but got {value}.")
    if not isinstance(norm, NormMode):
        raise TypeError(f"norm with value {norm} is not of type {NormMode}, but got {type(norm)}.")
    return _dct(n_mfcc, n_mels, norm).astype(np.float32)
