"""Primitives of MindSpore's ops test table (tests/ut/python/ops/test_ops.py) that mycel composes
from its ops (operations/composed_*_ops.py), against numpy, scipy or torch, in PYNATIVE and
GRAPH mode, with their errors for bad input."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, Tensor, context
from mycel.ops import operations as P
from mycel.ops.operations import math_ops, array_ops, nn_ops, random_ops

MODES = [context.PYNATIVE_MODE, context.GRAPH_MODE]


class Run(nn.Cell):
    def __init__(self, prim):
        super().__init__()
        self.prim = prim

    def construct(self, *args):
        return self.prim(*args)


def run(mode, prim, *args):
    context.set_context(mode=mode)
    try:
        return Run(prim)(*args)
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)


def np_of(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)


# ---- math_ops ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_addv2_and_fmin(mode):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    np.testing.assert_allclose(np_of(run(mode, math_ops.AddV2(), Tensor(a), Tensor(b))), a + b,
                               rtol=1e-6)
    a[0, 0], b[1] = np.nan, np.nan
    got = np_of(run(mode, math_ops.Fmin(), Tensor(a), Tensor(b)))
    np.testing.assert_array_equal(got, np.fmin(a, b))


@pytest.mark.parametrize("mode", MODES)
def test_bucketize_is_tensorflows_rule(mode):
    x = np.array([[-5.0, 10000.0, 150.0], [10.0, 5.0, 100.0]], np.float32)
    bounds = [0.0, 10.0, 100.0]
    got = run(mode, math_ops.Bucketize(bounds), Tensor(x))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(np_of(got), np.searchsorted(bounds, x, side="right"))
    with pytest.raises(ValueError, match="Bucketize"):
        math_ops.Bucketize([3.0, 1.0])
    with pytest.raises(TypeError, match="Bucketize"):
        math_ops.Bucketize(3.0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis,unbiased,keep", [((), True, False), (0, True, True),
                                                 ((0, 2), False, False), (-1, False, True)])
def test_reduce_std_matches_torch(mode, axis, unbiased, keep):
    x = np.random.default_rng(1).standard_normal((3, 4, 5))
    std, mean = run(mode, math_ops.ReduceStd(axis, unbiased, keep), Tensor(x))
    dims = tuple(range(3)) if axis == () else axis
    t = torch.tensor(x)
    np.testing.assert_allclose(np_of(std), torch.std(t, dim=dims, unbiased=unbiased,
                                                     keepdim=keep).numpy(), rtol=1e-10)
    np.testing.assert_allclose(np_of(mean), torch.mean(t, dim=dims, keepdim=keep).numpy(),
                               rtol=1e-10)
    with pytest.raises(ValueError, match="ReduceStd"):
        math_ops.ReduceStd(axis=3)(Tensor(x))
    with pytest.raises(TypeError, match="ReduceStd"):
        math_ops.ReduceStd()(Tensor(np.ones(3, np.int32)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_logsumexp(mode, exclusive, reverse):
    x = np.random.default_rng(2).standard_normal((3, 5))
    got = np_of(run(mode, math_ops.CumulativeLogsumexp(exclusive, reverse), Tensor(x), 1))
    src = x[:, ::-1] if reverse else x
    want = np.full_like(src, -np.inf)
    for j in range(src.shape[1]):
        part = src[:, :j] if exclusive else src[:, :j + 1]
        if part.shape[1]:
            want[:, j] = np.log(np.exp(part).sum(1))
    want = want[:, ::-1] if reverse else want
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="CumulativeLogsumexp"):
        math_ops.CumulativeLogsumexp()(Tensor(x), 2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [0, 1, 2, 5, -3])
def test_matrix_power_matches_numpy(mode, n):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    got = np_of(run(mode, math_ops.MatrixPower(n), Tensor(x)))
    np.testing.assert_allclose(got, np.linalg.matrix_power(x, n), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="MatrixPower"):
        math_ops.MatrixPower(2)(Tensor(np.ones((2, 3))))
    with pytest.raises(TypeError, match="MatrixPower"):
        math_ops.MatrixPower(2.0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_matches_torch(mode, upper):
    rng = np.random.default_rng(4)
    m = rng.standard_normal((3, 3))
    a = m @ m.T + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    chol = np.linalg.cholesky(a)
    factor = chol.T if upper else chol
    got = np_of(run(mode, math_ops.CholeskySolve(upper), Tensor(b), Tensor(factor)))
    np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_quantile_and_histogram(mode):
    x = np.random.default_rng(5).standard_normal((4, 6))
    q = np.array([0.1, 0.5, 0.9])
    got = np_of(run(mode, math_ops.Quantile(dim=1, keep_dims=False), Tensor(x), Tensor(q)))
    np.testing.assert_allclose(got, np.quantile(x, q, axis=1), rtol=1e-10)
    x[0, 0] = np.nan
    got = np_of(run(mode, math_ops.Quantile(dim=1, ignore_nan=True), Tensor(x), Tensor(q)))
    np.testing.assert_allclose(got, np.nanquantile(x, q, axis=1), rtol=1e-10)
    h = np.random.default_rng(6).uniform(-2, 2, 50).astype(np.float32)
    got = np_of(run(mode, math_ops.Histogram(bins=8, min=-2.0, max=2.0), Tensor(h)))
    np.testing.assert_array_equal(got, torch.histc(torch.tensor(h), 8, -2.0, 2.0).numpy())
    with pytest.raises(ValueError, match="Histogram"):
        math_ops.Histogram(bins=0)
    with pytest.raises(ValueError, match="Histogram"):
        math_ops.Histogram(min=1.0, max=0.0)


# ---- array_ops --------------------------------------------------------------------------------

SEGMENTS = [("SegmentSum", np.add, 0.0), ("SegmentMax", np.maximum, 0.0),
            ("SegmentMin", np.minimum, 0.0), ("SegmentProd", np.multiply, 1.0)]


def np_segment(x, ids, fn, empty):
    n = ids[-1] + 1
    out = np.full((n,) + x.shape[1:], empty, x.dtype)
    for s in range(n):
        rows = x[ids == s]
        if len(rows):
            out[s] = fn.reduce(rows, axis=0)
    return out


@pytest.mark.parametrize("name,fn,empty", SEGMENTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_segment_reductions_match_numpy(name, fn, empty, dtype):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((6, 3)) * 4).astype(dtype)
    ids = np.array([0, 0, 2, 2, 2, 4], np.int32)   # segments 1 and 3 are empty
    got = getattr(array_ops, name)()(Tensor(x), Tensor(ids))
    np.testing.assert_allclose(np_of(got), np_segment(x, ids, fn, empty), rtol=1e-6)


def test_segment_mean_and_errors():
    x = np.arange(12, dtype=np.float64).reshape(6, 2)
    ids = np.array([0, 0, 1, 3, 3, 3], np.int64)
    got = np_of(array_ops.SegmentMean()(Tensor(x), Tensor(ids)))
    want = np.stack([x[:2].mean(0), x[2:3].mean(0), np.zeros(2), x[3:].mean(0)])
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="sorted"):
        array_ops.SegmentSum()(Tensor(x), Tensor(np.array([0, 2, 1, 3, 3, 3], np.int32)))
    with pytest.raises(ValueError, match="first dimension"):
        array_ops.SegmentSum()(Tensor(x), Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(TypeError, match="segment_ids"):
        array_ops.SegmentSum()(Tensor(x), Tensor(ids.astype(np.float32)))


def test_segment_length_needs_the_ids_values_in_graph_mode():
    x = Tensor(np.ones((3, 2), np.float32))
    ids = Tensor(np.array([0, 1, 1], np.int32))
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        run(context.GRAPH_MODE, array_ops.SegmentSum(), x, ids)


def test_identity_n():
    a, b = Tensor(np.ones(2, np.float32)), Tensor(np.zeros(3, np.int32))
    out = array_ops.IdentityN()([a, b])
    assert out[0] is a and out[1] is b
    with pytest.raises(TypeError, match="IdentityN"):
        array_ops.IdentityN()(a)


# ---- nn_ops -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_reluv3_and_nth_element(mode):
    x = np.random.default_rng(8).standard_normal((3, 7)).astype(np.float32)
    np.testing.assert_array_equal(np_of(run(mode, nn_ops.ReLUV3(), Tensor(x))),
                                  np.maximum(x, 0))
    for reverse in (False, True):
        s = np.sort(x, axis=-1)
        s = s[:, ::-1] if reverse else s
        got = run(mode, nn_ops.NthElement(reverse), Tensor(x), 2)
        np.testing.assert_array_equal(np_of(got), s[:, 2])
        got = run(mode, nn_ops.NthElement(reverse), Tensor(x), Tensor(np.array(4, np.int32)))
        np.testing.assert_array_equal(np_of(got), s[:, 4])
    with pytest.raises(ValueError, match="NthElement"):
        nn_ops.NthElement()(Tensor(x), 7)
    with pytest.raises(TypeError, match="NthElement"):
        nn_ops.NthElement()(Tensor(x), 1.5)


@pytest.mark.parametrize("mode", MODES)
def test_data_format_vec_permute(mode):
    v = np.array([1, 2, 3, 4], np.int32)          # N, H, W, C
    got = np_of(run(mode, nn_ops.DataFormatVecPermute(), Tensor(v)))
    np.testing.assert_array_equal(got, [1, 4, 2, 3])   # N, C, H, W
    pairs = np.arange(8, dtype=np.int64).reshape(4, 2)
    got = np_of(run(mode, nn_ops.DataFormatVecPermute("NCHW", "NHWC"), Tensor(pairs)))
    np.testing.assert_array_equal(got, pairs[[0, 2, 3, 1]])
    with pytest.raises(ValueError, match="DataFormatVecPermute"):
        nn_ops.DataFormatVecPermute("NDHWC")(Tensor(v))
    with pytest.raises(ValueError, match="DataFormatVecPermute"):
        nn_ops.DataFormatVecPermute()(Tensor(np.ones(3, np.int32)))


# ---- random_ops and spectral_ops --------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_cauchy_quantiles(mode):
    ms.set_seed(11)
    x = np_of(run(mode, math_ops.Cauchy([20000], median=1.5, sigma=2.0)))
    assert x.shape == (20000,) and x.dtype == np.float32
    q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    assert abs(q2 - 1.5) < 0.1 and abs((q3 - q1) - 4.0) < 0.25   # the IQR of Cauchy is 2 sigma
    with pytest.raises(ValueError, match="Cauchy"):
        math_ops.Cauchy([0])
    with pytest.raises(ValueError, match="Cauchy"):
        math_ops.Cauchy([2], sigma=0.0)


@pytest.mark.parametrize("mode", MODES)
def test_log_normal_reverse_moments(mode):
    ms.set_seed(12)
    ref = Tensor(np.zeros((200, 100), np.float32))
    y = np_of(run(mode, random_ops.LogNormalReverse(mean=0.5, std=0.25), ref))
    assert y.shape == (200, 100) and y.dtype == np.float32 and (y > 0).all()
    z = np.log(y)
    assert abs(z.mean() - 0.5) < 0.01 and abs(z.std() - 0.25) < 0.01
    with pytest.raises(TypeError, match="LogNormalReverse"):
        random_ops.LogNormalReverse()(Tensor(np.zeros(3, np.int32)))


def test_spectral_ops_family_module():
    from mycel.ops.operations import spectral_ops
    from mycel.ops.operations.spectral_ops import BartlettWindow, BlackmanWindow
    assert BartlettWindow is P.BartlettWindow and BlackmanWindow is P.BlackmanWindow
    got = np_of(spectral_ops.BlackmanWindow(periodic=False)(Tensor(np.array(6, np.int32))))
    np.testing.assert_allclose(got, torch.blackman_window(6, periodic=False).numpy(), atol=1e-6)


# ---- _inner_ops -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sqrt_mode", [False, True])
def test_anti_quant_matches_numpy(mode, sqrt_mode):
    from mycel.ops.operations._inner_ops import AntiQuant
    x = np.array([[50, -20, 127], [-128, 0, 3]], np.int8)
    scale = np.array([0.5, 0.25, 2.0], np.float32)
    offset = np.array([1.0, -2.0, 0.0], np.float32)
    got = run(mode, AntiQuant(sqrt_mode, ms.float32), Tensor(x), Tensor(scale), Tensor(offset))
    s = scale * scale if sqrt_mode else scale
    np.testing.assert_allclose(np_of(got), (x.astype(np.float32) + offset) * s)
    assert run(mode, AntiQuant(), Tensor(x), Tensor(scale.astype(np.float16)),
               Tensor(offset.astype(np.float16))).dtype == ms.float16
    with pytest.raises(TypeError, match="But got input argument"):
        AntiQuant()(Tensor(x), 1.0, 2.0)
    with pytest.raises(TypeError, match="int8"):
        AntiQuant()(Tensor(x.astype(np.int32)), Tensor(scale), Tensor(offset))


# ---- nn.TripletMarginWithDistanceLoss (MindSpore's ut/python/ops/test_nn_ops.py uses it) ------

def l1_distance(a, b):
    return ms.ops.abs(a - b).sum(-1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("custom", [False, True])
def test_triplet_margin_with_distance_loss_matches_torch(mode, swap, reduction, custom):
    rng = np.random.default_rng(9)
    a, p, n = (rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3))
    loss = nn.TripletMarginWithDistanceLoss(l1_distance if custom else None, swap, reduction,
                                            margin=0.7)
    got = np_of(run(mode, loss, Tensor(a), Tensor(p), Tensor(n)))
    dist = (lambda x, y: (x - y).abs().sum(-1)) if custom else None
    want = torch.nn.TripletMarginWithDistanceLoss(distance_function=dist, margin=0.7, swap=swap,
                                                  reduction=reduction)(
        torch.tensor(a), torch.tensor(p), torch.tensor(n)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_triplet_margin_with_distance_loss_errors():
    with pytest.raises(ValueError, match="margin"):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)
    with pytest.raises(TypeError, match="distance_function"):
        nn.TripletMarginWithDistanceLoss(distance_function=3)
    with pytest.raises(ValueError):
        nn.TripletMarginWithDistanceLoss(reduction="avg")


# ---- MindSpore's ut test_math_ops.py imports: MatrixTriangularSolve, IgammaGradA, set ops ----

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_triangular_solve_matches_scipy(mode, lower, adjoint):
    from scipy.linalg import solve_triangular
    rng = np.random.default_rng(10)
    m = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    rhs = rng.standard_normal((2, 4, 3))
    got = np_of(run(mode, math_ops.MatrixTriangularSolve(lower, adjoint), Tensor(m),
                    Tensor(rhs)))
    want = np.stack([solve_triangular(m[i], rhs[i], lower=lower, trans=1 if adjoint else 0)
                     for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="MatrixTriangularSolve"):
        math_ops.MatrixTriangularSolve()(Tensor(m), Tensor(rhs[:, :3]))
    with pytest.raises(TypeError, match="MatrixTriangularSolve"):
        math_ops.MatrixTriangularSolve()(Tensor(m), Tensor(rhs.astype(np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_igamma_grad_a_matches_finite_differences(mode):
    from scipy.special import gammainc
    from mycel.ops.operations._grad_ops import IgammaGradA
    a, x = np.meshgrid([0.5, 1.0, 3.0, 10.0, 50.0], [0.0, 0.1, 1.0, 5.0, 20.0, 60.0])
    got = np_of(run(mode, IgammaGradA(), Tensor(a), Tensor(x)))
    h = 1e-4   # a fourth-order central difference of scipy's P(a, x) in a
    fd = (-gammainc(a + 2 * h, x) + 8 * gammainc(a + h, x) - 8 * gammainc(a - h, x)
          + gammainc(a - 2 * h, x)) / (12 * h)
    np.testing.assert_allclose(got, fd, atol=1e-9)
    bad = np_of(IgammaGradA()(Tensor(np.array([-1.0, 1.0])), Tensor(np.array([1.0, -1.0]))))
    assert np.isnan(bad).all()
    assert IgammaGradA()(Tensor(np.ones(2, np.float32)),
                         Tensor(np.ones(2, np.float32))).dtype == ms.float32
    with pytest.raises(TypeError, match="IgammaGradA"):
        IgammaGradA()(1.0, Tensor(np.ones(2)))


SET_CASES = {"a-b": np.setdiff1d, "b-a": lambda a, b: np.setdiff1d(b, a),
             "intersection": np.intersect1d, "union": np.union1d}


@pytest.mark.parametrize("kind", list(SET_CASES))
def test_dense_set_operations_match_numpy(kind):
    from mycel.ops.operations.sparse_ops import (DenseToDenseSetOperation,
                                                 DenseToSparseSetOperation)
    rng = np.random.default_rng(13)
    a = rng.integers(0, 6, (2, 3, 5)).astype(np.int32)
    b = rng.integers(0, 6, (2, 3, 4)).astype(np.int32)
    rows = [SET_CASES[kind](a.reshape(6, 5)[r], b.reshape(6, 4)[r]) for r in range(6)]
    width = max(len(r) for r in rows)
    idx, vals, shape = DenseToDenseSetOperation(kind)(Tensor(a), Tensor(b))
    np.testing.assert_array_equal(np_of(shape), [2, 3, width])
    dense = np.full((2, 3, width), -1, np.int32)
    dense[tuple(np_of(idx).T)] = np_of(vals)
    for r in range(6):
        row = dense.reshape(6, width)[r]
        np.testing.assert_array_equal(row[:len(rows[r])], rows[r])
        assert (row[len(rows[r]):] == -1).all()
    # the same with b given as a sparse tensor (one stored value per entry of b)
    b_idx = np.array(list(np.ndindex(b.shape)), np.int64)
    got = DenseToSparseSetOperation(kind)(Tensor(a), Tensor(b_idx), Tensor(b.reshape(-1)),
                                          Tensor(np.array(b.shape, np.int64)))
    for g, w in zip(got, (idx, vals, shape)):
        np.testing.assert_array_equal(np_of(g), np_of(w))


def test_set_operation_errors():
    from mycel.ops.operations.sparse_ops import (DenseToDenseSetOperation,
                                                 DenseToSparseSetOperation)
    a = Tensor(np.array([[1, 2]], np.int32))
    with pytest.raises(ValueError, match="set_operation"):
        DenseToDenseSetOperation("xor")
    with pytest.raises(TypeError, match="integer"):
        DenseToDenseSetOperation()(Tensor(np.ones((1, 2), np.float32)), a)
    with pytest.raises(ValueError, match="leading"):
        DenseToDenseSetOperation()(a, Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError, match="row-major"):
        DenseToSparseSetOperation()(a, Tensor(np.array([[0, 1], [0, 0]], np.int64)),
                                    Tensor(np.array([1, 2], np.int32)),
                                    Tensor(np.array([1, 2], np.int64)))


def test_math_func_holds_inplace_index_add_and_polar():
    from mycel.ops.function.math_func import inplace_index_add, polar
    assert inplace_index_add is ms.ops.inplace_index_add and polar is ms.ops.polar


def test_auto_generate_names_are_the_operations_classes_and_functions():
    from mycel.ops import auto_generate as ag
    assert ag.AvgPool is P.AvgPool and ag.Pow is P.Pow
    assert ag.acos is ms.ops.acos and ag.diagonal is ms.ops.diagonal
    x = Tensor(np.array([0.5, -0.25]))
    np.testing.assert_allclose(np_of(ag.Pow()(x, 2.0)), [0.25, 0.0625])
    with pytest.raises(AttributeError, match="auto_generate"):
        ag.NoSuchPrimitive  # noqa: B018


# ---- the math cells of nn (nn/layer/math.py) --------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_nn_math_cells_match_scipy_and_numpy(mode):
    from scipy import special
    rng = np.random.default_rng(14)
    x = rng.uniform(0.5, 4.0, (3, 4))
    y = rng.uniform(0.5, 4.0, (3, 4))
    np.testing.assert_allclose(np_of(run(mode, nn.LGamma(), Tensor(x))), special.gammaln(x),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np_of(run(mode, nn.DiGamma(), Tensor(x))), special.digamma(x),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np_of(run(mode, nn.IGamma(), Tensor(x), Tensor(y))),
                               special.gammainc(x, y), rtol=1e-10)
    np.testing.assert_allclose(np_of(run(mode, nn.LBeta(), Tensor(x), Tensor(y))),
                               special.betaln(x, y), rtol=1e-10, atol=1e-12)
    got = np_of(run(mode, nn.ReduceLogSumExp((0,), True), Tensor(x)))
    np.testing.assert_allclose(got, special.logsumexp(x, axis=0, keepdims=True), rtol=1e-10, atol=1e-12)
    got = np_of(run(mode, nn.layer.CosineSimilarity(), Tensor(x), Tensor(y)))
    np.testing.assert_allclose(got, torch.nn.functional.cosine_similarity(
        torch.tensor(x), torch.tensor(y), dim=1).numpy(), rtol=1e-10, atol=1e-12)
    m = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(np_of(run(mode, nn.MatInverse(), Tensor(m))), np.linalg.inv(m),
                               rtol=1e-9)
    np.testing.assert_allclose(np_of(run(mode, nn.MatDet(), Tensor(m))), np.linalg.det(m),
                               rtol=1e-9)
    v = rng.standard_normal((2, 3))
    np.testing.assert_array_equal(np_of(run(mode, nn.MatrixDiag(), Tensor(v))),
                                  np.stack([np.diag(r) for r in v]))
    r = rng.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(np_of(run(mode, nn.MatrixDiagPart(), Tensor(r))),
                                  np.diagonal(r, axis1=-2, axis2=-1))
    want = r.copy()
    for b in range(2):
        np.fill_diagonal(want[b], v[b])
    np.testing.assert_array_equal(np_of(run(mode, nn.MatrixSetDiag(), Tensor(r), Tensor(v))),
                                  want)


def test_nn_math_cell_errors():
    with pytest.raises(TypeError, match="keep_dims"):
        nn.ReduceLogSumExp(axis=(0,), keep_dims=2)
    with pytest.raises(TypeError, match="axis"):
        nn.ReduceLogSumExp(axis=1.2, keep_dims=True)
    with pytest.raises(TypeError, match="dim"):
        nn.layer.CosineSimilarity(dim=1.0)


# ---- PReLUGrad, LRNGrad, DepthwiseConv2dNative ------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wshape", [(3,), (1,)])
def test_prelu_grad_matches_torch_autograd(mode, wshape):
    from mycel.ops import auto_generate
    rng = np.random.default_rng(15)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    dy = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    w = rng.uniform(0.1, 0.5, wshape).astype(np.float32)
    dx, dw = run(mode, auto_generate.PReLUGrad(), Tensor(dy), Tensor(x), Tensor(w))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    torch.nn.functional.prelu(tx, tw).backward(torch.tensor(dy))
    np.testing.assert_allclose(np_of(dx), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(np_of(dw), tw.grad.numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="PReLUGrad"):
        auto_generate.PReLUGrad()(Tensor(dy), Tensor(x), Tensor(np.ones(2, np.float32)))


def torch_lrn_tf(x, r, bias, alpha, beta):
    """TensorFlow's LRN (no division by the window size), written with torch ops."""
    sq = torch.nn.functional.pad(x * x, (0, 0, 0, 0, r, r))
    s = sum(sq[:, i:i + x.shape[1]] for i in range(2 * r + 1))
    return x / (bias + alpha * s) ** beta


