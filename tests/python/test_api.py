"""The eager API surface: MindSpore 2.x names resolve and compute what numpy computes."""
import numpy as np
import pytest

import mycel as ms
import mycel.numpy as mnp
from mycel import ops
from mycel.ops import functional as F
from mycel.ops import operations as P


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.asnumpy() if isinstance(a, ms.Tensor) else a, b, rtol=tol,
                               atol=tol)


rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
Y = rng.standard_normal((3, 4)).astype(np.float32)


def test_tensor_construction_and_dtypes():
    assert ms.Tensor(1.0).dtype == ms.float32
    assert ms.Tensor([1, 2]).dtype == ms.int64
    assert ms.Tensor(True).dtype == ms.bool_
    assert ms.Tensor(np.ones(2, np.float64)).dtype == ms.float64
    assert ms.Tensor([1, 2], ms.float16).dtype == ms.float16
    assert ms.Tensor(X).astype(ms.bfloat16).dtype == ms.bfloat16
    assert repr(ms.float32) == "Float32"
    assert ms.Tensor(X).shape == (3, 4) and ms.Tensor(X).ndim == 2 and ms.Tensor(X).size == 12


def test_numpy_interop_shares_memory():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    shared = ms.from_numpy(a)
    a[0, 0] = 42
    assert shared.asnumpy()[0, 0] == 42
    copied = ms.Tensor(a)
    a[0, 1] = 7
    assert copied.asnumpy()[0, 1] == 1
    view = copied.asnumpy()
    view[1, 1] = -1
    assert copied.asnumpy()[1, 1] == -1


def test_functional_math_matches_numpy():
    x, y = ms.Tensor(X), ms.Tensor(Y)
    close(ops.add(x, y), X + Y)
    close(ops.sub(x, 2.0), X - 2)
    close(ops.mul(x, y), X * Y)
    close(ops.div(x, y), X / Y)
    close(ops.exp(x), np.exp(X))
    close(ops.tanh(x), np.tanh(X))
    close(ops.sigmoid(x), 1 / (1 + np.exp(-X)))
    close(ops.relu(x), np.maximum(X, 0))
    close(ops.sqrt(ops.abs(x)), np.sqrt(np.abs(X)))
    close(ops.log(ops.abs(x)), np.log(np.abs(X)))
    close(ops.maximum(x, y), np.maximum(X, Y))
    close(ops.pow(ops.abs(x), 2.5), np.abs(X) ** 2.5, 1e-4)


def test_reductions_and_methods():
    x = ms.Tensor(X)
    close(ops.sum(x), X.sum())
    close(ops.sum(x, 1, keepdim=True), X.sum(1, keepdims=True))
    close(ops.mean(x, 0), X.mean(0))
    close(x.sum(axis=1), X.sum(1))
    close(x.mean(), X.mean())
    close(x.max(), X.max())
    close(x.max(axis=0), X.max(0))
    values, indices = ops.max(x, 1)
    close(values, X.max(1))
    np.testing.assert_array_equal(indices.asnumpy(), X.argmax(1))
    np.testing.assert_array_equal(ops.argmax(x, 1).asnumpy(), X.argmax(1))
    np.testing.assert_array_equal(x.argmax(axis=0).asnumpy(), X.argmax(0))


def test_shape_methods():
    x = ms.Tensor(X)
    close(x.reshape(4, 3), X.reshape(4, 3))
    close(x.reshape((2, -1)), X.reshape(2, -1))
    close(x.transpose(), X.T)
    close(x.T, X.T)
    close(x.flatten(), X.flatten())
    close(x.expand_dims(0), X[None])
    close(x.expand_dims(0).squeeze(0), X)
    close(ops.flatten(ms.Tensor(np.ones((2, 3, 4), np.float32))), np.ones((2, 12)))
    close(ops.swapaxes(ms.Tensor(np.ones((2, 3, 4), np.float32)), 0, 2), np.ones((4, 3, 2)))
    close(x.swapaxes(0, 1), X.T)
    close(ops.concat((x, x), 1), np.concatenate([X, X], 1))
    close(ops.stack((x, x), 0), np.stack([X, X]))
    parts = ops.split(x, 2, axis=1)
    assert len(parts) == 2
    close(parts[1], X[:, 2:])


