"""The element-wise and masking transforms of mindspore.dataset.audio, in numpy (each is a
few vectorised array operations; they run as Python callables in a pipeline): Angle,
ComplexNorm, Magphase, ComputeDeltas, Contrast, DBToAmplitude, DCShift, Fade, Gain, Vol,
MuLawEncoding, MuLawDecoding, Overdrive, TimeMasking, FrequencyMasking, MaskAlongAxis,
MaskAlongAxisIID, Dither. Semantics are MindSpore's (which follow torchaudio's)."""
import numpy as np

from mycel.dataset.audio.transforms import AudioOp, _input_array, _out_dtype
from mycel.dataset.audio.utils import BorderType, DensityFunction, FadeShape, GainType
from mycel.dataset.audio.validators import (FLOAT_MAX, check_bool, check_enum, check_float,
                                            check_int, check_range, type_check)


def _shape_error(op, expect, arr):
    return RuntimeError(f"{op}: the shape of input tensor does not match the requirement of "
                        f"operator. Expecting tensor in shape of {expect}. But got tensor with "
                        f"dimension {arr.ndim}.")


def _float(op, x):
    """x as its float type (float64 stays, every other numeric type becomes float32)."""
    return x.astype(_out_dtype(x), copy=False)


def _complex(op, x):
    """A complex <..., 2> input: RuntimeError unless the last axis holds 2 values."""
    if x.ndim < 1 or x.shape[-1] != 2:
        raise _shape_error(op, "<..., complex=2>", x)
    return _float(op, x)


class Angle(AudioOp):
    """Angle(): the phase atan2(imag, real) of a complex <..., 2> input -> <...>."""

    def __init__(self):
        def angle(x):
            x = _complex("Angle", x)
            return np.arctan2(x[..., 1], x[..., 0])
        self._steps = [angle]


class ComplexNorm(AudioOp):
    """ComplexNorm(power=1.0): |z| ** power of a complex <..., 2> input -> <...>."""

    def __init__(self, power=1.0):
        check_float(power, "power", 0)
        self.power = power

        def norm(x):
            x = _complex("ComplexNorm", x)
            sq = x[..., 0] ** 2 + x[..., 1] ** 2
            return np.sqrt(sq) if power == 1 else sq ** x.dtype.type(power / 2)
        self._steps = [norm]


class Magphase(AudioOp):
    """Magphase(power=1.0): (|z| ** power, angle(z)) of a complex <..., 2> input."""

    def __init__(self, power=1.0):
        check_float(power, "power", 0)
        self.power = power

    def __call__(self, *inputs):
        x = _complex("Magphase", _input_array("Magphase", inputs[0]))
        mag = (x[..., 0] ** 2 + x[..., 1] ** 2) ** x.dtype.type(self.power / 2)
        return mag, np.arctan2(x[..., 1], x[..., 0])

    def _c_ops(self):
        return None


def _elementwise(op, fn):
    def run(x):
        return fn(_float(op, x))
    return [run]