@pytest.mark.parametrize("mode", MODES)
def test_lrn_grad_matches_torch_autograd(mode):
    from mycel.ops.operations._grad_ops import LRNGrad
    rng = np.random.default_rng(16)
    x = rng.standard_normal((1, 5, 3, 3))
    g = rng.standard_normal((1, 5, 3, 3))
    got = np_of(run(mode, LRNGrad(2, 1.5, 0.3, 0.75), Tensor(g), Tensor(x), Tensor(x)))
    tx = torch.tensor(x, requires_grad=True)
    torch_lrn_tf(tx, 2, 1.5, 0.3, 0.75).backward(torch.tensor(g))
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("mode", MODES)
def test_depthwise_conv2d_native_matches_torch(mode):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)   # [K, C, kh, kw]
    prim = nn_ops.DepthwiseConv2dNative(2, (3, 3), pad_mode="pad", pad=1, stride=2)
    got = np_of(run(mode, prim, Tensor(x), Tensor(w)))
    tw = torch.tensor(w).permute(1, 0, 2, 3).reshape(6, 1, 3, 3)   # out channel c * K + k
    want = torch.nn.functional.conv2d(torch.tensor(x), tw, padding=1, stride=2, groups=3)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="DepthwiseConv2dNative"):
        nn_ops.DepthwiseConv2dNative(2, 3)(Tensor(x), Tensor(w[:, :2]))


