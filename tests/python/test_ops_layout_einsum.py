"""The primitives composed from the op table's: tril/triu, flip (ReverseV2), roll, einsum,
invert, inv and softsign, with their primitive classes and Tensor methods, against numpy in
PYNATIVE and GRAPH mode (every dtype, batches, 0-d and empty tensors, negative axes, the
errors), and their gradients against torch in both modes."""
import numpy as np
import pytest
import torch

import mycel as ms
from arrays import NP_DTYPES as DTYPES
from graph_harness import run_numpy
from mycel import ops
from mycel.ops import operations as P

MODES = ["pynative", "graph"]


run = run_numpy


def sample(shape, dtype, seed=0):
    r = np.random.RandomState(seed)
    if dtype == np.bool_:
        return r.rand(*shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return r.randint(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    return r.standard_normal(shape).astype(dtype)


def grad_both_modes(f, x, mode):
    """ms.grad(f) at x: called from Python, or inside a compiled function (graph)."""
    return run(lambda t: ms.grad(f)(t), mode, x)


# ---- tril / triu -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_tril_triu_every_dtype(dtype, mode):
    x = sample((2, 3, 4, 5), dtype)
    for d in (0, 1, -2, 7, -9):
        got = run(lambda t: (ops.tril(t, d), t.triu(d), P.Tril(d)(t), P.Triu(diagonal=d)(t)),
                  mode, x)
        want = (np.tril(x, d), np.triu(x, d)) * 2
        for g, w in zip(got, want):
            assert g.dtype == x.dtype
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("mode", MODES)
def test_tril_triu_shapes_and_errors(mode):
    for shape in [(1, 1), (0, 3), (3, 0), (7, 2), (2, 0, 4)]:
        x = sample(shape, np.float32)
        got = run(lambda t: (t.tril(), ops.triu(t, -1)), mode, x)
        np.testing.assert_array_equal(got[0], np.tril(x))
        np.testing.assert_array_equal(got[1], np.triu(x, -1))
    with pytest.raises(ValueError, match=r"For 'tril', the input must have at least 2 dim"):
        ops.tril(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match=r"For 'triu', the 'diagonal' must be an int"):
        ops.triu(ms.Tensor(np.ones((2, 2), np.float32)), 1.5)


# ---- flip / ReverseV2 --------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_flip_every_dtype(dtype, mode):
    x = sample((3, 4, 5), dtype)
    for dims in [(0,), (-1,), (0, 2), [1, -3], 2, ()]:
        got = run(lambda t: (ops.flip(t, dims), t.flip(dims)), mode, x)
        want = np.flip(x, dims) if dims != () else x
        for g in got:
            np.testing.assert_array_equal(g, want)
    got = run(lambda t: P.ReverseV2(axis=[1, 2])(t), mode, x)
    np.testing.assert_array_equal(got, np.flip(x, (1, 2)))


@pytest.mark.parametrize("mode", MODES)
def test_flip_shapes_and_errors(mode):
    for shape, dims in [((), ()), ((0, 3), (0,)), ((1,), 0), ((2, 0), (1, 0)), ((1031,), -1)]:
        x = sample(shape, np.float64)
        got = run(lambda t: ops.flip(t, dims), mode, x)
        np.testing.assert_array_equal(got, np.flip(x, dims) if x.ndim else x)
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"For 'flip', each of 'dims' must be in range \[-2, 2\)"):
        ops.flip(x, (2,))
    with pytest.raises(ValueError, match=r"For 'flip', the 'dims' must not repeat an axis"):
        ops.flip(x, (1, -1))
    with pytest.raises(TypeError, match=r"For 'flip', the 'dims' must hold ints"):
        ops.flip(x, (0.5,))


# ---- roll / Roll -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_roll_every_dtype(dtype, mode):
    x = sample((3, 4, 5), dtype)
    for shifts, dims in [(1, 0), (-2, -1), ((1, 7), (0, 2)), (13, None), ((2, -1), (1, 1)),
                         (0, 1), (4, 1), (-100, None)]:
        got = run(lambda t: (ops.roll(t, shifts, dims), t.roll(shifts, dims)), mode, x)
        want = np.roll(x, shifts, dims)
        for g in got:
            np.testing.assert_array_equal(g, want)
    got = run(lambda t: P.Roll(shift=2, axis=1)(t), mode, x)
    np.testing.assert_array_equal(got, np.roll(x, 2, 1))


@pytest.mark.parametrize("mode", MODES)
def test_roll_shapes_and_errors(mode):
    for shape, shifts, dims in [((), 3, None), ((0, 3), 1, 0), ((2, 0), 1, 1), ((0,), 2, None),
                                ((7,), -3, 0)]:
        x = sample(shape, np.float32)
        got = run(lambda t: ops.roll(t, shifts, dims), mode, x)
        np.testing.assert_array_equal(got, np.roll(x, shifts, dims))
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"For 'roll', 'shifts' and 'dims' must have the same"):
        ops.roll(x, (1, 2), 0)
    with pytest.raises(ValueError, match=r"For 'roll', each of 'dims' must be in range"):
        ops.roll(x, 1, 2)
    with pytest.raises(ValueError, match=r"For 'roll', without 'dims' the 'shifts' must be"):
        ops.roll(x, (1, 2))


