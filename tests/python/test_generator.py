"""mindspore.Generator (common/generator.py): a Generator is an independent Philox stream,
default_generator is the global state, get_state/set_state replay draws, and the random
functions' generator= argument draws from it (PYNATIVE; GRAPH mode takes the default
generator only)."""
import numpy as np
import pytest

import mycel as ms
from mycel import mint, nn, ops


def _draws(generator=None):
    """One call of each random function taking generator=, as numpy arrays."""
    w = ms.Tensor(np.array([[1.0, 2.0, 0.0, 3.0], [0.5, 0.5, 4.0, 1.0]], np.float32))
    p = ms.Tensor(np.array([0.1, 0.5, 0.9, 0.3, 0.7], np.float32))
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    outs = [ops.rand(3, 4, generator=generator), ops.randn(5, generator=generator),
            ops.randint(0, 10, (6,), generator=generator),
            ops.randperm(7, generator=generator),
            ops.multinomial(w, 3, replacement=False, generator=generator),
            ops.multinomial(w, 5, generator=generator),
            ops.bernoulli(x, 0.5, generator=generator),
            ops.normal((4,), 1.0, 2.0, generator=generator),
            ops.uniform((3,), ms.Tensor(-1.0), ms.Tensor(1.0), generator=generator),
            ops.rand_like(x, generator=generator), ops.randn_like(x, generator=generator),
            ops.randint_like(x, 2, 9, generator=generator),
            mint.rand(2, 2, generator=generator), mint.randn((3,), generator=generator),
            mint.randint(4, (5,), generator=generator),
            mint.randint(3, 8, (5,), generator=generator),
            mint.randperm(6, generator=generator),
            mint.multinomial(w, 2, generator=generator),
            mint.bernoulli(p, generator=generator),
            mint.normal(0.0, 1.0, (4,), generator=generator),
            mint.normal(x, 2.0, generator=generator),
            mint.rand_like(x, generator=generator), mint.randn_like(x, generator=generator),
            mint.randint_like(x, 5, generator=generator)]
    return [o.asnumpy() for o in outs]


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_generator_draws_what_the_global_generator_draws_after_the_same_seed():
    ms.set_seed(1234)
    expected = _draws()
    ms.set_seed(99)
    g = ms.Generator().manual_seed(1234)
    assert _same(_draws(g), expected)
    # and a second generator with that seed draws the same again
    assert _same(_draws(ms.Generator().manual_seed(1234)), expected)


def test_generator_is_independent_of_the_global_state():
    ms.set_seed(5)
    before = ms.get_rng_state().asnumpy()
    g = ms.Generator().manual_seed(5)
    first = _draws(g)
    assert np.array_equal(ms.get_rng_state().asnumpy(), before)  # the global state untouched
    global_draws = _draws()  # the global generator, seeded 5, draws what g drew first
    assert _same(global_draws, first)
    assert not _same(_draws(g), first)  # g moved on: its second draws differ


def test_interleaved_generators_do_not_disturb_each_other():
    g1, g2 = ms.Generator().manual_seed(11), ms.Generator().manual_seed(22)
    a = [ops.rand(8, generator=g1).asnumpy() for _ in range(3)]
    b = [ops.rand(8, generator=g2).asnumpy() for _ in range(3)]
    h1, h2 = ms.Generator().manual_seed(11), ms.Generator().manual_seed(22)
    for i in range(3):
        assert np.array_equal(ops.rand(8, generator=h2).asnumpy(), b[i])
        ms.set_seed(i)  # global reseeds between draws change nothing
        assert np.array_equal(ops.rand(8, generator=h1).asnumpy(), a[i])
    assert not np.array_equal(a[0], b[0])


def test_state_round_trip_replays_draws():
    g = ms.Generator().manual_seed(7)
    _draws(g)
    state = g.get_state()
    after = _draws(g)
    g.set_state(state)
    assert _same(_draws(g), after)
    other = ms.Generator().set_state(state)  # another generator takes the state
    assert _same(_draws(other), after)
    assert g.initial_seed() == 7 and other.initial_seed() == 7


