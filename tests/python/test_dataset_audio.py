"""mycel.dataset.audio against independent oracles: torch.stft / torch.istft for the STFT
family, scipy.signal.lfilter for LFilter and the biquads, numpy for the filter banks, DCT and
element-wise effects; the engine's FFT against the O(n^2) DFT. Each transform is checked
eagerly and inside a pipeline (dataset.map), which must agree."""
import math

import numpy as np
import pytest
import scipy.signal
import torch

import mycel.dataset as ds
from mycel import _mycel
from mycel.dataset import audio
from mycel.dataset.audio import BorderType, MelType, NormMode, NormType, WindowType

RNG = np.random.default_rng(0)


def _pipeline(op, x):
    """op applied to x inside a map (one row)."""
    data = ds.NumpySlicesDataset([x], column_names=["a"], shuffle=False).map(
        operations=op, input_columns=["a"])
    rows = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert len(rows) == 1
    return rows[0][0]


def _both(op, x):
    """Eager and pipeline results of op on x, checked equal; returns the eager one."""
    eager = op(x)
    piped = _pipeline(op, x)
    np.testing.assert_allclose(piped, eager, rtol=1e-6, atol=1e-6)
    return eager


# ----- FFT -----

@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 17, 64, 100, 257])
@pytest.mark.parametrize("inverse", [False, True])
def test_fft_matches_naive_dft_and_numpy(n, inverse):
    x = RNG.standard_normal(n) + 1j * RNG.standard_normal(n)
    fast = np.array(_mycel._data.fft(list(x), inverse, False))
    naive = np.array(_mycel._data.fft(list(x), inverse, True))
    ref = np.fft.ifft(x) * n if inverse else np.fft.fft(x)
    np.testing.assert_allclose(naive, ref, rtol=1e-9, atol=1e-9 * n)
    np.testing.assert_allclose(fast, ref, rtol=1e-9, atol=1e-9 * n)


# ----- Spectrogram family -----

_WINDOWS = {WindowType.HANN: torch.hann_window, WindowType.HAMMING: torch.hamming_window,
            WindowType.BLACKMAN: torch.blackman_window, WindowType.BARTLETT: torch.bartlett_window,
            WindowType.KAISER: lambda n, dtype: torch.kaiser_window(n, True, 12.0, dtype=dtype)}
_TORCH_PAD = {BorderType.REFLECT: "reflect", BorderType.CONSTANT: "constant",
              BorderType.EDGE: "replicate"}


def _torch_stft(x, n_fft, win, hop, window, center, pad_mode, normalized, onesided):
    w = _WINDOWS[window](win, dtype=torch.float64)
    spec = torch.stft(torch.from_numpy(x), n_fft, hop, win, w, center=center,
                      pad_mode=_TORCH_PAD[pad_mode], normalized=False, onesided=onesided,
                      return_complex=True)
    if normalized:
        spec = spec / w.pow(2).sum().sqrt()
    return spec.numpy()


@pytest.mark.parametrize("window", list(WindowType))
@pytest.mark.parametrize("n_fft,win,hop", [(16, 16, 4), (12, 9, 3), (15, 15, 5)])
@pytest.mark.parametrize("pad_mode", [BorderType.REFLECT, BorderType.CONSTANT, BorderType.EDGE])
def test_spectrogram_matches_torch_stft(window, n_fft, win, hop, pad_mode):
    x = RNG.standard_normal((2, 50))
    op = audio.Spectrogram(n_fft=n_fft, win_length=win, hop_length=hop, window=window,
                           pad_mode=pad_mode, power=2.0)
    out = _both(op, x)
    ref = np.abs(_torch_stft(x, n_fft, win, hop, window, True, pad_mode, False, True)) ** 2
    assert out.dtype == np.float64 and out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("power", [0, 1.0, 2.0, 1.5])
@pytest.mark.parametrize("center,normalized,onesided", [(True, True, True), (False, False, False),
                                                        (True, False, False)])