# ---- einsum ------------------------------------------------------------------------------------

EINSUM_CASES = [  # (equation, operand shapes)
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,kj", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(7,), (7,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(5, 5)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ijk->kij", [(2, 3, 4)]),
    ("...ij->...ji", [(2, 3, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),
    ("b...,b...->b", [(3, 4, 2), (3, 4, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("abc,cd,bd->ad", [(2, 3, 4), (4, 5), (3, 5)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("ab,ab->ab", [(3, 4), (1, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,ij->", [(0, 3), (0, 3)]),
    ("...", [()]),
    ("...i->...", [(2, 3)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(eq, shapes, mode):
    xs = [sample(s, np.float64, seed=i) for i, s in enumerate(shapes)]
    got = run(lambda *ts: ops.einsum(eq, *ts), mode, *xs)
    if "..." in eq.split("->")[0] and "->" in eq and "..." not in eq.split("->")[1]:
        # numpy refuses to sum the ellipsis dims when the output drops them; torch sums them
        want = torch.einsum(eq, *[torch.tensor(a) for a in xs]).numpy()
    else:
        want = np.einsum(eq, *xs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    got = run(lambda *ts: P.Einsum(eq)(ts), mode, *xs)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(3, 4), (4, 5)]),
                                       ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                                       ("ii->i", [(4, 4)]),
                                       ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),
                                       ("abc,cd,bd->ad", [(2, 3, 4), (4, 5), (3, 5)])],
                         ids=lambda v: str(v))
def test_einsum_gradients_match_torch(eq, shapes, mode):
    xs = [sample(s, np.float64, seed=i + 1) for i, s in enumerate(shapes)]
    w = sample(np.einsum(eq, *xs).shape, np.float64, seed=9)
    others = [ms.Tensor(a) for a in xs[1:]]

    def f(t):
        return (ops.einsum(eq, t, *others) * ms.Tensor(w)).sum()

    got = grad_both_modes(f, xs[0], mode)
    ts = [torch.tensor(a, requires_grad=(i == 0)) for i, a in enumerate(xs)]
    (torch.einsum(eq, *ts) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(got, ts[0].grad.numpy(), rtol=1e-10, atol=1e-12)


def test_einsum_errors():
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match=r"For 'einsum', the dimension 'j' has size 3 in one "
                                         r"operand and 4"):
        ops.einsum("ij,jk->ik", a, b)
    with pytest.raises(ValueError, match=r"For 'einsum', the equation 'ij,jk' names 2 operands, "
                                         r"but 1 were given"):
        ops.einsum("ij,jk", a)
    with pytest.raises(ValueError, match=r"For 'einsum', operand 0 has 2 dims but its "
                                         r"subscripts 'ijk' name 3"):
        ops.einsum("ijk->i", a)
    with pytest.raises(ValueError, match=r"For 'einsum', the output subscript 'z' is not in any"):
        ops.einsum("ij->z", a)
    with pytest.raises(ValueError, match=r"For 'einsum', the output subscripts 'ii' repeat"):
        ops.einsum("ij->ii", a)
    with pytest.raises(ValueError, match=r"For 'einsum', subscripts must be letters"):
        ops.einsum("i1->i", a)
    with pytest.raises(TypeError, match=r"For 'Einsum', the 'equation' must be a str"):
        P.Einsum(3)


# ---- invert / inv / softsign -------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_invert_matches_numpy(dtype, mode):
    x = sample((3, 5), dtype)
    if dtype != np.bool_:
        info = np.iinfo(dtype)
        x[0, :2] = (info.min, info.max)
    got = run(lambda t: (ops.invert(t), P.Invert()(t), ops.bitwise_not(t)), mode, x)
    for g in got:
        assert g.dtype == x.dtype
        np.testing.assert_array_equal(g, np.invert(x))
    with pytest.raises(TypeError, match=r"For 'invert', the input must be a bool or integer"):
        ops.invert(ms.Tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_inv_softsign_values_and_gradients(mode):
    x = np.array([[-3.0, -0.5, 0.0, 0.25, 2.0]], np.float64)
    got = run(lambda t: (ops.inv(t + 4.0), P.Inv()(t + 4.0), ops.softsign(t), P.Softsign()(t)),
              mode, x)
    np.testing.assert_allclose(got[0], 1 / (x + 4), rtol=1e-15)
    np.testing.assert_allclose(got[1], 1 / (x + 4), rtol=1e-15)
    np.testing.assert_allclose(got[2], x / (1 + np.abs(x)), rtol=1e-15)
    np.testing.assert_allclose(got[3], x / (1 + np.abs(x)), rtol=1e-15)
    g = grad_both_modes(lambda t: (ops.softsign(t) * 3.0).sum() + ops.inv(t + 4.0).sum(), x,
                        mode)
    t = torch.tensor(x, requires_grad=True)
    ((torch.nn.functional.softsign(t) * 3.0).sum() + (1 / (t + 4.0)).sum()).backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)


# ---- gradients of tril/triu/flip/roll in both modes --------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_layout_gradients_match_torch(mode):
    x = sample((2, 3, 4), np.float64, seed=4)
    w = sample((2, 3, 4), np.float64, seed=5)
    tw = ms.Tensor(w)

    def f(t):
        return (ops.tril(t, 1) * tw).sum() + (t.triu(-1) * tw * 2.0).sum() + \
            (ops.flip(t, (0, 2)) * tw * 3.0).sum() + (t.roll((1, -3), (1, 2)) * tw * 4.0).sum() + \
            (ops.roll(t, 5) * tw * 5.0).sum()

    got = grad_both_modes(f, x, mode)
    t, tw_ = torch.tensor(x, requires_grad=True), torch.tensor(w)
    loss = (torch.tril(t, 1) * tw_).sum() + (torch.triu(t, -1) * tw_ * 2.0).sum() + \
        (torch.flip(t, (0, 2)) * tw_ * 3.0).sum() + \
        (torch.roll(t, (1, -3), (1, 2)) * tw_ * 4.0).sum() + (torch.roll(t, 5) * tw_ * 5.0).sum()
    loss.backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-12, atol=1e-12)


# ---- MindSpore's family modules of the primitive classes -----------------------------------------

def test_family_modules_hold_the_operations_classes():
    from mycel.ops.operations import array_ops, math_ops, nn_ops, random_ops
    from mycel.ops.operations.math_ops import CumSum, Einsum  # noqa: F401 (the import form)
    from mycel.ops.operations.array_ops import Sort, TopK, Tril  # noqa: F401
    seen = set()
    for m in (array_ops, math_ops, nn_ops, random_ops):
        for name in m.__all__:
            assert getattr(m, name) is getattr(P, name), f"{m.__name__}.{name}"
            assert name not in seen, f"{name} is in two family modules"
            seen.add(name)
    assert not hasattr(math_ops, "Sort") and not hasattr(array_ops, "CumSum")
    x = ms.Tensor(np.array([[3.0, 1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(math_ops.CumSum()(x, 1).asnumpy(), [[3.0, 4.0, 6.0]])