# ---- more of the ops test table: Qr, CompareAndBitpack, TridiagonalMatMul, random, image -----

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("full", [False, True])
def test_qr_matches_numpy(mode, full):
    from mycel.ops.operations import linalg_ops
    x = np.random.default_rng(18).standard_normal((2, 4, 3))
    q, r = run(mode, linalg_ops.Qr(full), Tensor(x))
    wq, wr = np.linalg.qr(x, mode="complete" if full else "reduced")
    np.testing.assert_allclose(np_of(q), wq, atol=1e-10)
    np.testing.assert_allclose(np_of(r), wr, atol=1e-10)
    assert math_ops.Qr is linalg_ops.Qr


@pytest.mark.parametrize("mode", MODES)
def test_compare_and_bitpack_matches_numpy(mode):
    x = np.random.default_rng(19).standard_normal((3, 16)).astype(np.float32)
    got = np_of(run(mode, math_ops.CompareAndBitpack(), Tensor(x), Tensor(np.float32(0.1))))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.packbits(x > 0.1, axis=-1))
    with pytest.raises(ValueError, match="multiple of 8"):
        math_ops.CompareAndBitpack()(Tensor(x[:, :5]), Tensor(np.float32(0.1)))


@pytest.mark.parametrize("mode", MODES)
def test_tridiagonal_matmul_matches_dense(mode):
    rng = np.random.default_rng(20)
    sup, main, sub = (rng.standard_normal((2, 1, 4)) for _ in range(3))
    rhs = rng.standard_normal((2, 4, 3))
    got = np_of(run(mode, math_ops.TridiagonalMatMul(), Tensor(sup), Tensor(main), Tensor(sub),
                    Tensor(rhs)))
    dense = np.stack([np.diag(main[b, 0]) + np.diag(sup[b, 0, :-1], 1) +
                      np.diag(sub[b, 0, 1:], -1) for b in range(2)])
    np.testing.assert_allclose(got, dense @ rhs, rtol=1e-12)
    with pytest.raises(ValueError, match="TridiagonalMatMul"):
        math_ops.TridiagonalMatMul()(Tensor(sup), Tensor(main), Tensor(sub), Tensor(rhs[:, :3]))


