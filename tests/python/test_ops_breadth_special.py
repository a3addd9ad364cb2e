"""The special functions of ops/function/special_func.py (the Bessel family, zeta,
polygamma, igamma, igammac) and their primitives against scipy, on both sides of each
series/asymptotic crossover, in PYNATIVE and GRAPH mode (the `mode` fixture); gradients
against the known derivatives; argument errors typed."""
import math

import numpy as np
import pytest
import scipy.special as sp

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(43)

BESSEL = {"j0": sp.j0, "j1": sp.j1, "y0": sp.y0, "y1": sp.y1, "i0": sp.i0, "i0e": sp.i0e,
          "i1": sp.i1, "i1e": sp.i1e, "k0": sp.k0, "k0e": sp.k0e, "k1": sp.k1, "k1e": sp.k1e}
# float64 accuracy (module docstring): J, Y, K about 1e-11 absolute / relative near their
# crossovers, K-e 1e-8 relative at x = 8, I and I-e to rounding
TOL = {"j": 1e-11, "y": 1e-11, "i": 1e-13, "k": 1e-8}


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_matches_scipy(mode, name):
    x = np.concatenate([np.linspace(-25, 25, 101), [0.0, 1e-4, 7.999, 8.001, 11.999, 12.001,
                                                     19.999, 20.001, 60.0, 300.0]])
    with np.errstate(all="ignore"):
        want = BESSEL[name](x)
    got = run(getattr(ops, "bessel_" + name), x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    err = np.abs(got[fin] - want[fin]) / np.maximum(np.abs(want[fin]), 1.0)
    assert err.max() < TOL[name[0]], (name, err.max())
    prim = getattr(ops, "Bessel" + name[0].upper() + name[1:])()
    x32 = np.linspace(0.5, 30, 37).astype(np.float32)
    got32 = run(prim, x32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, BESSEL[name](x32.astype(np.float64)).astype(np.float32),
                               rtol=2e-6, atol=1e-7)


def test_bessel_gradients():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.uniform(0.3, 25, 40)
    pairs = {"j0": -sp.j1(x), "i0": sp.i1(x), "k0": -sp.k1(x), "y0": -sp.y1(x),
             "i0e": sp.i1e(x) - np.sign(x) * sp.i0e(x), "k0e": sp.k0e(x) - sp.k1e(x)}
    for name, want in pairs.items():
        g = ms.grad(lambda t: getattr(ops, "bessel_" + name)(t).sum())(ms.Tensor(x)).asnumpy()
        np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-9, err_msg=name)


def test_zeta_and_polygamma(mode):
    s = RNG.uniform(1.05, 10, 60)
    q = RNG.uniform(0.05, 25, 60)
    np.testing.assert_allclose(run(ops.zeta, s, q), sp.zeta(s, q), rtol=1e-13)
    edge = run(ops.Zeta(), np.array([1.0, 0.5]), np.array([2.0, 2.0]))
    assert edge[0] == np.inf and np.isnan(edge[1])
    x = RNG.uniform(0.05, 30, 50)
    for n in range(4):  # n = 0 is special_func.digamma (about 1e-11)
        np.testing.assert_allclose(run(lambda t: ops.polygamma(n, t), x), sp.polygamma(n, x),
                                   rtol=1e-10 if n == 0 else 1e-12)
    # the order fixes the formula: a tensor only where its value is known (PYNATIVE)
    order = np.array(2, np.int64) if mode == ms.PYNATIVE_MODE else 2
    np.testing.assert_allclose(run(ops.Polygamma(), order, x), sp.polygamma(2, x), rtol=1e-12)


def test_igamma_igammac(mode):
    a = np.concatenate([RNG.uniform(0.05, 5, 40), RNG.uniform(5, 200, 40)])
    x = np.concatenate([RNG.uniform(0, 12, 40), a[40:] * RNG.uniform(0.5, 1.5, 40)])
    np.testing.assert_allclose(run(ops.igamma, a, x), sp.gammainc(a, x), rtol=1e-11,
                               atol=1e-13)
    np.testing.assert_allclose(run(ops.igammac, a, x), sp.gammaincc(a, x), rtol=1e-11,
                               atol=1e-13)
    np.testing.assert_allclose(run(ops.Igamma(), a[:5].astype(np.float32),
                                   x[:5].astype(np.float32)),
                               sp.gammainc(a[:5], x[:5]).astype(np.float32), rtol=1e-5)
    bad = run(ops.igamma, np.array([-1.0, 2.0, 1.0]), np.array([1.0, -1.0, 0.0]))
    assert np.isnan(bad[0]) and np.isnan(bad[1]) and bad[2] == 0.0


def test_special_gradients():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a, x = RNG.uniform(0.5, 6, 20), RNG.uniform(0.1, 10, 20)
    g = ms.grad(lambda t: ops.igamma(ms.Tensor(a), t).sum())(ms.Tensor(x)).asnumpy()
    want = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    np.testing.assert_allclose(g, want, rtol=1e-8)
    s, q = RNG.uniform(1.5, 6, 20), RNG.uniform(0.5, 9, 20)
    g = ms.grad(lambda t: ops.zeta(ms.Tensor(s), t).sum())(ms.Tensor(q)).asnumpy()
    np.testing.assert_allclose(g, -s * sp.zeta(s + 1, q), rtol=1e-10)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="bessel_j0"):
        ops.bessel_j0(np.ones(3))
    with pytest.raises(TypeError, match="bessel_k1"):
        ops.bessel_k1(ms.Tensor(np.array([True])).astype(ms.complex64)
                      if hasattr(ms, "complex64") else "x")
    with pytest.raises(ValueError, match="polygamma"):
        ops.polygamma(-1, ms.Tensor(np.ones(2)))
    assert math.isnan(float(ops.zeta(ms.Tensor(np.array(0.5)), ms.Tensor(np.array(1.0)))
                            .asnumpy()))