class ComputeDeltas(AudioOp):
    """ComputeDeltas(win_length=5, pad_mode=BorderType.EDGE): the delta (regression)
    coefficients of a spectrogram <..., freq, time> along time:
    d[t] = sum_{n=1..N} n (c[t+n] - c[t-n]) / (2 sum n^2), N = (win_length - 1) // 2."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE):
        check_enum(pad_mode, BorderType, "pad_mode")
        type_check(win_length, (int,), "win_length")
        check_range(win_length, 3, 2**31 - 1, "win_length")
        self.win_length, self.pad_mode = win_length, pad_mode
        n = (win_length - 1) // 2
        denom = n * (n + 1) * (2 * n + 1) / 3
        mode = {"constant": "constant", "edge": "edge", "reflect": "reflect",
                "symmetric": "symmetric"}[pad_mode.value]

        def deltas(x):
            if x.ndim < 2:
                raise _shape_error("ComputeDeltas", "<..., freq, time>", x)
            x = _float("ComputeDeltas", x)
            padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode=mode)
            t = x.shape[-1]
            out = np.zeros_like(x)
            for k in range(1, n + 1):
                out += k * (padded[..., n + k:n + k + t] - padded[..., n - k:n - k + t])
            return (out / denom).astype(x.dtype)
        self._steps = [deltas]


class Contrast(AudioOp):
    """Contrast(enhancement_amount=75.0): SoX's contrast,
    sin(x pi / 2 + a / 750 sin(2 pi x)) (a in [0, 100])."""

    def __init__(self, enhancement_amount=75.0):
        check_float(enhancement_amount, "enhancement_amount", 0, 100, types=(float, int))
        self.enhancement_amount = enhancement_amount
        amount = enhancement_amount / 750.0
        self._steps = _elementwise("Contrast", lambda x: np.sin(
            x * (np.pi / 2) + amount * np.sin(x * (np.pi / 2) * 4)).astype(x.dtype))


class DBToAmplitude(AudioOp):
    """DBToAmplitude(ref, power): ref * (10 ** (x / 10)) ** power."""

    def __init__(self, ref, power):
        check_float(ref, "ref", types=(float, int))
        check_float(power, "power", types=(float, int))
        self.ref, self.power = ref, power
        self._steps = _elementwise("DBToAmplitude", lambda x: (
            ref * np.power(np.power(10.0, x * 0.1), power)).astype(x.dtype))


class DCShift(AudioOp):
    """DCShift(shift, limiter_gain=None): adds shift (in [-2, 2]) and clips to [-1, 1]; with
    a limiter_gain (default: shift) peaks beyond 1 - (|shift| - limiter_gain) are compressed
    instead of clipped."""

    def __init__(self, shift, limiter_gain=None):
        type_check(shift, (float, int), "shift")
        check_range(shift, -2.0, 2.0, "shift")
        if limiter_gain is not None:
            type_check(limiter_gain, (float, int), "limiter_gain")
        self.shift = shift
        self.limiter_gain = limiter_gain if limiter_gain else shift
        gain = self.limiter_gain
        eps = np.finfo(np.float32).eps

        def run(x):
            x = _float("DCShift", x).copy()
            if abs(shift - gain) > eps and abs(shift) > eps:
                thr = 1.0 - (abs(shift) - gain)
                up = (x > thr) & (shift > 0)
                down = (x < -thr) & (shift < 0)
                rest = ~(up | down)
                out = np.clip(x + shift, -1, 1)
                out[up] = np.minimum((x[up] - thr) * gain / (1 - thr) + thr + shift, thr)
                out[down] = np.maximum((x[down] + thr) * gain / (1 - thr) + thr + shift, -thr)
                out[~rest] = out[~rest]
                return out.astype(x.dtype)
            return np.clip(x + shift, -1, 1).astype(x.dtype)
        self._steps = [run]


def _fade_curve(shape, n, rising):
    t = np.linspace(0, 1, n) if n > 0 else np.zeros(0)
    if rising:
        curves = {FadeShape.LINEAR: lambda: t,
                  FadeShape.EXPONENTIAL: lambda: np.power(2.0, (t - 1) * 5),
                  FadeShape.LOGARITHMIC: lambda: np.log10(0.1 + t) + 1,
                  FadeShape.QUARTER_SINE: lambda: np.sin(t * np.pi / 2),
                  FadeShape.HALF_SINE: lambda: np.sin(t * np.pi - np.pi / 2) / 2 + 0.5}
    else:
        curves = {FadeShape.LINEAR: lambda: 1 - t,
                  FadeShape.EXPONENTIAL: lambda: np.power(2.0, -t * 5),
                  FadeShape.LOGARITHMIC: lambda: np.log10(1.1 - t) + 1,
                  FadeShape.QUARTER_SINE: lambda: np.sin(t * np.pi / 2 + np.pi / 2),
                  FadeShape.HALF_SINE: lambda: np.sin(t * np.pi + np.pi / 2) / 2 + 0.5}
    return curves[shape]()


class Fade(AudioOp):
    """Fade(fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR): multiplies the first
    fade_in_len samples by a rising curve and the last fade_out_len by a falling one."""

    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR):
        check_int(fade_in_len, "fade_in_len", 0)
        check_int(fade_out_len, "fade_out_len", 0)
        check_enum(fade_shape, FadeShape, "fade_shape")
        self.fade_in_len, self.fade_out_len, self.fade_shape = fade_in_len, fade_out_len, fade_shape

        def run(x):
            x = _float("Fade", x)
            n = x.shape[-1] if x.ndim else 0
            if fade_in_len > n or fade_out_len > n:
                raise RuntimeError(f"Fade: fade_in_len and fade_out_len must be no more than the "
                                   f"length of the waveform {n}, but got {fade_in_len} and "
                                   f"{fade_out_len}.")
            gain = np.ones(n)
            gain[:fade_in_len] *= _fade_curve(fade_shape, fade_in_len, True)
            if fade_out_len:
                gain[n - fade_out_len:] *= _fade_curve(fade_shape, fade_out_len, False)
            return (x * gain).astype(x.dtype)
        self._steps = [run]


class Gain(AudioOp):
    """Gain(gain_db=1.0): x * 10 ** (gain_db / 20)."""

    def __init__(self, gain_db=1.0):
        check_float(gain_db, "gain_db", types=(float, int))
        self.gain_db = gain_db
        ratio = 10 ** (gain_db / 20)
        self._steps = _elementwise("Gain", lambda x: (x * ratio).astype(x.dtype))


class Vol(AudioOp):
    """Vol(gain, gain_type=GainType.AMPLITUDE): scales by gain (an amplitude ratio, a power
    ratio, or dB) and clips to [-1, 1]."""

    def __init__(self, gain, gain_type=GainType.AMPLITUDE):
        type_check(gain, (int, float), "gain")
        check_enum(gain_type, GainType, "gain_type")
        if gain_type == GainType.AMPLITUDE:
            check_float(gain, "gain", 0)
            ratio = gain
        elif gain_type == GainType.POWER:
            check_float(gain, "gain", 0, left_open=True)
            ratio = 10 ** (10 * np.log10(gain) / 20)
        else:
            check_float(gain, "gain")
            ratio = 10 ** (gain / 20)
        self.gain, self.gain_type = gain, gain_type
        self._steps = _elementwise("Vol", lambda x: np.clip(x * ratio, -1, 1).astype(x.dtype))


class MuLawEncoding(AudioOp):
    """MuLawEncoding(quantization_channels=256): mu-law companding of a waveform in [-1, 1] to
    int32 codes 0 .. quantization_channels - 1."""

    def __init__(self, quantization_channels=256):
        check_int(quantization_channels, "quantization_channels", 1)
        self.quantization_channels = quantization_channels
        mu = float(quantization_channels - 1)

        def run(x):
            x = _float("MuLawEncoding", x)
            m = x.dtype.type(mu)
            x_mu = np.sign(x) * np.log1p(m * np.abs(x)) / np.log1p(m)
            return ((x_mu + 1) / 2 * m + x.dtype.type(0.5)).astype(np.int32)
        self._steps = [run]


class MuLawDecoding(AudioOp):
    """MuLawDecoding(quantization_channels=256): mu-law codes back to a waveform in [-1, 1]."""

    def __init__(self, quantization_channels=256):
        check_int(quantization_channels, "quantization_channels", 1)
        self.quantization_channels = quantization_channels
        mu = float(quantization_channels - 1)

        def run(x):
            x = _float("MuLawDecoding", x)
            m, one = x.dtype.type(mu), x.dtype.type(1)
            y = x / m * x.dtype.type(2) - one
            return (np.sign(y) * (np.exp(np.abs(y) * np.log1p(m)) - one) / m).astype(x.dtype)
        self._steps = [run]


class Overdrive(AudioOp):
    """Overdrive(gain=20.0, color=20.0): SoX's overdrive, a cubic soft clip of
    x * 10 ** (gain / 20) + color / 200 through a DC-blocking filter, clipped to [-1, 1]."""

    def __init__(self, gain=20.0, color=20.0):
        check_float(gain, "gain", 0, 100, types=(float, int))
        check_float(color, "color", 0, 100, types=(float, int))
        self.gain, self.color = gain, color
        g, c = 10 ** (gain / 20), color / 200

        def run(x):
            x = _float("Overdrive", x)
            flat = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
            temp = flat * g + c
            temp = np.where(temp < -1, -2.0 / 3, np.where(temp > 1, 2.0 / 3, temp - temp ** 3 / 3))
            out = np.zeros_like(flat, dtype=np.float64)
            last_in = np.zeros(flat.shape[0])
            last_out = np.zeros(flat.shape[0])
            for i in range(flat.shape[1]):
                last_out = temp[:, i] - last_in + 0.995 * last_out
                last_in = temp[:, i]
                out[:, i] = flat[:, i] * 0.5 + last_out * 0.75
            return np.clip(out, -1, 1).reshape(x.shape).astype(x.dtype)
        self._steps = [run]


def _mask(x, axis, start, width, value):
    """x with [start, start + width) along axis (-2: freq, -1: time) set to value."""
    out = x.copy()
    index = [slice(None)] * x.ndim
    index[axis] = slice(int(start), int(start + width))
    out[tuple(index)] = value
    return out


class MaskAlongAxis(AudioOp):
    """MaskAlongAxis(mask_start, mask_width, mask_value, axis): sets
    [mask_start, mask_start + mask_width) of a spectrogram <..., freq, time> along axis
    (1: frequency, 2: time) to mask_value."""

    def __init__(self, mask_start, mask_width, mask_value, axis):
        check_int(mask_start, "mask_start", 0)
        check_int(mask_width, "mask_width", 1)
        check_float(mask_value, "mask_value")
        type_check(axis, (int,), "axis")
        check_range(axis, 1, 2, "axis")
        self.mask_start, self.mask_width, self.mask_value, self.axis = (mask_start, mask_width,
                                                                        mask_value, axis)

        def run(x):
            x = _float("MaskAlongAxis", x)
            if x.ndim < 2:
                raise _shape_error("MaskAlongAxis", "<..., freq, time>", x)
            size = x.shape[-2 if axis == 1 else -1]
            if mask_start + mask_width > size:
                raise RuntimeError(f"MaskAlongAxis: mask_start + mask_width must be no more than "
                                   f"{size} (the length of axis {axis}), but got "
                                   f"{mask_start + mask_width}.")
            return _mask(x, -2 if axis == 1 else -1, mask_start, mask_width, mask_value)
        self._steps = [run]


class _RandomMask(AudioOp):
    """Masks drawing from a numpy generator seeded by the dataset seed (config.set_seed)."""

    @property
    def _random(self):
        return True

    def _rng(self):
        return np.random.default_rng(self._seed())


class MaskAlongAxisIID(_RandomMask):
    """MaskAlongAxisIID(mask_param, mask_value, axis): masks a random run of width
    uniform[0, mask_param) at a uniform start along axis (1: frequency, 2: time)."""

    def __init__(self, mask_param, mask_value, axis):
        check_int(mask_param, "mask_param", 0)
        check_float(mask_value, "mask_value")
        type_check(axis, (int,), "axis")
        check_range(axis, 1, 2, "axis")
        self.mask_param, self.mask_value, self.axis = mask_param, mask_value, axis
        self._steps = [self._run]

    def _run(self, x):
        x = _float("MaskAlongAxisIID", x)
        if x.ndim < 2:
            raise _shape_error("MaskAlongAxisIID", "<..., freq, time>", x)
        ax = -2 if self.axis == 1 else -1
        size = x.shape[ax]
        if self.mask_param > size:
            raise RuntimeError(f"MaskAlongAxisIID: mask_param should be less than or equal to the "
                               f"length of the masked axis ({size}), but got {self.mask_param}.")
        rng = self._rng()
        width = int(rng.uniform() * self.mask_param)
        start = int(rng.uniform() * (size - width))
        return _mask(x, ax, start, width, self.mask_value)


class _Masking(_RandomMask):
    """TimeMasking / FrequencyMasking: with iid_masks a random run (as MaskAlongAxisIID), else
    mask_param samples from mask_start."""

    _axis = -1

    def __init__(self, iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0):
        check_bool(iid_masks, "iid_masks")
        type_check(mask_param, (int,), "mask_param")
        check_range(mask_param, 0, FLOAT_MAX, "mask_param")
        type_check(mask_start, (int,), "mask_start")
        check_range(mask_start, 0, FLOAT_MAX, "mask_start")
        type_check(mask_value, (int, float), "mask_value")
        check_range(mask_value, 0, FLOAT_MAX, "mask_value")
        self.iid_masks, self.mask_param = iid_masks, mask_param
        self.mask_start, self.mask_value = mask_start, mask_value
        self._steps = [self._run]

    @property
    def _random(self):
        return self.iid_masks

    def _run(self, x):
        op = type(self).__name__
        x = _float(op, x)
        if x.ndim < 2:
            raise _shape_error(op, "<..., freq, time>", x)
        size = x.shape[self._axis]
        if self.mask_param > size:
            what = "time" if self._axis == -1 else "frequency"
            raise RuntimeError(f"{op}: '{what}_mask_param' should be less than or equal to the "
                               f"length of {what} dimension ({size}), but got "
                               f"{self.mask_param}.")
        if self.iid_masks:
            rng = self._rng()
            width = int(rng.uniform() * self.mask_param)
            start = int(rng.uniform() * (size - width))
        else:
            width, start = self.mask_param, self.mask_start
            if start + width > size:
                raise RuntimeError(f"{op}: 'mask_start' should be less than the length of the "
                                   f"masked dimension ({size}), and mask_start + mask_param no "
                                   f"more than it, but got {start} + {width}.")
        return _mask(x, self._axis, start, width, self.mask_value)


class TimeMasking(_Masking):
    """TimeMasking(iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0): masks a run of
    frames (the last axis) of a spectrogram <..., freq, time>."""
    _axis = -1


class FrequencyMasking(_Masking):
    """FrequencyMasking(iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0): masks a
    run of frequency bins (axis -2) of a spectrogram <..., freq, time>."""
    _axis = -2


class Dither(_RandomMask):
    """Dither(density_function=DensityFunction.TPDF, noise_shaping=False): MindSpore's (and
    torchaudio's) dither: the waveform scaled to 16 bits (x * (2^15 - 2)) plus a dither
    signal, rounded, divided by 2^15. TPDF adds a (periodic) Bartlett window over time; RPDF
    one sample of the waveform minus 0.5, GPDF the sum of seven waveform samples, the samples
    picked at random from the dataset seed. noise_shaping adds each sample's quantisation
    error to the next sample."""

    def __init__(self, density_function=DensityFunction.TPDF, noise_shaping=False):
        check_enum(density_function, DensityFunction, "density_function")
        check_bool(noise_shaping, "noise_shaping")
        self.density_function, self.noise_shaping = density_function, noise_shaping
        self._steps = [self._run]

    @property
    def _random(self):
        return self.density_function != DensityFunction.TPDF

    def _run(self, x):
        x = _float("Dither", x)
        shape = x.shape
        flat = x.reshape(-1, shape[-1]) if x.ndim else x.reshape(1, 1)
        channels, times = flat.shape[0] - 1, flat.shape[1] - 1
        scaled = flat * x.dtype.type(2 ** 15 - 2)
        if self.density_function == DensityFunction.TPDF:
            n = times + 1
            k = np.arange(n)
            noise = 1 - np.abs(2.0 * k / n - 1) if n > 1 else np.ones(1)
            dithered = scaled + noise.astype(x.dtype)[None, :]
        else:
            rng = self._rng()

            def pick(bound):
                return int(rng.integers(bound)) if bound > 0 else 0
            value = flat[pick(channels), pick(times)]
            if self.density_function == DensityFunction.RPDF:
                value = value - 0.5
            else:
                for _ in range(6):
                    value = value + flat[pick(channels), pick(times)]
            dithered = scaled + value
        out = np.round(dithered) / x.dtype.type(2 ** 15)
        if self.noise_shaping:
            err = out - flat
            out = out + np.concatenate([np.zeros((flat.shape[0], 1), x.dtype), err[:, :-1]], 1)
        return out.reshape(shape).astype(x.dtype)