def test_truncated_normal_and_nondeterministic_ints():
    ms.set_seed(21)
    z = np_of(random_ops.TruncatedNormal(dtype=ms.float64)(Tensor(np.array([100, 200], np.int32))))
    assert z.shape == (100, 200) and np.abs(z).max() <= 2.0
    from scipy import stats   # against the standard normal cut to [-2, 2]
    assert stats.kstest(z.reshape(-1), stats.truncnorm(-2, 2).cdf).pvalue > 1e-3
    assert abs(z.mean()) < 0.03 and abs(z.var() - stats.truncnorm(-2, 2).var()) < 0.03
    for dt, np_dt in ((ms.int32, np.int32), (ms.int64, np.int64)):
        v = np_of(random_ops.NonDeterministicInts(dt)((1000,)))
        assert v.dtype == np_dt and (v < 0).any() and (v > 0).any() and len(np.unique(v)) > 990
    with pytest.raises(TypeError, match="NonDeterministicInts"):
        random_ops.NonDeterministicInts(ms.float32)


def np_hsv(rgb):
    import colorsys
    return np.apply_along_axis(lambda p: colorsys.rgb_to_hsv(*p), -1, rgb)


def np_rgb(hsv):
    import colorsys
    return np.apply_along_axis(lambda p: colorsys.hsv_to_rgb(*p), -1, hsv)


