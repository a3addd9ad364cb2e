"""Recompute (issue #18, item 6): Cell.recompute() and Primitive.recompute(). In GRAPH mode the
forward activations of a marked cell are computed again in the backward (the recompute pass,
src/compiler/passes/recompute.cc): the gradients are bit-for-bit those without recompute
(same kernels on the same inputs), against a numpy oracle too; the executor's peak memory of a
training step of a deep MLP goes down. PYNATIVE mode keeps every activation: the gradients are
the same. Random ops are not recomputed: a recomputed cell with Dropout gets the forward's
mask. Nested cells, output_recompute and the errors are covered."""
import numpy as np
import pytest

import mycel as ms
from mycel import _mycel as _C
from mycel import nn, ops
from mycel.ops import operations as P


def T(a):
    return ms.Tensor(np.asarray(a, dtype=np.float32))


def _mode_fixture(mode):
    """A fixture running the test in `mode`, the context's mode restored after."""
    @pytest.fixture
    def fixture():
        old = ms.get_context("mode")
        ms.set_context(mode=mode)
        yield
        ms.set_context(mode=old)
    return fixture


graph = _mode_fixture(ms.GRAPH_MODE)
pynative = _mode_fixture(ms.PYNATIVE_MODE)


class Block(nn.Cell):
    """`depth` Dense + tanh layers (weights from `ws`)."""

    def __init__(self, ws, dropout=None):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(w.shape[1], w.shape[0], weight_init=T(w),
                                            bias_init="zeros", activation="tanh")
                                   for w in ws])
        self.dropout = dropout

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        if self.dropout is not None:
            x = self.dropout(x)
        return x


class Net(nn.Cell):
    """Blocks, then the mean of the squared output (the loss)."""

    def __init__(self, blocks):
        super().__init__()
        self.blocks = nn.CellList(blocks)

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return ops.mean(x * x)


def weights(nblocks, depth, width, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal((width, width)).astype(np.float32) / np.sqrt(width)
             for _ in range(depth)] for _ in range(nblocks)]


def make_net(ws, recompute=None, output_recompute=False):
    blocks = [Block(b) for b in ws]
    for i, b in enumerate(blocks):
        if recompute is not None and i in recompute:
            b.recompute(output_recompute=output_recompute)
    return Net(blocks)


def grads(net, x):
    return [g.asnumpy() for g in ops.grad(net, None, net.trainable_params())(x)]


def numpy_grads(ws, x):
    """Backpropagation by hand through the tanh layers (float64): the oracle."""
    flat = [w.astype(np.float64) for b in ws for w in b]
    acts = [x.astype(np.float64)]
    for w in flat:
        acts.append(np.tanh(acts[-1] @ w.T))
    d = 2 * acts[-1] / acts[-1].size
    out = []
    for w, a_in, a_out in zip(reversed(flat), reversed(acts[:-1]), reversed(acts[1:])):
        d = d * (1 - a_out * a_out)
        out.append((d.T @ a_in, d.sum(0)))
        d = d @ w
    res = []
    for gw, gb in reversed(out):
        res += [gw, gb]
    return res