def test_spectrogram_power_center_normalized_onesided(power, center, normalized, onesided):
    x = RNG.standard_normal(40).astype(np.float32)
    op = audio.Spectrogram(n_fft=10, hop_length=3, power=power, center=center,
                           normalized=normalized, onesided=onesided)
    out = _both(op, x)
    spec = _torch_stft(x.astype(np.float64), 10, 10, 3, WindowType.HANN, center,
                       BorderType.REFLECT, normalized, onesided)
    ref = np.stack([spec.real, spec.imag], -1) if power == 0 else np.abs(spec) ** power
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_spectrogram_symmetric_pad_and_pad_argument():
    x = RNG.standard_normal(30)
    out = audio.Spectrogram(n_fft=8, pad=3, pad_mode=BorderType.SYMMETRIC)(x)
    padded = np.pad(np.pad(x, 3), 4, mode="symmetric")
    w = torch.hann_window(8, dtype=torch.float64).numpy()
    frames = [padded[i * 4:i * 4 + 8] * w for i in range(1 + (len(padded) - 8) // 4)]
    ref = np.abs(np.fft.rfft(np.array(frames), axis=-1).T) ** 2
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


def test_spectrogram_errors():
    with pytest.raises(ValueError, match=r"Input n_fft is not within the required interval of "
                                         r"\[1, 2147483647\]"):
        audio.Spectrogram(n_fft=0)
    with pytest.raises(TypeError, match=r"Argument n_fft with value False is not of type "
                                        r"\(<class 'int'>,\)"):
        audio.Spectrogram(n_fft=False)
    with pytest.raises(ValueError, match="win_length should be no more than n_fft"):
        audio.Spectrogram(n_fft=8, win_length=9)
    with pytest.raises(TypeError, match="window"):
        audio.Spectrogram(window="hann")
    with pytest.raises(RuntimeError, match="n_fft should be more than 0 and less than 30"):
        audio.Spectrogram(n_fft=100, center=False)(np.ones(30))
    with pytest.raises(RuntimeError, match="data type of input tensor"):
        audio.Spectrogram(n_fft=4)(np.array(["a", "b"]))


@pytest.mark.filterwarnings("ignore:The length of signal is shorter")  # torch.istft, padding
@pytest.mark.parametrize("center,onesided,length", [(True, True, None), (True, True, 37),
                                                    (True, True, 60), (True, False, 50)])
def test_inverse_spectrogram_matches_torch_istft(center, onesided, length):
    x = RNG.standard_normal(48)
    n_fft, hop = 16, 4
    spec = _torch_stft(x, n_fft, n_fft, hop, WindowType.HANN, center, BorderType.REFLECT, False,
                       onesided)
    inp = np.stack([spec.real, spec.imag], -1)
    op = audio.InverseSpectrogram(length=length, n_fft=n_fft, hop_length=hop, center=center,
                                  onesided=onesided)
    out = _both(op, inp)
    w = torch.hann_window(n_fft, dtype=torch.float64)
    ref = torch.istft(torch.from_numpy(spec), n_fft, hop, n_fft, w, center=center,
                      onesided=onesided, length=length).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)
    if length is None and center:
        np.testing.assert_allclose(out, x[:len(out)], atol=1e-9)  # a round trip


def test_griffin_lim_recovers_a_consistent_spectrogram():
    t = np.arange(800) / 8000.0
    x = np.sin(2 * np.pi * 440 * t) * np.hanning(800)
    spec = audio.Spectrogram(n_fft=64, hop_length=16, power=2.0)(x)
    op = audio.GriffinLim(n_fft=64, hop_length=16, n_iter=60, rand_init=False, length=800)
    y = _both(op, spec)
    assert y.shape == (800,)
    # The rebuilt waveform's spectrogram is close to the target (phase is free).
    spec_y = audio.Spectrogram(n_fft=64, hop_length=16, power=2.0)(y)
    rel = np.linalg.norm(np.sqrt(spec_y) - np.sqrt(spec)) / np.linalg.norm(np.sqrt(spec))
    assert rel < 0.1
    with pytest.raises(RuntimeError, match=r"frequency of the input should equal to n_fft / 2 \+ 1"):
        audio.GriffinLim(n_fft=100)(spec)


# ----- filter banks, MelScale, MelSpectrogram, MFCC, LFCC -----

def _np_mel_fb(n_freqs, f_min, f_max, n_mels, sr, slaney_norm, htk):
    """An independent mel filter bank: each filter's triangle from its three corner freqs."""
    def to_mel(f):
        if htk:
            return 2595.0 * np.log10(1.0 + f / 700.0)
        f = np.asarray(f, dtype=np.float64)
        return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-9) / 1000) / (np.log(6.4) / 27),
                        f / (200.0 / 3))

    def to_hz(m):
        if htk:
            return 700.0 * (10 ** (m / 2595.0) - 1)
        return np.where(m >= 15, 1000 * np.exp((np.log(6.4) / 27) * (m - 15)), m * 200.0 / 3)
    pts = to_hz(np.linspace(to_mel(f_min), to_mel(f_max), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_freqs)
    fb = np.zeros((n_freqs, n_mels))
    for j in range(n_mels):
        lo, c, hi = pts[j], pts[j + 1], pts[j + 2]
        rising = (freqs - lo) / (c - lo)
        falling = (hi - freqs) / (hi - c)
        fb[:, j] = np.clip(np.minimum(rising, falling), 0, None)
        if slaney_norm:
            fb[:, j] *= 2.0 / (hi - lo)
    return fb


@pytest.mark.parametrize("norm", [NormType.NONE, NormType.SLANEY])
@pytest.mark.parametrize("mel_type", [MelType.HTK, MelType.SLANEY])
def test_melscale_fbanks(norm, mel_type):
    out = audio.melscale_fbanks(33, 20.0, 7000.0, 10, 16000, norm, mel_type)
    ref = _np_mel_fb(33, 20.0, 7000.0, 10, 16000, norm == NormType.SLANEY, mel_type == MelType.HTK)
    assert out.dtype == np.float32 and out.shape == (33, 10)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)