@pytest.mark.parametrize("mode", MODES)
def test_colour_ops_match_colorsys(mode):
    from mycel.ops.operations import image_ops
    rng = np.random.default_rng(22)
    img = rng.uniform(0, 1, (2, 4, 5, 3))
    img[0, 0, 0] = [0.3, 0.3, 0.3]   # grey: hue and saturation 0
    img[0, 0, 1] = 0.0               # black
    hsv = np_hsv(img)
    np.testing.assert_allclose(np_of(run(mode, image_ops.RGBToHSV(), Tensor(img))), hsv,
                               atol=1e-12)
    got = np_of(run(mode, image_ops.AdjustHue(), Tensor(img), Tensor(np.float64(0.3))))
    shifted = hsv.copy()
    shifted[..., 0] = (shifted[..., 0] + 0.3) % 1.0
    np.testing.assert_allclose(got, np_rgb(shifted), atol=1e-12)
    got = np_of(run(mode, image_ops.AdjustSaturation(), Tensor(img), Tensor(np.float64(1.7))))
    sat = hsv.copy()
    sat[..., 1] = np.clip(sat[..., 1] * 1.7, 0, 1)
    np.testing.assert_allclose(got, np_rgb(sat), atol=1e-12)
    f32 = img.astype(np.float32)
    got = np_of(run(mode, image_ops.AdjustContrastv2(), Tensor(f32), Tensor(np.float32(2.0))))
    mean = f32.mean(axis=(-3, -2), keepdims=True)
    np.testing.assert_allclose(got, (f32 - mean) * 2.0 + mean, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="RGBToHSV"):
        image_ops.RGBToHSV()(Tensor(img[..., :2]))
    with pytest.raises(TypeError, match="AdjustHue"):
        image_ops.AdjustHue()(Tensor(img), 0.3)