@pytest.mark.parametrize("mode_", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_gradients_equal_with_and_without_recompute(mode_):
    old = ms.get_context("mode")
    ms.set_context(mode=mode_)
    try:
        ws = weights(3, 3, 16)
        x = T(np.random.default_rng(1).standard_normal((8, 16)))
        want = grads(make_net(ws), x)
        got = grads(make_net(ws, recompute={0, 1, 2}), x)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(got, numpy_grads(ws, x.asnumpy())):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_some_blocks_and_output_recompute(graph):
    ws = weights(4, 2, 12, seed=3)
    x = T(np.random.default_rng(2).standard_normal((5, 12)))
    want = grads(make_net(ws), x)
    for marked, out in (({1}, False), ({0, 2}, False), ({0, 1, 2, 3}, True), ({1, 2}, True)):
        got = grads(make_net(ws, recompute=marked, output_recompute=out), x)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


class Outer(nn.Cell):
    """Cells nested two deep, with a reshape and a matmul of its own between them."""

    def __init__(self, ws):
        super().__init__()
        self.a = Block(ws[0])
        self.b = Block(ws[1])
        self.w = ms.Parameter(T(ws[2][0]), name="w")

    def construct(self, x):
        h = self.a(x)
        h = ops.reshape(ops.reshape(h, (-1,)), h.shape)
        return self.b(ops.sin(ops.matmul(h, self.w)))


def test_nested_cells(graph):
    ws = weights(3, 2, 10, seed=5)
    x = T(np.random.default_rng(4).standard_normal((6, 10)))

    def build(mark):
        outer = Outer(ws)
        mark(outer)
        return Net([outer])

    want = grads(build(lambda o: None), x)
    for mark in (lambda o: o.recompute(), lambda o: o.a.recompute(),
                 lambda o: (o.recompute(), o.b.recompute()),
                 lambda o: o.recompute(output_recompute=True)):
        got = grads(build(mark), x)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_dropout_in_a_recomputed_cell_keeps_its_mask(graph):
    # Recomputing Dropout would draw a new mask: its output is kept instead, so with the same
    # seed the gradients equal those without recompute (and differ from another seed's).
    ws = weights(2, 2, 16, seed=6)
    x = T(np.random.default_rng(7).standard_normal((32, 16)))

    def run(recompute, seed):
        blocks = [Block(ws[0], dropout=nn.Dropout(p=0.5)), Block(ws[1])]
        if recompute:
            blocks[0].recompute(output_recompute=True)
        net = Net(blocks).set_train()
        ms.set_seed(seed)
        return grads(net, x)

    want = run(False, 11)
    got = run(True, 11)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    other = run(False, 12)
    assert not all(np.array_equal(a, b) for a, b in zip(other, want))


class PrimNet(nn.Cell):
    def __init__(self, w, mark):
        super().__init__()
        self.w = ms.Parameter(T(w), name="w")
        self.tanh = P.Tanh()
        self.exp = P.Exp()
        if mark:
            self.tanh.recompute()
            self.exp.recompute()

    def construct(self, x):
        h = self.exp(self.tanh(ops.matmul(x, self.w)))
        return ops.sum(h * h)


def test_primitive_recompute(graph):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((6, 6)).astype(np.float32) / 3
    x = T(rng.standard_normal((4, 6)))
    got, ref = (grads(PrimNet(w, mark), x)[0] for mark in (True, False))
    np.testing.assert_array_equal(got, ref)
    # d/dw sum(exp(tanh(xw))^2) = x^T (2 e^2 (1 - t^2)), t = tanh(xw), in float64
    xd, wd = x.asnumpy().astype(np.float64), w.astype(np.float64)
    t = np.tanh(xd @ wd)
    np.testing.assert_allclose(got, xd.T @ (2 * np.exp(2 * t) * (1 - t * t)), rtol=1e-4,
                               atol=1e-5)


def test_errors():
    with pytest.raises(TypeError, match="Cell.recompute.*mode"):
        nn.Dense(2, 2).recompute(mode=1)
    with pytest.raises(TypeError, match="output_recompute"):
        nn.Dense(2, 2).recompute(output_recompute="yes")
    with pytest.raises(ValueError, match="Dropout.recompute.*random"):
        P.Dropout().recompute()
    with pytest.raises(TypeError, match="Tanh.recompute.*bool"):
        P.Tanh().recompute(mode=None)
    assert P.Dropout().recompute(False) is not None  # keeping its output is allowed


def _peak_of_step(net, x):
    """The executor's peak bytes above what was in use before a gradient step (host
    allocator, mycel's tensors), the compile done by a first step."""
    grad_fn = ops.grad(net, None, net.trainable_params())
    grad_fn(x)
    _C.reset_peak_memory()
    before = _C.memory_stats()["in_use"]
    g = grad_fn(x)
    peak = _C.memory_stats()["peak_in_use"] - before
    return peak, [a.asnumpy() for a in g]


def test_peak_memory_of_a_deep_mlp_goes_down(graph):
    # 4 blocks of 4 layers, batch 1024 x width 128: an activation is 512 KiB, a weight 64 KiB.
    # Without recompute the backward starts with all 16 tanh outputs alive; with it, the 4
    # block outputs and then one block's recomputed activations at a time.
    ws = weights(4, 4, 128, seed=9)
    x = T(np.random.default_rng(10).standard_normal((1024, 128)))
    act = 1024 * 128 * 4
    base, g0 = _peak_of_step(make_net(ws), x)
    rec, g1 = _peak_of_step(make_net(ws, recompute={0, 1, 2, 3}), x)
    for a, b in zip(g1, g0):
        np.testing.assert_array_equal(a, b)
    assert base >= 16 * act, base  # the activations it keeps really are counted
    assert rec <= base - 6 * act, (rec, base)


def _peak_of_train_step(net, x):
    """The executor's peak bytes above what was in use before one compiled training step
    (nn.TrainOneStepCell, plain SGD, the compile done by a first step on a copy of the
    weights), and the loss and weights after that step."""
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), learning_rate=0.1))
    step.set_train()
    start = [p.asnumpy().copy() for p in net.trainable_params()]
    step(x)
    for p, a in zip(net.trainable_params(), start):
        p.set_data(T(a))
    _C.reset_peak_memory()
    before = _C.memory_stats()["in_use"]
    loss = step(x)
    peak = _C.memory_stats()["peak_in_use"] - before
    return peak, loss.asnumpy(), [p.asnumpy() for p in net.trainable_params()]


