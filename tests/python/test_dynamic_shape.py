"""Dynamic shapes: Tensor(shape=[None, ...]) placeholders, Cell.set_inputs and
jit(input_signature=...). A network compiled with a dynamic batch runs every batch size with
one compilation and gives what static compilation (one graph per batch size) gives: outputs,
and parameters after training steps (so the gradients). Oracles: the same network compiled
statically, and numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.ops import operations as P
from lenet import LeNet5

BATCHES = (1, 7, 64, 256)


# GRAPH mode only (conftest's `mode` fixture with one of its two values): dynamic shapes are
# a property of compilation; PYNATIVE's set_inputs is checked by the last test.
graph_mode = pytest.mark.parametrize("mode", ["graph"], indirect=True)


def compiles(cell):
    """Compilations of a Cell's construct so far (GRAPH mode)."""
    return cell._mycel_graph._graph.num_compiles


def copy_params(dst, src):
    for p, q in zip(dst.trainable_params(), src.trainable_params()):
        p.set_data(Tensor(q.asnumpy()))


def images(n, seed):
    return Tensor(np.random.default_rng(seed).standard_normal((n, 1, 28, 28)).astype(np.float32))


def MLP():  # noqa: N802 (a network, named as a class)
    return nn.SequentialCell(nn.Dense(20, 32), nn.ReLU(), nn.Dense(32, 10))


# ------------------------------------------------------------------ placeholders
def test_placeholder_tensor_has_dynamic_shape_and_dtype():
    t = Tensor(shape=[None, 1, 28, 28], dtype=ms.float32)
    assert isinstance(t, Tensor)
    assert t.shape == (-1, 1, 28, 28) and t.dtype == ms.float32
    assert Tensor(shape=(None, 3), dtype=ms.int32).shape == (-1, 3)
    assert Tensor(dtype=ms.float32, shape=[-1, 3]).shape == (-1, 3)
    # A shape without None is still an ordinary zero tensor.
    z = Tensor(shape=(2, 3), dtype=ms.float32)
    assert type(z) is Tensor and z.shape == (2, 3) and not z.asnumpy().any()
    with pytest.raises(TypeError, match="placeholder"):
        Tensor(shape=[None, 2.5], dtype=ms.float32)


def test_set_inputs_rejects_non_tensors():
    net = MLP()
    with pytest.raises(TypeError, match="set_inputs"):
        net.set_inputs([None, 20])
    net.set_inputs(Tensor(shape=[None, 20], dtype=ms.float32))
    assert net.get_inputs()[0].shape == (-1, 20)


# ------------------------------------------------------------------ LeNet: one compilation
@graph_mode
def test_lenet_dynamic_batch_compiles_once_and_matches_static(mode, monkeypatch, capsys):
    ms.set_seed(1)
    dyn, static = LeNet5(), LeNet5()
    copy_params(static, dyn)
    dyn.set_inputs(Tensor(shape=[None, 1, 28, 28], dtype=ms.float32))
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    monkeypatch.setenv("MYCEL_LOG_RECOMPILE", "1")
    for i, n in enumerate(BATCHES):
        x = images(n, i)
        capsys.readouterr()
        got = dyn(x).asnumpy()
        log = capsys.readouterr().err
        # The compile log speaks for the first call only; recompiles never.
        assert ("mycel: compiled" in log) == (i == 0), log
        assert "recompiling" not in log, log
        want = static(x).asnumpy()
        assert got.shape == (n, 10)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert compiles(dyn) == 1
    assert compiles(static) == len(BATCHES)  # static compilation: one graph per batch size


