"""SoX-style effects and analyses of mindspore.dataset.audio, in numpy: Flanger, Phaser,
DetectPitchFrequency, SlidingWindowCmn. They are sample-by-sample recursions over time
(vectorised over channels) with MindSpore's semantics, which follow torchaudio's ports of
SoX and Kaldi."""
import math

import numpy as np

from mycel.dataset.audio.transforms import AudioOp, _float_type
from mycel.dataset.audio.utils import Interpolation, Modulation
from mycel.dataset.audio.validators import (check_bool, check_enum, check_float, check_int,
                                            check_not_zero)

_FI = (float, int)


def _wave_table(sine, as_int, size, low, high, phase):
    """SoX's modulation table: size points of a sine or triangle from low to high, starting at
    phase (radians)."""
    offset = int(phase / math.pi / 2 * size + 0.5)
    point = (np.arange(size) + offset) % size
    if sine:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = (4 * point) // size
        d = np.where(quarter == 0, d + 0.5, np.where(quarter == 3, d - 1.5, 1.5 - d))
    d = d * (high - low) + low
    if as_int:
        return np.where(d < 0, d - 0.5, d + 0.5).astype(np.int32)
    return d.astype(np.float32)


class Flanger(AudioOp):
    """Flanger(sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
    modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR): SoX's flanger on
    <..., channel, time>: a modulated delay (delay + depth ms, swept at speed Hz, channels
    phase-shifted by phase %) mixed in at width %, with regen % feedback. Integer input gives
    output of the same integer type (the clipped result truncated), as MindSpore's."""

    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5,
                 phase=25.0, modulation=Modulation.SINUSOIDAL,
                 interpolation=Interpolation.LINEAR):
        check_not_zero(sample_rate, "sample_rate")
        check_float(delay, "delay", 0, 30, types=_FI)
        check_float(depth, "depth", 0, 10, types=_FI)
        check_float(regen, "regen", -95, 95, types=_FI)
        check_float(width, "width", 0, 100, types=_FI)
        check_float(speed, "speed", 0.1, 10, types=_FI)
        check_float(phase, "phase", 0, 100, types=_FI)
        check_enum(modulation, Modulation, "modulation")
        check_enum(interpolation, Interpolation, "interpolation")
        self.sample_rate, self.delay, self.depth, self.regen = sample_rate, delay, depth, regen
        self.width, self.speed, self.phase = width, speed, phase
        self.modulation, self.interpolation = modulation, interpolation
        self._steps = [self._run]

    def _run(self, x):
        in_type = x.dtype
        x = x.astype(_float_type(x), copy=False)
        if x.ndim < 2:
            raise RuntimeError(f"Flanger: the shape of input tensor does not match the "
                               f"requirement of operator. Expecting tensor in shape of <..., "
                               f"channel, time>. But got tensor with dimension {x.ndim}.")
        shape = x.shape
        w = x.reshape(-1, shape[-2], shape[-1]).astype(np.float64)
        sr = self.sample_rate
        feedback = self.regen / 100
        delay_gain = self.width / 100
        channel_phase = self.phase / 100
        delay_min, delay_depth = self.delay / 1000, self.depth / 1000
        in_gain = 1.0 / (1 + delay_gain)
        delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback))
        buf_len = int((delay_min + delay_depth) * sr + 0.5) + 2
        bufs = np.zeros((w.shape[0], w.shape[1], buf_len))
        last = np.zeros(w.shape[:2])
        lfo_len = int(sr / self.speed)
        lfo = _wave_table(self.modulation == Modulation.SINUSOIDAL, False, lfo_len,
                          float(math.floor(delay_min * sr + 0.5)), buf_len - 2.0,
                          3 * math.pi / 2).astype(np.float64)
        out = np.zeros_like(w)
        channels = np.arange(w.shape[1])
        phases = (channels * lfo_len * channel_phase + 0.5).astype(np.int64)
        pos = lfo_pos = 0
        quadratic = self.interpolation == Interpolation.QUADRATIC
        for i in range(w.shape[2]):
            pos = (pos + buf_len - 1) % buf_len
            d = lfo[(lfo_pos + phases) % lfo_len]
            frac = d - np.floor(d)
            k = np.floor(d).astype(np.int64)
            bufs[:, :, pos] = w[:, :, i] + last * feedback
            d0 = bufs[:, channels, (pos + k) % buf_len]
            d1 = bufs[:, channels, (pos + k + 1) % buf_len]
            if quadratic:
                d2 = bufs[:, channels, (pos + k + 2) % buf_len] - d0
                d1 = d1 - d0
                a = d2 * 0.5 - d1
                b = d1 * 2 - d2 * 0.5
                delayed = d0 + (a * frac + b) * frac
            else:
                delayed = d0 + (d1 - d0) * frac
            last = delayed
            out[:, :, i] = w[:, :, i] * in_gain + delayed * delay_gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        out = np.clip(out, -1, 1).reshape(shape)
        return out.astype(in_type if in_type.kind in "iu" else x.dtype)