def test_linear_fbanks_and_create_dct():
    out = audio.linear_fbanks(9, 0.0, 40.0, 3, 100)
    freqs = np.linspace(0, 50, 9)
    pts = np.linspace(0, 40, 5)
    for j in range(3):
        tri = np.clip(np.minimum((freqs - pts[j]) / (pts[j + 1] - pts[j]),
                                 (pts[j + 2] - freqs) / (pts[j + 2] - pts[j + 1])), 0, None)
        np.testing.assert_allclose(out[:, j], tri, rtol=1e-6, atol=1e-7)
    dct = audio.create_dct(4, 6, NormMode.ORTHO)
    ref = scipy.fft.dct(np.eye(6), type=2, norm="ortho", axis=0)[:4].T  # columns: basis vectors
    np.testing.assert_allclose(dct, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(audio.create_dct(4, 6, NormMode.NONE),
                               scipy.fft.dct(np.eye(6), type=2, axis=0)[:4].T, rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError, match="n_mfcc"):
        audio.create_dct(0, 6)


def test_mel_scale_and_mel_spectrogram():
    x = RNG.standard_normal((1, 200))
    spec = audio.Spectrogram(n_fft=32, hop_length=8)(x)
    mel = _both(audio.MelScale(n_mels=6, sample_rate=8000, n_stft=17), spec)
    fb = _np_mel_fb(17, 0.0, 4000.0, 6, 8000, False, True)
    np.testing.assert_allclose(mel, np.einsum("fm,...ft->...mt", fb, spec), rtol=1e-9, atol=1e-9)
    op = audio.MelSpectrogram(sample_rate=8000, n_fft=32, hop_length=8, n_mels=6)
    np.testing.assert_allclose(_both(op, x), mel, rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="MelScale: f_max should be greater than f_min."):
        audio.MelScale(f_min=100.0, f_max=50.0)


def _db(x, top_db=80.0):
    db = 10 * np.log10(np.maximum(x, 1e-10))
    return np.maximum(db, db.max() - top_db)


@pytest.mark.parametrize("log_mels", [False, True])
def test_mfcc(log_mels):
    x = RNG.standard_normal(300)
    kw = {"n_fft": 32, "hop_length": 8, "n_mels": 12}
    op = audio.MFCC(sample_rate=8000, n_mfcc=5, log_mels=log_mels, melkwargs=kw)
    out = _both(op, x)
    mel = audio.MelSpectrogram(sample_rate=8000, **kw)(x)
    feat = np.log(mel + 1e-6) if log_mels else _db(mel)
    ref = scipy.fft.dct(feat, type=2, norm="ortho", axis=-2)[:5]
    np.testing.assert_allclose(out, ref, rtol=1e-7, atol=1e-7)
    with pytest.raises(ValueError, match="n_mels should be greater than or equal to n_mfcc"):
        audio.MFCC(n_mfcc=40, melkwargs={"n_mels": 5})


@pytest.mark.parametrize("log_lf", [False, True])
def test_lfcc(log_lf):
    x = RNG.standard_normal(300)
    op = audio.LFCC(sample_rate=8000, n_filter=10, n_lfcc=4, log_lf=log_lf,
                    speckwargs={"n_fft": 32, "hop_length": 8})
    out = _both(op, x)
    spec = audio.Spectrogram(n_fft=32, hop_length=8)(x)
    lin = np.einsum("fk,ft->kt", audio.linear_fbanks(17, 0.0, 4000.0, 10, 8000).astype(np.float64),
                    spec)
    feat = np.log(lin + 1e-6) if log_lf else _db(lin)
    ref = scipy.fft.dct(feat, type=2, norm="ortho", axis=-2)[:4]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_amplitude_to_db_blocks_and_spectral_centroid():
    x = np.abs(RNG.standard_normal((2, 3, 4, 5))) * np.array([1, 1e-6]).reshape(2, 1, 1, 1)
    op = audio.AmplitudeToDB(stype=audio.ScaleType.MAGNITUDE, ref_value=2.0, top_db=30.0)
    out = _both(op, x)
    db = 20 * np.log10(np.maximum(x, 1e-10)) - 20 * np.log10(2.0)
    ref = np.maximum(db, db.max(axis=(1, 2, 3), keepdims=True) - 30.0)
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)
    wave = RNG.standard_normal(200)
    cent = _both(audio.SpectralCentroid(sample_rate=8000, n_fft=32, hop_length=8), wave)
    mag = audio.Spectrogram(n_fft=32, hop_length=8, power=1.0)(wave)
    freqs = np.linspace(0, 4000, 17)[:, None]
    np.testing.assert_allclose(cent, (freqs * mag).sum(0, keepdims=True) / mag.sum(0), rtol=1e-9)


