"""Primitive calling conventions as in MindSpore: __init__'s positional order of the pooling
and convolution-backprop primitives (ops/primitive.py _INIT_ORDER), tensor inputs by
MindSpore's keyword names (ops/_input_names.py; compiler/specialize_prims.cc in GRAPH mode),
user primitives with a Python __call__ and an inference run as a host callback in GRAPH mode
(ops/custom_prim.py, compiler/specialize_host.cc), ScatterNd<Op>'s index rank rule and
nn.Softmax over several axes. Values against torch and numpy, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops
from mycel.ops import operations as P
from mycel.ops import PrimitiveWithInfer, prim_attr_register
from ms_cell import Fn

RNG = np.random.default_rng(29)


def _t(a):
    return ms.Tensor(a)


# ---- __init__'s positional order -------------------------------------------------------------

@pytest.mark.parametrize("name", ["AvgPool", "MaxPool"])
def test_pool_positional_order_matches_torch(mode, name):
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    tf = torch.nn.functional.avg_pool2d if name == "AvgPool" else torch.nn.functional.max_pool2d
    # kernel_size, strides, pad_mode, data_format: MindSpore's order
    got = Fn(getattr(P, name)(3, 2, "valid", "NCHW"))(_t(x)).asnumpy()
    np.testing.assert_allclose(got, tf(torch.tensor(x), 3, 2).numpy(), rtol=1e-6, atol=1e-6)
    # the 4th argument is data_format (mycel's kernels take NCHW only: a ValueError naming it)
    with pytest.raises(ValueError, match=f"{name}.*data_format"):
        Fn(getattr(P, name)(2, 1, "valid", "NHWC"))(_t(x))
    # "same" keeps ceil(7 / 2) x ceil(8 / 2)
    assert Fn(getattr(P, name)(3, 2, "same"))(_t(x)).shape == (2, 3, 4, 4)
    with pytest.raises(TypeError, match=name):
        getattr(P, name)(2, 2, "valid", "NCHW", 5)


def test_conv2d_backprop_input_positional_order_matches_torch(mode):
    dout = RNG.standard_normal((2, 4, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    # out_channel, kernel_size, pad_mode, pad, pad_list, mode, stride
    op = P.Conv2DBackpropInput(4, 3, "pad", 1, None, 1, 2)
    got = Fn(op)(_t(dout), _t(w), (2, 3, 9, 9)).asnumpy()
    want = torch.nn.grad.conv2d_input((2, 3, 9, 9), torch.tensor(w), torch.tensor(dout),
                                      stride=2, padding=1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="Conv2DBackpropInput.*pad_list"):
        P.Conv2DBackpropInput(4, 3, "pad", 1, (1, 0, 1, 0))


# ---- inputs by keyword -----------------------------------------------------------------------

def test_inputs_by_keyword(mode):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(Fn(lambda p, q: P.MatMul()(x=p, y=q))(_t(a), _t(b)).asnumpy(),
                               a @ b, rtol=1e-5)
    np.testing.assert_allclose(Fn(lambda p, q: P.MatMul()(p, y=q))(_t(a), _t(b)).asnumpy(),
                               a @ b, rtol=1e-5)
    np.testing.assert_allclose(
        Fn(lambda p: P.ReduceSum(keep_dims=True)(x=p, axis=1))(_t(a)).asnumpy(),
        a.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(
        Fn(lambda p: P.Reshape()(input_x=p, input_shape=(2, 6)))(_t(a)).asnumpy(),
        a.reshape(2, 6))
    np.testing.assert_allclose(
        Fn(lambda p, q: P.Concat(axis=0)(tensors=(p, q)))(_t(a), _t(b.T)).asnumpy(),
        np.concatenate([a, b.T]))
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    s, o = np.full(3, 1.5, np.float32), np.full(3, 0.25, np.float32)
    m, v = np.zeros(3, np.float32), np.ones(3, np.float32)
    y = Fn(lambda x, s, o, m, v: P.BatchNorm()(input_x=x, scale=s, bias=o, mean=m,
                                                variance=v)[0])(*map(_t, (x, s, o, m, v)))
    want = torch.nn.functional.batch_norm(torch.tensor(x), torch.tensor(m), torch.tensor(v),
                                          torch.tensor(s), torch.tensor(o), training=False,
                                          eps=1e-5)  # (P.BatchNorm's is_training=False)
    np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-4)


def test_bad_keywords_are_type_errors_naming_the_op(mode):
    x = _t(RNG.standard_normal((2, 3)).astype(np.float32))
    with pytest.raises(TypeError, match="Softmax.*unexpected keyword argument 'x'"):
        Fn(lambda p: P.Softmax()(x=p))(x)
    np.testing.assert_allclose(Fn(lambda p: P.Softmax()(input=p))(x).asnumpy(),
                               torch.softmax(torch.tensor(x.asnumpy()), -1).numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match="MatMul.*multiple values"):
        Fn(lambda p: P.MatMul()(p, x=p))(x)
    with pytest.raises(TypeError, match="MatMul.*missing input"):
        Fn(lambda p: P.MatMul()(y=p))(x)


# ---- user primitives with a Python implementation --------------------------------------------

class NpSortScale(PrimitiveWithInfer):
    """Sorts along the last axis in numpy and scales: code graph mode cannot compile."""

    @prim_attr_register
    def __init__(self, scale=2.0):
        self.init_prim_io_names(inputs=["x"], outputs=["y"])

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype

    def __call__(self, x):
        return ms.Tensor((np.sort(x.asnumpy(), -1) * self.scale).astype(x.asnumpy().dtype))


class NpMinMax(PrimitiveWithInfer):
    """Two outputs, inferred by __infer__ (MindSpore's dict form)."""

    @prim_attr_register
    def __init__(self):
        pass

    def __infer__(self, x):
        out = x["shape"][:-1]
        return {"shape": (out, out), "dtype": (x["dtype"], ms.int64), "value": None}

    def __call__(self, x):
        a = x.asnumpy()
        return ms.Tensor(a.min(-1)), ms.Tensor(a.argmax(-1).astype(np.int64))


class WrongShape(NpSortScale):
    def infer_shape(self, x_shape):
        return x_shape[:-1]


class Doubling(nn.Cell):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def construct(self, x):
        y = self.p(x)
        return y + 1.0, y.shape


def test_user_primitive_runs_its_python_call(mode):
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    y, shape = Doubling(NpSortScale(3.0))(_t(x))
    np.testing.assert_allclose(y.asnumpy(), np.sort(x, -1) * 3.0 + 1.0, rtol=1e-6)
    assert tuple(shape) == (3, 5)
    lo, idx = Fn(NpMinMax())(_t(x))
    np.testing.assert_allclose(lo.asnumpy(), x.min(-1))
    np.testing.assert_array_equal(idx.asnumpy(), x.argmax(-1))
    assert idx.dtype == ms.int64
    assert NpSortScale(4.0).scale == 4.0 and NpSortScale(4.0).attrs["scale"] == 4.0


class NpCube(PrimitiveWithInfer):
    """x ** 3 in numpy, with MindSpore's custom backward."""

    @prim_attr_register
    def __init__(self):
        pass

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype

    def __call__(self, x):
        return ms.Tensor(x.asnumpy() ** 3)

    def bprop(self, x, out, dout):
        return (3 * x * x * dout,)


def test_user_primitive_with_bprop_is_differentiable(mode):
    x = RNG.standard_normal((2, 3))
    w = RNG.standard_normal((2, 3))
    cube = NpCube()
    f = Fn(ops.grad(lambda v: (cube(v) * _t(w)).sum()))
    np.testing.assert_allclose(f(_t(x)).asnumpy(), 3 * x * x * w, rtol=1e-12)
    np.testing.assert_allclose(Fn(cube)(_t(x)).asnumpy(), x ** 3, rtol=1e-12)


def test_user_primitive_result_is_checked_against_its_inference():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="WrongShape.*shape"):
            Doubling(WrongShape())(_t(np.ones((2, 3), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_user_primitive_without_kernel_names_itself(mode):
    class FakeOp(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass

        def infer_shape(self, x, y):
            return x

        def infer_dtype(self, x, y):
            return x

    x = _t(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="FakeOp.*no kernel"):
        Fn(FakeOp())(x, x)


# ---- ScatterNd<Op> index rank, nn.Softmax over axes ------------------------------------------

def test_scatter_nd_update_needs_indices_of_rank_two(mode):
    def upd(idx, u):
        x = ms.Parameter(_t(np.zeros((4, 3), np.float32)), name="x")
        return P.ScatterNdUpdate()(x, idx, u)

    got = Fn(upd)(_t(np.array([[1], [3]], np.int32)), _t(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[0] * 3, [1] * 3, [0] * 3, [1] * 3])
    with pytest.raises(ValueError, match="scatter_nd_update.*rank of indices"):
        Fn(upd)(_t(np.array([1], np.int32)), _t(np.ones(3, np.float32)))


@pytest.mark.parametrize("axis", [(1, 2), (-1, 0), (0, 1, 2)])
def test_softmax_over_several_axes_matches_torch(mode, axis):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float64)
    dy = RNG.standard_normal((2, 3, 4))
    net = nn.Softmax(axis)
    got = Fn(net)(_t(x)).asnumpy()
    rest = [d for d in range(3) if d not in [a % 3 for a in axis]]
    tx = torch.tensor(x, requires_grad=True)
    perm = rest + sorted(a % 3 for a in axis)
    flat = tx.permute(perm).reshape(*[x.shape[d] for d in rest], -1)
    want = torch.softmax(flat, -1).reshape([x.shape[d] for d in perm]).permute(
        list(np.argsort(perm)))
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-12)
    (want * torch.tensor(dy)).sum().backward()
    g = Fn(ops.grad(lambda v: (net(v) * _t(dy)).sum()))(_t(x)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="Softmax"):
        Fn(nn.Softmax((0, 3)))(_t(x))


def test_conv3d_positional_order_matches_torch(mode):
    x = RNG.standard_normal((1, 2, 5, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 2, 3, 3)).astype(np.float32)
    want = torch.nn.functional.conv3d(torch.tensor(x), torch.tensor(w), stride=2,
                                      padding=1).numpy()
    # MindSpore 2.x: out_channel, kernel_size, mode, pad_mode, pad, stride
    got = Fn(P.Conv3D(3, (2, 3, 3), 1, "pad", 1, 2))(_t(x), _t(w)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # MindSpore 1.x: out_channel, kernel_size, mode, stride, pad_mode, pad
    got = Fn(P.Conv3D(3, (2, 3, 3), 1, 2, "pad", 1))(_t(x), _t(w)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_partial_binds_keywords(mode):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    f = P.Partial()(P.ReduceSum(keep_dims=True), axis=(1,))
    np.testing.assert_allclose(Fn(lambda v: f(x=v))(_t(x)).asnumpy(), x.sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(Fn(lambda v: f(v))(_t(x)).asnumpy(), x.sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
