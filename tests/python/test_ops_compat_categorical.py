"""P.RandomCategorical (ops/function/categorical_func.py): the pieces of MindSpore's stream
against their published known answers (Philox4x32-10's test vector, C++'s minstd_rand0
10000th value), samples against a reference loop written here from the definition, the
stream continuing across calls and restarting on a new seed (PYNATIVE and GRAPH), the
distribution, dtypes and errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.ops import operations as P
from mycel.ops.function import categorical_func as cf

RNG = np.random.default_rng(3)


def test_philox_known_answer():
    # Random123's known-answer test for philox4x32-10, counter 0 and key 0.
    assert cf._philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_lcg_powers_known_answer():
    # C++ requires the 10000th value of minstd_rand0 seeded 1 to be 1043618065.
    assert int(cf._powers(10000).asnumpy()[-1]) == 1043618065


class _Stream:
    """The reference: the LCG stepped one draw at a time, doubles as generate_canonical."""

    def __init__(self, seed):
        self.x = cf.engine_seed(seed)

    def draw(self):
        self.x = self.x * 16807 % cf.M
        return self.x

    def number(self):
        r = 2147483646.0
        s = float(self.draw() - 1)
        s += float(self.draw() - 1) * r
        v = s / (r * r)
        return np.float32(min(v, np.nextafter(1.0, 0.0)))


def _reference(logits, stream, n):
    e = np.exp((logits - logits.max(axis=1, keepdims=True)).astype(np.float32))
    cdf = np.cumsum(e.astype(logits.dtype), axis=1, dtype=logits.dtype)
    us = [stream.number() for _ in range(n)]
    out = np.zeros((logits.shape[0], n), np.int64)
    for j, u in enumerate(us):
        for b in range(logits.shape[0]):
            target = cdf[b, -1] * logits.dtype.type(u)
            out[b, j] = int(np.argmax(cdf[b] >= target))
    return out


class Net(nn.Cell):
    def __init__(self, dtype=ms.int64):
        super().__init__()
        self.rc = P.RandomCategorical(dtype)

    def construct(self, logits, n, seed):
        return self.rc(logits, n, seed)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_categorical_continues_and_restarts_its_stream(mode, dtype):
    logits = RNG.standard_normal((3, 6)).astype(dtype)
    net = Net()
    ref = _Stream(7)
    for n in (4, 9):
        got = net(ms.Tensor(logits), n, 7).asnumpy()
        np.testing.assert_array_equal(got, _reference(logits, ref, n))
    ref = _Stream(11)  # a new seed starts its own stream
    np.testing.assert_array_equal(net(ms.Tensor(logits), 5, 11).asnumpy(),
                                  _reference(logits, ref, 5))


@pytest.mark.parametrize("out", [ms.int16, ms.int32, ms.int64])
def test_random_categorical_distribution_and_dtype(mode, out):
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = np.log(np.stack([probs, probs[::-1]])).astype(np.float32)
    got = Net(out)(ms.Tensor(logits), 20000, 3)
    assert got.dtype == out and got.shape == (2, 20000)
    counts = np.stack([np.bincount(r, minlength=4) for r in got.asnumpy().astype(np.int64)])
    np.testing.assert_allclose(counts / 20000, np.stack([probs, probs[::-1]]), atol=0.015)


def test_random_categorical_seed_zero_follows_the_global_seed():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    logits = ms.Tensor(RNG.standard_normal((2, 5)).astype(np.float32))
    ms.set_seed(4)
    a = P.RandomCategorical()(logits, 8, 0).asnumpy()
    ms.set_seed(4)
    b = P.RandomCategorical()(logits, 8, 0).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_random_categorical_errors():
    logits = ms.Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="RandomCategorical"):
        P.RandomCategorical(ms.float32)
    with pytest.raises(ValueError, match="RandomCategorical"):
        P.RandomCategorical()(logits, 0, 1)
    with pytest.raises(TypeError, match="RandomCategorical"):
        P.RandomCategorical()(logits, 2.5, 1)
    with pytest.raises(ValueError, match="RandomCategorical"):
        P.RandomCategorical()(ms.Tensor(np.zeros(3, np.float32)), 2, 1)
