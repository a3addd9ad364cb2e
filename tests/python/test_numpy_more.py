"""mycel.numpy's functions against numpy itself (the oracle by definition): elementwise math,
reductions, differences, polynomials, convolution, interpolation, stacking/splitting, flips,
pad, triangles and diagonals, grids, windows, histograms, selection, sets, index helpers,
products, norms and statistics."""
import numpy as np
import pytest

import mycel as ms
import mycel.numpy as mnp

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
V = RNG.standard_normal(7).astype(np.float32)
P = np.abs(RNG.standard_normal((3, 4))).astype(np.float32) + 0.1
U = np.clip(RNG.standard_normal((3, 4)).astype(np.float32) * 0.4, -0.95, 0.95)
I1 = RNG.integers(-20, 20, (3, 4)).astype(np.int32)
I2 = RNG.integers(-20, 20, (3, 4)).astype(np.int32)
NANS = A.copy()
NANS[0, 1] = NANS[2, 3] = np.nan


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


CASES = {
    "arccos": (lambda m: m.arccos(U),) * 2,
    "arcsinh": (lambda m: m.arcsinh(A),) * 2,
    "arctanh": (lambda m: m.arctanh(U),) * 2,
    "arccosh": (lambda m: m.arccosh(P + 1),) * 2,
    "arctan2": (lambda m: m.arctan2(A, B),) * 2,
    "cosh_sinh_tan": (lambda m: m.cosh(U) + m.sinh(U) + m.tan(U),) * 2,
    "rounding": (lambda m: m.ceil(A * 3) + m.floor(A * 3) + m.trunc(A * 3) + m.fix(A * 3),) * 2,
    "rint_around": (lambda m: m.rint(A * 5) + m.around(A, 2),) * 2,
    "exp2_expm1_logs": (lambda m: m.exp2(A) + m.expm1(A) + m.log2(P) + m.log10(P),) * 2,
    "hypot_logaddexp": (lambda m: m.hypot(A, B) + m.logaddexp(A, B) + m.logaddexp2(A, B),) * 2,
    "copysign_heaviside": (lambda m: m.copysign(A, B) + m.heaviside(A, B),) * 2,
    "fmod": (lambda m: m.fmod(I1, np.where(I2 == 0, 3, I2).astype(np.int32)),) * 2,
    "deg_rad": (lambda m: m.deg2rad(A) + m.rad2deg(A),) * 2,
    "bitwise": (lambda m: m.bitwise_and(I1, I2) + m.bitwise_or(I1, I2) + m.bitwise_xor(I1, I2)
                + m.invert(I1),) * 2,
    "signbit_xor": (lambda m: m.logical_xor(m.signbit(A), B > 0),) * 2,
    "isfinite": (lambda m: m.isfinite(np.array([1.0, np.inf, -np.inf, np.nan], np.float32)),
                 ) * 2,
    "isneginf_isposinf": (lambda m: m.isneginf(np.array([1.0, np.inf, -np.inf], np.float32))
                          + 2 * m.isposinf(np.array([1.0, np.inf, -np.inf], np.float32)),) * 2,
    "gcd_lcm": (lambda m: (m.gcd(I1, I2), m.lcm(I1, I2)),) * 2,
    "var_std": (lambda m: (m.var(A), m.std(A, axis=1), m.var(A, axis=0, ddof=1)),) * 2,
    "ptp_average": (lambda m: (m.ptp(A, axis=1), m.average(A), m.average(A, axis=1,
                                                                          weights=V[:4])),) * 2,
    "count_nonzero": (lambda m: m.count_nonzero(I1 % 3, axis=0),) * 2,
    "cumsum_cumprod": (lambda m: (m.cumsum(A), m.cumsum(I1, axis=1), m.cumprod(P, axis=0)),) * 2,
    "nan_reductions": (lambda m: (m.nansum(NANS), m.nanmean(NANS, axis=1), m.nanmax(NANS, 0),
                                  m.nanmin(NANS), m.nanvar(NANS, axis=1), m.nanstd(NANS),
                                  m.nancumsum(NANS, axis=1)),) * 2,
    "diff": (lambda m: (m.diff(A), m.diff(A, n=2, axis=0), m.diff(V, prepend=0.5),
                        m.ediff1d(V, to_begin=[9.0])),) * 2,
    "trapz": (lambda m: (m.trapz(A), m.trapz(V, x=np.cumsum(P.ravel()[:7])), m.trapz(A, dx=0.5,
                                                                                axis=0)),) * 2,
    "poly": (lambda m: (m.polyadd([1.0, 2.0], [3.0, 4.0, 5.0]), m.polysub([1.0, 2.0, 3.0],
                                                                          [4.0]),
                        m.polymul([1.0, 2.0], [3.0, 4.0, 5.0]), m.polyval([3.0, 0.5, 1.0], V),
                        m.polyder([1.0, 2.0, 3.0, 4.0], 2), m.polyint([3.0, 2.0, 1.0], 2)),) * 2,
    "convolve": (lambda m: (m.convolve(V, [1.0, -2.0, 0.5]), m.convolve(V, [1.0, 2.0], "same"),
                            m.convolve([1.0, 2.0], V, "valid"), m.correlate(V, [1.0, 0.5]),
                            m.correlate(V, [0.3, 1.0, 2.0], "full")),) * 2,
    "interp": (lambda m: m.interp(np.array([-1.0, 0.0, 0.5, 2.5, 9.0], np.float32),
                                  np.array([0.0, 1.0, 3.0], np.float32),
                                  np.array([1.0, 3.0, -1.0], np.float32)),) * 2,
    "unwrap": (lambda m: m.unwrap(np.cumsum(V * 2)),) * 2,
    "gradient": (lambda m: (m.gradient(V), m.gradient(A, axis=1), m.gradient(V, 0.5)),) * 2,
    "atleast": (lambda m: (m.atleast_1d(3.0), m.atleast_2d(V), m.atleast_3d(A)),) * 2,
    "stacks": (lambda m: (m.hstack([V, V]), m.vstack([V, V]), m.dstack([A, B]),
                          m.column_stack([V, V]), m.ravel(A)),) * 2,
    "splits": (lambda m: m.split(A, 2, axis=1) + m.array_split(V, 3) + m.hsplit(A, [1, 3]) +
               m.vsplit(A, [1]),) * 2,
    "flips": (lambda m: (m.flip(A), m.flip(A, 1), m.fliplr(A), m.flipud(A), m.roll(A, 2),
                         m.roll(A, -1, axis=1), m.rot90(A), m.rot90(A, 2), m.rot90(A, 3),
                         m.rot90(A, 1, (1, 0))),) * 2,
    "axes": (lambda m: (m.moveaxis(np.zeros((2, 3, 4), np.float32) + A[0], 0, -1),
                        m.swapaxes(A, 0, 1), m.rollaxis(np.zeros((2, 3, 4), np.float32), 2)),) * 2,
    "repeat_append_take": (lambda m: (m.repeat(A, 2), m.repeat(A, 2, axis=1),
                                      m.append(A, B, axis=0), m.append(V, A),
                                      m.take(A, [0, 5, 11]), m.take(A, [2, 0], axis=1),
                                      m.take_along_axis(A, np.argsort(A, axis=1), 1)),) * 2,
    "creation": (lambda m: (m.eye(3, 4, 1), m.identity(3), m.tri(3, 4, -1), m.tril(A, 1),
                            m.triu(A, -1), m.full_like(A, 2.5), m.logspace(0, 2, 5),
                            m.geomspace(1, 1000, 4), m.vander(V[:4]),
                            m.vander(V[:4], 3, increasing=True)),) * 2,
    "diagonals": (lambda m: (m.diag(V), m.diag(V, -2), m.diag(A, 1), m.diagflat(A[:, :2], 1),
                             m.diagonal(A, -1), m.trace(A, 1)),) * 2,
    "index_helpers": (lambda m: (m.tril_indices(4, 1), m.triu_indices(3, 0, 5),
                                 m.tril_indices_from(A), m.diag_indices(3),
                                 m.unravel_index([0, 7, 11], (3, 4)),
                                 m.ravel_multi_index(([0, 2], [1, 3]), (3, 4))),) * 2,
    "grids": (lambda m: (m.meshgrid(V[:3], V[:2]), m.meshgrid(V[:3], V[:2], indexing="ij"),
                         m.indices((2, 3)), m.ix_([0, 1], [2, 0, 1])),) * 2,
    "windows": (lambda m: (m.bartlett(6), m.blackman(7), m.hamming(5), m.hanning(6)),) * 2,
    "pad": (lambda m: tuple(m.pad(A, ((1, 2), (2, 1)), mode) for mode in
                            ("edge", "reflect", "symmetric", "wrap")) +
            (m.pad(A, 1, constant_values=7.0),),) * 2,
    "histogram": (lambda m: (m.histogram(V, 4), m.histogram(V, [-3.0, 0.0, 0.5, 3.0]),
                             m.histogram(V, 3, range=(-1.0, 1.0), density=True),
                             m.histogram_bin_edges(V, 5)),) * 2,
    "select_choose": (lambda m: (m.select([A > 0.5, A < -0.5], [A, B], 9.0),
                                 m.choose(np.array([0, 1, 1, 0], np.int32), [V[:4], V[3:7]]),
                                 m.piecewise(V, [V < 0, V > 1], [lambda x: -x, 2.0, 0.5])),) * 2,
    "sets": (lambda m: (m.in1d(I1, [1, 2, 3, -4]), m.intersect1d(I1, I2),
                        m.setdiff1d(I1, I2), m.argwhere(A > 0.5)),) * 2,
    "searchsorted_bincount": (lambda m: (m.searchsorted(np.sort(V), A),
                                         m.searchsorted(np.sort(V), V, side="right"),
                                         m.bincount(np.abs(I1).ravel()),
                                         m.bincount([0, 3, 3, 1], weights=[0.5, 1.0, 2.0, 1.0],
                                                    minlength=6)),) * 2,
    "products": (lambda m: (m.inner(A, B), m.outer(V, V[:3]), m.tensordot(A, B.T, 1),
                            m.tensordot(np.ones((2, 3, 4), np.float32), A, ((1, 2), (0, 1))),
                            m.kron(A[:2, :2], B[:2, :3]), m.cross(A[:, :3], B[:, :3]),
                            m.cross(V[:2], V[2:4]),
                            m.multi_dot([A, B.T, V[:3]]),
                            m.matrix_power(A[:3, :3], 3), m.matrix_power(A[:3, :3], 0)),) * 2,
    "norms": (lambda m: (m.norm(A), m.norm(V, 1), m.norm(V, np.inf), m.norm(A, axis=1),
                         m.norm(A, 3, axis=0), m.norm(A, "fro"), m.norm(A, 1), m.norm(A, np.inf)),
              ) * 2,
    "stats": (lambda m: (m.cov(A), m.cov(A, rowvar=False), m.cov(V, V[::-1]),
                         m.cov(A, bias=True), m.cov(A, fweights=[1, 2, 3, 1],
                                                    aweights=[0.5, 1.0, 2.0, 1.0]),
                         m.corrcoef(A)),) * 2,
    "compare": (lambda m: (m.isclose(A, A + 1e-7), m.sometrue(A > 2.0, axis=0)),) * 2,
}


