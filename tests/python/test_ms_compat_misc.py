"""MindSpore API details found by MindSpore's own CPU op and Tensor tests: nn.Pad's three modes
against numpy.pad (values, both modes, gradients against torch), the `dim` spelling of
Tensor.cumsum / Tensor.index_select, and Tensor(shape=None, dtype=...) placeholders of any
rank in set_inputs."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops

_NP_MODE = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


@pytest.mark.parametrize("pads", [((1, 2), (2, 3)), ((0, 0), (3, 1)), ((2, 0), (0, 0))])
@pytest.mark.parametrize("mode_name", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_nn_pad_matches_numpy(mode, pads, mode_name):
    x = np.random.RandomState(0).standard_normal((4, 5)).astype(np.float32)
    got = nn.Pad(pads, mode_name)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x, pads, mode=_NP_MODE[mode_name]))


@pytest.mark.parametrize("mode_name,torch_mode", [("REFLECT", "reflect"),
                                                  ("CONSTANT", "constant")])
def test_nn_pad_gradient_matches_torch(mode, mode_name, torch_mode):
    x = np.random.RandomState(1).standard_normal((2, 3, 5)).astype(np.float64)
    w = np.random.RandomState(2).standard_normal((2, 3 + 3, 5 + 4))
    pad = nn.Pad(((0, 0), (1, 2), (2, 2)), mode_name)
    g = ms.grad(lambda t: (pad(t) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    y = torch.nn.functional.pad(tx[None], (2, 2, 1, 2), mode=torch_mode)[0]
    (y * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-12)


def test_nn_pad_bad_input():
    with pytest.raises(ValueError, match="'mode'"):
        nn.Pad(((1, 1),), "WRAP")
    with pytest.raises(TypeError, match="'paddings'"):
        nn.Pad((0, 2))  # pairs are needed
    # a negative padding is a ValueError when the layer is called (MindSpore's order)
    with pytest.raises(ValueError, match="non-negative"):
        nn.Pad(((1, -1),))(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="at most 2"):
        nn.Pad(((3, 0),), "REFLECT")(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="2 pairs"):
        nn.Pad(((1, 1), (1, 1)))(Tensor(np.ones(3, np.float32)))


def test_cumsum_and_index_select_take_dim():
    x = np.arange(12.0).reshape(3, 4)
    t = Tensor(x)
    np.testing.assert_array_equal(t.cumsum(dim=1).asnumpy(), np.cumsum(x, 1))
    np.testing.assert_array_equal(t.cumsum(dim=0, dtype=ms.float32).asnumpy(), np.cumsum(x, 0))
    np.testing.assert_array_equal(t.cumsum().asnumpy(), np.cumsum(x))
    idx = np.array([2, 0])
    np.testing.assert_array_equal(t.index_select(dim=1, index=Tensor(idx)).asnumpy(), x[:, idx])
    np.testing.assert_array_equal(t.index_select(0, Tensor(idx)).asnumpy(), x[idx])
    with pytest.raises(TypeError, match="not both"):
        t.cumsum(0, dim=1)


def test_any_rank_placeholder_in_set_inputs():
    p = Tensor(shape=None, dtype=ms.float32)
    assert p.shape == (-2,) and p.dtype == ms.float32

    class Net(nn.Cell):
        def construct(self, x):
            return ops.exp(x) * 2

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        net.set_inputs(Tensor(shape=None, dtype=ms.float32))
        for shape in [(3,), (2, 4), (1, 2, 3)]:
            x = np.random.RandomState(3).standard_normal(shape).astype(np.float32)
            np.testing.assert_allclose(net(Tensor(x)).asnumpy(), np.exp(x) * 2, rtol=1e-6)
    finally:
        ms.set_context(mode=old)
    with pytest.raises(TypeError, match="needs input_data"):
        Tensor()


def _unique_with_pad_oracle(row, pad):
    """numpy: unique values in first-occurrence order (NaN never equal), padded; indices."""
    seen, y, idx = {}, [], []
    for v in row:
        key = ("nan", len(y)) if v != v else v
        if key not in seen:
            seen[key] = len(y)
            y.append(v)
        idx.append(seen[key])
    return np.array(y + [pad] * (len(row) - len(y)), row.dtype), np.array(idx)


class _UniqueNet(nn.Cell):
    def __init__(self, pad):
        super().__init__()
        self.uniq = ops.operations.UniqueWithPad()
        self.pad = pad

    def construct(self, x):
        return self.uniq(x, self.pad)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_unique_with_pad_matches_oracle(mode, dtype):
    rng = np.random.RandomState(4)
    x = rng.randint(-3, 4, size=(3, 9)).astype(dtype)
    if dtype in (np.float32, np.float64):
        x[1, 2] = x[1, 5] = np.nan
    y, idx = _UniqueNet(-7)(Tensor(x))
    assert y.dtype == Tensor(x).dtype and y.shape == x.shape and idx.shape == x.shape
    for r in range(3):
        want_y, want_idx = _unique_with_pad_oracle(x[r], -7)
        np.testing.assert_array_equal(y.asnumpy()[r], want_y)
        np.testing.assert_array_equal(idx.asnumpy()[r], want_idx)
    y1, idx1 = _UniqueNet(0)(Tensor(x[0]))
    want_y, want_idx = _unique_with_pad_oracle(x[0], 0)
    np.testing.assert_array_equal(y1.asnumpy(), want_y)
    np.testing.assert_array_equal(idx1.asnumpy(), want_idx)


def test_unique_with_pad_dynamic_length(mode):
    net = _UniqueNet(0)
    net.set_inputs(Tensor(shape=[None], dtype=ms.int32))
    for n in (4, 8, 1):
        x = np.random.RandomState(n).randint(0, 3, size=n).astype(np.int32)
        y, idx = net(Tensor(x))
        want_y, want_idx = _unique_with_pad_oracle(x, 0)
        np.testing.assert_array_equal(y.asnumpy(), want_y)
        np.testing.assert_array_equal(idx.asnumpy(), want_idx)


def test_unique_with_pad_bad_input():
    with pytest.raises(ValueError, match="UniqueWithPad"):
        ops.unique_with_pad(Tensor(np.ones((2, 2, 2), np.float32)), 0)
    with pytest.raises(TypeError, match="UniqueWithPad"):
        ops.unique_with_pad(Tensor(np.ones(3, np.bool_)), 0)


_INPLACE = [
    ("add_", lambda t, o: t.add_(o, alpha=2), lambda a, b: a + 2 * b),
    ("sub_", lambda t, o: t.sub_(o), lambda a, b: a - b),
    ("mul_", lambda t, o: t.mul_(o), lambda a, b: a * b),
    ("div_", lambda t, o: t.div_(o), lambda a, b: a / b),
    ("floor_divide_", lambda t, o: t.floor_divide_(o), lambda a, b: np.floor_divide(a, b)),
    ("copy_", lambda t, o: t.copy_(o), lambda a, b: np.broadcast_to(b, a.shape)),
    ("clamp_", lambda t, o: t.clamp_(-0.5, 0.5), lambda a, b: np.clip(a, -0.5, 0.5)),
    ("exp_", lambda t, o: t.exp_(), lambda a, b: np.exp(a)),
    ("fill_", lambda t, o: t.fill_(2.5), lambda a, b: np.full_like(a, 2.5)),
    ("zero_", lambda t, o: t.zero_(), lambda a, b: np.zeros_like(a)),
]


@pytest.mark.parametrize("case", _INPLACE, ids=[c[0] for c in _INPLACE])
def test_inplace_methods_write_their_tensor(case):
    _, method, want = case
    rng = np.random.RandomState(5)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = (rng.standard_normal(4) + 3).astype(np.float32)
    t = Tensor(a)
    view = t[1:]
    out = method(t, Tensor(b))
    assert out is t
    np.testing.assert_allclose(t.asnumpy(), want(a, b), rtol=1e-6)
    np.testing.assert_allclose(view.asnumpy(), want(a, b)[1:], rtol=1e-6)  # views see it


class _MulThenUse(nn.Cell):
    def construct(self, x, y):
        z = x.mul_(y)
        return z + 1


class _MulThenRead(nn.Cell):
    def construct(self, x, y):
        x.mul_(y)
        return x + 1


@pytest.mark.parametrize("net", [
    _MulThenUse,
    _MulThenRead,
])
def test_inplace_method_in_graph_mode_updates_the_input(net):
    Net = net

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
        out = Net()(x, Tensor(np.array([2.0, 2.0, 2.0], np.float32)))
    finally:
        ms.set_context(mode=old)
    np.testing.assert_array_equal(out.asnumpy(), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(x.asnumpy(), [2.0, 4.0, 6.0])


def test_inplace_keeps_dtype_and_shape():
    t = Tensor(np.array([[1, 2], [3, 4]], np.int64))
    t.copy_(Tensor(np.array([5.7, 6.2], np.float32)))  # cast (truncation) and broadcast
    np.testing.assert_array_equal(t.asnumpy(), [[5, 6], [5, 6]])
    assert t.dtype == ms.int64
    with pytest.raises(ValueError):
        Tensor(np.ones(3, np.float32)).add_(Tensor(np.ones((2, 3), np.float32)))


class _IndexAdd(nn.Cell):
    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def construct(self, x, idx, upd):
        return ops.index_add(x, idx, upd, self.axis)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_index_add_matches_numpy_add_at(mode, dtype, axis):
    rng = np.random.RandomState(6)
    x = rng.randint(-5, 5, size=(4, 5)).astype(dtype)
    n = x.shape[axis]
    idx = np.array([0, n - 1, 0, 2], np.int32)  # a repeated index accumulates
    upd_shape = list(x.shape)
    upd_shape[axis] = len(idx)
    upd = rng.randint(-3, 4, size=upd_shape).astype(dtype)
    want = x.copy()
    np.add.at(want, (slice(None), idx) if axis % 2 else idx, upd)
    t = Tensor(x)
    got = _IndexAdd(axis)(t, Tensor(idx), Tensor(upd))
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(t.asnumpy(), want)  # in place


def test_inplace_index_add_is_importable_from_math_func():
    from mycel.ops.function.math_func import F
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    F.inplace_index_add(x, Tensor(np.array([1], np.int32)), Tensor(np.array([[1.0, 1.0]])), 0)
    np.testing.assert_array_equal(x.asnumpy(), [[1.0, 2.0], [4.0, 5.0]])
    with pytest.raises(ValueError, match="'updates' must have shape"):
        ops.index_add(x, Tensor(np.array([0], np.int32)), Tensor(np.ones((2, 2))), 0)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (5, 5)])
def test_slogdet_and_det_match_numpy(mode, shape):
    a = np.random.RandomState(7).standard_normal(shape)
    sign, logabs = run_cell(lambda x: x.slogdet(), Tensor(a))
    want_sign, want_log = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.asnumpy(), want_sign)
    np.testing.assert_allclose(logabs.asnumpy(), want_log, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run_cell(ops.det, Tensor(a)).asnumpy(), np.linalg.det(a),
                               rtol=1e-12, atol=1e-12)


def test_slogdet_of_singular_and_float32():
    sign, logabs = ops.slogdet(Tensor(np.array([[1.0, 2.0], [2.0, 4.0]])))
    assert sign.asnumpy() == 0 and logabs.asnumpy() == -np.inf
    a = np.random.RandomState(8).standard_normal((4, 4)).astype(np.float32)
    s32, l32 = ops.slogdet(Tensor(a))
    assert s32.dtype == ms.float32
    np.testing.assert_allclose(l32.asnumpy(), np.linalg.slogdet(a.astype(np.float64))[1],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="slogdet"):
        ops.slogdet(Tensor(np.ones((2, 3))))


class _Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


def run_cell(fn, x):
    return _Call(fn)(x)


@pytest.mark.parametrize("repeats,dim", [(2, 0), (3, 1), (2, None), ((1, 0, 2), 1), (0, 0)])
def test_repeat_interleave_matches_numpy(mode, repeats, dim):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run_cell(lambda t: t.repeat_interleave(repeats, dim), Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), np.repeat(x, repeats, axis=dim))
    with pytest.raises(ValueError, match="repeat_interleave"):
        ops.repeat_interleave(Tensor(x), (1, 2), 1)


def _scatter_oracle(x, axis, index, src, add=False):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[axis] = index[pos]
        if add:
            out[tuple(tgt)] += src[pos]
        else:
            out[tuple(tgt)] = src[pos]
    return out


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_matches_oracle(mode, axis):
    rng = np.random.RandomState(9)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    n = x.shape[axis]
    # unique targets along the axis for each line, so the result is defined
    index = np.stack([rng.permutation(n)[:3] for _ in range(3)])
    index = index if axis % 2 else index.T
    src = rng.standard_normal((4, 4)).astype(np.float32)
    got = run_cell(lambda t: t.scatter(axis, Tensor(index), Tensor(src)), Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), _scatter_oracle(x, axis % 2, index, src))
    add = ops.tensor_scatter_elements(Tensor(x), Tensor(index), Tensor(src[:3, :3]), axis, "add")
    np.testing.assert_allclose(add.asnumpy(), _scatter_oracle(x, axis % 2, index, src[:3, :3],
                                                              add=True), rtol=1e-6)


def test_approximate_equal_method(mode):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([1.2, 4.0, 3.0], np.float32)
    got = run_cell(lambda t: t.approximate_equal(Tensor(y), 0.5), Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), np.abs(x - y) < 0.5)
    np.testing.assert_array_equal(Tensor.approximate_equal(Tensor(x), Tensor(y)).asnumpy(),
                                  np.abs(x - y) < 1e-5)


def test_set_inputs_takes_sequences_and_numbers_compiled_by_value():
    class Net(nn.Cell):
        def construct(self, xs, k):
            return xs[0] * k + xs[1]

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        net.set_inputs((Tensor(shape=[None], dtype=ms.float32),
                        Tensor(shape=None, dtype=ms.float32)), 2)
        for n, k in [(3, 2), (5, 3)]:
            a = np.arange(n, dtype=np.float32)
            got = net((Tensor(a), Tensor(a + 1)), k)
            np.testing.assert_array_equal(got.asnumpy(), a * k + a + 1)
        with pytest.raises(TypeError, match="set_inputs"):
            net.set_inputs("x", 2)
    finally:
        ms.set_context(mode=old)


def test_set_inputs_takes_tuples_of_numbers_but_not_shapes():
    net = nn.Dense(2, 2)
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32), (1,), (), 3.5)
    with pytest.raises(TypeError, match="set_inputs"):
        net.set_inputs([None, 2])
