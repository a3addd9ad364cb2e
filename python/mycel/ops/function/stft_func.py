"""The short-time Fourier transform and its inverse, with PyTorch's semantics (MindSpore's
``ops.stft`` / ``ops.istft`` and the ``P.STFT`` primitive), composed from Gather, the op
table's FFT (fft_func) and UnsortedSegmentSum (both modes; differentiable through them).

stft: frame t of the signal x [..., L] is x[t * hop : t * hop + n_fft] (after center padding
by n_fft // 2 on both sides, with pad_mode, when center), t < 1 + (L - n_fft) // hop; each is
multiplied by the window (win_length values centered in n_fft, zero padded; ones when None)
and transformed: [..., n_freq, n_frames], n_freq = n_fft // 2 + 1 when onesided, else n_fft;
scaled by 1 / sqrt(n_fft) when normalized. return_complex False gives the real and imaginary
parts as a last axis of 2.

istft: each frame's inverse transform (irfft of the half spectrum when onesided), times the
window, added up at its offset (overlap-add), divided by the sum of the squared windows at
each sample, the first n_fft // 2 samples cut when center, and the result cut or zero
padded to length when given. Where the squared windows sum to (nearly) 0, PyTorch raises
an error; here that check runs for the default window only (a window tensor is not
inspected on the host) and such samples are then inf/NaN.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import fft_func as _fft
from mycel.ops.primitive import constexpr

__all__ = ["stft", "istft"]

_REAL = (_C.float32, _C.float64)
_COMPLEX = (_C.complex64, _C.complex128)


def _is_complex(dtype):
    return dtype in _COMPLEX


@constexpr
def _stft_plan(op, shape, dtype, n_fft, hop, win_length, w_shape, w_dtype, center, pad_mode):
    if dtype not in _REAL + _COMPLEX:
        raise TypeError(f"For '{op}', the input must be float32, float64, complex64 or "
                        f"complex128, but got {dtype}.")
    if len(shape) not in (1, 2):
        raise ValueError(f"For '{op}', the input must be 1-D or 2-D (a batch of signals), but "
                         f"got shape {tuple(shape)}.")
    for name, v in (("n_fft", n_fft), ("hop_length", hop), ("win_length", win_length)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For '{op}', {name} must be a positive int, but got {v!r}.")
    if win_length > n_fft:
        raise ValueError(f"For '{op}', win_length ({win_length}) must not exceed n_fft "
                         f"({n_fft}).")
    if w_shape is not None:
        if w_dtype not in _REAL + _COMPLEX:
            raise TypeError(f"For '{op}', the window must be a float or complex tensor, but "
                            f"got {w_dtype}.")
        if tuple(w_shape) != (win_length,):
            raise ValueError(f"For '{op}', the window must be 1-D of win_length "
                             f"({win_length}) values, but got shape {tuple(w_shape)}.")
    mode = str(pad_mode).lower()
    if mode not in ("reflect", "constant", "replicate", "circular"):
        raise ValueError(f"For '{op}', pad_mode must be 'reflect', 'constant', 'replicate' "
                         f"or 'circular', but got {pad_mode!r}.")
    length = shape[-1]
    pad = n_fft // 2 if center else 0
    if center and mode == "reflect" and pad >= length:
        raise ValueError(f"For '{op}', reflect padding of {pad} needs a signal longer than "
                         f"that, but got length {length}.")
    padded = length + 2 * pad
    if padded < n_fft:
        raise ValueError(f"For '{op}', the (padded) signal length {padded} is shorter than "
                         f"n_fft ({n_fft}).")
    n_frames = 1 + (padded - n_fft) // hop
    return pad, mode, n_frames


@constexpr
def _pad_index(length, pad, mode):
    """The source index of each sample of the padded signal ([L + 2 pad] int64), and a 0/1
    mask of the samples that are constant zeros (mode 'constant')."""
    i = np.arange(length + 2 * pad) - pad
    zero = (i < 0) | (i >= length)
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= length, 2 * (length - 1) - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, length - 1)
    elif mode == "circular":
        i = np.mod(i, length)
    else:
        i = np.clip(i, 0, length - 1)
    keep = (~zero if mode == "constant" else np.ones_like(zero)).astype(np.float32)
    return _C.Tensor(i.astype(np.int64)), _C.Tensor(keep)


@constexpr
def _frame_index(n_frames, n_fft, hop):
    idx = np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]
    return _C.Tensor(idx.astype(np.int64))


@constexpr
def _ones_window(n, dtype):
    return _C.Tensor(np.ones(n, np.float64 if dtype in (_C.float64, _C.complex128)
                             else np.float32))


def _full_window(window, win_length, n_fft, dtype):
    """The window centered in n_fft samples (zero padded), as a [n_fft] tensor."""
    w = _ones_window(win_length, dtype) if window is None else window
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        w = prim("Pad", paddings=((left, n_fft - win_length - left),))(w)
    return w


def _defaults(op, n_fft, hop_length, win_length):
    if isinstance(n_fft, bool) or not isinstance(n_fft, int) or n_fft <= 0:
        raise ValueError(f"For '{op}', n_fft must be a positive int, but got {n_fft!r}.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    return hop, win


def _frames(x, pad, mode, n_frames, n_fft, hop):
    if pad:
        idx, keep = _pad_index(x.shape[-1], pad, mode)
        x = prim("Gather")(x, idx, x.ndim - 1)
        if mode == "constant":
            x = x * prim("Cast")(keep, x.dtype)
    return prim("Gather")(x, _frame_index(n_frames, n_fft, hop), x.ndim - 1)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="REFLECT", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform of x [L] or [B, L] (module docstring): complex
    [..., n_freq, n_frames], or real [..., n_freq, n_frames, 2] when return_complex is
    False. hop_length defaults to n_fft // 4, win_length to n_fft, onesided to True for real
    x and window, return_complex to whether x or the window is complex."""
    x = as_tensor(x)
    hop, win = _defaults("stft", n_fft, hop_length, win_length)
    if window is not None:
        window = as_tensor(window)
    pad, mode, n_frames = _stft_plan(
        "stft", x.shape, x.dtype, n_fft, hop, win, None if window is None else window.shape,
        None if window is None else window.dtype, bool(center), pad_mode)
    cplx = _is_complex(x.dtype) or (window is not None and _is_complex(window.dtype))
    if onesided is None:
        onesided = not cplx
    if onesided and cplx:
        raise ValueError("For 'stft', onesided output needs a real input and window.")
    if return_complex is None:
        return_complex = cplx
    frames = _frames(x, pad, mode, n_frames, n_fft, hop)  # [..., n_frames, n_fft]
    w = _full_window(window, win, n_fft, x.dtype)
    if cplx and not _is_complex(w.dtype):
        w = prim("Complex")(w, prim("ZerosLike")(w))
    elif cplx and not _is_complex(frames.dtype):
        frames = prim("Complex")(frames, prim("ZerosLike")(frames))
    frames = frames * w
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, None, -1, norm) if onesided else _fft.fft(frames, None, -1, norm)
    nd = spec.ndim
    spec = prim("Transpose")(spec, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    if return_complex:
        return spec
    return prim("Stack", axis=-1)((prim("Real")(spec), prim("Imag")(spec)))


@constexpr
def _istft_plan(shape, dtype, n_fft, hop, win, w_shape, w_dtype, onesided, length):
    if dtype not in _COMPLEX:
        raise TypeError(f"For 'istft', the input must be a complex tensor [..., n_freq, "
                        f"n_frames], but got {dtype}.")
    if len(shape) not in (2, 3):
        raise ValueError(f"For 'istft', the input must be 2-D or 3-D, but got shape "
                         f"{tuple(shape)}.")
    for name, v in (("n_fft", n_fft), ("hop_length", hop), ("win_length", win)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For 'istft', {name} must be a positive int, but got {v!r}.")
    if win > n_fft:
        raise ValueError(f"For 'istft', win_length ({win}) must not exceed n_fft ({n_fft}).")
    if w_shape is not None and tuple(w_shape) != (win,):
        raise ValueError(f"For 'istft', the window must be 1-D of win_length ({win}) values, "
                         f"but got shape {tuple(w_shape)}.")
    want = n_fft // 2 + 1 if onesided else n_fft
    if shape[-2] != want:
        raise ValueError(f"For 'istft', the input must have {want} frequency bins for n_fft "
                         f"{n_fft} (onesided={onesided}), but got {shape[-2]}.")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or
                               length < 0):
        raise ValueError(f"For 'istft', length must be a non-negative int, but got "
                         f"{length!r}.")
    n_frames = shape[-1]
    return n_frames, n_fft + hop * (n_frames - 1)


@constexpr
def _ola_ids(n_frames, n_fft, hop):
    return _C.Tensor((np.arange(n_frames)[:, None] * hop +
                      np.arange(n_fft)[None, :]).reshape(-1).astype(np.int32))


@constexpr
def _check_ones_envelope(n_frames, n_fft, hop, win, start, end):
    """The overlap-add envelope of the default (ones) window: an error naming the op where it
    is zero inside the kept samples (hop larger than the window leaves gaps)."""
    left = (n_fft - win) // 2
    env = np.zeros(n_fft + hop * (n_frames - 1))
    for t in range(n_frames):
        env[t * hop + left:t * hop + left + win] += 1.0
    if end > start and env[start:end].min() < 1e-11:
        raise ValueError(f"For 'istft', the window's overlap-add envelope is zero inside the "
                         f"signal (hop_length {hop} > win_length {win}): the signal cannot "
                         f"be recovered.")


def _overlap_add(frames, ids, total):
    """frames [..., n_frames, n_fft] added at ids into [..., total]."""
    nd = frames.ndim
    flat = prim("Reshape")(frames, tuple(frames.shape[:-2]) + (-1,))
    moved = prim("Transpose")(flat, (nd - 2,) + tuple(range(nd - 2)))
    summed = prim("UnsortedSegmentSum")(moved, ids, total)
    return prim("Transpose")(summed, tuple(range(1, nd - 1)) + (0,))


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft for a complex x [..., n_freq, n_frames] (module docstring): the
    real signal [..., length] (complex when return_complex)."""
    x = as_tensor(x)
    hop, win = _defaults("istft", n_fft, hop_length, win_length)
    if window is not None:
        window = as_tensor(window)
    if onesided is None:
        onesided = not return_complex
    if onesided and return_complex:
        raise ValueError("For 'istft', return_complex needs onesided=False.")
    n_frames, total = _istft_plan(x.shape, x.dtype, n_fft, hop, win,
                                  None if window is None else window.shape,
                                  None if window is None else window.dtype, bool(onesided),
                                  length)
    nd = x.ndim
    frames = prim("Transpose")(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    norm = "ortho" if normalized else "backward"
    if onesided:
        frames = _fft.irfft(frames, n_fft, -1, norm)
    else:
        frames = _fft.ifft(frames, n_fft, -1, norm)
        if not return_complex:
            frames = prim("Real")(frames)
    rdtype = _C.float64 if x.dtype == _C.complex128 else _C.float32
    w = prim("Cast")(_full_window(window, win, n_fft, rdtype), rdtype)
    wf = w if not _is_complex(frames.dtype) else prim("Complex")(w, prim("ZerosLike")(w))
    ids = _ola_ids(n_frames, n_fft, hop)
    y = _overlap_add(frames * wf, ids, total)
    wsq = prim("BroadcastTo", shape=(n_frames, n_fft))(w * w)
    env = prim("UnsortedSegmentSum")(prim("Reshape")(wsq, (-1,)), ids, total)
    start = n_fft // 2 if center else 0
    end = total - start if length is None else min(total, start + length)
    if window is None:
        _check_ones_envelope(n_frames, n_fft, hop, win, start, end)
    if _is_complex(y.dtype):
        env = prim("Complex")(env, prim("ZerosLike")(env))
    y = y / env
    y = prim("StridedSlice")(y, (0,) * (nd - 2) + (start,), tuple(y.shape[:-1]) + (end,),
                             (1,) * (nd - 1))
    if length is not None and end - start < length:
        y = prim("Pad", paddings=((0, 0),) * (nd - 2) + ((0, length - (end - start)),))(y)
    return y