# ----- filters -----

def _lfilter_ref(b, a, x, clamp=True):
    y = scipy.signal.lfilter(b, a, x, axis=-1)
    return np.clip(y, -1, 1) if clamp else y


@pytest.mark.parametrize("order", [1, 2, 4])
@pytest.mark.parametrize("clamp", [True, False])
def test_lfilter_matches_scipy(order, clamp):
    b, a = scipy.signal.butter(order, 0.3)
    a = list(a * 2.0)  # an a[0] other than 1 is normalised away
    b = list(b * 2.0)
    x = RNG.standard_normal((2, 3, 64)) * 1.5
    out = _both(audio.LFilter(a, b, clamp=clamp), x)
    np.testing.assert_allclose(out, _lfilter_ref(b, a, x, clamp), rtol=1e-9, atol=1e-12)
    out32 = audio.LFilter(a, b, clamp=clamp)(x.astype(np.float32))
    assert out32.dtype == np.float32


def _cookbook(kind, sr, f, q, gain=0.0):
    """The Audio EQ Cookbook's (b, a), written out independently for the test."""
    w0 = 2 * math.pi * f / sr
    cw, sw = math.cos(w0), math.sin(w0)
    alpha = sw / (2 * q)
    big_a = 10 ** (gain / 40)
    if kind == "lowpass":
        return [(1 - cw) / 2, 1 - cw, (1 - cw) / 2], [1 + alpha, -2 * cw, 1 - alpha]
    if kind == "highpass":
        return [(1 + cw) / 2, -(1 + cw), (1 + cw) / 2], [1 + alpha, -2 * cw, 1 - alpha]
    if kind == "bandpass":
        return [alpha, 0, -alpha], [1 + alpha, -2 * cw, 1 - alpha]
    if kind == "notch":
        return [1, -2 * cw, 1], [1 + alpha, -2 * cw, 1 - alpha]
    if kind == "allpass":
        return [1 - alpha, -2 * cw, 1 + alpha], [1 + alpha, -2 * cw, 1 - alpha]
    if kind == "peak":
        return [1 + alpha * big_a, -2 * cw, 1 - alpha * big_a], [1 + alpha / big_a, -2 * cw,
                                                                 1 - alpha / big_a]
    sq = 2 * math.sqrt(big_a) * alpha
    if kind == "lowshelf":
        return ([big_a * ((big_a + 1) - (big_a - 1) * cw + sq),
                 2 * big_a * ((big_a - 1) - (big_a + 1) * cw),
                 big_a * ((big_a + 1) - (big_a - 1) * cw - sq)],
                [(big_a + 1) + (big_a - 1) * cw + sq, -2 * ((big_a - 1) + (big_a + 1) * cw),
                 (big_a + 1) + (big_a - 1) * cw - sq])
    return ([big_a * ((big_a + 1) + (big_a - 1) * cw + sq),
             -2 * big_a * ((big_a - 1) + (big_a + 1) * cw),
             big_a * ((big_a + 1) + (big_a - 1) * cw - sq)],
            [(big_a + 1) - (big_a - 1) * cw + sq, 2 * ((big_a - 1) - (big_a + 1) * cw),
             (big_a + 1) - (big_a - 1) * cw - sq])


