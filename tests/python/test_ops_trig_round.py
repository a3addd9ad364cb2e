"""The inverse/hyperbolic trigonometry ops (P.ACos ... P.Tan), Expm1, Erfc and the rounding ops
(P.Floor, P.Ceil, P.Round, P.Rint) through the primitives, the functional names and the Tensor
methods, against numpy and PyTorch, values and gradients, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops
from mycel.ops import operations as P

RNG = np.random.default_rng(2026)

# primitive name -> (functional name, torch reference, input domain (lo, hi))
FLOAT_OPS = {
    "ACos": ("acos", torch.acos, (-0.95, 0.95)),
    "Asin": ("asin", torch.asin, (-0.95, 0.95)),
    "Atan": ("atan", torch.atan, (-6, 6)),
    "Acosh": ("acosh", torch.acosh, (1.05, 8)),
    "Asinh": ("asinh", torch.asinh, (-6, 6)),
    "Atanh": ("atanh", torch.atanh, (-0.95, 0.95)),
    "Sinh": ("sinh", torch.sinh, (-4, 4)),
    "Cosh": ("cosh", torch.cosh, (-4, 4)),
    "Tan": ("tan", torch.tan, (-1.4, 1.4)),
    "Expm1": ("expm1", torch.expm1, (-3, 3)),
    "Erfc": ("erfc", torch.erfc, (-3, 3)),
}
ALIASES = {"arccos": "acos", "arcsin": "asin", "arctan": "atan", "arccosh": "acosh",
           "arcsinh": "asinh", "arctanh": "atanh"}


class Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


def run(fn, x):
    return Call(fn)(ms.Tensor(x)).asnumpy()


@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_ops_match_torch(mode, name, dtype):
    fname, ref, (lo, hi) = FLOAT_OPS[name]
    x = RNG.uniform(lo, hi, (3, 37)).astype(dtype)
    want = ref(torch.from_numpy(x.astype(np.float64))).numpy()
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for fn in (getattr(P, name)(), getattr(ops, fname)):
        got = run(fn, x)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, **tol)
    method = getattr(ms.Tensor(x), fname)()
    np.testing.assert_allclose(method.asnumpy(), want, **tol)


def test_aliases_are_the_same_functions():
    for alias, name in ALIASES.items():
        assert getattr(ops, alias) is getattr(ops, name)
        x = ms.Tensor(np.array([0.5], np.float32))
        np.testing.assert_array_equal(getattr(x, alias)().asnumpy(), getattr(x, name)().asnumpy())


def test_outside_the_domain_is_nan_and_edges_are_exact(mode):
    x = np.array([-2.0, -1.0, 1.0, 2.0, 0.5], np.float32)
    np.testing.assert_array_equal(np.isnan(run(P.ACos(), x)), [1, 0, 0, 1, 0])
    np.testing.assert_array_equal(np.isnan(run(P.Asin(), x)), [1, 0, 0, 1, 0])
    np.testing.assert_array_equal(run(P.Atanh(), x)[1:3], [-np.inf, np.inf])
    np.testing.assert_array_equal(np.isnan(run(P.Acosh(), x)), [1, 1, 0, 0, 1])
    assert run(P.Acosh(), x)[2] == 0.0
    np.testing.assert_allclose(run(P.ACos(), x)[1], np.pi, rtol=1e-7)


def test_integer_inputs_compute_in_float32(mode):
    x = np.array([0, 1, 2], np.int32)
    got = run(P.Sinh(), x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.sinh(x.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_op_gradients_match_torch(mode, name):
    fname, ref, (lo, hi) = FLOAT_OPS[name]
    x = RNG.uniform(lo, hi, (4, 5))
    dy = RNG.standard_normal((4, 5))
    prim = getattr(P, name)()
    g = ms.grad(lambda t: prim(t) * ms.Tensor(dy))(ms.Tensor(x)).asnumpy()
    tx = torch.from_numpy(x).requires_grad_()
    (ref(tx) * torch.from_numpy(dy)).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_second_order_gradient_of_atan():
    # d2/dx2 atan(x) = -2x / (1 + x^2)^2
    x = np.array([-1.5, 0.3, 2.0])
    g2 = ms.grad(ms.grad(lambda t: P.Atan()(t)))(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g2, -2 * x / (1 + x * x) ** 2, rtol=1e-12)


# ---- rounding ------------------------------------------------------------------------------

HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -4.5, 0.8, 2.3, -2.7, -0.0, 1e20, np.inf,
                   -np.inf, np.nan, 8388607.5], np.float64)

ROUNDING = {"Floor": ("floor", np.floor), "Ceil": ("ceil", np.ceil),
            "Round": ("round", np.rint), "Rint": ("rint", np.rint)}


@pytest.mark.parametrize("name", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_rounding_matches_numpy(mode, name, dtype):
    fname, ref = ROUNDING[name]
    x = HALVES.astype(dtype)
    want = ref(x)
    for fn in (getattr(P, name)(), getattr(ops, fname)):
        got = run(fn, x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 stays -0.0
    np.testing.assert_array_equal(getattr(ms.Tensor(x), fname)().asnumpy(), want)


@pytest.mark.parametrize("name", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_rounding_keeps_integers(mode, name, dtype):
    x = np.array([0, 1, 7, 100], dtype)
    got = run(getattr(P, name)(), x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, x)


def test_rounding_rejects_bool():
    with pytest.raises(TypeError, match="Round"):
        P.Round()(ms.Tensor(np.array([True])))


def test_round_with_decimals_matches_torch(mode):
    x = RNG.uniform(-100, 100, (50,)).astype(np.float64)
    for d in (1, 2, -1):
        got = ops.round(ms.Tensor(x), decimals=d).asnumpy()
        np.testing.assert_allclose(got, torch.round(torch.from_numpy(x), decimals=d).numpy(),
                                   rtol=0, atol=1e-9)
    with pytest.raises(TypeError, match="decimals"):
        ops.round(ms.Tensor(x), decimals=1.5)


@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_gradient_is_zero(mode, name):
    x = ms.Tensor(RNG.uniform(-3, 3, (6,)))
    np.testing.assert_array_equal(ms.grad(getattr(P, name)())(x).asnumpy(), np.zeros(6))


def test_floor_of_a_strided_view():
    x = RNG.uniform(-5, 5, (6, 8)).astype(np.float32)
    got = P.Floor()(ms.Tensor(x)[:, ::3]).asnumpy()
    np.testing.assert_array_equal(got, np.floor(x[:, ::3]))