class _NumpyWithLinalg:
    """numpy with norm, multi_dot and matrix_power at the top level, where mindspore.numpy has them."""

    def __getattr__(self, name):
        return getattr(np.linalg, name) if name in ("norm", "multi_dot", "matrix_power") else getattr(np, name)


def _compare(got, want):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w)
        return
    g, w = _np(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-4,
                               atol=1e-4, equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn = CASES[name][0]
    _compare(fn(mnp), fn(_NumpyWithLinalg()))


def test_predicates_and_dtype_rules():
    assert mnp.array_equal(A, A.copy()) and not mnp.array_equal(A, B)
    assert mnp.array_equal(NANS, NANS, equal_nan=True) and not mnp.array_equal(NANS, NANS)
    assert mnp.isscalar(3.0) and not mnp.isscalar(ms.Tensor(A))
    assert mnp.size(A) == 12 and mnp.size(A, 1) == 4
    assert mnp.promote_types(ms.int32, ms.float16) == ms.float16
    assert mnp.result_type(ms.Tensor(I1), 2.0) == ms.float32
    assert mnp.array_str(ms.Tensor(np.array([1, 2], np.int32))) == "[1 2]"
    assert mnp.empty((2, 3)).shape == (2, 3) and mnp.empty_like(A).dtype == ms.float32
    assert mnp.asfarray([1, 2]).dtype == ms.float32


def test_apply_functions_match_numpy():
    got = mnp.apply_along_axis(lambda v: mnp.sum(v * v), 1, A)
    np.testing.assert_allclose(got.asnumpy(), np.apply_along_axis(lambda v: (v * v).sum(), 1, A),
                               rtol=1e-5)
    got = mnp.apply_over_axes(mnp.sum, A, [0, 1])
    np.testing.assert_allclose(got.asnumpy(), np.apply_over_axes(np.sum, A, [0, 1]), rtol=1e-5)


def test_random_arrays_and_errors():
    ms.set_seed(2)
    r = mnp.rand(3, 4).asnumpy()
    assert r.shape == (3, 4) and (r >= 0).all() and (r < 1).all()
    assert mnp.randn((2, 5)).shape == (2, 5)
    k = mnp.randint(2, 9, (50,)).asnumpy()
    assert k.dtype == np.int32 and k.min() >= 2 and k.max() < 9
    with pytest.raises(ValueError, match="split"):
        mnp.split(A, 3, axis=1)
    with pytest.raises(ValueError, match="pad"):
        mnp.pad(A, 1, mode="cubic")
    with pytest.raises(ValueError, match="matrix_power"):
        mnp.matrix_power(A[:3, :3], -1)
    with pytest.raises(ValueError, match="tensordot"):
        mnp.tensordot(A, B, 1)


GRAPH_CASES = {
    "var_cumsum": lambda m, a, b: m.var(a, axis=1) + m.cumsum(a, axis=1)[:, -1],
    "flip_roll": lambda m, a, b: m.flip(a, 1) + m.roll(b, 1, axis=1),
    "kron_tensordot": lambda m, a, b: m.kron(a[:2, :2], b[:1, :2]).sum() + m.tensordot(a, b, 2),
    "pad_trapz": lambda m, a, b: m.pad(a, ((1, 1), (0, 2)), "edge").sum() + m.trapz(b).sum(),
    "hypot_nan": lambda m, a, b: m.hypot(a, b) + m.nanmean(a, axis=0),
    "stack_split": lambda m, a, b: m.vstack([a, b])[1:4] + m.split(m.hstack([a, b]), 2,
                                                                    axis=1)[1],
}


@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
def test_graph_mode_matches_numpy(name):
    fn = GRAPH_CASES[name]
    want = fn(_NumpyWithLinalg(), A, B)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(lambda a, b: fn(mnp, a, b))(ms.Tensor(A), ms.Tensor(B))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _compare(got, want)