@graph_mode
def test_lenet_training_dynamic_batch_matches_static(mode):
    ms.set_seed(2)
    nets = [LeNet5(), LeNet5()]
    copy_params(nets[1], nets[0])
    steps = []
    for net in nets:
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                    reduction="mean"))
        steps.append(nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.05, 0.9)))
    steps[0].set_inputs(Tensor(shape=[None, 1, 28, 28], dtype=ms.float32),
                        Tensor(shape=[None], dtype=ms.int32))
    rng = np.random.default_rng(3)
    for i, n in enumerate(BATCHES):
        x = images(n, 10 + i)
        y = Tensor(rng.integers(0, 10, n).astype(np.int32))
        l0, l1 = steps[0](x, y).asnumpy(), steps[1](x, y).asnumpy()
        np.testing.assert_allclose(l0, l1, rtol=1e-5, atol=1e-6)
        for p, q in zip(nets[0].trainable_params(), nets[1].trainable_params()):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-4, atol=1e-6,
                                       err_msg=f"{p.name} after the step at batch {n}")
    assert compiles(steps[0]) == 1 and compiles(steps[1]) == len(BATCHES)


# ------------------------------------------------------------------ MLP: loss and gradients
def mlp_step(net, lr):
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    return nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), lr))


def numpy_mlp_step(w1, b1, w2, b2, x, y, lr):
    """One SGD step of the MLP under the mean sparse cross entropy, by hand: the oracle of
    the gradients."""
    h = x @ w1.T + b1
    r = np.maximum(h, 0)
    z = r @ w2.T + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    n = x.shape[0]
    loss = -np.log(p[np.arange(n), y]).mean()
    dz = p.copy()
    dz[np.arange(n), y] -= 1
    dz /= n
    dw2, db2 = dz.T @ r, dz.sum(0)
    dh = (dz @ w2) * (h > 0)
    dw1, db1 = dh.T @ x, dh.sum(0)
    return loss, [w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2]