def test_unravel_index_range_v2_expand_check_numerics():
    got = np_of(array_ops.UnravelIndex()(Tensor(np.array([2, 5, 7, 0], np.int64)),
                                         Tensor(np.array([3, 3], np.int64))))
    np.testing.assert_array_equal(got, np.stack(np.unravel_index([2, 5, 7, 0], (3, 3))))
    got = np_of(array_ops.UnravelIndex()(Tensor(np.array(22, np.int32)),
                                         Tensor(np.array([7, 6], np.int32))))
    np.testing.assert_array_equal(got, np.unravel_index(22, (7, 6)))
    with pytest.raises(ValueError, match="UnravelIndex"):
        array_ops.UnravelIndex()(Tensor(np.array([9], np.int32)), Tensor(np.array([3, 3], np.int32)))
    got = array_ops.RangeV2()(Tensor(np.int32(2)), Tensor(np.int32(11)), Tensor(np.int32(3)))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(np_of(got), np.arange(2, 11, 3))
    np.testing.assert_allclose(np_of(array_ops.RangeV2()(Tensor(np.float32(1.0)),
                                                         Tensor(np.float32(-1.0)),
                                                         Tensor(np.float32(-0.5)))),
                               np.arange(1.0, -1.0, -0.5))
    with pytest.raises(ValueError, match="RangeV2"):
        array_ops.RangeV2(maxlen=2)(Tensor(np.int32(0)), Tensor(np.int32(5)), Tensor(np.int32(1)))
    with pytest.raises(ValueError, match="RangeV2"):
        array_ops.RangeV2()(Tensor(np.int32(0)), Tensor(np.int32(5)), Tensor(np.int32(-1)))
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    got = np_of(array_ops.Expand()(Tensor(x), Tensor(np.array([4, 3], np.int32))))
    np.testing.assert_array_equal(got, np.broadcast_to(x, (4, 3)))
    ok = Tensor(np.ones(3, np.float32))
    assert array_ops.CheckNumerics()(ok) is ok
    with pytest.raises(RuntimeError, match="CheckNumerics"):
        array_ops.CheckNumerics()(Tensor(np.array([1.0, np.nan, np.inf], np.float32)))
    assert array_ops.Im2Col is P.Im2Col and math_ops.Cauchy is P.Cauchy


