"""Unrolled loops cost compile-time depth by their nesting, not by their trip counts: the
specialiser defers a constant-trip loop's next iteration to the loop's first one instead of
specialising it inside the last (src/compiler/specialize_unroll.cc, "Unrolled loops" in
specialize_impl.h). Nested loops whose bodies need their counters (or a growing tuple) as
compile-time constants unroll at the default max_call_depth; the unrolling bound (256
iterations per loop) stays, with an error naming the loop's file:line. PYNATIVE is the
oracle (check_all_modes), with numpy closed forms."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops

from graph_harness import check_all_modes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tuple_of_entries(x):
    out = ()
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out = out + (x[i, j],)  # a tuple growing per iteration: never settles
    return ops.stack(out)


@pytest.mark.parametrize("n", [8, 24])
def test_a_nest_building_a_tuple(monkeypatch, n):
    # The inner loop's carried tuple changes type every iteration, so both loops unroll; nested
    # in one another's iterations, 24 x 24 needed ~1,300 levels (the default limit is 1000).
    # MYCEL_VERIFY_IR (conftest) checks the IR after every pass, at a cost that grows faster
    # than the program: on for the small nest, off for the large ones here.
    if n > 8:
        monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    x = ms.Tensor(np.arange(n * n, dtype=np.float32).reshape(n, n))
    out = check_all_modes(tuple_of_entries, x)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(n * n, dtype=np.float32))


TABLE = [[(i * 7 + j * 3) % 5 + 1 for j in range(24)] for i in range(24)]


def list_of_lists(x):
    for row in TABLE:
        for v in row:
            x = x + ops.ones((v,), ms.float32).sum()  # v is a shape: a constant
    return x


def test_a_24_by_24_nest_over_a_list_of_lists_of_constants(monkeypatch):
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    x = ms.Tensor(np.array([0.5], np.float32))
    out = check_all_modes(list_of_lists, x)
    np.testing.assert_array_equal(out.asnumpy(), [0.5 + sum(map(sum, TABLE))])


def counters_as_shapes(x):
    for i in range(8):
        for j in range(70):  # past kMaxUnroll (64): the inner loop's trial fails, it unrolls
            x = x + ops.ones((i % 2 + j % 3 + 1,), ms.float32).sum()
    return x


def test_an_8_by_70_nest_needing_both_counters(monkeypatch):
    # 560 unrolled bodies.
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    x = ms.Tensor(np.array([0.0], np.float32))
    out = check_all_modes(counters_as_shapes, x)
    want = sum(i % 2 + j % 3 + 1 for i in range(8) for j in range(70))
    np.testing.assert_array_equal(out.asnumpy(), [want])


def three_levels(x):
    acc = ()
    for i in range(8):
        for j in range(8):
            for k in range(8):
                x = x + ops.ones((i + j % 3 + k % 2 + 1,), ms.float32).sum()  # needs i, j, k
            acc = acc + (x,)  # grows: unrolled
    return ops.stack(acc) * 0.5


def test_a_three_level_nest_of_eight(monkeypatch):
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")  # 512 bodies
    x = ms.Tensor(np.array([1.0], np.float32))
    out = check_all_modes(three_levels, x)
    want, acc = 1.0, []
    for i in range(8):
        for j in range(8):
            want += sum(i + j % 3 + k % 2 + 1 for k in range(8))
            acc.append(want)
    np.testing.assert_array_equal(out.asnumpy(), np.array(acc, np.float32)[:, None] * 0.5)


class Accumulate(nn.Cell):
    """Effects in every unrolled iteration: the weight's updates and reads keep their order
    across the deferred iterations (the token passes from each to the next)."""

    def __init__(self):
        super().__init__()
        self.acc = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="acc")

    def construct(self, x):
        for i in range(6):
            for j in range(30):
                ops.assign_add(self.acc, ops.ones((i % 2 + j % 3 + 1,), ms.float32).sum() * x)
            x = x + self.acc * 0.001  # reads the weight after the inner loop's writes
        return x, self.acc


def test_weight_updates_in_a_nest_keep_their_order(monkeypatch):
    # 180 bodies: every iteration after a loop's first is deferred. (Larger nests of updates
    # compile slowly in the cse pass, deferred or not.)
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    x = ms.Tensor(np.array([1.0], np.float32))
    # A fresh Cell per mode (its weight starts at zero); PYNATIVE is the reference.
    check_all_modes(Accumulate, x, rtol=1e-6)


def _solve_jit(m, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, m)) + m * np.eye(m)
    b = rng.standard_normal((m, 2))
    got = ms.jit(lambda p, q: ops.matrix_solve(p, q))(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-9, atol=1e-11)


def test_matrix_solve_of_245_under_jit_at_a_small_max_call_depth(monkeypatch):
    # Its two unrolled loops (elimination, back substitution) no longer nest their 245 steps:
    # a limit of 50 levels is enough.
    monkeypatch.setenv("MYCEL_VERIFY_IR", "0")
    old = ms.get_context("max_call_depth")
    ms.set_context(max_call_depth=50)
    try:
        _solve_jit(245, 3)
    finally:
        ms.set_context(max_call_depth=old)


_PAST_THE_BOUND = textwrap.dedent("""
    import numpy as np
    import mycel as ms
    from mycel import ops

    def needs_counter(x):
        for i in range(3):
            for j in range(300):
                x = x + ops.ones((j % 3 + 1,), ms.float32).sum()  # <- needs j
        return x

    def grows(x):
        out = ()
        for i in range(2):
            for j in range(300):
                out = out + (x,)
        return len(out)

    def deep(x):
        for a in range(2):
            for b in range(2):
                for c in range(2):
                    for d in range(2):
                        for e in range(2):
                            x = x + ops.ones((a + b + c + d + e + 1,), ms.float32).sum()
        return x

    x = ms.Tensor(np.array([0.0], np.float32))
    for fn in (needs_counter, grows):
        try:
            ms.jit(fn)(x)
            print(fn.__name__, "compiled")
        except RecursionError as e:
            print(fn.__name__, "RecursionError", str(e).replace(chr(10), " | "))
    ms.set_context(max_call_depth=6)  # five nested loops need more
    try:
        ms.jit(deep)(x)
        print("deep compiled")
    except RecursionError as e:
        print("deep RecursionError", str(e).replace(chr(10), " | "))
    ms.set_context(max_call_depth=1000)
    print("deep", ms.jit(deep)(x).asnumpy()[0])
""")


def test_nests_past_the_bound_give_the_typed_error_not_a_crash(tmp_path):
    script = tmp_path / "nests.py"
    script.write_text(_PAST_THE_BOUND)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), MYCEL_VERIFY_IR="0")
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    lines = p.stdout.splitlines()
    out = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in lines[:2]}
    where = f"{script}:"
    needs = out["needs_counter"]
    assert needs.startswith("RecursionError"), needs
    assert "more than 256 iterations" in needs and "compile-time constant" in needs, needs
    # The inner loop, by name and file:line.
    assert "the loop 'needs_counter.for" in needs and f"' at {where}8:" in needs, needs
    assert "# <- needs j" in needs, needs
    grows = out["grows"]
    assert grows.startswith("RecursionError"), grows
    assert "after 256 iterations (the unrolling limit is 256)" in grows, grows
    assert "the loop 'grows.for" in grows and f"' at {where}15:" in grows, grows
    assert lines[2].startswith("deep RecursionError") and "nests calls too deeply" in lines[2], \
        lines[2]
    want = sum(a + b + c + d + e + 1 for a in range(2) for b in range(2) for c in range(2)
               for d in range(2) for e in range(2))
    assert lines[3] == f"deep {float(want)}", lines[3]
