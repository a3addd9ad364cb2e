"""x[index] is lowered once (src/ops/indexing.h) for both modes: PYNATIVE runs the plan on
tensors, GRAPH emits it as StridedSlice and Gather nodes. These check that every mode gives
numpy's result for the same index expressions, that a PYNATIVE grad sees the same ops, and
that an index error is the same error, with the same message, in every mode."""
import os
import sys

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor

sys.path.insert(0, os.path.dirname(__file__))
from graph_harness import MODES, check_all_modes, run_mode  # noqa: E402

A = np.arange(120, dtype=np.float32).reshape(4, 5, 6)
IDX = np.array([3, 0, -1], np.int32)


def p_basic(x):
    return x[1], x[-1, 2:, ::-2], x[None, ..., 1], x[:, None, 1:4:2], x[True], x[()]


def p_tensor(x, i):
    return x[i], x[:, i], x[1:, ..., i], x[None, 2:, i], x[[0, 2]], x[..., [1, 1]]


@pytest.mark.parametrize("prog,args", [(p_basic, ()), (p_tensor, (Tensor(IDX),))])
def test_every_mode_gives_numpys_result(prog, args):
    out = check_all_modes(prog, Tensor(A), *args)
    np_args = tuple(a.asnumpy() for a in args)
    for got, want in zip(out, prog(A, *np_args)):
        np.testing.assert_array_equal(got.asnumpy(), want)


def p_loop_counter(x):
    s = x[0] * 0
    i = 0
    while i < 3:
        s = s + x[i]  # a run-time int: a 0-d Gather index
        i = i + 1
    return s


def test_run_time_int_index():
    out = check_all_modes(p_loop_counter, Tensor(A))
    np.testing.assert_array_equal(out.asnumpy(), A[0] + A[1] + A[2])


I0 = np.array([[3], [0], [-4]], np.int32)  # (3, 1)
I1 = np.array([1, -1, 0, 4], np.int64)      # (4,)


def p_several_tensors(x, i, j):
    # numpy's advanced indexing: the index shapes broadcast to B = (3, 4), which replaces the
    # indexed axes where the advanced indices stand together, and comes first where a slice,
    # None or '...' stands between them (an int beside a tensor counts as one of them).
    return (x[i, j], x[i, :, j], x[:, j, i], x[..., i, j], x[i, j, 2], x[1:3, i, j],
            x[0, :, j], x[:, j, :, None][:, :, -1], x[i, 1:4, j], x[None, i, None, j])


def test_several_tensor_indices_give_numpys_result():
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    i, j = I0, I1
    out = check_all_modes(p_several_tensors, Tensor(x), Tensor(i), Tensor(j))
    want = p_several_tensors(x, i, j)
    for got, w in zip(out, want):
        assert got.shape == w.shape
        np.testing.assert_array_equal(got.asnumpy(), w)


def p_int_apart_from_tensor(x, t):
    # the int and the tensor stand apart: B comes first (this was B in place before)
    return x[0, :, t], x[:, t, :, 1], x[1, t], x[:, 1, t], x[..., t, 1]


def test_an_int_apart_from_a_tensor_index_puts_its_dims_first():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    t = np.array([2, 0, -1], np.int32)
    out = check_all_modes(p_int_apart_from_tensor, Tensor(x), Tensor(t))
    for got, w in zip(out, p_int_apart_from_tensor(x, t)):
        assert got.shape == w.shape
        np.testing.assert_array_equal(got.asnumpy(), w)


def f_two_tensors(x, i, j):
    return (x[i, :, j] * x[i, :, j]).sum()


def g_two_tensors(x, i, j):
    return ms.grad(f_two_tensors)(x, i, j)


def e_bad_second_index(x, i, j):
    return x[i, :, j]


