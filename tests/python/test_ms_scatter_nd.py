"""In-place ScatterNd updates of a Parameter (ops/function/scatter_func.py: P.ScatterNdAdd,
Sub, Mul, Div, Max, Min, Update and ops.scatter_nd_*): against numpy's unbuffered ufunc.at
(repeated indices apply one after the other), in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

from mycel import nn, ops, Parameter, Tensor
from mycel.ops import operations as P

RNG = np.random.default_rng(3)

UFUNC = {"ScatterNdAdd": np.add, "ScatterNdSub": np.subtract, "ScatterNdMul": np.multiply,
         "ScatterNdDiv": np.divide, "ScatterNdMax": np.maximum, "ScatterNdMin": np.minimum}


class Net(nn.Cell):
    def __init__(self, prim, x):
        super().__init__()
        self.prim = prim
        self.x = Parameter(x if isinstance(x, Tensor) else Tensor(x), name="x")

    def construct(self, indices, updates):
        self.prim(self.x, indices, updates)
        return self.x


def expected(name, x, indices, updates):
    want = x.copy()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    upd = updates.reshape((rows.shape[0],) + x.shape[k:])
    for r, u in zip(rows, upd):
        at = tuple(r)
        if name == "ScatterNdUpdate":
            want[at] = u
        elif name == "ScatterNdDiv" and x.dtype.kind == "i":
            want[at] = np.trunc(want[at] / u).astype(x.dtype)
        else:
            UFUNC[name].at(want, at, u)
    return want


@pytest.mark.parametrize("name", sorted(UFUNC) + ["ScatterNdUpdate"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8])
def test_scatter_nd_in_place_matches_numpy(mode, name, dtype):
    x = (RNG.uniform(-5, 5, (4, 3, 2))).astype(dtype)
    indices = np.array([[[1, 2], [3, 0]], [[1, 2], [0, 1]]], np.int32)  # [1, 2] twice
    updates = RNG.uniform(1, 3, (2, 2, 2)).astype(dtype)
    net = Net(getattr(P, name)(), x)
    got = net(Tensor(indices), Tensor(updates)).asnumpy()
    want = expected(name, x, indices, updates)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(net.x.asnumpy(), want, rtol=1e-6)  # the Parameter itself


@pytest.mark.parametrize("fn, name", [(ops.scatter_nd_add, "ScatterNdAdd"),
                                      (ops.scatter_nd_mul, "ScatterNdMul"),
                                      (ops.scatter_nd_min, "ScatterNdMin")])
def test_functional_forms_whole_rows(mode, fn, name):
    x = RNG.standard_normal((5, 3))
    indices = np.array([[4], [0], [4]], np.int64)
    updates = RNG.standard_normal((3, 3))
    p = Parameter(Tensor(x), name="p")
    out = fn(p, Tensor(indices), Tensor(updates))
    want = expected(name, x, indices, updates)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)


def test_errors_name_the_op():
    p = Parameter(Tensor(np.ones((3, 4), np.float32)), name="p")
    with pytest.raises(ValueError, match="scatter_nd_add.*updates must have shape"):
        ops.scatter_nd_add(p, Tensor(np.array([[0], [1]], np.int32)),
                           Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="scatter_nd_mul.*last dimension"):
        ops.scatter_nd_mul(p, Tensor(np.array([[0, 1, 2]], np.int32)),
                           Tensor(np.ones((1,), np.float32)))
    # MindSpore's rule for a written input: the Parameter cannot change dtype (float64 updates)
    with pytest.raises(TypeError, match="scatter_nd_sub.*Data type conversion is not supported"):
        ops.scatter_nd_sub(p, Tensor(np.array([[0]], np.int32)),
                           Tensor(np.ones((1, 4), np.float64)))
    with pytest.raises(TypeError, match="scatter_nd_div.*int32 or int64"):
        ops.scatter_nd_div(p, Tensor(np.array([[0.0]], np.float32)),
                           Tensor(np.ones((1, 4), np.float32)))
    with pytest.raises(TypeError, match="use_locking"):
        P.ScatterNdAdd(use_locking=1)


def test_parameter_copies_the_tensor_it_is_built_from(mode):
    # MindSpore's Parameter(Tensor) copies: an in-place update of the Parameter leaves the
    # tensor alone, so a second net built from the same tensor starts from its values.
    x = np.arange(6.0).reshape(3, 2)
    t = Tensor(x)
    indices, updates = Tensor(np.array([[1]], np.int32)), Tensor(np.array([[10.0, 20.0]]))
    first = Net(P.ScatterNdAdd(), t)(indices, updates).asnumpy()
    second = Net(P.ScatterNdAdd(), t)(indices, updates).asnumpy()
    np.testing.assert_array_equal(t.asnumpy(), x)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, expected("ScatterNdAdd", x, indices.asnumpy(),
                                                  updates.asnumpy()))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_updates_of_a_lower_dtype_are_cast_to_the_parameter(mode):
    # MindSpore's signature rule (its ut test_signature): float16 updates into a float32
    # Parameter are cast to float32; an int8 Parameter cannot take float32 updates.
    import mycel as ms
    from mycel import context

    class Net(nn.Cell):
        def __init__(self, dtype):
            super().__init__()
            self.p = Parameter(Tensor(np.zeros((3, 2), dtype)), name="p")

        def construct(self, idx, u):
            return ops.scatter_nd_update(self.p, idx, u)

    context.set_context(mode=context.GRAPH_MODE if mode == "graph" else context.PYNATIVE_MODE)
    try:
        net = Net(np.float32)
        out = net(Tensor(np.array([[1]], np.int32)), Tensor(np.array([[1.5, 2.5]], np.float16)))
        assert out.dtype == ms.float32
        np.testing.assert_array_equal(net.p.asnumpy(), [[0, 0], [1.5, 2.5], [0, 0]])
        with pytest.raises(TypeError, match="primitive\\[ScatterNdUpdate\\] is Int8"):
            Net(np.int8)(Tensor(np.array([[1]], np.int32)),
                         Tensor(np.array([[1.5, 2.5]], np.float32)))
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)