@graph_mode
def test_mlp_train_step_dynamic_batch_matches_static_and_numpy(mode):
    ms.set_seed(4)
    dyn, static = MLP(), MLP()
    copy_params(static, dyn)
    ref = [p.asnumpy().astype(np.float64) for p in dyn.trainable_params()]
    step_dyn, step_static = mlp_step(dyn, 0.1), mlp_step(static, 0.1)
    step_dyn.set_inputs(Tensor(shape=[None, 20], dtype=ms.float32),
                        Tensor(shape=[None], dtype=ms.int32))
    rng = np.random.default_rng(5)
    for n in BATCHES:
        x = rng.standard_normal((n, 20)).astype(np.float32)
        y = rng.integers(0, 10, n).astype(np.int32)
        l_dyn = step_dyn(Tensor(x), Tensor(y)).asnumpy()
        l_static = step_static(Tensor(x), Tensor(y)).asnumpy()
        l_ref, ref = numpy_mlp_step(*ref, x.astype(np.float64), y, 0.1)
        np.testing.assert_allclose(l_dyn, l_static, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(l_dyn, l_ref, rtol=1e-4, atol=1e-6)
        for p, q, r in zip(dyn.trainable_params(), static.trainable_params(), ref):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(p.asnumpy(), r, rtol=1e-4, atol=1e-5)
    assert compiles(step_dyn) == 1 and compiles(step_static) == len(BATCHES)


@graph_mode
def test_grad_of_mean_over_dynamic_batch(mode):
    # ReduceMean over the dynamic axis: its gradient divides by the run-time count.
    class Loss(nn.Cell):
        def construct(self, x):
            return ops.mean(ops.square(x))

    grad = ms.jit(ops.grad(Loss()),
                  input_signature=(Tensor(shape=[None, 3], dtype=ms.float32),))
    for n in (1, 5, 9):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(grad(Tensor(x)).asnumpy(), 2 * x / x.size, rtol=1e-6)


# ------------------------------------------------------------------ rules with -1
@graph_mode
def test_shape_rules_with_a_dynamic_dimension(mode):
    # Broadcasting, MatMul, reductions over and beside the dynamic axis, Reshape with -1,
    # Concat along it, Transpose, a static x.shape entry: against numpy at several sizes, one compile.
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10

    @ms.jit(input_signature=(Tensor(shape=[None, 3], dtype=ms.float32),))
    def f(x):
        y = ops.matmul(x + Tensor(np.array([1, 2, 3], np.float32)), Tensor(w))  # [-1, 4]
        z = ops.reshape(y, (-1, 2, 2)).transpose(1, 0, 2)  # [2, -1, 2]
        c = ops.concat((y, y * 2), 0)  # [-1, 4]
        return z.sum(1), y.mean(0), c.max(1), x.shape[1]

    for n in (1, 4, 13):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        s, m, c, d = f(Tensor(x))
        y = (x + [1, 2, 3]) @ w
        np.testing.assert_allclose(s.asnumpy(), y.reshape(-1, 2, 2).transpose(1, 0, 2).sum(1),
                                   rtol=1e-5)
        np.testing.assert_allclose(m.asnumpy(), y.mean(0), rtol=1e-5)
        np.testing.assert_allclose(c.asnumpy(), np.concatenate([y, 2 * y]).max(1), rtol=1e-5)
        assert d == 3
    assert f._graph.num_compiles == 1


def test_flatten_with_a_dynamic_batch(mode):
    # ops.flatten keeps the dynamic batch and merges the known dimensions (their product,
    # so that Reshape has one dimension to infer); merging the dynamic one with others works
    # as before.
    @ms.jit(input_signature=(Tensor(shape=[None, 2, 3, 4], dtype=ms.float32),))
    def f(x):
        return ops.flatten(x), ops.flatten(x, start_dim=0, end_dim=1), ops.flatten(x, start_dim=2)

    for n in (1, 5):
        x = np.random.default_rng(n).standard_normal((n, 2, 3, 4)).astype(np.float32)
        a, b, c = f(Tensor(x))
        np.testing.assert_array_equal(a.asnumpy(), x.reshape(n, 24))
        np.testing.assert_array_equal(b.asnumpy(), x.reshape(n * 2, 3, 4))
        np.testing.assert_array_equal(c.asnumpy(), x.reshape(n, 2, 12))
    assert f._graph.num_compiles == 1


@pytest.mark.parametrize("body, op", [
    (lambda x: P.Split(axis=0, output_num=2)(x), "Split"),
    (lambda x: x[1:3], "StridedSlice"),
    (lambda x: ops.squeeze(x, 0), "Squeeze"),
])
@graph_mode
def test_ops_that_need_the_value_of_a_dynamic_dim_say_so(mode, body, op):
    f = ms.jit(lambda x: body(x), input_signature=(Tensor(shape=[None, 4], dtype=ms.float32),))
    with pytest.raises(ValueError, match=f"{op}.*dynamic"):
        f(Tensor(np.ones((4, 4), np.float32)))


# ------------------------------------------------------------------ mismatched inputs
@graph_mode
def test_inputs_that_do_not_fit_the_signature_are_errors(mode):
    net = MLP()
    net.set_inputs(Tensor(shape=[None, 20], dtype=ms.float32))
    net(Tensor(np.ones((3, 20), np.float32)))
    with pytest.raises(ValueError, match=r"shape \[-1, 20\].*got \[3, 21\]"):
        net(Tensor(np.ones((3, 21), np.float32)))  # a fixed dimension differs
    with pytest.raises(ValueError, match=r"shape \[-1, 20\].*got \[3, 20, 1\]"):
        net(Tensor(np.ones((3, 20, 1), np.float32)))  # another rank
    with pytest.raises(TypeError, match="dtype"):
        net(Tensor(np.ones((3, 20), np.float64)))
    with pytest.raises(TypeError, match="set_inputs gave 1 input"):
        net(Tensor(np.ones((3, 20), np.float32)), Tensor(np.ones((3, 20), np.float32)))
    assert compiles(net) == 1


def test_pynative_accepts_set_inputs_and_runs_unchanged():
    old = ms.get_context("mode")
    try:
        ms.set_seed(6)
        net = MLP()
        x = Tensor(np.random.default_rng(7).standard_normal((5, 20)).astype(np.float32))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = net(x).asnumpy()
        net.set_inputs(Tensor(shape=[None, 20], dtype=ms.float32))
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
        ms.set_context(mode=ms.GRAPH_MODE)  # the same Cell, compiled with the signature
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=old)


