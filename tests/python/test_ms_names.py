"""MindSpore 2.x names that MindSpore programs import and mycel lacked: ops.matrix_band_part
(P.MatrixBandPart), ops.padding (P.Padding), mindspore.common.Tensor,
mindspore.train.serialization.export/load and mindspore.common.api._pynative_executor;
values against numpy, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops
from mycel.ops import functional as F
from mycel.ops import operations as P

RNG = np.random.default_rng(7)


def np_band(x, lower, upper):
    m, n = x.shape[-2:]
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    keep = np.ones((m, n), bool)
    if lower >= 0:
        keep &= (i - j) <= lower
    if upper >= 0:
        keep &= (j - i) <= upper
    return np.where(keep, x, 0)


class Band(nn.Cell):
    def __init__(self, lower, upper):
        super().__init__()
        self.lower, self.upper = lower, upper
        self.op = P.MatrixBandPart()

    def construct(self, x):
        return self.op(x, self.lower, self.upper)


@pytest.mark.parametrize("shape", [(1, 1), (4, 7), (7, 4), (2, 3, 5, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_matrix_band_part_matches_numpy(mode, shape, dtype):
    x = (RNG.standard_normal(shape) * 10).astype(dtype)
    for lower in (-1, 0, 1, 3):
        for upper in (-1, 0, 2):
            want = np_band(x, lower, upper)
            got = Band(lower, upper)(ms.Tensor(x)).asnumpy()
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(
                F.matrix_band_part(ms.Tensor(x), lower, upper).asnumpy(), want)
    # the triangles as special cases
    np.testing.assert_array_equal(ops.matrix_band_part(ms.Tensor(x), -1, 0).asnumpy(),
                                  np.tril(x))
    np.testing.assert_array_equal(ops.matrix_band_part(ms.Tensor(x), 0, -1).asnumpy(),
                                  np.triu(x))


def test_matrix_band_part_gradient_is_the_mask():
    x = ms.Tensor(RNG.standard_normal((3, 4)))
    g = ms.grad(lambda t: ops.matrix_band_part(t, 1, 0))(x).asnumpy()
    np.testing.assert_array_equal(g, np_band(np.ones((3, 4)), 1, 0))


def test_matrix_band_part_errors():
    with pytest.raises(ValueError, match="matrix_band_part.*at least 2 dimensions"):
        ops.matrix_band_part(ms.Tensor(np.ones(3, np.float32)), 1, 1)
    with pytest.raises(TypeError, match="matrix_band_part.*'lower' must be an int"):
        ops.matrix_band_part(ms.Tensor(np.ones((3, 3), np.float32)), 1.5, 1)


class Pad(nn.Cell):
    def __init__(self, size):
        super().__init__()
        self.op = P.Padding(size)

    def construct(self, x):
        return self.op(x)


@pytest.mark.parametrize("shape", [(2, 1), (2, 4, 1), (3, 4, 5, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.bool_, np.int64])
@pytest.mark.parametrize("size", [1, 2, 10])
def test_padding_matches_numpy(mode, shape, dtype, size):
    x = (RNG.standard_normal(shape) * 100).astype(dtype)
    want = np.pad(x, [(0, 0)] * (len(shape) - 1) + [(0, size - 1)])
    got = Pad(size)(ms.Tensor(x)).asnumpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ops.padding(ms.Tensor(x), size).asnumpy(), want)


def test_padding_errors():
    with pytest.raises(ValueError, match="padding.*last dimension of the input must be 1"):
        ops.padding(ms.Tensor(np.ones((2, 3), np.float32)), 4)
    with pytest.raises(ValueError, match="padding.*at least 1"):
        ops.padding(ms.Tensor(np.ones((2, 1), np.float32)), 0)
    with pytest.raises(TypeError, match="padding.*must be an int"):
        P.Padding(2.0)(ms.Tensor(np.ones((2, 1), np.float32)))


def test_module_paths_mindspore_programs_import():
    from mycel.common import Tensor
    from mycel.common.api import _pynative_executor
    from mycel.train.serialization import export, load
    assert Tensor is ms.Tensor
    assert export is ms.export and load is ms.load
    x = ms.Tensor(np.ones(3, np.float32)) * 2
    _pynative_executor.sync()  # waits for queued device work; the values are all there
    np.testing.assert_array_equal(x.asnumpy(), [2, 2, 2])


class ArgWithValue(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        return self.op(x)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_arg_with_value_matches_numpy(mode, axis, keep_dims, dtype):
    x = (RNG.standard_normal((3, 4, 5)) * 10).astype(dtype)
    for op, arg, red in ((P.ArgMaxWithValue, np.argmax, np.max),
                         (P.ArgMinWithValue, np.argmin, np.min)):
        index, value = ArgWithValue(op(axis=axis, keep_dims=keep_dims))(ms.Tensor(x))
        assert index.dtype == ms.int32 and value.dtype == ms.Tensor(x).dtype
        np.testing.assert_array_equal(index.asnumpy(), arg(x, axis, keepdims=keep_dims))
        np.testing.assert_array_equal(value.asnumpy(), red(x, axis, keepdims=keep_dims))


def test_arg_with_value_gradient_goes_to_the_maximum():
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    g = ms.grad(lambda t: P.ArgMaxWithValue(axis=1)(t)[1].sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(g, [[0, 1, 0], [1, 0, 0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_l2_loss_matches_numpy(mode, dtype):
    x = RNG.standard_normal((4, 6)).astype(dtype)
    got = ArgWithValue(P.L2Loss())(ms.Tensor(x)).asnumpy()
    assert got.shape == () and got.dtype == dtype
    rtol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(got, (x.astype(np.float64) ** 2).sum() / 2, rtol=rtol)
    g = ms.grad(P.L2Loss())(ms.Tensor(x.astype(np.float64))).asnumpy()
    np.testing.assert_allclose(g, x.astype(np.float64), rtol=1e-12)


def test_vmap_is_reachable_where_mindspore_programs_import_it():
    # the transform itself is tested in test_vmap.py
    from mycel.ops.functional import vmap
    assert vmap is ops.vmap is ms.vmap