def test_grad_through_several_tensor_indices():
    torch = pytest.importorskip("torch")
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6) / 10
    out = check_all_modes(g_two_tensors, Tensor(x), Tensor(I0), Tensor(I1), rtol=1e-6)
    tx = torch.tensor(x, requires_grad=True)
    ti, tj = torch.tensor(I0.astype(np.int64)), torch.tensor(I1)
    (tx[ti, :, tj] ** 2).sum().backward()
    np.testing.assert_allclose(out.asnumpy(), tx.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_several_tensor_indices_check_their_bounds(mode):
    bad = Tensor(np.array([0, 6], np.int64))
    with pytest.raises(IndexError, match="out of range"):
        run_mode(e_bad_second_index, mode, Tensor(A), Tensor(I0), bad)


def test_setitem_with_several_tensor_indices():
    rng = np.random.default_rng(0)
    i, j = I0, I1
    # x[i, j], x[i, :, j], x[1:3, i, j], x[0, :, j], x[:, j] (one tensor: the value broadcasts
    # against numpy's result, not its flattened rows) and x[i]
    cases = [(lambda a, b: (a, b), (3, 4, 6)), (lambda a, b: (a, slice(None), b), (4, 5)),
             (lambda a, b: (slice(1, 3), a, b), (3, 4)), (lambda a, b: (0, slice(None), b), (1,)),
             (lambda a, b: (slice(None), b), (4, 4, 1)), (lambda a, b: (a,), (6,))]
    for index, vshape in cases:
        x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
        v = rng.standard_normal(vshape).astype(np.float32)
        want = x.copy()
        want[index(i, j)] = v
        t = Tensor(x)
        t[index(Tensor(i), Tensor(j))] = Tensor(v)
        np.testing.assert_array_equal(t.asnumpy(), want)


def f_indexed(x, i):
    return (x[1:, None, ::2, -1] * 2).sum() + x[:, i].sum()


def g_indexed(x, i):
    return ms.grad(f_indexed)(x, i)


def test_grad_of_an_index_expression():
    # PYNATIVE records the plan's StridedSlice and Gather; GRAPH differentiates its nodes.
    out = check_all_modes(g_indexed, Tensor(A), Tensor(np.array([1, 1], np.int32)))
    want = np.zeros_like(A)
    want[1:, ::2, -1] += 2
    want[:, 1] += 2
    np.testing.assert_array_equal(out.asnumpy(), want)


def e_oob(x):
    return x[0, 7]


def e_too_many(x):
    return x[0, 0, 0, 0]


def e_two_ellipses(x):
    return x[..., 0, ...]


def e_two_tensors(x, i, j):
    return x[i, j]


def e_float_index(x, f):
    return x[f]


@pytest.mark.parametrize("prog,extra,kind,msg", [
    (e_oob, (), IndexError, "index 7 is out of bounds for dimension 1 with size 5."),
    (e_too_many, (), IndexError, "too many indices for a tensor of dimension 3: got 4."),
    (e_two_ellipses, (), IndexError, "an index can only have a single ellipsis ('...')."),
    (e_two_tensors, (Tensor(IDX), Tensor(np.array([0, 1], np.int32))), IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [3] [2]."),
    (e_float_index, (Tensor(np.array([0.5], np.float32)),), IndexError,
     "tensors used as indices must be integer or bool tensors, but got Float32."),
])
def test_index_errors_are_the_same_in_every_mode(prog, extra, kind, msg):
    for mode in MODES:
        with pytest.raises(kind) as ei:
            run_mode(prog, mode, Tensor(A), *extra)
        assert msg in str(ei.value), (mode, str(ei.value))


def e_mask(x, m):
    return x[m]


def e_false(x):
    return x[False]


def test_graph_mode_limits_keep_their_messages():
    with pytest.raises(IndexError, match="boolean mask indexing"):
        run_mode(e_mask, "graph", Tensor(A), Tensor(A > 50))
    with pytest.raises(IndexError, match=r"x\[False\]"):
        run_mode(e_false, "graph", Tensor(A))
    # PYNATIVE has no such limits.
    np.testing.assert_array_equal(run_mode(e_mask, "pynative", Tensor(A), Tensor(A > 50)).asnumpy(),
                                  A[A > 50])
    assert run_mode(e_false, "pynative", Tensor(A)).shape == (0, 4, 5, 6)