def test_peak_memory_of_a_training_step_goes_down(graph):
    # The program returning the loss and updating the weights (value_and_grad, then the
    # optimizer's updates) must free the activations as the backward goes, as grad's does:
    # the executor computes each weight's gradient as soon as its layer's activation
    # gradient is (runtime/vm_compile.cc, hoist_sinks). Same MLP as above: without recompute
    # the backward starts with the 16 tanh outputs alive, not two tensors per layer (32);
    # with recompute the peak drops by at least 6 activations, and the step is bit-identical.
    ws = weights(4, 4, 128, seed=9)
    x = T(np.random.default_rng(10).standard_normal((1024, 128)))
    act = 1024 * 128 * 4
    base, loss0, w0 = _peak_of_train_step(make_net(ws), x)
    rec, loss1, w1 = _peak_of_train_step(make_net(ws, recompute={0, 1, 2, 3}), x)
    np.testing.assert_array_equal(loss1, loss0)
    for a, b in zip(w1, w0):
        np.testing.assert_array_equal(a, b)
    grad_base, g0 = _peak_of_step(make_net(ws), x)
    assert 16 * act <= base <= grad_base + 2 * act, (base, grad_base)
    assert rec <= base - 6 * act, (rec, base)
    # The oracle: one SGD step from the numpy gradients.
    flat = [w for b in ws for w in b]
    want = numpy_grads(ws, x.asnumpy())
    for got, w, g in zip(w0[::2], flat, want[::2]):
        np.testing.assert_allclose(got, w - 0.1 * g, rtol=1e-4, atol=1e-5)


# mycel.recompute(block, *args): PYNATIVE's recompute function (mycel/common/recompute.py).

class FnNet(nn.Cell):
    """Net's blocks, those in `marked` called through mycel.recompute."""

    def __init__(self, blocks, marked=()):
        super().__init__()
        self.blocks = nn.CellList(blocks)
        self.marked = tuple(marked)

    def construct(self, x):
        for i, b in enumerate(self.blocks):
            x = ms.recompute(b, x) if i in self.marked else b(x)
        return ops.mean(x * x)


def test_recompute_function_gradients(pynative):
    # Gradients of the weights and of the input, bit-identical with and without, and equal
    # to the numpy oracle.
    ws = weights(3, 3, 16, seed=12)
    x = T(np.random.default_rng(13).standard_normal((8, 16)))

    def run(marked):
        net = FnNet([Block(b) for b in ws], marked)
        g = ops.grad(net, 0, net.trainable_params())(x)
        return [g[0].asnumpy()] + [a.asnumpy() for a in g[1]]

    want = run(())
    for marked in ((0, 1, 2), (1,)):
        got = run(marked)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(want[1:], numpy_grads(ws, x.asnumpy())):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # Outside a gradient it is the plain call.
    b = Block(ws[0])
    np.testing.assert_array_equal(ms.recompute(b, x).asnumpy(), b(x).asnumpy())


