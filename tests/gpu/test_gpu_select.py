"""The selection ops on the GPU (kernels/cuda/array_select.h: NonZero, MaskedSelect,
MaskedScatter, Unique) from Python, in both modes: outputs stay on the device, sizes come from
the one count the host reads, values equal numpy's and the CPU kernels' (NaNs, signed zeros,
empty results), and a short MaskedScatter source is the CPU's ValueError."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel.ops.function._util import prim


def _unique(x, sorted_):
    return prim("Unique", sorted=sorted_)(x)


def _select_all(x, mask, src):
    return (ops.nonzero(x), ops.masked_select(x, mask), ops.masked_scatter(x, mask, src),
            _unique(x, False), _unique(x, True))


_select_graph = ms.jit(_select_all)


def _run(mode, x, mask, src):
    ms.set_context(device_target="GPU", mode=mode)
    args = [Tensor(a) for a in (x, mask, src)]
    out = _select_graph(*args) if mode == ms.GRAPH_MODE else _select_all(*args)
    flat = [out[0], out[1], out[2], *out[3], *out[4]]
    for t in flat:
        assert t.device == "GPU:0"
    return [t.asnumpy() for t in flat]


def _cpu(x, mask, src):
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)
    out = _select_all(Tensor(x), Tensor(mask), Tensor(src))
    return [t.asnumpy() for t in [out[0], out[1], out[2], *out[3], *out[4]]]


def _bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32, np.int64, np.uint8])
def test_against_numpy_and_cpu(mode, dt):
    rng = np.random.RandomState(3)
    x = rng.randint(-3, 4, size=(37, 41)).astype(dt)
    mask = rng.rand(37, 41) < 0.3
    src = rng.randint(-9, 9, size=37 * 41).astype(dt)
    got = _run(mode, x, mask, src)
    np.testing.assert_array_equal(got[0], np.argwhere(x))
    np.testing.assert_array_equal(got[1], x[mask])
    want = x.copy()
    want[mask] = src[:mask.sum()]
    np.testing.assert_array_equal(got[2], want)
    vals, first, inv, cnt = np.unique(x.ravel(), return_index=True, return_inverse=True,
                                      return_counts=True)
    np.testing.assert_array_equal(got[6], vals)  # sorted
    np.testing.assert_array_equal(got[7], inv.reshape(x.shape))
    np.testing.assert_array_equal(got[8], cnt)
    by_first = np.argsort(first)  # unsorted: order of first occurrence
    np.testing.assert_array_equal(got[3], vals[by_first])
    np.testing.assert_array_equal(got[5], cnt[by_first])
    for g, c in zip(got, _cpu(x, mask, src)):
        _bits_equal(g, c)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_nans_signed_zeros_and_empty_results_equal_the_cpu(mode):
    x = np.array([2.0, np.nan, -0.0, 1.0, 0.0, np.nan, 2.0, -np.inf, np.inf, -0.0], np.float32)
    for mask in (np.zeros(10, bool), np.ones(10, bool), np.arange(10) % 3 == 0):
        src = np.arange(10, dtype=np.float32) + 100
        for g, c in zip(_run(mode, x, mask, src), _cpu(x, mask, src)):
            _bits_equal(g, c)
    zeros = np.zeros((3, 4), np.float32)
    got = _run(mode, zeros, np.zeros((3, 4), bool), np.zeros(0, np.float32))
    assert got[0].shape == (0, 2) and got[1].shape == (0,)


def test_short_source_is_a_value_error():
    ms.set_context(device_target="GPU")
    x = Tensor(np.zeros(6, np.float32))
    mask = Tensor(np.array([1, 1, 1, 0, 1, 0], bool))
    with pytest.raises(ValueError, match="the mask selects 4 elements"):
        ops.masked_scatter(x, mask, Tensor(np.ones(3, np.float32))).asnumpy()
