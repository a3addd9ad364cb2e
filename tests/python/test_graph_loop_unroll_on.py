"""Constant-trip loops whose body needs the counter as a compile-time constant (a shape, a
Python helper's argument, a tuple index): the specialiser broadens a constant-trip loop after
ir.kMaxUnroll (64) iterations, and when the broadened body cannot be compiled the loop unrolls
on instead, up to ir.kMaxUnrolledLoop (256) iterations, past which a clear error says why
(src/compiler/specialize.cc, context_for / unroll_on). MindSpore unrolls such loops.
ops.matrix_solve (Gaussian elimination unrolled over the static size) is the motivating
case; oracles are numpy, torch and closed forms."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops

from graph_harness import check_all_modes, graph_ir


class Solve(nn.Cell):
    def construct(self, a, b):
        return ops.matrix_solve(a, b)


def _system(m, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, m)) + m * np.eye(m)  # diagonally dominant: well conditioned
    b = rng.standard_normal((m, 3))
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("m", [63, 64, 65, 100, 200])
def test_matrix_solve_past_the_unroll_limit_matches_numpy(mode, m):
    a, b = _system(m, m)
    want = np.linalg.solve(a, b)
    # A Cell: compiled in GRAPH mode, run eagerly in PYNATIVE mode.
    got = Solve()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    # Under ms.jit: compiled in both modes.
    got = ms.jit(lambda x, y: ops.matrix_solve(x, y))(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)


def test_matrix_solve_float32_of_size_100_under_jit():
    a, b = _system(100, 5, np.float32)
    got = ms.jit(lambda x, y: ops.matrix_solve(x, y))(ms.Tensor(a), ms.Tensor(b))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), np.linalg.solve(a.astype(np.float64), b),
                               rtol=1e-4, atol=1e-5)


def test_matrix_solve_up_to_the_unroll_limit_and_past_it():
    # The unrolled elimination's steps do not nest in one another (each iteration is deferred
    # to the loop's first: test_graph_loop_depth.py), so 256 steps, exactly the unrolling
    # limit, compile at the default max_call_depth; past it the error names the loop (its
    # file:line) and the limit.
    solve = lambda x, y: ops.matrix_solve(x, y)  # noqa: E731
    a, b = _system(256, 256)
    got = ms.jit(solve)(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-9, atol=1e-11)
    a, b = _system(257, 257)
    with pytest.raises(RecursionError) as e:
        ms.jit(solve)(ms.Tensor(a), ms.Tensor(b))
    msg = str(e.value)
    assert "more than 256 iterations" in msg, msg
    assert "compile-time constant" in msg, msg
    assert "the loop 'matrix_solve.for" in msg and "linalg_func.py:" in msg, msg
    assert "for k in range(m)" in msg, msg


def _solve_loss(x, y):
    return ops.sum(ops.matrix_solve(x, y) ** 2)


def test_matrix_solve_gradients_of_size_80_under_jit(mode):
    a, b = _system(80, 80)
    ga, gb = ms.jit(lambda x, y: ms.grad(_solve_loss, grad_position=(0, 1))(x, y))(
        ms.Tensor(a), ms.Tensor(b))
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (torch.linalg.solve(at, bt) ** 2).sum().backward()
    np.testing.assert_allclose(ga.asnumpy(), at.grad.numpy(), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(gb.asnumpy(), bt.grad.numpy(), rtol=1e-8, atol=1e-12)


# ---------------------------------------------------------------- user loops


def counter_as_shape(x):
    for k in range(100):
        x = x + ops.ones((k % 3 + 1,), ms.float32).sum()  # k is a shape: a constant
    return x


def test_a_loop_whose_body_needs_the_counter_as_a_shape_unrolls_past_64():
    x = ms.Tensor(np.array([0.5, -1.0], np.float32))
    out = check_all_modes(counter_as_shape, x)
    want = np.array([0.5, -1.0], np.float32) + sum(k % 3 + 1 for k in range(100))
    np.testing.assert_array_equal(out.asnumpy(), want)


def counter_as_tuple_index(x):
    scales = (1.0, 2.0, 3.0)
    for k in range(90):
        x = x * 0.5 + scales[k % 3] * ops.ones((k % 2 + 1,), ms.float32).sum()
    return x


def test_a_loop_whose_body_indexes_a_tuple_and_makes_a_shape_with_the_counter():
    x = ms.Tensor(np.array([1.0], np.float32))
    out = check_all_modes(counter_as_tuple_index, x)
    want = np.float32(1.0)
    for k in range(90):
        want = want * np.float32(0.5) + np.float32((1.0, 2.0, 3.0)[k % 3] * (k % 2 + 1))
    np.testing.assert_allclose(out.asnumpy(), [want], rtol=1e-6)


def _inner_counter_loop(x, i):
    for j in range(66):
        x = x + ops.ones((i % 2 + j % 3 + 1,), ms.float32).sum()  # needs i and j
    return x


def nested_counter_loops(x):
    for i in range(66):
        x = _inner_counter_loop(x, i)
    return x


def test_nested_loops_both_needing_their_counters_unroll(monkeypatch):
    # Both loops pass kMaxUnroll. The inner loop's broadened trial fails once (in the outer
    # loop's first iteration) and it unrolls; met again in the outer loop's next iterations,
    # it unrolls at once. The outer loop's trial fails at its body's first step (the inner
    # loop needs i), and it unrolls too: one failed trial per loop, not one per enclosing
    # iteration. (Loops nested directly: test_graph_loop_depth.py.)
    # MYCEL_VERIFY_IR (conftest) checks the IR after every pass, at a cost that grows faster
    # than the program (4,356 unrolled bodies: minutes); this test is about the compiler's.
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    x = ms.Tensor(np.array([0.0], np.float32))
    out = ms.jit(nested_counter_loops)(x)
    want = sum(i % 2 + j % 3 + 1 for i in range(66) for j in range(66))
    np.testing.assert_array_equal(out.asnumpy(), [want])


def counter_past_the_limit(x):
    for k in range(300):
        x = x + ops.ones((k % 3 + 1,), ms.float32).sum()  # <- needs k
    return x


def test_a_loop_past_256_iterations_needing_its_counter_is_a_clear_error():
    x = ms.Tensor(np.array([0.0], np.float32))
    with pytest.raises(RecursionError) as e:
        ms.jit(counter_past_the_limit)(x)
    msg = str(e.value)
    assert "more than 256 iterations" in msg, msg
    assert "compile-time constant" in msg, msg
    assert "# <- needs k" in msg, msg  # the user's line
    assert "PYNATIVE" in msg, msg


def late_shape_error(x):
    for k in range(100):
        x = x + ops.ones((3 if k < 80 else 5,), ms.float32)  # <- bad at k = 80
    return x


def test_a_genuine_error_in_such_a_loop_is_reported_as_itself():
    # Broadened, the loop fails (its branches give different shapes); unrolled on, iteration
    # 80 adds shapes (3,) and (5,): that error, at the user's line, not a loop-limit error.
    x = ms.Tensor(np.zeros(3, np.float32))
    with pytest.raises(ValueError) as e:
        ms.jit(late_shape_error)(x)
    msg = str(e.value)
    assert "# <- bad at k = 80" in msg, msg
    assert "unrolling limit" not in msg, msg


def plain_long_loop(x):
    for k in range(1000):
        x = x * 0.5 + k
    return x


def test_a_loop_that_needs_no_constant_is_still_compiled_as_a_loop():
    x = ms.Tensor(np.array([1.0, 2.0], np.float64))
    out = check_all_modes(plain_long_loop, x)
    want = np.array([1.0, 2.0])
    for k in range(1000):
        want = want * 0.5 + k
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)
    ir = graph_ir(plain_long_loop, x)
    assert "switch(" in ir, ir[-2000:]
    assert ir.count("Mul(") < 100, "range(1000) was unrolled:\n" + ir[-2000:]