# ---- argument checks MindSpore's ut tests expect ---------------------------------------------

def test_gaussian_nll_loss_and_cosine_decay_lr_argument_errors():
    a = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    var = Tensor(np.ones((4, 1), np.float32))
    with pytest.raises(TypeError, match="full"):
        ms.ops.gaussian_nll_loss(a, a, var, full=1)
    with pytest.raises(ValueError, match="eps"):
        ms.ops.gaussian_nll_loss(a, a, var, eps=0.0)
    with pytest.raises(ValueError, match="min_lr"):
        nn.cosine_decay_lr(0.1, 0.01, 6, 2, 2)
    with pytest.raises(ValueError, match="min_lr"):
        nn.cosine_decay_lr(0.1, 0.1, 6, 2, 2)


def test_inner_is_subclass_and_same_type_shape():
    from mycel.ops.operations import _inner_ops as inner
    assert inner.SameTypeShape is P.SameTypeShape
    sub = inner.IsSubClass()
    assert sub(ms.int32, ms.number) and sub(ms.float16, ms.number) and sub(ms.uint8, ms.uint)
    assert sub(ms.float32, ms.float32) and sub(ms.number, ms.number)
    assert not sub(ms.float32, ms.int32) and not sub(ms.int8, ms.uint)
    assert not sub(ms.number, ms.int32)
    for bad in ((None, ms.number), (ms.number, None), (3, ms.int32)):
        with pytest.raises(TypeError, match="IsSubClass"):
            sub(*bad)


