"""complex64/complex128 on the GPU (kernels/cuda/complex.h): the complex-number ops, the
elementwise ops with complex forms, casts and copies run on the device. Oracles: numpy and the
CPU kernels, in both modes; a compiled step of complex ops is captured as a CUDA graph
(jit_level "O2"), which only steps whose every op runs on the device are, and replays equal to
the same step op by op."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel import _mycel


def _pipeline(re, im, w):
    z = ops.complex(re, im)
    z = z * w + z / (w + 1)
    z = ops.exp(z * 0.1) - ops.square(z)
    zt = ops.transpose(z, (1, 0))
    z2 = ops.concat((zt, -zt), 0)
    return (ops.real(z2), ops.imag(z2), ops.abs(z2), ops.angle(z2), ops.conj(z2),
            z2.astype(ms.float32), re.astype(ms.complex64) * z2[:re.shape[1]])


def _numpy(re, im, w):
    z = re + 1j * im
    z = z * w + z / (w + 1)
    z = np.exp(z * 0.1) - z * z
    z2 = np.concatenate((z.T, -z.T), 0)
    return (z2.real, z2.imag, np.abs(z2), np.angle(z2), np.conj(z2), z2.real.astype(np.float32),
            re.astype(np.complex64) * z2[:re.shape[1]])


def _inputs(dt):
    rng = np.random.RandomState(5)
    re = rng.randn(9, 9).astype(dt)
    im = rng.randn(9, 9).astype(dt)
    w = (rng.randn(9) + 1j * rng.randn(9)).astype(np.complex64 if dt == np.float32
                                                   else np.complex128)
    return re, im, w


def _run(device, mode, args, fn=_pipeline):
    ms.set_context(device_target=device, mode=mode)
    ts = [Tensor(a) for a in args]
    out = ms.jit(fn)(*ts) if mode == ms.GRAPH_MODE else fn(*ts)
    for t in out:
        assert t.device == ("GPU:0" if device == "GPU" else "CPU")
    return [t.asnumpy() for t in out]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_complex_pipeline_against_numpy_and_cpu(mode, dt):
    args = _inputs(dt)
    got = _run("GPU", mode, args)
    cpu = _run("CPU", mode, args)
    for i, (g, h, w) in enumerate(zip(got, cpu, _numpy(*args))):
        assert g.dtype == h.dtype and g.shape == w.shape, i
        tol = 1e-4 if g.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=str(i))
        np.testing.assert_allclose(g, h, rtol=tol, atol=tol, err_msg=str(i))


def _step(re, im, w):
    z = ops.complex(re, im) * w
    return ops.abs(ops.exp(z)) + ops.angle(z) + ops.real(ops.conj(z) * z)


def test_a_complex_step_is_captured_and_replays_equal_op_by_op():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    eager = ms.jit(_step, jit_level="O0")
    graph = ms.jit(_step, jit_level="O2")
    re, im, w = [Tensor(a) for a in _inputs(np.float32)]
    for _ in range(4):
        np.testing.assert_array_equal(graph(re, im, w).asnumpy(), eager(re, im, w).asnumpy())
    s = graph._graph.capture_stats()
    assert s["captures"] == 1 and s["replays"] == 3 and s["fallbacks"] == 0, s


def test_fft_filter_stays_on_the_device():
    """An FFT pipeline (rfft, a complex product, irfft) on the GPU, against numpy."""
    rng = np.random.RandomState(2)
    x = rng.randn(4, 64).astype(np.float32)
    h = (rng.randn(33) + 1j * rng.randn(33)).astype(np.complex64)

    def f(x, h):
        return (ops.irfft(ops.rfft(x) * h, n=64),)

    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        got = _run("GPU", mode, (x, h), f)[0]
        want = np.fft.irfft(np.fft.rfft(x) * h, n=64)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    if _mycel._cufft_available():  # every op on the device: the step is captured
        ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
        g = ms.jit(f, jit_level="O2")
        for _ in range(3):
            g(Tensor(x), Tensor(h))
        s = g._graph.capture_stats()
        assert s["captures"] == 1 and s["fallbacks"] == 0, s