# ------------------------------------------------------------------ x.shape under set_inputs
class _ShapeArith(nn.Cell):
    """Reads the dynamic batch size the ways user code does: x.shape[0], len(x), x.size."""

    def construct(self, x):
        n = x.shape[0]
        return x * n + len(x) + x.size, x.shape[1] * 2


@graph_mode
def test_dynamic_dimension_is_read_at_run_time(mode):
    # x.shape[0] of a dynamic batch is the batch of this call (it was the -1 that stands for
    # "unknown", a silently wrong answer); static dimensions stay compile-time constants.
    net = _ShapeArith()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    for n in (1, 5, 9):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        out, c = net(Tensor(x))
        np.testing.assert_allclose(out.asnumpy(), x * n + n + 3 * n, rtol=1e-6)
        assert c == 6
    assert compiles(net) == 1


class _ReshapeByDim(nn.Cell):
    def construct(self, x):
        return ops.reshape(x, (x.shape[0], -1))


class _ReshapeByDoubledDim(nn.Cell):
    def construct(self, x):
        return ops.tile(x, (x.shape[0] * 2, 1, 1))


class _ReshapeByStaticDim(nn.Cell):
    def construct(self, x):
        return ops.reshape(x, (-1, x.shape[1] * x.shape[2]))


@graph_mode
def test_shape_argument_from_a_dynamic_dimension(mode):
    net = _ReshapeByStaticDim()
    net.set_inputs(Tensor(shape=[None, 2, 3], dtype=ms.float32))
    x = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x.reshape(4, 6))
    # (x.shape[0], -1): the run-time entry is the input's one dynamic dimension (checked
    # when it runs), so the -1 is 6 (test_dynamic_shape_values.py has more).
    net = _ReshapeByDim()
    net.set_inputs(Tensor(shape=[None, 2, 3], dtype=ms.float32))
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x.reshape(4, 6))
    # Compile-time shape helpers see a dynamic dimension as -1 (the static shape): with two
    # dynamic input dimensions two -1s are a clear error that says why.
    net = _ReshapeByDim()
    net.set_inputs(Tensor(shape=[None, None, 3], dtype=ms.float32))
    with pytest.raises(ValueError, match=r"Reshape.*can be -1.*dynamic dimension"):
        net(Tensor(x))
    # A value computed from a dynamic dimension is known only at run time: an attribute
    # that needs it says so.
    net = _ReshapeByDoubledDim()
    net.set_inputs(Tensor(shape=[None, 2, 3], dtype=ms.float32))
    with pytest.raises(TypeError, match="Tile.*compile time"):
        net(Tensor(x))


class _Wrapper(nn.Cell):
    """MindSpore's test wrapper: construct(self, *inputs, **kwargs) calls a function."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *inputs, **kwargs):
        return self.fn(*inputs, **kwargs)


def _broadcast(x, shape):
    return ops.broadcast_to(x, shape) * 2


@pytest.mark.parametrize("mode", ["graph", "pynative"], indirect=True)
def test_set_inputs_on_a_construct_with_kwargs(mode):
    """set_inputs gives the positional inputs; a construct's **kwargs dict, which the graph
    takes last, is left free (it was counted as a missing input)."""
    net = _Wrapper(_broadcast)
    net.set_inputs(Tensor(shape=[None, 5, None], dtype=ms.float32), (4, 5, 6))
    x = np.arange(20, dtype=np.float32).reshape(4, 5, 1)
    np.testing.assert_array_equal(net(Tensor(x), (4, 5, 6)).asnumpy(),
                                  np.broadcast_to(x, (4, 5, 6)) * 2)
    y = np.arange(10, dtype=np.float32).reshape(2, 5, 1)
    np.testing.assert_array_equal(net(Tensor(y), (2, 5, 3)).asnumpy(),
                                  np.broadcast_to(y, (2, 5, 3)) * 2)