@pytest.mark.parametrize("op,kind,kwargs", [
    (audio.LowpassBiquad, "lowpass", {"cutoff_freq": 1000.0, "Q": 0.6}),
    (audio.HighpassBiquad, "highpass", {"cutoff_freq": 1500.0, "Q": 0.8}),
    (audio.BandpassBiquad, "bandpass", {"central_freq": 2000.0, "Q": 0.5}),
    (audio.BandrejectBiquad, "notch", {"central_freq": 2000.0, "Q": 0.7}),
    (audio.AllpassBiquad, "allpass", {"central_freq": 900.0, "Q": 0.9}),
    (audio.EqualizerBiquad, "peak", {"center_freq": 1200.0, "gain": 6.0, "Q": 0.7}),
    (audio.BassBiquad, "lowshelf", {"gain": 5.0, "central_freq": 300.0, "Q": 0.7}),
    (audio.TrebleBiquad, "highshelf", {"gain": -4.0, "central_freq": 3000.0, "Q": 0.7}),
])
def test_biquads_match_cookbook_through_scipy(op, kind, kwargs):
    sr = 16000
    x = RNG.uniform(-0.5, 0.5, (2, 100))
    out = _both(op(sr, **kwargs), x)
    f = kwargs.get("cutoff_freq", kwargs.get("central_freq", kwargs.get("center_freq")))
    b, a = _cookbook(kind, sr, f, kwargs["Q"], kwargs.get("gain", 0.0))
    np.testing.assert_allclose(out, _lfilter_ref(b, a, x), rtol=1e-9, atol=1e-12)


def test_biquad_riaa_deemph_band():
    x = RNG.uniform(-0.5, 0.5, 80)
    b = [0.4, 0.2, 0.1]
    a = [1.0, -0.3, 0.2]
    np.testing.assert_allclose(audio.Biquad(*b, *a)(x), _lfilter_ref(b, a, x), rtol=1e-9)
    # RIAA: unit gain at 1 kHz.
    riaa = audio.RiaaBiquad(44100)
    sine = np.sin(2 * np.pi * 1000 * np.arange(44100) / 44100) * 0.5
    out = riaa(sine)
    assert abs(np.abs(out[-4410:]).max() - 0.5) < 0.01
    # DeemphBiquad is a treble cut: a 10 kHz tone loses gain, a 100 Hz tone keeps it.
    t = np.arange(48000) / 48000
    hi = audio.DeemphBiquad(48000)(0.5 * np.sin(2 * np.pi * 10000 * t))
    lo = audio.DeemphBiquad(48000)(0.5 * np.sin(2 * np.pi * 100 * t))
    assert np.abs(hi[-4800:]).max() < 0.3 and abs(np.abs(lo[-4800:]).max() - 0.5) < 0.01
    # BandBiquad: a narrow peak at its centre frequency.
    sr, fc = 8000, 1000.0
    tone = lambda f: 0.3 * np.sin(2 * np.pi * f * np.arange(8000) / sr)  # noqa: E731
    band = audio.BandBiquad(sr, fc, Q=1.0)
    assert np.abs(band(tone(fc))[-800:]).max() > 3 * np.abs(band(tone(3000.0))[-800:]).max()
    with pytest.raises(ValueError, match="44100 or 48000"):
        audio.DeemphBiquad(16000)


# ----- element-wise effects -----

def test_elementwise_effects():
    x = RNG.uniform(-0.9, 0.9, (2, 20)).astype(np.float32)
    np.testing.assert_allclose(_both(audio.Gain(3.0), x), x * 10 ** (3 / 20), rtol=1e-6)
    np.testing.assert_allclose(_both(audio.Vol(2.0), x), np.clip(2 * x, -1, 1), rtol=1e-6)
    np.testing.assert_allclose(_both(audio.Vol(-6.0, audio.GainType.DB), x),
                               x * 10 ** (-6 / 20), rtol=1e-6)
    np.testing.assert_allclose(_both(audio.DBToAmplitude(2.0, 0.5), x), 2 * 10 ** (x * 0.05),
                               rtol=1e-5)
    np.testing.assert_allclose(_both(audio.Contrast(50.0), x),
                               np.sin(x * np.pi / 2 + 50 / 750 * np.sin(x * 2 * np.pi)), atol=1e-6)
    np.testing.assert_allclose(_both(audio.DCShift(0.5, 0.5), x), np.clip(x + 0.5, -1, 1),
                               atol=1e-6)
    enc = _both(audio.MuLawEncoding(256), x)
    mu = 255.0
    ref = ((np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu) + 1) / 2 * mu + 0.5).astype(
        np.int32)
    np.testing.assert_array_equal(enc, ref)
    dec = _both(audio.MuLawDecoding(256), enc)
    np.testing.assert_allclose(dec, x, atol=0.02)  # the companding round trip
    z = RNG.standard_normal((3, 4, 2))
    np.testing.assert_allclose(_both(audio.ComplexNorm(2.0), z), (z ** 2).sum(-1), rtol=1e-9)
    np.testing.assert_allclose(_both(audio.Angle(), z), np.angle(z[..., 0] + 1j * z[..., 1]))
    mag, phase = audio.Magphase(1.0)(z)
    np.testing.assert_allclose(mag * np.exp(1j * phase), z[..., 0] + 1j * z[..., 1], atol=1e-9)
    with pytest.raises(RuntimeError, match="shape of input tensor"):
        audio.Angle()(np.ones((3, 3)))