def test_recompute_function_lowers_the_peak(pynative):
    # 4 blocks of 4 layers, batch 1024 x width 128 (an activation is 512 KiB): without it the
    # recording keeps every layer's outputs until the backward; with it, the block outputs,
    # and one block's recomputed ones at a time.
    ws = weights(4, 4, 128, seed=14)
    x = T(np.random.default_rng(15).standard_normal((1024, 128)))
    act = 1024 * 128 * 4

    def peak(marked):
        net = FnNet([Block(b) for b in ws], marked)
        fn = ops.grad(net, None, net.trainable_params())
        fn(x)
        _C.reset_peak_memory()
        before = _C.memory_stats()["in_use"]
        g = fn(x)
        return _C.memory_stats()["peak_in_use"] - before, [a.asnumpy() for a in g]

    base, g0 = peak(())
    rec, g1 = peak((0, 1, 2, 3))
    for a, b in zip(g1, g0):
        np.testing.assert_array_equal(a, b)
    assert base >= 16 * act, base
    assert rec <= base - 20 * act, (rec, base)  # measured: 53 -> 22 activations


def test_recompute_function_redraws_the_same_random_numbers(pynative):
    # A block with Dropout: the recomputation draws the forward's mask again, so with the
    # same seed the gradients equal those without recompute (and another seed's differ).
    ws = weights(2, 2, 16, seed=16)
    x = T(np.random.default_rng(17).standard_normal((32, 16)))

    def run(marked, seed):
        net = FnNet([Block(ws[0], dropout=nn.Dropout(p=0.5)), Block(ws[1])], marked)
        net.set_train()
        ms.set_seed(seed)
        return grads(net, x)

    want = run((), 21)
    got = run((0,), 21)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    other = run((), 22)
    assert not all(np.array_equal(a, b) for a, b in zip(other, want))


class SeededDropout(nn.Cell):
    """Dropout with its own seeds: its primitive's position in the seeds' stream advances
    with each call (test_random_streams.py)."""

    def __init__(self):
        super().__init__()
        self.drop = P.Dropout(keep_prob=0.5, Seed0=7, Seed1=3)

    def construct(self, x):
        return self.drop(x)[0]


def test_recompute_function_redraws_a_seeded_primitives_numbers(pynative):
    # The recomputation rewinds seeded primitives too: the block draws the forward's mask,
    # and the next step continues the stream as without recompute.
    ws = weights(2, 2, 16, seed=18)
    x = T(np.random.default_rng(19).standard_normal((32, 16)))

    def run(marked):
        net = FnNet([Block(ws[0], dropout=SeededDropout()), Block(ws[1])], marked)
        return [grads(net, x) for _ in range(2)]

    want, got = run(()), run((0,))
    for step_got, step_want in zip(got, want):
        for a, b in zip(step_got, step_want):
            np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(a, b) for a, b in zip(want[0], want[1]))


def test_recompute_function_errors(pynative):
    x = T(np.ones((2, 2)))
    with pytest.raises(TypeError, match="recompute.*must be a Cell.*function"):
        ms.recompute(lambda t: t, x)
    with pytest.raises(TypeError, match="recompute.*'y'.*positionally"):
        ms.recompute(nn.Dense(2, 2), x, y=x)

    class Two(nn.Cell):
        def construct(self, t):
            return t, t

    with pytest.raises(TypeError, match="recompute.*Two must return one Tensor.*tuple"):
        ops.grad(lambda t: ms.recompute(Two(), t)[0].sum())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="recompute.*PYNATIVE.*Cell.recompute"):
        ms.recompute(nn.Dense(2, 2), x)
    with pytest.raises(ValueError, match="recompute.*PYNATIVE.*Cell.recompute"):
        FnNet([Block(weights(1, 1, 2)[0])], (0,))(x)  # compiled into a graph


def test_recompute_function_in_a_training_step(pynative):
    # nn.TrainOneStepCell (value_and_grad, then Momentum) over blocks called through
    # mycel.recompute: 3 steps' losses and weights bit-identical to the plain network's.
    ws = weights(3, 2, 16, seed=3)
    x = T(np.random.default_rng(4).standard_normal((8, 16)))
    runs = []
    for marked in ((), (0, 2)):
        net = FnNet([Block(b) for b in ws], marked)
        step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses = [step(x).asnumpy() for _ in range(3)]
        runs.append(losses + [p.asnumpy() for p in net.trainable_params()])
    assert runs[0][1] < runs[0][0]  # it trains
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
