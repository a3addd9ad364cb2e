"""The gradient corpus of tests/python/test_grad_corpus.py on the GPU: every row in both modes
(and graph_cell for Cell rows), in float32 and float64, computed with device_target="GPU"
and compared with the same row computed on the CPU (which tests/python checks against
PyTorch autograd). Rows marked xfail there (mycel bugs) are left out: they fail on both."""
import zlib

import numpy as np
import pytest

import mycel as ms
import test_grad_corpus as C


def _params():
    for p in C._params():
        if not p.marks:
            yield p


def _numpy_tree(x):
    if isinstance(x, tuple):
        return tuple(_numpy_tree(v) for v in x)
    assert isinstance(x, ms.Tensor), type(x)
    return x.asnumpy()


def _on(target, r, mode, dt):
    npdt, msdt, _ = C.DTYPES[dt]
    seed = zlib.crc32(r.name.encode())
    xs = r.inputs(np.random.RandomState(seed))
    ms.set_context(device_target=target)
    out, _ = C.run_mycel(r, mode, npdt, msdt, np.random.RandomState(seed + 1), xs)
    return out


def _assert_same(got, want, rtol, path="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, rtol, f"{path}[{i}]")
        return
    assert got.dtype == want.dtype and got.shape == want.shape, path
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 0.1 * max(scale, 1e-3),
                               err_msg=path)


@pytest.mark.parametrize("r, mode, dt", _params())
def test_grad_corpus_gpu(r, mode, dt):
    want = _numpy_tree(_on("CPU", r, mode, dt))
    out = _on("GPU", r, mode, dt)
    got = _numpy_tree(out)
    _assert_same(got, want, C.DTYPES[dt][2] * 10)