def test_fade_and_deltas_and_masks():
    x = np.ones((1, 10))
    out = _both(audio.Fade(4, 3, audio.FadeShape.LINEAR), x)
    np.testing.assert_allclose(out[0], [0, 1 / 3, 2 / 3, 1, 1, 1, 1, 1, 0.5, 0])
    spec = RNG.standard_normal((2, 3, 12))
    d = _both(audio.ComputeDeltas(win_length=5), spec)
    p = np.pad(spec, [(0, 0), (0, 0), (2, 2)], mode="edge")
    ref = (1 * (p[..., 3:15] - p[..., 1:13]) + 2 * (p[..., 4:16] - p[..., 0:12])) / 10
    np.testing.assert_allclose(d, ref, rtol=1e-9)
    m = _both(audio.TimeMasking(False, 3, 2, 7.0), spec)
    ref = spec.copy()
    ref[..., 2:5] = 7.0
    np.testing.assert_array_equal(m, ref)
    f = _both(audio.FrequencyMasking(False, 1, 1, 0.0), spec)
    ref = spec.copy()
    ref[..., 1:2, :] = 0.0
    np.testing.assert_array_equal(f, ref)
    a = _both(audio.MaskAlongAxis(0, 2, 1.5, 2), spec)
    ref = spec.copy()
    ref[..., 0:2] = 1.5
    np.testing.assert_array_equal(a, ref)
    iid = audio.MaskAlongAxisIID(4, 9.0, 2)(spec)
    masked = np.all(iid == 9.0, axis=(0, 1))
    assert masked.sum() <= 4 and np.array_equal(iid[..., ~masked], spec[..., ~masked])


def test_overdrive_and_dither():
    x = RNG.uniform(-0.5, 0.5, (1, 50))
    out = audio.Overdrive(10.0, 20.0)(x)
    g, c = 10 ** 0.5, 0.1
    t = x[0] * g + c
    t = np.where(t < -1, -2 / 3, np.where(t > 1, 2 / 3, t - t ** 3 / 3))
    last_in = last_out = 0.0
    ref = []
    for i in range(50):
        last_out = t[i] - last_in + 0.995 * last_out
        last_in = t[i]
        ref.append(x[0, i] * 0.5 + last_out * 0.75)
    np.testing.assert_allclose(out[0], np.clip(ref, -1, 1), rtol=1e-9)
    d = audio.Dither()(x)
    n = 50
    tpdf = 1 - np.abs(2.0 * np.arange(n) / n - 1)  # a periodic Bartlett window over time
    np.testing.assert_allclose(d, np.round(x * (2 ** 15 - 2) + tpdf) / 2 ** 15, rtol=1e-12)
    shaped = audio.Dither(noise_shaping=True)(x)
    err = d - x
    np.testing.assert_allclose(shaped[:, 1:], d[:, 1:] + err[:, :-1], rtol=1e-12)


def test_argument_messages():
    with pytest.raises(TypeError, match=r"Argument sample_rate with value s is not of type "
                                        r"\[<class 'int'>\], but got <class 'str'>."):
        audio.MelSpectrogram(sample_rate="s")
    with pytest.raises(ValueError, match=r"Input quantization_channels is not within the required "
                                         r"interval of \[1, 2147483647\]."):
        audio.MuLawEncoding(0)
    with pytest.raises(ValueError, match=r"Input shift is not within the required interval of "
                                         r"\[-2.0, 2.0\]."):
        audio.DCShift(3.0)
    with pytest.raises(TypeError, match="fade_shape"):
        audio.Fade(1, 1, "linear")


# ----- time and rate -----

def _torch_resample(w, orig, new, width=6, rolloff=0.99, kaiser=False, beta=14.769656459379492):
    """The windowed-sinc polyphase resampler written with torch's conv1d (the oracle)."""
    g = math.gcd(orig, new)
    orig, new = orig // g, new // g
    base = min(orig, new) * rolloff
    wd = math.ceil(width * orig / base)
    idx = torch.arange(-wd, wd + orig, dtype=torch.float64)[None, None] / orig
    t = torch.arange(0, -new, -1, dtype=torch.float64)[:, None, None] / new + idx
    t = (t * base).clamp(-width, width)
    if kaiser:
        win = torch.i0(beta * torch.sqrt(1 - (t / width) ** 2)) / torch.i0(torch.tensor(beta))
    else:
        win = torch.cos(t * math.pi / width / 2) ** 2
    t = t * math.pi
    k = torch.where(t == 0, torch.tensor(1.0, dtype=torch.float64), t.sin() / t) * win * base / orig
    wv = torch.from_numpy(w)
    n, length = wv.shape
    wv = torch.nn.functional.pad(wv, (wd, wd + orig))
    r = torch.nn.functional.conv1d(wv[:, None], k, stride=orig).transpose(1, 2).reshape(n, -1)
    return r[..., :int(math.ceil(new * length / orig))].numpy()