class Phaser(AudioOp):
    """Phaser(sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
    sinusoidal=True): SoX's phaser on <..., time>: a decaying delay line whose tap is swept
    (sine or triangle at mod_speed Hz) over delay_ms."""

    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4,
                 mod_speed=0.5, sinusoidal=True):
        check_int(sample_rate, "sample_rate", -2**31)
        check_float(gain_in, "gain_in", 0, 1, types=_FI)
        check_float(gain_out, "gain_out", 0, 1e9, types=_FI)
        check_float(delay_ms, "delay_ms", 0, 5.0, types=_FI)
        check_float(decay, "decay", 0, 0.99, types=_FI)
        check_float(mod_speed, "mod_speed", 0.1, 2, types=_FI)
        check_bool(sinusoidal, "sinusoidal")
        self.sample_rate, self.gain_in, self.gain_out = sample_rate, gain_in, gain_out
        self.delay_ms, self.decay, self.mod_speed, self.sinusoidal = (delay_ms, decay, mod_speed,
                                                                      sinusoidal)
        self._steps = [self._run]

    def _run(self, x):
        x = x.astype(_float_type(x), copy=False)
        shape = x.shape
        w = x.reshape(-1, shape[-1]).astype(np.float64) * self.gain_in
        buf_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        if buf_len < 1:
            raise RuntimeError(f"Phaser: delay_ms {self.delay_ms} at sample_rate "
                               f"{self.sample_rate} is less than one sample.")
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = _wave_table(self.sinusoidal, True, mod_len, 1.0, float(buf_len), math.pi / 2)
        buf = np.zeros((w.shape[0], buf_len))
        out = np.zeros_like(w)
        delay_pos = mod_pos = 0
        for i in range(w.shape[1]):
            idx = int((delay_pos + int(mod[mod_pos])) % buf_len)
            mod_pos = (mod_pos + 1) % mod_len
            delay_pos = (delay_pos + 1) % buf_len
            temp = w[:, i] + buf[:, idx]
            buf[:, delay_pos] = temp * self.decay
            out[:, i] = temp
        return np.clip(out * self.gain_out, -1, 1).reshape(shape).astype(x.dtype)


