"""FFTN on the GPU (kernels/cuda/fft.cc: cuFFT, loaded with dlopen at first use) from Python,
in both modes: the transforms of mycel.ops against numpy and against the CPU kernel, outputs on
the device, and a compiled step of transforms captured as a CUDA graph (jit_level "O2") equal
to the same step op by op. scripts/gpu_check.sh sets MYCEL_CUFFT_FOUND where it found
libcufft: then cuFFT must be in use (not the host fallback)."""
import os

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel import _mycel


def _transforms(x, c):
    return (ops.fft(c), ops.ifft(c, n=11, norm="ortho"), ops.fft2(c, s=(5, 8)),
            ops.ifftn(c, norm="forward"), ops.rfft(x), ops.irfft(c, n=13),
            ops.rfftn(x, s=(6, 10)), ops.irfftn(c, norm="ortho"), ops.hfft(c, n=12),
            ops.ihfft(x))


def _numpy(x, c):
    f = np.fft
    return (f.fft(c), f.ifft(c, n=11, norm="ortho"), f.fft2(c, s=(5, 8)),
            f.ifftn(c, norm="forward"), f.rfft(x), f.irfft(c, n=13), f.rfftn(x, s=(6, 10)),
            f.irfftn(c, norm="ortho"), f.hfft(c, n=12), f.ihfft(x))


_graph = ms.jit(_transforms)


def _run(device, mode, x, c):
    ms.set_context(device_target=device, mode=mode)
    args = (Tensor(x), Tensor(c))
    out = _graph(*args) if mode == ms.GRAPH_MODE else _transforms(*args)
    for t in out:
        assert t.device == ("GPU:0" if device == "GPU" else "CPU")
    return [t.asnumpy() for t in out]


def test_cufft_is_used_where_the_check_found_it():
    if os.environ.get("MYCEL_CUFFT_FOUND"):
        assert _mycel._cufft_available()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_transforms_against_numpy_and_cpu(mode, dt):
    rng = np.random.RandomState(7)
    x = rng.randn(3, 7, 9).astype(dt)
    c = (rng.randn(3, 7, 9) + 1j * rng.randn(3, 7, 9)).astype(
        np.complex64 if dt == np.float32 else np.complex128)
    got = _run("GPU", mode, x, c)
    cpu = _run("CPU", mode, x, c)
    tol = 2e-4 if dt == np.float32 else 1e-10
    for i, (g, h, w) in enumerate(zip(got, cpu, _numpy(x, c))):
        assert g.dtype == h.dtype and g.shape == w.shape, i
        scale = max(1.0, float(np.abs(w).max()))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, err_msg=str(i))
        np.testing.assert_allclose(g, h, rtol=tol, atol=tol * scale, err_msg=str(i))


def _roundtrip(x, w):
    spec = ops.rfft(x)
    y = ops.irfft(spec, n=x.shape[-1])
    return ops.fft2(ops.ifft2(spec)), y * w


def test_a_step_of_transforms_replays_equal_op_by_op():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    eager = ms.jit(_roundtrip, jit_level="O0")
    graph = ms.jit(_roundtrip, jit_level="O2")
    rng = np.random.RandomState(1)
    w = Tensor(rng.rand(64).astype(np.float32))
    for _ in range(4):
        x = Tensor(rng.randn(16, 64).astype(np.float32))
        got, want = graph(x, w), eager(x, w)
        for g, e in zip(got, want):
            assert g.device == "GPU:0"
            np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())
    s = graph._graph.capture_stats()
    if _mycel._cufft_available():
        assert s["captures"] == 1 and s["replays"] == 3 and s["fallbacks"] == 0, s
    else:  # FFTN on host copies cannot be captured
        assert s["captures"] == 0 and "FFTN" in s["last_reason"], s