@pytest.mark.parametrize("orig,new,kaiser", [(16000, 12000, False), (8000, 11025, False),
                                             (44100, 16000, True)])
def test_resample_matches_torch_conv1d(orig, new, kaiser):
    x = RNG.standard_normal((2, 120))
    method = audio.ResampleMethod.KAISER_WINDOW if kaiser else \
        audio.ResampleMethod.SINC_INTERPOLATION
    out = _both(audio.Resample(orig, new, method), x)
    # torch.i0 (the Kaiser window) is good to about 1e-7 relative
    np.testing.assert_allclose(out, _torch_resample(x, orig, new, kaiser=kaiser),
                               atol=1e-6 if kaiser else 1e-12)


def _torch_phase_vocoder(z, rate, adv):
    z = torch.from_numpy(z)
    steps = torch.arange(0, z.size(-1), rate, dtype=torch.float64)
    alphas = steps % 1.0
    phase_0 = z[..., :1].angle()
    z = torch.nn.functional.pad(z, [0, 2])
    z0 = z.index_select(-1, steps.long())
    z1 = z.index_select(-1, (steps + 1).long())
    adv = torch.from_numpy(adv)
    phase = z1.angle() - z0.angle() - adv
    phase = phase - 2 * math.pi * torch.round(phase / (2 * math.pi)) + adv
    phase = torch.cumsum(torch.cat([phase_0, phase[..., :-1]], -1), -1)
    mag = alphas * z1.abs() + (1 - alphas) * z0.abs()
    return torch.polar(mag, phase).numpy()


@pytest.mark.parametrize("rate", [1.3, 0.8])
def test_phase_vocoder_and_time_stretch(rate):
    z = RNG.standard_normal((2, 9, 11)) + 1j * RNG.standard_normal((2, 9, 11))
    adv = np.linspace(0, math.pi * 4, 9)[:, None]
    spec = np.stack([z.real, z.imag], -1)
    out = _both(audio.PhaseVocoder(rate, adv), spec)
    ref = _torch_phase_vocoder(z, rate, adv)
    assert out.shape == (2, 9, math.ceil(11 / rate), 2)
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], ref, atol=1e-9)
    stretched = audio.TimeStretch(hop_length=4, n_freq=9, fixed_rate=rate)(spec)
    np.testing.assert_allclose(stretched, out, atol=1e-12)
    with pytest.raises(RuntimeError, match="data type of phase_advance should be equal"):
        audio.PhaseVocoder(rate, adv)(spec.astype(np.float32))  # float64 advance, float32 spec
    with pytest.raises(RuntimeError, match="should be in shape of <freq, 1>"):
        audio.PhaseVocoder(rate, adv.ravel())(spec)


def test_filtfilt_and_pitch_shift():
    b, a = scipy.signal.butter(2, 0.2)
    x = RNG.uniform(-0.5, 0.5, (2, 60))
    out = _both(audio.Filtfilt(list(a), list(b)), x)
    fwd = scipy.signal.lfilter(b, a, x)
    ref = np.clip(scipy.signal.lfilter(b, a, fwd[:, ::-1])[:, ::-1], -1, 1)
    np.testing.assert_allclose(out, ref, atol=1e-12)
    # PitchShift by 12 steps of 12 per octave: a 200 Hz tone comes out near 400 Hz.
    sr = 8000
    t = np.arange(4000) / sr
    y = audio.PitchShift(sr, 12, n_fft=256, hop_length=64)(np.sin(2 * np.pi * 200 * t))
    assert y.shape == (4000,)
    spectrum = np.abs(np.fft.rfft(y[500:3500]))
    peak = np.argmax(spectrum) * sr / 3000
    assert abs(peak - 400) < 15


# ----- SoX / Kaldi effects -----

def test_flanger_and_phaser_limits():
    x = RNG.uniform(-0.5, 0.5, (2, 300))
    # width 0 and no feedback: no delayed signal is mixed in.
    np.testing.assert_allclose(_both(audio.Flanger(8000, width=0.0), x), x, atol=1e-12)
    # A pure delay line: an impulse comes back after the LFO's delay (between delay and
    # delay + depth ms), at width / (100 + width) of its size.
    imp = np.zeros((1, 400))
    imp[0, 0] = 0.5
    out = audio.Flanger(8000, delay=5.0, depth=0.0, width=100.0)(imp)
    assert abs(out[0, 0] - 0.25) < 1e-12
    echo = np.flatnonzero(np.abs(out[0, 1:]) > 1e-6) + 1
    assert echo.min() >= 40 and echo.max() <= 41 and abs(out[0, echo].sum() - 0.25) < 1e-9
    # Phaser with no decay and unit gains passes the signal through.
    np.testing.assert_allclose(_both(audio.Phaser(8000, 1.0, 1.0, 3.0, 0.0), x), x, atol=1e-12)


