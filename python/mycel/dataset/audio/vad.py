"""Vad: SoX's voice activity detector (MindSpore's audio.Vad, which follows torchaudio's port
of SoX's vad effect), in numpy. It trims the audio before the detected speech: the signal is
measured every 1 / measure_freq seconds (the cepstral power of a Hann-windowed, noise-reduced
spectrum), the measures are smoothed, and when their mean reaches trigger_level the output
starts at the first measure above the level (allowing allowed_gap seconds of gaps) minus
pre_trigger_time."""
import math

import numpy as np

from mycel.dataset.audio.transforms import AudioOp, _float_type
from mycel.dataset.audio.validators import check_float, check_int


def _periodic_hann(n):
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n) if n > 1 else np.ones(n)


class _Measure:
    """The constants of one Vad configuration and its per-measure computation."""

    def __init__(self, sr, measure_len, dft_len, hp_filter, lp_filter, hp_lifter, lp_lifter,
                 noise_reduction, smooth_mult, up_mult, down_mult):
        self.measure_len, self.dft_len = measure_len, dft_len
        self.spec_window = 2.0 / math.sqrt(measure_len) * _periodic_hann(measure_len)
        self.s0 = max(int(hp_filter / sr * dft_len + 0.5), 1)
        self.s1 = min(int(lp_filter / sr * dft_len + 0.5), dft_len // 2)
        width = self.s1 - self.s0
        if width <= 0:
            raise RuntimeError(f"Vad: hp_filter_freq {hp_filter} and lp_filter_freq {lp_filter} "
                               f"leave no frequency band at sample_rate {sr}.")
        self.cep_window = 2.0 / math.sqrt(width) * _periodic_hann(width)
        self.c0 = math.ceil(sr * 0.5 / lp_lifter)
        self.c1 = min(math.floor(sr * 0.5 / hp_lifter), dft_len // 4)
        if self.c1 <= self.c0:
            raise RuntimeError(f"Vad: hp_lifter_freq {hp_lifter} and lp_lifter_freq {lp_lifter} "
                               f"leave no cepstral band at sample_rate {sr}.")
        self.noise_reduction = noise_reduction
        self.smooth_mult, self.up_mult, self.down_mult = smooth_mult, up_mult, down_mult

    def __call__(self, samples, spectrum, noise, index, boot_count):
        n = samples.shape[0]
        buf = np.zeros(self.dft_len)
        idx = (index + np.arange(self.measure_len)) % n
        buf[:self.measure_len] = samples[idx] * self.spec_window
        dft = np.fft.rfft(buf)
        s0, s1 = self.s0, self.s1
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else self.smooth_mult
        spectrum[s0:s1] = spectrum[s0:s1] * mult + np.abs(dft[s0:s1]) * (1 - mult)
        d = spectrum[s0:s1] ** 2
        if boot_count >= 0:
            m = np.zeros_like(d)
        else:
            m = np.where(d > noise[s0:s1], self.up_mult, self.down_mult)
        noise[s0:s1] = noise[s0:s1] * m + d * (1 - m)
        d = np.sqrt(np.maximum(0.0, d - self.noise_reduction * noise[s0:s1]))
        cep = np.zeros(self.dft_len >> 1)
        cep[s0:s1] = d * self.cep_window
        power = float(np.sum(np.abs(np.fft.rfft(cep)[self.c0:self.c1]) ** 2))
        result = math.log(power / (self.c1 - self.c0)) if power > 0 else -math.inf
        return max(0.0, 21 + result)


class Vad(AudioOp):
    """Vad(sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0, allowed_gap=0.25,
    pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1, noise_down_time=0.01,
    noise_reduction_amount=1.35, measure_freq=20.0, measure_duration=None,
    measure_smooth_time=0.4, hp_filter_freq=50.0, lp_filter_freq=6000.0, hp_lifter_freq=150.0,
    lp_lifter_freq=2000.0): removes the audio of <..., time> before the detected speech (all
    channels together)."""

    def __init__(self, sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0,
                 allowed_gap=0.25, pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1,
                 noise_down_time=0.01, noise_reduction_amount=1.35, measure_freq=20.0,
                 measure_duration=None, measure_smooth_time=0.4, hp_filter_freq=50.0,
                 lp_filter_freq=6000.0, hp_lifter_freq=150.0, lp_lifter_freq=2000.0):
        check_int(sample_rate, "sample_rate", 1)
        check_float(trigger_level, "trigger_level")
        for name, value in (("trigger_time", trigger_time), ("search_time", search_time),
                            ("allowed_gap", allowed_gap), ("pre_trigger_time", pre_trigger_time),
                            ("boot_time", boot_time), ("noise_up_time", noise_up_time),
                            ("noise_down_time", noise_down_time)):
            check_float(value, name, 0)
        if noise_up_time < noise_down_time:
            raise ValueError(f"Input noise_up_time should be greater than noise_down_time, but got "
                             f"noise_up_time: {noise_up_time} and noise_down_time: "
                             f"{noise_down_time}.")
        check_float(noise_reduction_amount, "noise_reduction_amount", 0)
        check_float(measure_freq, "measure_freq", 0, left_open=True)
        if measure_duration:
            check_float(measure_duration, "measure_duration", 0)
        check_float(measure_smooth_time, "measure_smooth_time", 0)
        for name, value in (("hp_filter_freq", hp_filter_freq), ("lp_filter_freq", lp_filter_freq),
                            ("hp_lifter_freq", hp_lifter_freq), ("lp_lifter_freq", lp_lifter_freq)):
            check_float(value, name, 0, left_open=True)
        self.sample_rate, self.trigger_level, self.trigger_time = (sample_rate, trigger_level,
                                                                   trigger_time)
        self.search_time, self.allowed_gap = search_time, allowed_gap
        self.pre_trigger_time, self.boot_time = pre_trigger_time, boot_time
        self.noise_up_time, self.noise_down_time = noise_up_time, noise_down_time
        self.noise_reduction_amount, self.measure_freq = noise_reduction_amount, measure_freq
        self.measure_duration, self.measure_smooth_time = measure_duration, measure_smooth_time
        self.hp_filter_freq, self.lp_filter_freq = hp_filter_freq, lp_filter_freq
        self.hp_lifter_freq, self.lp_lifter_freq = hp_lifter_freq, lp_lifter_freq
        self._steps = [self._run]

    def _run(self, x):  # noqa: C901 (SoX's state machine, kept in one piece)
        x = x.astype(_float_type(x), copy=False)
        shape = x.shape
        w = x.reshape(-1, shape[-1]).astype(np.float64)
        channels, ilen = w.shape
        sr, freq = self.sample_rate, self.measure_freq
        duration = 2.0 / freq if self.measure_duration is None else self.measure_duration
        measure_len = int(sr * duration + 0.5)
        dft_len = 16
        while dft_len < measure_len:
            dft_len *= 2
        period = int(sr / freq + 0.5)
        measures_len = math.ceil(self.search_time * freq)
        gap_len = int(self.allowed_gap * freq + 0.5)
        samples_len = int(self.pre_trigger_time * sr + 0.5) + measures_len * period + measure_len
        if measure_len < 1 or period < 1 or measures_len < 1:
            raise RuntimeError(f"Vad: sample_rate {sr} is too low for measure_freq {freq} and "
                               f"search_time {self.search_time}.")
        measure = _Measure(sr, measure_len, dft_len, self.hp_filter_freq, self.lp_filter_freq,
                           self.hp_lifter_freq, self.lp_lifter_freq, self.noise_reduction_amount,
                           math.exp(-1.0 / (self.measure_smooth_time * freq)),
                           math.exp(-1.0 / (self.noise_up_time * freq)),
                           math.exp(-1.0 / (self.noise_down_time * freq)))
        trigger_mult = math.exp(-1.0 / (self.trigger_time * freq))
        boot_max = int(self.boot_time * freq - 0.5)
        timer, boot_count, m_index, flushed, s_index = measure_len, 0, 0, 0, 0
        mean = np.zeros(channels)
        samples = np.zeros((channels, samples_len))
        spectrum = np.zeros((channels, dft_len))
        noise = np.zeros((channels, dft_len))
        measures = np.zeros((channels, measures_len))
        triggered, to_flush, pos = False, 0, 0
        while pos < ilen and not triggered:
            timer -= 1
            for c in range(channels):
                samples[c, s_index] = w[c, pos]
                if timer == 0:
                    index = (s_index + samples_len - measure_len) % samples_len
                    meas = measure(samples[c], spectrum[c], noise[c], index, boot_count)
                    measures[c, m_index] = meas
                    mean[c] = mean[c] * trigger_mult + meas * (1.0 - trigger_mult)
                    triggered = triggered or mean[c] >= self.trigger_level
                    if triggered:
                        n, k = measures_len, m_index
                        j_trigger = j_zero = n
                        j = 0
                        for j in range(n):
                            if measures[c, k] >= self.trigger_level and j <= j_trigger + gap_len:
                                j_zero = j_trigger = j
                            elif measures[c, k] == 0 and j_trigger >= j_zero:
                                j_zero = j
                            k = (k + n - 1) % n
                        j = min(j, j_zero)
                        to_flush = min(max(to_flush, j), n)
            s_index += 1
            pos += 1
            if s_index == samples_len:
                s_index = 0
            if timer == 0:
                timer = period
                m_index = (m_index + 1) % measures_len
                if boot_count >= 0:
                    boot_count = -1 if boot_count == boot_max else boot_count + 1
            if triggered:
                flushed = (measures_len - to_flush) * period
                s_index = (s_index + flushed) % samples_len
        start = pos - samples_len + flushed
        out = w[:, start:] if start >= 0 else w[:, ilen + start:] if -start <= ilen else w
        return out.reshape(shape[:-1] + (out.shape[-1],)).astype(x.dtype)