def test_matmul_and_nn_functions():
    a = rng.standard_normal((5, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    close(ops.matmul(ms.Tensor(a), ms.Tensor(b)), a @ b)
    close(ms.Tensor(a) @ ms.Tensor(b), a @ b)
    c = rng.standard_normal((2, 5, 3)).astype(np.float32)
    close(ops.bmm(ms.Tensor(c), ms.Tensor(np.broadcast_to(b, (2, 3, 4)).copy())), c @ b)
    close(ops.matmul(ms.Tensor(a[0]), ms.Tensor(b)), a[0] @ b)
    w, bias = rng.standard_normal((6, 3)).astype(np.float32), np.arange(6, dtype=np.float32)
    close(ops.dense(ms.Tensor(a), ms.Tensor(w), ms.Tensor(bias)), a @ w.T + bias)
    close(ops.dense(ms.Tensor(c), ms.Tensor(w)), c @ w.T)
    sm = np.exp(X) / np.exp(X).sum(-1, keepdims=True)
    close(ops.softmax(ms.Tensor(X)), sm)
    close(ops.log_softmax(ms.Tensor(X)), np.log(sm))
    labels = np.array([0, 3, 1], np.int32)
    ce = -np.log(sm[np.arange(3), labels]).mean()
    close(ops.cross_entropy(ms.Tensor(X), ms.Tensor(labels)), ce)
    oh = ops.one_hot(ms.Tensor(labels), 4)
    close(oh, np.eye(4)[labels])


def test_primitive_classes_and_functional_module():
    x, y = ms.Tensor(X), ms.Tensor(Y)
    close(P.Mul()(x, y), X * Y)
    close(ops.Mul()(x, y), X * Y)
    close(F.tensor_add(x, y), X + Y)
    close(P.ReduceSum(keep_dims=True)(x, (1,)), X.sum(1, keepdims=True))
    close(P.Transpose()(x, (1, 0)), X.T)
    assert P.ReduceSum(keep_dims=True).attrs["keep_dims"] is True
    with pytest.raises(TypeError, match="at most"):
        P.Add(1)


def test_mycel_numpy_basics():
    close(mnp.tanh(ms.Tensor(X)), np.tanh(X))
    close(mnp.exp(ms.Tensor(X)), np.exp(X))
    close(mnp.sum(ms.Tensor(X), axis=0), X.sum(0))
    close(mnp.arange(5), np.arange(5))
    close(mnp.zeros((2, 3)), np.zeros((2, 3)))
    close(mnp.dot(ms.Tensor(X), ms.Tensor(Y.T)), X @ Y.T)


def test_operators_with_python_scalars_and_promotion():
    x = ms.Tensor(X)
    close(2 * x + 1, 2 * X + 1)
    close(1 - x, 1 - X)
    close(x / 2, X / 2)
    close(-x, -X)
    i = ms.Tensor([1, 2, 3], ms.int32)
    assert (i + 1).dtype == ms.int32
    assert (i + 1.5).dtype == ms.float32
    assert (i / 2).dtype == ms.float32
    assert (i + ms.Tensor([1.0, 2, 3])).dtype == ms.float32
    assert (x > 0).dtype == ms.bool_
    np.testing.assert_array_equal((i % 2).asnumpy(), np.array([1, 2, 3]) % 2)
    np.testing.assert_array_equal(((x > 0) & (x < 1)).asnumpy(), (X > 0) & (X < 1))


def test_indexing_and_assignment():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = ms.Tensor(a)
    close(x[1], a[1])
    close(x[-1, ::2, 1:3], a[-1, ::2, 1:3])
    close(x[..., -1], a[..., -1])
    close(x[:, None, 0], a[:, None, 0])
    close(x[x > 10], a[a > 10])
    close(x[ms.Tensor([1, 0])], a[[1, 0]])
    x[0, 0] = 100.0
    a[0, 0] = 100
    close(x, a)
    x[x > 20] = -1.0
    a[a > 20] = -1
    close(x, a)


def test_random_is_reproducible_with_set_seed():
    ms.set_seed(123)
    a = ops.standard_normal((4, 5))
    b = ops.uniform((3,), 0.0, 1.0)
    ms.set_seed(123)
    close(ops.standard_normal((4, 5)), a.asnumpy(), 0)
    close(ops.uniform((3,), 0.0, 1.0), b.asnumpy(), 0)


def test_context_modes():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    with pytest.raises(ValueError, match="mode must be"):
        ms.set_context(mode=7)
    with pytest.raises(ValueError, match="device_target"):
        ms.set_context(device_target="Ascend")


def test_tensor_methods_written_in_python():
    x = ms.Tensor(X)
    close(x.var(), X.var())
    close(x.var(axis=1, ddof=1), X.var(1, ddof=1))
    close(x.std(axis=0), X.std(0))
    close(x.prod(axis=1), X.prod(1))
    close(x.min(axis=1), X.min(1))
    assert bool(x.abs().all()) == bool(np.abs(X).all())
    np.testing.assert_array_equal((x > 1).any(axis=1).asnumpy(), (X > 1).any(1))
    np.testing.assert_array_equal((x > -5).all(axis=0).asnumpy(), (X > -5).all(0))
    close(x.clip(-0.5, 0.5), np.clip(X, -0.5, 0.5))
    close(x.clamp(min=0.0), np.maximum(X, 0))
    close(x.tile((2, 1)), np.tile(X, (2, 1)))
    close(x.repeat(1, 2), np.tile(X, (1, 2)))
    close(x.permute(1, 0), X.T)
    close(x.view(2, 6), X.reshape(2, 6))
    close(x.ravel(), X.ravel())
    close(x.unsqueeze(1), X[:, None])
    close(x.broadcast_to((2, 3, 4)), np.broadcast_to(X, (2, 3, 4)))
    close(x.softmax(), np.exp(X) / np.exp(X).sum(-1, keepdims=True))
    close(x.where(x > 0, 0.0), np.where(X > 0, X, 0))
    close(x.gather(ms.Tensor([2, 0]), 1), X[:, [2, 0]])
    assert x.float().dtype == ms.float32 and x.half().dtype == ms.float16
    assert x.double().dtype == ms.float64 and x.int().dtype == ms.int32
    assert x.long().dtype == ms.int64 and x.bool().dtype == ms.bool_
    assert x.tolist() == X.tolist()
    assert x.dim() == 2 and x.numel() == 12
    close(x.sum(axis=0, initial=1.0), X.sum(0) + 1)


def test_div_rounding_modes_match_torch():
    import torch
    a = np.array([7, -7, 5, -9, 0], np.int32)
    b = np.array([2, 2, -3, -4, 3], np.int32)
    for mode in ("trunc", "floor"):
        got = ops.div(ms.Tensor(a), ms.Tensor(b), rounding_mode=mode)
        want = torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=mode)
        assert got.dtype == ms.int32
        np.testing.assert_array_equal(got.asnumpy(), want.numpy())
        gotf = ops.div(ms.Tensor(a.astype(np.float32)), 2.5, rounding_mode=mode)
        wantf = torch.div(torch.tensor(a.astype(np.float32)), 2.5, rounding_mode=mode)
        np.testing.assert_allclose(gotf.asnumpy(), wantf.numpy())
    assert ops.div(ms.Tensor(a), 2, rounding_mode="trunc").dtype == ms.int32
    assert ms._mycel.result_type(ms.Tensor(a), 2.5) == ms.float32
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(ms.Tensor(a), 2, rounding_mode="round")


class _Reductions(ms.nn.Cell):
    def construct(self, x):
        return (F.reduce_sum(x), F.reduce_sum(x, 1), F.reduce_mean(x, 0), F.reduce_max(x, (0, 1)),
                F.reduce_min(x, 1), F.reduce_prod(x, 1))


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_functional_reduce_instances(mode):
    # MindSpore's F.reduce_sum etc. are primitive instances: F.reduce_sum(x, axis)
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
        got = [t.asnumpy() for t in _Reductions()(ms.Tensor(x))]
        want = [x.sum(), x.sum(1), x.mean(0), x.max(), x.min(1), x.prod(1)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    finally:
        ms.set_context(mode=old)