def test_detect_pitch_frequency_of_a_tone():
    sr = 8000
    t = np.arange(8000) / sr
    x = np.sin(2 * np.pi * 250 * t)
    out = _both(audio.DetectPitchFrequency(sr, 0.02, 5, 85, 1000), x)
    assert out.shape == (48,)  # 50 frames, median of 5 with 2 frames of left padding
    # the best lag is the period, 32 samples (nccf column k holds lag k + 1)
    np.testing.assert_allclose(out, sr / 32, rtol=1e-9)


def test_sliding_window_cmn_matches_window_means():
    spec = RNG.standard_normal((2, 30, 4))
    out = _both(audio.SlidingWindowCmn(cmn_window=10, min_cmn_window=5), spec)
    ref = np.empty_like(spec)
    for t in range(30):
        start, end = max(0, t - 10), max(t + 1, 5)  # the window ends at t (at least 5 frames)
        ref[:, t] = spec[:, t] - spec[:, start:end].mean(1)
    np.testing.assert_allclose(out, ref, atol=1e-12)
    centred = audio.SlidingWindowCmn(cmn_window=8, center=True, norm_vars=True)(spec)
    for t in (0, 15, 29):
        start = min(max(t - 4, 0), 30 - 8)
        win = spec[:, start:start + 8]
        np.testing.assert_allclose(centred[:, t], (spec[:, t] - win.mean(1)) / win.std(1),
                                   atol=1e-9)


def test_vad_trims_leading_silence():
    sr = 8000
    rng = np.random.default_rng(5)
    quiet = rng.normal(0, 1e-4, sr)  # one second of near silence
    t = np.arange(sr) / sr
    voiced = 0.5 * np.sign(np.sin(2 * np.pi * 150 * t)) * np.hanning(sr)  # a harmonic-rich tone
    x = np.concatenate([quiet, voiced])[None, :]
    out = _both(audio.Vad(sample_rate=sr), x)
    # The output is a suffix of the input that starts after most of the silence and before
    # the tone is well under way.
    start = x.shape[1] - out.shape[1]
    np.testing.assert_array_equal(out, x[:, start:])
    assert sr // 2 < start < sr + sr // 4
    with pytest.raises(ValueError, match="noise_up_time should be greater than noise_down_time"):
        audio.Vad(sr, noise_up_time=0.01, noise_down_time=0.1)


def test_inverse_mel_scale_fits_the_mel_spectrogram():
    fb = audio.melscale_fbanks(17, 0.0, 4000.0, 6, 8000).astype(np.float64)
    # A spectrogram well above 0: the SGD solution needs no clipping, so it fits exactly.
    truth = np.random.default_rng(3).uniform(1, 2, (2, 17, 5))
    mel = np.einsum("fm,cft->cmt", fb, truth)
    ds.config.set_seed(7)
    op = audio.InverseMelScale(n_stft=17, n_mels=6, sample_rate=8000, max_iter=20000,
                               tolerance_loss=1e-12, tolerance_change=1e-15,
                               sgdargs={"sgd_lr": 1.0, "sgd_momentum": 0.0})
    out = op(mel)
    assert out.shape == (2, 17, 5) and out.min() >= 0
    fit = np.einsum("fm,cft->cmt", fb, out)
    assert np.abs(fit - mel).max() < 1e-4 * np.abs(mel).max()
    with pytest.raises(RuntimeError, match="n_mels must be equal to the penultimate dimension"):
        op(np.ones((3, 5)))


def test_parallel_workers_agree_with_eager():
    """The C++ transforms share one FFT plan across worker threads."""
    rows = [RNG.standard_normal(300).astype(np.float32) for _ in range(24)]
    ops = [audio.MelSpectrogram(sample_rate=8000, n_fft=50, hop_length=10, n_mels=8),
           audio.LowpassBiquad(8000, 1000.0)]
    for op in ops:
        data = ds.NumpySlicesDataset(np.stack(rows), column_names=["a"], shuffle=False).map(
            operations=op, input_columns=["a"], num_parallel_workers=4)
        got = [r[0] for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
        for g, row in zip(got, rows):
            np.testing.assert_array_equal(g, op(row))
