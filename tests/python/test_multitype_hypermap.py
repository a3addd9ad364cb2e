"""ops.MultitypeFuncGraph, ops.HyperMap and ops.Map (ops/_multitype.py): dispatch on the
arguments' types, mapping over nested tuples and lists, their errors, and gradients through
them, in both modes. Oracles: the same computation written out by hand (numpy values) and
torch.autograd."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.ops import composite as C

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)

add = C.MultitypeFuncGraph("add")


@add.register("Number", "Number")
def _add_numbers(a, b):
    return a + b + 100


@add.register("Tensor", "Tensor")
def _add_tensors(a, b):
    return a * 10 + b


@add.register("Tensor", "Int")
def _add_tensor_int(a, b):
    return a - b


pick = C.MultitypeFuncGraph("pick")


@pick.register("Tensor", "Tuple")
def _pick(x, y):
    if x > 0:
        return y[0]
    return y[1]


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class _Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def test_names_are_where_mindspore_has_them():
    assert ops.MultitypeFuncGraph is C.MultitypeFuncGraph
    assert ops.HyperMap is C.HyperMap and ops.Map is C.Map


@pytest.mark.parametrize("mode", MODES)
def test_dispatch_on_types(mode):
    ms.set_context(mode=mode)
    a, b = np.array([1.5, -2.0], np.float32), np.array([0.5, 4.0], np.float32)
    out = _Call(lambda x, y: (add(x, y), add(x, 3), add(2, 5), add(1.5, True)))(Tensor(a),
                                                                                Tensor(b))
    np.testing.assert_allclose(out[0].asnumpy(), a * 10 + b)
    np.testing.assert_allclose(out[1].asnumpy(), a - 3)
    assert out[2] == 107 and out[3] == 102.5  # "Number" takes ints, floats and bools


@pytest.mark.parametrize("mode", MODES)
def test_no_registration_matches(mode):
    ms.set_context(mode=mode)
    with pytest.raises(TypeError, match="no registration matches"):
        _Call(lambda x: add(x, "s"))(Tensor(np.ones(2, np.float32)))


def test_register_checks_type_names():
    f = C.MultitypeFuncGraph("f")
    with pytest.raises(TypeError):
        f.register("Tensr")


@pytest.mark.parametrize("mode", MODES)
def test_hyper_map_nested(mode):
    ms.set_context(mode=mode)
    x, y = Tensor(np.float32(2.0)), Tensor(np.float32(-3.0))
    hm = C.HyperMap()
    out = _Call(lambda p, q: hm(add, (p, [q, 2]), (q, [p, 3])))(x, y)
    assert isinstance(out, tuple) and isinstance(out[1], list)
    np.testing.assert_allclose(out[0].asnumpy(), 2.0 * 10 - 3.0)
    np.testing.assert_allclose(out[1][0].asnumpy(), -3.0 * 10 + 2.0)
    assert out[1][1] == 105
    # HyperMap(f) and reverse order give the same values in the same positions
    out = _Call(lambda p, q: C.HyperMap(add, reverse=True)((p, q), (q, p)))(x, y)
    np.testing.assert_allclose([o.asnumpy() for o in out], [17.0, -28.0])
    out = _Call(lambda p, q: ops.Map()(add, [p, q], [1, 2]))(x, y)
    assert isinstance(out, list)
    np.testing.assert_allclose([o.asnumpy() for o in out], [1.0, -5.0])


@pytest.mark.parametrize("mode", MODES)
def test_hyper_map_errors(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="must be consistent"):
        _Call(lambda p: C.HyperMap()(add, (p, p), [p, p]))(x)
    with pytest.raises(ValueError, match="same length"):
        _Call(lambda p: C.HyperMap()(add, (p, p), (p,)))(x)


@pytest.mark.parametrize("mode", MODES)
def test_gradient_through_hyper_map(mode):
    # a registration taking a whole tuple is applied without mapping into it
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hyper_map = C.HyperMap(pick)

        def construct(self, x, y, z):
            a, b = self.hyper_map((x, y), ((z * x, x), (y, z * z)))
            return a + b

    vals = [np.float32(2.0), np.float32(-3.0), np.float32(1.5)]
    got = ops.GradOperation(get_all=True)(Net())(*[Tensor(v) for v in vals])
    t = [torch.tensor(float(v), requires_grad=True) for v in vals]
    (t[2] * t[0] + t[2] * t[2]).backward()  # x > 0 takes z * x, y < 0 takes z * z
    want = [0.0 if v.grad is None else v.grad.item() for v in t]  # y unused: 0
    np.testing.assert_allclose([g.asnumpy() for g in got], want, rtol=1e-6)