# ---- P.Softmax over several contiguous axes (MindSpore's Softmax(axis=(0, 1))) -----------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [(0, 1), (1, 2), (-2, -1), (2, 1)])
def test_softmax_over_contiguous_axes_matches_torch(mode, axis):
    x = np.random.default_rng(23).standard_normal((2, 3, 4))
    got = np_of(run(mode, P.Softmax(axis=axis), Tensor(x)))
    dims = sorted(a % 3 for a in axis)
    t = torch.tensor(x, requires_grad=True)
    moved = t.movedim(dims, list(range(3 - len(dims), 3)))
    flat = moved.reshape(moved.shape[:3 - len(dims)] + (-1,))
    want = torch.softmax(flat, -1).reshape(moved.shape).movedim(
        list(range(3 - len(dims), 3)), dims)
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-12)
    w = np.random.default_rng(24).standard_normal((2, 3, 4))

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sm = P.Softmax(axis=axis)

        def construct(self, v):
            return (self.sm(v) * Tensor(w)).sum()

    context.set_context(mode=mode)
    try:
        g = ms.grad(Loss())(Tensor(x))
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(np_of(g), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_softmax_axes_must_be_contiguous():
    x = Tensor(np.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="contiguous"):
        P.Softmax(axis=(0, 2))(x)
    with pytest.raises(ValueError, match="contiguous"):
        P.Softmax(axis=(1, 1))(x)


@pytest.mark.parametrize("mode", MODES)
def test_space_to_batch_is_the_nd_form_with_one_block(mode):
    x = np.random.default_rng(25).standard_normal((2, 3, 4, 6)).astype(np.float32)
    pads = [[0, 2], [1, 1]]
    got = np_of(run(mode, array_ops.SpaceToBatch(2, pads), Tensor(x)))
    want = np_of(run(mode, P.SpaceToBatchND((2, 2), pads), Tensor(x)))
    np.testing.assert_array_equal(got, want)
    # the first output batch holds the top-left pixel of every 2 x 2 block (TensorFlow's order)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 2), (1, 1)))
    np.testing.assert_array_equal(got[:2], padded[:, :, ::2, ::2])
    with pytest.raises(ValueError, match="SpaceToBatch"):
        array_ops.SpaceToBatch(0, pads)


def test_array_func_holds_aminmax():
    from mycel.ops.function import array_func
    assert array_func.aminmax is ms.ops.aminmax
    with pytest.raises(AttributeError, match="array_func"):
        array_func.no_such_function  # noqa: B018


@pytest.mark.parametrize("mode", MODES)
def test_flatten_concat_groups_by_dtype(mode):
    from mycel.ops.operations._inner_ops import FlattenConcat
    a = np.array([1.0, 2.0], np.float32)
    b = np.arange(6, dtype=np.float64).reshape(2, 3)
    c = np.array([[5.0], [6.0]], np.float32)

    class Net(nn.Cell):
        def __init__(self, size):
            super().__init__()
            self.fc = FlattenConcat(size)

        def construct(self, x, y, z):
            return self.fc([x, y, z])

    got = run(mode, Net(0), Tensor(a), Tensor(b), Tensor(c))
    assert len(got) == 2 and got[0].dtype == ms.float32 and got[1].dtype == ms.float64
    np.testing.assert_array_equal(np_of(got[0]), np.concatenate([a, c.ravel()]))
    np.testing.assert_array_equal(np_of(got[1]), b.ravel())
    got = run(mode, Net(8), Tensor(a), Tensor(b), Tensor(c))   # 8 bytes: a float32 pair
    assert [np_of(g).tolist() for g in got] == [[1.0, 2.0], [5.0, 6.0], b.ravel().tolist()]
    with pytest.raises(ValueError, match="FlattenConcat"):
        FlattenConcat(-1)


def test_mindspore_module_paths_signature_core_and_primitive():
    from mycel.ops import primitive, signature
    from mycel.ops.composite import base
    assert primitive.PrimitiveWithInfer is ms.ops.PrimitiveWithInfer
    assert primitive.prim_attr_register is ms.ops.prim_attr_register
    s = signature.make_sig("p1", signature.sig_rw.RW_WRITE, dtype=signature.sig_dtype.T1)
    assert (s.name, s.rw, s.dtype) == ("p1", signature.sig_rw.RW_WRITE, signature.sig_dtype.T1)
    assert s.kind == signature.sig_kind.KIND_POSITIONAL_KEYWORD
    with pytest.raises(TypeError, match="make_sig"):
        signature.make_sig(3)
    with pytest.raises(ValueError):
        signature.make_sig("x", rw=7)
    assert base.GradOperation is ms.ops.GradOperation

    @base.core(loop_can_uroll=True)
    def f(x):
        return x * 2

    assert f.__core_flags__ == {"loop_can_uroll": True}
    np.testing.assert_array_equal(np_of(f(Tensor(np.ones(2, np.float32)))), [2.0, 2.0])
    assert base.core(f) is f
    with pytest.raises(TypeError, match="core"):
        base.core(3)


@pytest.mark.parametrize("mode", MODES)
def test_cartesian_prod_matches_torch(mode):
    a = Tensor(np.array([1, 2, 3], np.int32))
    b = Tensor(np.array([4, 5], np.int32))
    c = Tensor(np.array([7, 8], np.int32))

    class Net(nn.Cell):
        def construct(self, x, y, z):
            return ms.ops.cartesian_prod(x, y, z)

    got = np_of(run(mode, Net(), a, b, c))
    want = torch.cartesian_prod(*(torch.tensor(np_of(t)) for t in (a, b, c))).numpy()
    np.testing.assert_array_equal(got, want)
    assert ms.ops.cartesian_prod(a) is a
    with pytest.raises(TypeError, match="cartesian_prod"):
        ms.ops.cartesian_prod(a, Tensor(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match="cartesian_prod"):
        ms.ops.cartesian_prod(Tensor(np.ones((2, 2), np.int32)))


# ---- elementwise gradient primitives (_grad_ops) against torch autograd -------------------------

def torch_vjp(fn, x, dy):
    t = torch.tensor(x, requires_grad=True)
    fn(t).backward(torch.tensor(dy))
    return t.grad.numpy()


@pytest.mark.parametrize("mode", MODES)
def test_elementwise_grad_primitives_match_torch(mode):
    from mycel.ops.operations import _grad_ops as G
    rng = np.random.default_rng(26)
    x = rng.uniform(-0.9, 0.9, (3, 5))
    dy = rng.standard_normal((3, 5))
    tf = torch.nn.functional
    relu_out = np.maximum(x, 0)
    np.testing.assert_allclose(np_of(run(mode, G.ReluGrad(), Tensor(dy), Tensor(relu_out))),
                               torch_vjp(torch.relu, x, dy), rtol=1e-12)
    np.testing.assert_allclose(np_of(run(mode, G.SoftplusGrad(), Tensor(dy), Tensor(x))),
                               torch_vjp(tf.softplus, x, dy), rtol=1e-12)
    elu_out = np.where(x > 0, x, np.expm1(x))
    np.testing.assert_allclose(np_of(run(mode, G.EluGrad(), Tensor(dy), Tensor(elu_out))),
                               torch_vjp(tf.elu, x, dy), rtol=1e-12)
    for prim, fn in ((G.AsinGrad(), torch.asin), (G.ACosGrad(), torch.acos),
                     (G.AtanGrad(), torch.atan)):
        np.testing.assert_allclose(np_of(run(mode, prim, Tensor(x), Tensor(dy))),
                                   torch_vjp(fn, x, dy), rtol=1e-12)
    np.testing.assert_allclose(np_of(run(mode, G.HShrinkGrad(0.3), Tensor(dy), Tensor(x))),
                               torch_vjp(lambda t: tf.hardshrink(t, 0.3), x, dy), rtol=1e-12)
    np.testing.assert_allclose(np_of(run(mode, G.SoftShrinkGrad(0.3), Tensor(dy), Tensor(x))),
                               torch_vjp(lambda t: tf.softshrink(t, 0.3), x, dy), rtol=1e-12)
    out = torch.log_softmax(torch.tensor(x), 0).numpy()
    np.testing.assert_allclose(np_of(run(mode, G.LogSoftmaxGrad(0), Tensor(out), Tensor(dy))),
                               torch_vjp(lambda t: torch.log_softmax(t, 0), x, dy), rtol=1e-10)


def test_elementwise_grad_primitive_errors():
    from mycel.ops.operations import _grad_ops as G
    a = Tensor(np.ones((2, 3)))
    with pytest.raises(TypeError, match="ReluGrad"):
        G.ReluGrad()(a, Tensor(np.ones((3, 2))))
    with pytest.raises(TypeError, match="AtanGrad"):
        G.AtanGrad()(a, 1.0)
    with pytest.raises(ValueError, match="HShrinkGrad"):
        G.HShrinkGrad(-1.0)
