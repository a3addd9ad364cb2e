"""Random ops with their own seeds (MindSpore's op-level seeds): each primitive instance owns a
position in its seeds' stream, which every call advances, as a MindSpore kernel's generator
does. A fresh instance with the same seeds replays the draws; a second call of one instance
draws new numbers; GRAPH and PYNATIVE draw the same sequence; the counter-based stream makes
two draws of n the same numbers as one draw of 2n (oracle: the stream itself)."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.ops import operations as P


def _normal(n, instance):
    return instance((n,)).asnumpy()


@pytest.mark.parametrize("make", [lambda: P.StandardNormal(seed=3, seed2=1),
                                  lambda: P.UniformReal(seed=7, seed2=2)],
                         ids=["StandardNormal", "UniformReal"])
def test_an_instance_advances_and_a_fresh_one_replays(make):
    op = make()
    a, b = _normal(8, op), _normal(8, op)
    assert (a != b).all()
    again = make()
    np.testing.assert_array_equal(_normal(8, again), a)
    np.testing.assert_array_equal(_normal(8, again), b)
    # The stream is counter based: the second call continues where the first stopped.
    np.testing.assert_array_equal(_normal(16, make()), np.concatenate([a, b]))


def test_dropout_masks_advance_per_instance():
    x = Tensor(np.ones(1000, np.float32))
    drop = P.Dropout(keep_prob=0.5, Seed0=1, Seed1=2)
    m1, m2 = drop(x)[1].asnumpy(), drop(x)[1].asnumpy()
    assert (m1 != m2).any()
    fresh = P.Dropout(keep_prob=0.5, Seed0=1, Seed1=2)
    np.testing.assert_array_equal(fresh(x)[1].asnumpy(), m1)
    np.testing.assert_array_equal(fresh(x)[1].asnumpy(), m2)
    # Two instances do not share a position: a third, fresh one starts at the beginning.
    np.testing.assert_array_equal(P.Dropout(keep_prob=0.5, Seed0=1, Seed1=2)(x)[1].asnumpy(), m1)


class _Noise(nn.Cell):
    def __init__(self):
        super().__init__()
        self.normal = P.StandardNormal(seed=5, seed2=9)

    def construct(self, x):
        return x + self.normal((6,))


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_a_cell_draws_the_same_sequence_in_both_modes(mode):
    ref = P.StandardNormal(seed=5, seed2=9)
    want = [ref((6,)).asnumpy() for _ in range(3)]
    ms.set_context(mode=mode)
    try:
        net = _Noise()
        x = Tensor(np.zeros(6, np.float32))
        got = [net(x).asnumpy() for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert (got[0] != got[1]).all()


def test_functional_calls_with_a_seed_share_one_cached_instance():
    """ops.standard_normal(shape, seed) caches its primitive per seed (MindSpore's
    _get_cache_prim), so calls continue one stream rather than repeat its start."""
    first = ops.standard_normal((4,), seed=123).asnumpy()
    second = ops.standard_normal((4,), seed=123).asnumpy()
    assert (first != second).all()


def test_unseeded_ops_still_follow_the_global_seed():
    ms.set_seed(42)
    a = P.StandardNormal()((5,)).asnumpy()
    b = P.StandardNormal()((5,)).asnumpy()
    ms.set_seed(42)
    np.testing.assert_array_equal(P.StandardNormal()((5,)).asnumpy(), a)
    np.testing.assert_array_equal(P.StandardNormal()((5,)).asnumpy(), b)
    assert (a != b).all()