def test_default_generator_is_the_global_state():
    d = ms.default_generator
    d.manual_seed(31)
    assert ms.initial_seed() == 31 and ms.get_seed() == 31
    a = _draws(d)
    ms.set_seed(31)
    assert _same(_draws(), a)
    state = d.get_state()
    assert np.array_equal(state.asnumpy(), ms.get_rng_state().asnumpy())
    b = _draws()
    ms.set_rng_state(state)
    assert _same(_draws(d), b)
    d.set_state(state)
    assert _same(_draws(), b)


def test_step_hands_out_offsets():
    g = ms.Generator().manual_seed(3)
    s0, o0 = g._step(ms.Tensor(4, ms.int64))  # pylint: disable=protected-access
    s1, o1 = g._step(2)  # pylint: disable=protected-access
    assert (int(s0), int(o0), int(s1), int(o1)) == (3, 0, 3, 4)
    state = ms.get_rng_state()
    a = ms.default_generator._step(5)  # pylint: disable=protected-access
    ms.set_rng_state(state)
    b = ms.default_generator._step(5)  # pylint: disable=protected-access
    assert [int(v) for v in a] == [int(v) for v in b]


def test_generator_samples_follow_their_distributions():
    g = ms.Generator().manual_seed(2024)
    u = ops.rand(20000, generator=g).asnumpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    n = ops.randn(20000, generator=g).asnumpy()
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1.0) < 0.03
    p = np.array([0.1, 0.9], np.float32)
    b = mint.bernoulli(ms.Tensor(np.tile(p, (10000, 1))), generator=g).asnumpy()
    assert np.allclose(b.mean(axis=0), p, atol=0.02)
    perm = mint.randperm(50, generator=g).asnumpy()
    assert sorted(perm.tolist()) == list(range(50))


def test_seed_makes_a_fresh_seed():
    g = ms.Generator()
    assert g.initial_seed() == 5489  # the global generator's default seed
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**63


def test_bad_arguments_are_typed_errors():
    g = ms.Generator()
    with pytest.raises(TypeError, match="manual_seed"):
        g.manual_seed("1")
    with pytest.raises(ValueError, match="manual_seed"):
        g.manual_seed(-1)
    with pytest.raises(TypeError, match="'rand'.*Generator"):
        ops.rand(3, generator=1)
    with pytest.raises(ValueError, match="set_state"):
        g.set_state(ms.Tensor(np.zeros(2, np.uint64)))
    with pytest.raises(TypeError, match="set_state"):
        g.set_state(np.zeros(3, np.uint64))


class _RandNet(nn.Cell):
    def __init__(self, generator):
        super().__init__()
        self.generator = generator

    def construct(self, x):
        return ops.rand(2, 3, generator=self.generator) + mint.randn(2, 3) * 0.0 + x


@ms.jit
def _rand_default(x):
    return ops.rand(4, generator=ms.default_generator) + x


@ms.jit
def _rand_other(x, g):
    return ops.rand(4, generator=g) + x


def test_graph_mode_uses_the_default_generator():
    x = ms.Tensor(np.zeros(4, np.float32))
    ms.set_seed(8)
    got = [_rand_default(x).asnumpy() for _ in range(2)]
    ms.set_seed(8)
    want = [ops.rand(4).asnumpy() for _ in range(2)]
    assert _same(got, want)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _RandNet(ms.default_generator)
        x23 = ms.Tensor(np.zeros((2, 3), np.float32))
        ms.set_seed(9)
        graph = net(x23).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.set_seed(9)
        eager = net(x23).asnumpy()
        assert np.array_equal(graph, eager)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_graph_mode_refuses_another_generator():
    x = ms.Tensor(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="'rand'.*GRAPH mode.*default_generator"):
        _rand_other(x, ms.Generator())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="GRAPH mode"):
            _RandNet(ms.Generator())(ms.Tensor(np.zeros((2, 3), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # the same net in PYNATIVE mode draws from its generator
    g = ms.Generator().manual_seed(4)
    out = _RandNet(g)(ms.Tensor(np.zeros((2, 3), np.float32))).asnumpy()
    assert np.array_equal(out, ops.rand(2, 3, generator=ms.Generator().manual_seed(4)).asnumpy())
