"""Primitives declared in Python (ops.PrimitiveWithInfer + prim_attr_register, the kernel
found by the class name: mycel/ops/custom_prim.py), the composed Rolling and Shift kernels
(ops/function/window_func.py) and mycel._checkparam. Rolling against torch's unfold and a
loop over the window bounds, Shift against numpy, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from mycel import _checkparam as validator
from mycel.ops import PrimitiveWithInfer, prim_attr_register
from ms_cell import Fn

RNG = np.random.default_rng(5)


class Rolling(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, window, min_periods, center, axis, closed, method):
        self.window = validator.check_value_type("window", window, [int], self.name)
        self.init_prim_io_names(inputs=["x"], outputs=["output"])

    def infer_dtype(self, x_dtype):
        return x_dtype


class Shift(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, periods=1, axis=-1):
        self.init_prim_io_names(inputs=["x", "fill_value"], outputs=["output"])


def window_loop(x, window, min_periods, center, axis, closed, method):
    """The windows written out: position i covers [i + 1 + offset - window, i + 1 + offset),
    one more on the left for closed 'left'/'both', one fewer on the right for
    'left'/'neither', clipped to the axis."""
    fns = {"max": np.max, "min": np.min, "sum": np.sum, "mean": np.mean,
           "std": lambda a: np.std(a, ddof=1), "var": lambda a: np.var(a, ddof=1)}
    xm = np.moveaxis(x, axis, -1)
    n = xm.shape[-1]
    out = np.empty(xm.shape, np.float64)
    for i in range(n):
        hi = i + 1 + ((window - 1) // 2 if center else 0)
        lo = hi - window - (closed in ("left", "both"))
        hi -= closed in ("left", "neither")
        lo, hi = min(max(lo, 0), n), min(max(hi, 0), n)
        if hi - lo < min_periods:
            out[..., i] = np.nan
        else:
            out[..., i] = np.apply_along_axis(fns[method], -1, xm[..., lo:hi])
    out = np.moveaxis(out, -1, axis)
    if x.dtype.kind == "i":
        return np.where(np.isnan(out), 0, out).astype(x.dtype)
    return out


@pytest.mark.parametrize("method", ["max", "min", "sum", "mean", "std", "var"])
def test_rolling_matches_torch_unfold(mode, method):
    x = RNG.standard_normal((3, 9, 4))
    w = 4
    got = Fn(Rolling(w, w, False, 1, "right", method))(ms.Tensor(x)).asnumpy()
    win = torch.tensor(x).unfold(1, w, 1)  # [3, 9 - w + 1, 4, w]
    red = {"max": lambda t: t.amax(-1), "min": lambda t: t.amin(-1), "sum": lambda t: t.sum(-1),
           "mean": lambda t: t.mean(-1), "std": lambda t: t.std(-1),
           "var": lambda t: t.var(-1)}[method](win).numpy()
    assert np.isnan(got[:, :w - 1]).all()
    np.testing.assert_allclose(got[:, w - 1:], red, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("closed", ["left", "both", "right", "neither"])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_rolling_bounds_and_dtypes_match_the_window_loop(mode, closed, center, dtype):
    x = (RNG.standard_normal((2, 3, 11)) * 10).astype(dtype)
    for method in ("max", "mean", "std"):
        got = Fn(Rolling(5, 3, center, -1, closed, method))(ms.Tensor(x)).asnumpy()
        want = window_loop(x, 5, 3, center, -1, closed, method)
        assert got.dtype == x.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_rolling_gradient_matches_torch(mode):
    x = RNG.standard_normal((7, 2))
    prim = Rolling(3, 3, False, 0, "right", "mean")
    g = ms.grad(lambda t: ops.sum(prim(t)[2:] ** 2))(ms.Tensor(x)).asnumpy()
    xt = torch.tensor(x, requires_grad=True)
    (xt.unfold(0, 3, 1).mean(-1) ** 2).sum().backward()
    np.testing.assert_allclose(g, xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype, fill", [(np.float32, np.nan), (np.float64, -2.5), (np.int32, 7),
                                         (np.bool_, True)])
@pytest.mark.parametrize("periods, axis", [(2, 0), (-3, 1), (0, 1), (9, 1), (-6, 0)])
def test_shift_matches_numpy(mode, dtype, fill, periods, axis):
    x = (RNG.standard_normal((5, 6)) * 4).astype(dtype)
    got = Fn(Shift(periods, axis))(ms.Tensor(x), fill).asnumpy()
    want = np.roll(x, periods, axis)
    pos = np.arange(x.shape[axis]) - periods
    filled = (pos < 0) | (pos >= x.shape[axis])
    want = np.where(np.expand_dims(filled, 1 - axis), np.array(fill).astype(dtype), want)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)


def test_prim_attrs_and_op_table_kernels(mode):
    class ReduceSum(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, keep_dims=False, tag="mine"):
            pass

    p = ReduceSum(True)
    assert p.name == "ReduceSum" and p.attrs["keep_dims"] is True and p.attrs["tag"] == "mine"
    assert Shift().init_attrs == {"periods": 1, "axis": -1}
    x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(Fn(p)(ms.Tensor(x), (1,)).asnumpy(), x.sum(1, keepdims=True),
                               rtol=1e-12)


def test_errors_name_the_primitive():
    class NoSuchKernel(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass

    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="NoSuchKernel.*no kernel"):
        NoSuchKernel()(x)
    with pytest.raises(ValueError, match="Rolling.*method"):
        Rolling(2, 1, False, 0, "right", "median")(x)
    with pytest.raises(ValueError, match="Rolling.*min_periods"):
        Rolling(2, 3, False, 0, "right", "sum")(x)
    with pytest.raises(TypeError, match="Rolling.*float32"):
        Rolling(2, 1, False, 0, "right", "sum")(ms.Tensor(np.ones((2, 3), np.bool_)))
    with pytest.raises(ValueError, match="Shift.*axis"):
        Shift(1, 2)(x, 0.0)
    with pytest.raises(TypeError, match="window"):
        Rolling(2.0, 1, False, 0, "right", "sum")


def test_checkparam():
    assert validator.check_value_type("a", 3, [int]) == 3
    with pytest.raises(TypeError, match="'a'"):
        validator.check_value_type("a", True, [int], "Op")
    assert validator.check_value_type("a", True, [int, bool]) is True
    assert validator.check_positive_int(4) == 4 and validator.check_non_positive_int(0) == 0
    for check, bad in ((validator.check_positive_int, 0), (validator.check_negative_int, 0),
                       (validator.check_non_negative_int, -1)):
        with pytest.raises(ValueError):
            check(bad)
        with pytest.raises(TypeError):
            check(1.5)
    with pytest.raises(TypeError):
        validator.check_is_int(False)
    with pytest.raises(TypeError):
        validator.check_bool(1)
    assert validator.check_float_range(0.5, 0.0, 1.0, validator.INC_NEITHER) == 0.5
    with pytest.raises(ValueError, match=r"\(0.0, 1.0\)"):
        validator.check_float_range(1.0, 0.0, 1.0, validator.INC_NEITHER, "p")
    assert validator.check_int_range(1, 1, 3, validator.INC_LEFT) == 1
    assert validator.check_tensor_dtype_valid("x", ms.float32, [ms.float32, ms.float64], "Op")
    with pytest.raises(TypeError, match="Op"):
        validator.check_tensor_dtype_valid("x", ms.int32, [ms.float32], "Op")
    with pytest.raises(TypeError):
        validator.check_scalar_or_tensor_types_same({"a": ms.float32, "b": ms.float64},
                                                    [ms.float32, ms.float64], "Op")
    assert validator.check_str_by_regular("ok_name-1")
    with pytest.raises(ValueError):
        validator.check_str_by_regular("-bad")
    assert validator.twice(3) == (3, 3)
    with pytest.raises(TypeError):
        validator.twice((1, 2, 3))
