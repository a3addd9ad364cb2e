"""Parameter.set_data with data of a new shape (MindSpore allows it): a compiled graph that
read the parameter is compiled again for the new shape on its next call, in GRAPH mode and
under @jit, with the same answers as PYNATIVE (numpy and analytic oracles); new data of the
same shape and dtype keeps the cached graph; the errors MindSpore raises for bad data."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops


class Affine(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(Tensor(w), name="w")
        self.b = Parameter(Tensor(b), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def compiles(cell):
    graph = cell.__dict__.get("_mycel_graph")
    return 0 if graph is None else graph._graph.num_compiles


def test_new_shape_recompiles_and_matches_numpy(mode):
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 2)).astype(np.float32), np.zeros(2, np.float32)
    net = Affine(w, b)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    # a wider layer: both weights take data of new shapes
    w2, b2 = rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal(5).astype(
        np.float32)
    assert net.w.set_data(Tensor(w2)) is net.w
    net.b.set_data(Tensor(b2))
    assert net.w.shape == (3, 5) and net.b.shape == (5,)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w2 + b2, rtol=1e-5, atol=1e-6)
    if mode == ms.GRAPH_MODE:
        assert compiles(net) == 2
    # back to the first shapes: the graph compiled for them is still cached
    net.w.set_data(Tensor(w))
    net.b.set_data(Tensor(b))
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    if mode == ms.GRAPH_MODE:
        assert compiles(net) == 2


@pytest.mark.parametrize("mode_name", ["graph", "pynative"])
def test_same_shape_keeps_the_cached_graph(mode_name):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode_name == "graph" else ms.PYNATIVE_MODE)
    try:
        net = Affine(np.ones((2, 2), np.float32), np.zeros(2, np.float32))
        x = Tensor(np.array([[1.0, 2.0]], np.float32))
        np.testing.assert_allclose(net(x).asnumpy(), [[3.0, 3.0]])
        for k in range(2, 5):
            net.w.set_data(Tensor(np.full((2, 2), float(k), np.float32)))
            np.testing.assert_allclose(net(x).asnumpy(), [[3.0 * k, 3.0 * k]])
        # data of another dtype is cast to the parameter's: the graph stays the same too
        net.w.set_data(Tensor(np.full((2, 2), 0.5, np.float64)))
        assert net.w.dtype == ms.float32
        np.testing.assert_allclose(net(x).asnumpy(), [[1.5, 1.5]])
        assert compiles(net) == (1 if mode_name == "graph" else 0)
    finally:
        ms.set_context(mode=old)


def test_gradient_after_a_new_shape(mode):
    """d/dw sum(x * w) = x and d/dw sum(w * w) = 2w: the gradient graph is compiled again for
    the new shape too."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            return (x * self.w).sum() + (self.w * self.w).sum()

    net = Net()
    grad = ops.GradOperation(get_by_list=True)(net, net.trainable_params())
    x = np.array([3.0, -1.0], np.float32)
    (g,) = grad(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), x + 2 * np.array([1.0, 2.0]), rtol=1e-6)
    w = np.array([0.5, -2.0, 4.0], np.float32)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    net.w.set_data(Tensor(w))
    (g,) = grad(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), x + 2 * w, rtol=1e-6)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), (x * w).sum() + (w * w).sum(),
                               rtol=1e-6)


def test_jit_function_reading_a_parameter_recompiles():
    p = Parameter(Tensor(np.ones((2,), np.float32)), name="p")

    @ms.jit
    def f(x):
        return x * p

    np.testing.assert_allclose(f(Tensor(np.float32(3.0))).asnumpy(), [3.0, 3.0])
    p.set_data(Tensor(np.arange(4, dtype=np.float32)))
    np.testing.assert_allclose(f(Tensor(np.float32(3.0))).asnumpy(), [0.0, 3.0, 6.0, 9.0])
    assert f._graph.num_compiles == 2


def test_recompile_log_names_the_parameter(monkeypatch, capsys):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Affine(np.ones((2, 2), np.float32), np.zeros(2, np.float32))
        x = Tensor(np.ones((1, 2), np.float32))
        net(x)
        monkeypatch.setenv("MYCEL_LOG_RECOMPILE", "1")
        net.b.set_data(Tensor(np.zeros((1, 2), np.float32)))
        capsys.readouterr()
        np.testing.assert_allclose(net(x).asnumpy(), [[2.0, 2.0]])
        log = capsys.readouterr().err
        assert "Parameter 'b' changed from f32[2] to f32[1, 2]" in log, log
    finally:
        ms.set_context(mode=old)


def test_set_data_errors():
    i = Parameter(Tensor(np.array([1, 2], np.int32)), name="i")
    with pytest.raises(TypeError, match="float cannot be set into the Int32 parameter 'i'"):
        i.set_data(1.5)
    for bad in (np.zeros(2, np.float32), [1.0, 2.0], "x", None, True):
        with pytest.raises(TypeError, match="must be a Tensor, an int or a float"):
            i.set_data(bad)
    np.testing.assert_array_equal(i.asnumpy(), [1, 2])  # unchanged by the refused calls
    # a float Tensor into an int parameter is cast (MindSpore's F.cast), as is an int
    i.set_data(Tensor(np.array([2.7, -1.2, 3.0], np.float32)))
    assert i.dtype == ms.int32
    np.testing.assert_array_equal(i.asnumpy(), np.array([2.7, -1.2, 3.0], np.float32).astype(
        np.int32))
    i.set_data(7)
    assert i.shape == () and i.asnumpy() == 7


def test_unnamed_parameters_get_unique_generated_names(mode):
    """MindSpore's rule: an unnamed Parameter is "Parameter#<k>" (unique), which a Cell
    attribute replaces by the attribute's name; blank names generate one too."""
    from mycel.common.parameter import _is_parameter_generated
    a, b = Parameter(Tensor([1.0])), Parameter(Tensor([2.0]), name="  ")
    assert _is_parameter_generated(a.name) and _is_parameter_generated(b.name)
    assert a.name != b.name and not _is_parameter_generated("w")
    assert Parameter(Tensor([1.0]), name=" w ").name == "w"
    pair = ms.ParameterTuple((a, b))  # distinct names: allowed

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([3.0]))
            self.pair = pair

        def construct(self):
            return self.w + self.pair[0] + self.pair[1]

    net = Net()
    assert net.w.name == "w"
    np.testing.assert_allclose(net().asnumpy(), [6.0])


def test_rebinding_a_parameter_attribute_reads_the_new_object(mode):
    """`net.w = Parameter(...)` (another object, same shape) after a call: the next call reads
    the new Parameter in both modes (the graph read the old object: it compiles again), also
    through an enclosing cell; the graph for the old binding is not run."""

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

        def construct(self, x):
            return x + self.w

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x) * 2.0

    outer = Outer()
    x = Tensor(np.array([1.0, -1.0], np.float32))
    np.testing.assert_allclose(outer(x).asnumpy(), [4.0, 0.0])
    outer.inner.w = Parameter(Tensor(np.array([5.0, 6.0], np.float32)), name="w")
    np.testing.assert_allclose(outer(x).asnumpy(), [12.0, 10.0])
    np.testing.assert_allclose(outer.inner(x).asnumpy(), [6.0, 5.0])
    outer.inner.w = outer.inner.w  # the same object: nothing to compile again
    if mode == ms.GRAPH_MODE:
        assert compiles(outer) == 2
    np.testing.assert_allclose(outer(x).asnumpy(), [12.0, 10.0])
    if mode == ms.GRAPH_MODE:
        assert compiles(outer) == 2