class DetectPitchFrequency(AudioOp):
    """DetectPitchFrequency(sample_rate, frame_time=0.01, win_length=30, freq_low=85,
    freq_high=3400): the pitch of each frame of <..., time> by normalised cross-correlation
    over lags sample_rate / freq_high .. sample_rate / freq_low, median-smoothed over
    win_length frames: <..., frames> in Hz."""

    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400):
        check_not_zero(sample_rate, "sample_rate")
        check_float(frame_time, "frame_time", 0, left_open=True, types=_FI)
        check_int(win_length, "win_length", 1)
        check_float(freq_low, "freq_low", 0, left_open=True)
        check_float(freq_high, "freq_high", 0, left_open=True)
        self.sample_rate, self.frame_time, self.win_length = sample_rate, frame_time, win_length
        self.freq_low, self.freq_high = freq_low, freq_high
        self._steps = [self._run]

    def _run(self, x):
        x = x.astype(_float_type(x), copy=False)
        shape = x.shape
        w = x.reshape(-1, shape[-1]).astype(np.float64)
        sr, eps = self.sample_rate, 1e-9
        lags = int(math.ceil(sr / self.freq_low))
        frame = int(math.ceil(sr * self.frame_time))
        n_frames = int(math.ceil(w.shape[1] / frame))
        w = np.pad(w, [(0, 0), (0, lags + n_frames * frame - w.shape[1])])
        nccf = np.zeros((w.shape[0], n_frames, lags))
        for lag in range(1, lags + 1):
            s1 = w[:, :-lag][:, :n_frames * frame].reshape(w.shape[0], n_frames, frame)
            s2 = w[:, lag:][:, :n_frames * frame].reshape(w.shape[0], n_frames, frame)
            nccf[:, :, lag - 1] = ((s1 * s2).sum(-1) /
                                   (eps + np.linalg.norm(s1, axis=-1)) ** 2 /
                                   (eps + np.linalg.norm(s2, axis=-1)) ** 2)
        lag_min = int(math.ceil(sr / self.freq_high))
        if lag_min >= lags:
            raise RuntimeError(f"DetectPitchFrequency: freq_high {self.freq_high} must give a "
                               f"smaller lag than freq_low {self.freq_low}.")
        best_v = nccf[..., lag_min:].max(-1)
        best_i = nccf[..., lag_min:].argmax(-1)
        half = nccf.shape[-1] // 2
        if half > lag_min:
            half_v = nccf[..., lag_min:half].max(-1)
            half_i = nccf[..., lag_min:half].argmax(-1)
            take = half_v > 0.99 * best_v
            best_i = np.where(take, half_i, best_i)
        indices = best_i + lag_min + 1
        pad = (self.win_length - 1) // 2
        padded = np.concatenate([np.repeat(indices[:, :1], pad, axis=1), indices], axis=1)
        count = padded.shape[1] - self.win_length + 1
        if count < 1:
            raise RuntimeError(f"DetectPitchFrequency: win_length {self.win_length} is longer "
                               f"than the {indices.shape[1]} frames of the input.")
        windows = np.lib.stride_tricks.sliding_window_view(padded, self.win_length, axis=1)
        smoothed = np.sort(windows, axis=-1)[..., (self.win_length - 1) // 2]
        freq = sr / (eps + smoothed.astype(np.float32))
        return freq.reshape(shape[:-1] + (freq.shape[-1],)).astype(x.dtype)


class SlidingWindowCmn(AudioOp):
    """SlidingWindowCmn(cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
    Kaldi's sliding-window cepstral mean (and with norm_vars variance) normalisation of
    <..., time, feature>: each frame minus the mean of a window of cmn_window frames (centred,
    or ending at the frame and at least min_cmn_window long)."""

    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        check_int(cmn_window, "cmn_window", 0)
        check_int(min_cmn_window, "min_cmn_window", 0)
        check_bool(center, "center")
        check_bool(norm_vars, "norm_vars")
        self.cmn_window, self.min_cmn_window = cmn_window, min_cmn_window
        self.center, self.norm_vars = center, norm_vars
        self._steps = [self._run]

    def _run(self, x):
        x = x.astype(_float_type(x), copy=False)
        if x.ndim < 2:
            raise RuntimeError(f"SlidingWindowCmn: the shape of input tensor does not match the "
                               f"requirement of operator. Expecting tensor in shape of <..., "
                               f"time, freq>. But got tensor with dimension {x.ndim}.")
        shape = x.shape
        spec = x.reshape(-1, shape[-2], shape[-1]).astype(np.float64)
        frames = spec.shape[1]
        cur_sum = np.zeros((spec.shape[0], spec.shape[2]))
        cur_sq = np.zeros_like(cur_sum)
        out = np.zeros_like(spec)
        last_start = last_end = -1
        for t in range(frames):
            if self.center:
                start = t - self.cmn_window // 2
                end = start + self.cmn_window
            else:
                start, end = t - self.cmn_window, t + 1
            if start < 0:
                end -= start
                start = 0
            if not self.center and end > t:
                end = max(t + 1, self.min_cmn_window)
            if end > frames:
                start -= end - frames
                end = frames
                start = max(start, 0)
            if last_start == -1:
                part = spec[:, start:end - start, :]  # Kaldi's (and MindSpore's) first window
                cur_sum += part.sum(1)
                if self.norm_vars:
                    cur_sq += (part ** 2).sum(1)
            else:
                if start > last_start:
                    cur_sum -= spec[:, last_start, :]
                    if self.norm_vars:
                        cur_sq -= spec[:, last_start, :] ** 2
                if end > last_end:
                    cur_sum += spec[:, last_end, :]
                    if self.norm_vars:
                        cur_sq += spec[:, last_end, :] ** 2
            n = end - start
            last_start, last_end = start, end
            out[:, t, :] = spec[:, t, :] - cur_sum / n
            if self.norm_vars:
                if n == 1:
                    out[:, t, :] = 0
                else:
                    var = cur_sq / n - cur_sum ** 2 / n ** 2
                    out[:, t, :] *= var ** -0.5
        return out.reshape(shape).astype(x.dtype)
