"""The Fourier transforms (ops.fft ... ops.rfftfreq, mint.fft, ops.FFTWithSize; the op table's
FFTN): values against numpy.fft (and torch.fft for the N-d hfft family numpy lacks) on odd,
even and prime lengths, padding and truncation, every norm, several dims, real, complex and
integer inputs; PYNATIVE and GRAPH (the `mode` fixture) alike; gradients against
torch.autograd and central differences; vmap; bad arguments as typed errors naming the
function.
"""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops, mint
from mycel.ops import operations as P

NORMS = [None, "backward", "forward", "ortho"]


def run(fn, *args):
    """fn(*args) in the current mode: as it is in PYNATIVE, through ms.jit in GRAPH."""
    if ms.get_context("mode") == ms.GRAPH_MODE:
        return ms.jit(fn)(*args)
    return fn(*args)


def data(shape, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind in ("complex64", "complex128"):
        v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    elif kind == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    else:
        v = rng.standard_normal(shape)
    return v.astype(kind)


def single(kind):
    return kind in ("float32", "complex64", "int32", "float16")


def close(got, want, kind):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    tol = 2e-5 if single(kind) else 1e-11
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def out_dtype(kind, real_out=False):
    c = "complex128" if kind in ("float64", "complex128") else "complex64"
    if real_out:
        return "float64" if c == "complex128" else "float32"
    return c


# ---- values ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["complex64", "complex128", "float32", "float64", "int32"])
@pytest.mark.parametrize("n", [None, 1, 2, 3, 5, 7, 12, 17, 64, 100])
def test_fft_ifft_1d(mode, kind, n):
    x = data((3, 12), kind, 1)
    for i, norm in enumerate(NORMS):
        dim = -1 if i % 2 == 0 else 1
        y = run(lambda t: ops.fft(t, n, dim, norm), ms.Tensor(x))
        assert str(y.dtype).lower() == out_dtype(kind), y.dtype
        close(y, np.fft.fft(x, n, dim, norm), kind)
        close(run(lambda t: ops.ifft(t, n, dim, norm), ms.Tensor(x)), np.fft.ifft(x, n, dim, norm),
              kind)


def test_fft_other_dim_and_large_prime(mode):
    x = data((31, 4), "complex128", 2)
    close(run(lambda t: ops.fft(t, dim=0), ms.Tensor(x)), np.fft.fft(x, axis=0), "complex128")
    x = data((2, 1009), "complex128", 3)  # a large prime: Bluestein
    close(run(lambda t: ops.fft(t), ms.Tensor(x)), np.fft.fft(x), "complex128")
    x = data((2, 1024), "complex64", 4)
    close(run(lambda t: ops.ifft(t, norm="ortho"), ms.Tensor(x)),
          np.fft.ifft(x, norm="ortho"), "complex64")


@pytest.mark.parametrize("kind", ["complex64", "complex128", "float64"])
@pytest.mark.parametrize("norm", NORMS)
def test_fft2_fftn(mode, kind, norm):
    x = data((4, 5, 6), kind, 5)
    close(run(lambda t: ops.fft2(t, norm=norm), ms.Tensor(x)), np.fft.fft2(x, norm=norm), kind)
    close(run(lambda t: ops.ifft2(t, (3, 8), (0, 2), norm), ms.Tensor(x)),
          np.fft.ifft2(x, (3, 8), (0, 2), norm), kind)
    close(run(lambda t: ops.fftn(t, norm=norm), ms.Tensor(x)), np.fft.fftn(x, norm=norm), kind)
    close(run(lambda t: ops.fftn(t, (7, 2)), ms.Tensor(x)), np.fft.fftn(x, (7, 2)), kind)
    close(run(lambda t: ops.ifftn(t, (2, 9, 5), norm=norm), ms.Tensor(x)),
          np.fft.ifftn(x, (2, 9, 5), norm=norm), kind)
    close(run(lambda t: ops.ifftn(t, dim=(-1, 0), norm=norm), ms.Tensor(x)),
          np.fft.ifftn(x, axes=(-1, 0), norm=norm), kind)


@pytest.mark.parametrize("kind", ["float32", "float64", "int32"])
@pytest.mark.parametrize("n", [None, 1, 2, 5, 8, 13, 17, 100])
def test_rfft_irfft(mode, kind, n):
    x = data((3, 10), kind, 6)
    for norm in NORMS:
        y = run(lambda t: ops.rfft(t, n, norm=norm), ms.Tensor(x))
        assert str(y.dtype).lower() == out_dtype(kind)
        close(y, np.fft.rfft(x, n, norm=norm), kind)
    ck = out_dtype(kind)
    h = data((3, 6), ck, 7)
    for norm in NORMS:
        y = run(lambda t: ops.irfft(t, n, norm=norm), ms.Tensor(h))
        assert str(y.dtype).lower() == out_dtype(kind, True)
        close(y, np.fft.irfft(h, n, norm=norm), ck)


@pytest.mark.parametrize("kind", ["float32", "float64"])
@pytest.mark.parametrize("norm", NORMS)
def test_rfft2_rfftn_and_inverses(mode, kind, norm):
    x = data((4, 5, 7), kind, 8)
    close(run(lambda t: ops.rfft2(t, norm=norm), ms.Tensor(x)), np.fft.rfft2(x, norm=norm), kind)
    close(run(lambda t: ops.rfftn(t, norm=norm), ms.Tensor(x)), np.fft.rfftn(x, norm=norm), kind)
    close(run(lambda t: ops.rfftn(t, (3, 6), (2, 0), norm), ms.Tensor(x)),
          np.fft.rfftn(x, (3, 6), (2, 0), norm), kind)
    ck = out_dtype(kind)
    h = data((4, 5, 4), ck, 9)
    close(run(lambda t: ops.irfft2(t, norm=norm), ms.Tensor(h)), np.fft.irfft2(h, norm=norm), ck)
    close(run(lambda t: ops.irfftn(t, norm=norm), ms.Tensor(h)), np.fft.irfftn(h, norm=norm), ck)
    close(run(lambda t: ops.irfftn(t, (3, 7), norm=norm), ms.Tensor(h)),
          np.fft.irfftn(h, (3, 7), norm=norm), ck)
    close(run(lambda t: ops.irfftn(t, (6, 4), (2, 0), norm), ms.Tensor(h)),
          np.fft.irfftn(h, (6, 4), (2, 0), norm), ck)


@pytest.mark.parametrize("n", [None, 1, 4, 7, 12])
@pytest.mark.parametrize("norm", NORMS)
def test_hfft_ihfft(mode, n, norm):
    h = data((2, 5), "complex128", 10)
    close(run(lambda t: ops.hfft(t, n, norm=norm), ms.Tensor(h)), np.fft.hfft(h, n, norm=norm),
          "complex128")
    x = data((2, 9), "float64", 11)
    close(run(lambda t: ops.ihfft(t, n, norm=norm), ms.Tensor(x)), np.fft.ihfft(x, n, norm=norm),
          "float64")


@pytest.mark.parametrize("norm", NORMS)
def test_hfftn_ihfftn_against_torch(mode, norm):
    h = data((3, 4, 5), "complex128", 12)
    th = torch.from_numpy(h)
    close(run(lambda t: ops.hfft2(t, norm=norm), ms.Tensor(h)),
          torch.fft.hfft2(th, norm=norm).numpy(), "complex128")
    close(run(lambda t: ops.hfftn(t, (2, 3, 6), norm=norm), ms.Tensor(h)),
          torch.fft.hfftn(th, (2, 3, 6), norm=norm).numpy(), "complex128")
    x = data((3, 4, 5), "float64", 13)
    tx = torch.from_numpy(x)
    close(run(lambda t: ops.ihfft2(t, norm=norm), ms.Tensor(x)),
          torch.fft.ihfft2(tx, norm=norm).numpy(), "float64")
    close(run(lambda t: ops.ihfftn(t, norm=norm), ms.Tensor(x)),
          torch.fft.ihfftn(tx, norm=norm).numpy(), "float64")


def test_shift_and_freq(mode):
    x = data((4, 5, 3), "float64", 14)
    close(run(lambda t: ops.fftshift(t), ms.Tensor(x)), np.fft.fftshift(x), "float64")
    close(run(lambda t: ops.ifftshift(t), ms.Tensor(x)), np.fft.ifftshift(x), "float64")
    close(run(lambda t: ops.fftshift(t, 1), ms.Tensor(x)), np.fft.fftshift(x, 1), "float64")
    close(run(lambda t: ops.ifftshift(t, (0, -1)), ms.Tensor(x)),
          np.fft.ifftshift(x, (0, -1)), "float64")
    for n in (1, 2, 5, 8):
        f = ops.fftfreq(n, 0.5)
        assert str(f.dtype).lower() == "float32"
        close(f, np.fft.fftfreq(n, 0.5), "float32")
        close(ops.rfftfreq(n, 2.0, ms.float64), np.fft.rfftfreq(n, 2.0), "float64")


def test_half_precision_and_integers_compute_in_float32(mode):
    x = data((6,), "float64", 15)
    y = run(lambda t: ops.fft(t), ms.Tensor(x.astype(np.float16)))
    assert y.dtype == ms.complex64
    close(y, np.fft.fft(x.astype(np.float16).astype(np.float64)), "float32")


def test_empty_batch(mode):
    x = np.zeros((0, 5), np.complex64)
    assert run(lambda t: ops.fft(t), ms.Tensor(x)).shape == (0, 5)


# The CPU kernel's stages run on 32-byte vectors where the CPU has AVX2 and on 16-byte ones
# otherwise (MYCEL_FFT_NO_AVX2 in the environment forces these; the switch is read once per
# process, so each runs in a child): the same bits, and against numpy; the shapes give
# blocks whose line counts leave scalar tails at one width and not the other.
BOTH_PATHS = """
import sys, numpy as np
sys.path.insert(0, sys.argv[2])
import mycel as ms
from mycel import ops
rng = np.random.default_rng(3)
def c(shape, dt):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
xs = {"rows": c((5, 1024), np.complex64), "cols": c((6, 41), np.complex128),
      "prime": c((3, 997), np.complex64), "real": rng.standard_normal((3, 4096)).astype(np.float32),
      "half": c((3, 2049), np.complex64), "two": c((2, 64, 48), np.complex128),
      "mixed": c((24, 62), np.complex64),
      "real2": rng.standard_normal((3, 8192)).astype(np.float32), "half2": c((3, 4097), np.complex64)}
ys = {"rows": ops.fft(ms.Tensor(xs["rows"])), "cols": ops.fft(ms.Tensor(xs["cols"]), dim=0),
      "prime": ops.ifft(ms.Tensor(xs["prime"])), "real": ops.rfft(ms.Tensor(xs["real"])),
      "half": ops.irfft(ms.Tensor(xs["half"])), "two": ops.fft2(ms.Tensor(xs["two"])),
      "mixed": ops.fft(ms.Tensor(xs["mixed"]), dim=0, norm="ortho"),
      "real2": ops.rfft(ms.Tensor(xs["real2"]), norm="forward"), "half2": ops.irfft(ms.Tensor(xs["half2"]))}
np.savez(sys.argv[1], **{k + "_x": v for k, v in xs.items()},
         **{k + "_y": v.asnumpy() for k, v in ys.items()})
"""


def test_vector_widths_same_bits_and_against_numpy(tmp_path):
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    got = {}
    for baseline in (False, True):
        env = dict(os.environ)
        env.pop("MYCEL_FFT_NO_AVX2", None)
        if baseline:
            env["MYCEL_FFT_NO_AVX2"] = "1"
        out = tmp_path / f"fft{int(baseline)}.npz"
        subprocess.run([sys.executable, "-c", BOTH_PATHS, str(out), os.path.join(root, "python")],
                       env=env, check=True, timeout=300)
        got[baseline] = np.load(out)
    r = got[True]
    want = {"rows": np.fft.fft(r["rows_x"]), "cols": np.fft.fft(r["cols_x"], axis=0),
            "prime": np.fft.ifft(r["prime_x"]), "real": np.fft.rfft(r["real_x"]),
            "half": np.fft.irfft(r["half_x"]), "two": np.fft.fft2(r["two_x"]),
            "mixed": np.fft.fft(r["mixed_x"], axis=0, norm="ortho"),
            "real2": np.fft.rfft(r["real2_x"], norm="forward"), "half2": np.fft.irfft(r["half2_x"])}
    for k, w in want.items():
        kind = "complex128" if r[k + "_x"].dtype == np.complex128 else "complex64"
        close(r[k + "_y"], w, kind)
        np.testing.assert_array_equal(got[False][k + "_y"], r[k + "_y"], err_msg=k)


def test_primitive_and_mint():
    x = data((3, 8), "float64", 16)
    close(P.FFTWithSize(1, False, True)(ms.Tensor(x)), np.fft.rfft(x), "float64")
    close(P.FFTWithSize(2, False, False, "ortho")(ms.Tensor(x.astype(np.complex128))),
          np.fft.fft2(x, norm="ortho"), "float64")
    h = np.fft.rfft(x)
    close(P.FFTWithSize(1, True, True, signal_sizes=(8,))(ms.Tensor(h)), x, "float64")
    close(P.FFTWithSize(1, False, True, onesided=False)(ms.Tensor(x)), np.fft.fft(x), "float64")
    close(mint.fft.fftn(ms.Tensor(x)), np.fft.fftn(x), "float64")
    close(mint.fft.irfft(ms.Tensor(h), 8), x, "float64")
    with pytest.raises(ValueError, match="FFTWithSize"):
        P.FFTWithSize(4, False, False)
    # a real inverse of a last dimension of 1 would have length 0 (MindSpore's error)
    with pytest.raises(ValueError, match="FFTWithSize.*last dimension"):
        P.FFTWithSize(2, True, True)(ms.Tensor(np.ones((2, 1), np.complex64)))


# ---- errors ------------------------------------------------------------------------------

def test_bad_arguments(mode):
    x = ms.Tensor(data((3, 4), "complex64", 17))
    with pytest.raises(ValueError, match="'fft'.*dim 2 is out of range"):
        run(lambda t: ops.fft(t, dim=2), x)
    with pytest.raises(ValueError, match="'ifft'.*at least 1"):
        run(lambda t: ops.ifft(t, 0), x)
    with pytest.raises(ValueError, match="'fft2'.*twice"):
        run(lambda t: ops.fft2(t, dim=(1, -1)), x)
    with pytest.raises(ValueError, match="'fftn'.*s has 1 entries but dim has 2"):
        run(lambda t: ops.fftn(t, (3,), (0, 1)), x)
    with pytest.raises(ValueError, match="'rfft'.*norm"):
        run(lambda t: ops.rfft(t, norm="bad"), ms.Tensor(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="'rfft'.*real tensor"):
        run(lambda t: ops.rfft(t), x)
    with pytest.raises(TypeError, match="'fft'.*Bool|'fft'.*bool"):
        run(lambda t: ops.fft(t), ms.Tensor(np.ones(4, bool)))
    with pytest.raises(ValueError, match="'irfft'.*at least 1"):
        run(lambda t: ops.irfft(t), ms.Tensor(np.ones((3, 1), np.complex64)))
    with pytest.raises(ValueError, match="fftfreq"):
        ops.fftfreq(0)
    with pytest.raises(TypeError, match="FFTN"):  # the primitive itself on a bool tensor
        P.FFTN(axes=(0,), sizes=(4,))(ms.Tensor(np.ones(4, bool)))
    with pytest.raises(ValueError, match="FFTN"):
        P.FFTN(axes=(0,), sizes=(4,), norm="nope")(ms.Tensor(np.ones(4, np.float32)))


# ---- gradients ---------------------------------------------------------------------------

def _w(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), rng.standard_normal(shape)


# (name, mycel fn, torch fn, input kind, input shape)
GRAD_CASES = [
    ("fft", lambda t: ops.fft(t), lambda t: torch.fft.fft(t), "complex128", (3, 7)),
    ("fft_pad", lambda t: ops.fft(t, 10, norm="ortho"),
     lambda t: torch.fft.fft(t, 10, norm="ortho"), "complex128", (3, 7)),
    ("ifft_trunc", lambda t: ops.ifft(t, 4, 0), lambda t: torch.fft.ifft(t, 4, 0), "complex128",
     (6, 3)),
    ("fft_real_in", lambda t: ops.fft(t, 6, norm="forward"),
     lambda t: torch.fft.fft(t, 6, norm="forward"), "float64", (2, 5)),
    ("fft2_s", lambda t: ops.fft2(t, (3, 6)), lambda t: torch.fft.fft2(t, (3, 6)), "complex128",
     (4, 5)),
    ("ifftn", lambda t: ops.ifftn(t, norm="ortho"), lambda t: torch.fft.ifftn(t, norm="ortho"),
     "complex128", (2, 3, 4)),
    ("rfft_even", lambda t: ops.rfft(t), lambda t: torch.fft.rfft(t), "float64", (3, 8)),
    ("rfft_odd_pad", lambda t: ops.rfft(t, 9, norm="forward"),
     lambda t: torch.fft.rfft(t, 9, norm="forward"), "float64", (3, 7)),
    ("rfft2_trunc", lambda t: ops.rfft2(t, (3, 4)), lambda t: torch.fft.rfft2(t, (3, 4)),
     "float64", (4, 6)),
    ("irfft_even", lambda t: ops.irfft(t), lambda t: torch.fft.irfft(t), "complex128", (3, 5)),
    ("irfft_odd", lambda t: ops.irfft(t, 9, norm="ortho"),
     lambda t: torch.fft.irfft(t, 9, norm="ortho"), "complex128", (3, 5)),
    ("irfft_trunc", lambda t: ops.irfft(t, 4), lambda t: torch.fft.irfft(t, 4), "complex128",
     (2, 6)),
    ("irfft_pad", lambda t: ops.irfft(t, 12, norm="forward"),
     lambda t: torch.fft.irfft(t, 12, norm="forward"), "complex128", (2, 4)),
    ("irfftn", lambda t: ops.irfftn(t, (3, 5)), lambda t: torch.fft.irfftn(t, (3, 5)),
     "complex128", (4, 3)),
    ("irfft2_dims", lambda t: ops.irfft2(t, (4, 6), (1, 0)),
     lambda t: torch.fft.irfft2(t, (4, 6), (1, 0)), "complex128", (5, 3)),
    ("hfft", lambda t: ops.hfft(t, 7), lambda t: torch.fft.hfft(t, 7), "complex128", (2, 4)),
    ("ihfft", lambda t: ops.ihfft(t), lambda t: torch.fft.ihfft(t), "float64", (2, 6)),
    ("fft_c64", lambda t: ops.fft(t, 5), lambda t: torch.fft.fft(t, 5), "complex64", (3, 5)),
    ("irfft_c64", lambda t: ops.irfft(t, 7), lambda t: torch.fft.irfft(t, 7), "complex64", (3, 4)),
]


def _loss_pair(fms, ft, out_shape, complex_out, wd, seed):
    """A real loss of the result with random weights (in the result's part dtype wd), in mycel
    and in torch."""
    wr, wi = (w.astype(wd) for w in _w(out_shape, seed))
    if complex_out:
        def lms(t):
            y = fms(t)
            return ops.sum(ops.real(y) * ms.Tensor(wr) + ops.imag(y) * ms.Tensor(wi))

        def lt(t):
            y = ft(t)
            return (y.real * torch.from_numpy(wr) + y.imag * torch.from_numpy(wi)).sum()
    else:
        def lms(t):
            return ops.sum(fms(t) * ms.Tensor(wr))

        def lt(t):
            return (ft(t) * torch.from_numpy(wr)).sum()
    return lms, lt


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_against_torch(mode, case):
    _, fms, ft, kind, shape = case
    x = data(shape, kind, 20)
    y = ft(torch.from_numpy(x))
    wd = np.float32 if single(kind) else np.float64
    lms, lt = _loss_pair(fms, ft, tuple(y.shape), y.is_complex(), wd, 21)
    g = run(ms.grad(lms), ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    lt(tx).backward()
    assert g.dtype == ms.Tensor(x).dtype
    close(g, tx.grad.resolve_conj().numpy(), kind)


@pytest.mark.parametrize("fn", ["irfft", "rfft", "fft"])
def test_grad_finite_differences(mode, fn):
    """The gradient is d loss / d re + i d loss / d im (PyTorch's convention), checked part by
    part with central differences of the numpy loss."""
    wr, wi = _w((2, 7), 30)
    if fn == "irfft":
        x0 = data((2, 4), "complex128", 31)
        fnp = lambda z: np.sum(np.fft.irfft(z, 7) * wr)  # noqa: E731
        fms = lambda t: ops.sum(ops.irfft(t, 7) * ms.Tensor(wr))  # noqa: E731
    elif fn == "rfft":
        x0 = data((2, 9), "float64", 32)
        wr, wi = wr[:, :5], wi[:, :5]
        fnp = lambda z: np.sum(np.fft.rfft(z, 8).real * wr  # noqa: E731
                               + np.fft.rfft(z, 8).imag * wi)
        fms = lambda t: ops.sum(ops.real(ops.rfft(t, 8)) * ms.Tensor(wr)  # noqa: E731
                                + ops.imag(ops.rfft(t, 8)) * ms.Tensor(wi))
    else:
        x0 = data((2, 5), "complex128", 33)
        fnp = lambda z: np.sum(np.fft.fft(z, 7, norm="ortho").real * wr  # noqa: E731
                               + np.fft.fft(z, 7, norm="ortho").imag * wi)
        fms = lambda t: ops.sum(ops.real(ops.fft(t, 7, norm="ortho")) * ms.Tensor(wr)  # noqa: E731
                                + ops.imag(ops.fft(t, 7, norm="ortho")) * ms.Tensor(wi))
    g = run(ms.grad(fms), ms.Tensor(x0)).asnumpy()
    eps = 1e-6
    fd = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        for part in ((1.0,) if np.isrealobj(x0) else (1.0, 1j)):
            d = np.zeros_like(x0)
            d[i] = eps * part
            fd[i] += part * (fnp(x0 + d) - fnp(x0 - d)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)


# ---- vmap ----------------------------------------------------------------------------------

def test_vmap(mode):
    x = data((4, 3, 6), "complex128", 40)
    y = run(ms.vmap(lambda t: ops.fft2(t, (2, 5), norm="ortho")), ms.Tensor(x))
    close(y, np.fft.fft2(x, (2, 5), norm="ortho"), "complex128")
    r = data((3, 4, 5), "float64", 41)
    y = run(ms.vmap(lambda t: ops.rfft(t, dim=0), in_axes=2, out_axes=0), ms.Tensor(r))
    want = np.stack([np.fft.rfft(r[:, :, k], axis=0) for k in range(5)])
    close(y, want, "float64")
