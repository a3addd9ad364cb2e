"""Graph-mode corpus, part 1: control flow (issue #3's acceptance corpus).

Every program here runs in PYNATIVE mode, under @jit and in GRAPH mode (graph_harness.
check_all_modes) with identical results; most also check the PYNATIVE result against a
numpy oracle. Covered: if/elif/else on tensor and constant conditions (a constant condition
leaves no switch in the optimised IR), nested ifs, return from branches and loops, while on
tensor conditions and on Python-int counters, for over range (constant, large, start/stop/
step, negative step), over tuples of sub-cells, lists, a tensor's first axis, zip and
enumerate, break/continue, nested loops, values computed between two inner loops (for and
while, nested three deep, a Cell looping over bucket tuples), loops carrying tuples,
recursion (constant depth and depth from a tensor value), mutual recursion, closures/nested
defs/lambdas, conditional expressions, and/or/not, a 100,000-iteration tensor while loop in
flat memory, and print at run time.
"""
import numpy as np
import pytest

import mycel
from mycel import Tensor, Parameter, ops, nn
from mycel import _mycel as _C

from graph_harness import check_all_modes, graph_ir, run_mode


def T(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype=dtype))


def npy(t):
    return t.asnumpy()


RNG = np.random.default_rng(1234)


def rand(*shape):
    return T(RNG.standard_normal(shape).astype(np.float32))


# ------------------------------------------------------------------------------------------
# if / elif / else


def if_else_tensor(x, y):
    if x.sum() > y.sum():
        z = x * 2.0 + y
    else:
        z = y - x
    return z


@pytest.mark.parametrize("scale", [1.0, -1.0])
def test_if_else_on_tensor_condition(scale):
    x = T([1.0, 2.0, 3.0]) * scale
    y = T([0.5, 1.0, 1.5])
    out = check_all_modes(if_else_tensor, x, y)
    xs, ys = npy(x), npy(y)
    want = xs * 2.0 + ys if xs.sum() > ys.sum() else ys - xs
    np.testing.assert_array_equal(npy(out), want.astype(np.float32))


class Piecewise(nn.Cell):
    """if/elif/else on a tensor condition inside a Cell."""

    def construct(self, x):
        m = x.mean()
        if m > 1.0:
            y = x - 1.0
        elif m < -1.0:
            y = x + 1.0
        else:
            y = x * x
        return y


@pytest.mark.parametrize("shift", [3.0, -3.0, 0.0])
def test_if_elif_else_cell(shift):
    x = T([0.25, 0.5, -0.5, 1.0]) + shift
    out = check_all_modes(Piecewise(), x)
    xs = npy(x)
    m = xs.mean()
    want = xs - 1.0 if m > 1.0 else (xs + 1.0 if m < -1.0 else xs * xs)
    np.testing.assert_array_equal(npy(out), want)


def const_cond(x, mode):
    if mode == 0:
        y = x + 1.0
    elif mode == 1:
        y = x * 3.0
    else:
        y = ops.relu(x)
    return y


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_if_on_constant_condition_leaves_no_switch(mode):
    x = T([-1.0, 2.0, -3.0])
    out = check_all_modes(const_cond, x, mode)
    xs = npy(x)
    want = [xs + 1.0, xs * 3.0, np.maximum(xs, 0.0)][mode]
    np.testing.assert_array_equal(npy(out), want)
    ir = graph_ir(const_cond, x, mode)
    assert "switch" not in ir, ir


class FlagNet(nn.Cell):
    """Branches on attributes of self (a flag, self.training, a None attribute)."""

    def __init__(self, use_bias):
        super().__init__()
        self.use_bias = use_bias
        self.w = Parameter(T([[1.0, 2.0], [3.0, 4.0]]), name="w")
        self.b = Parameter(T([0.5, -0.5]), name="b") if use_bias else None

    def construct(self, x):
        y = ops.matmul(x, self.w)
        if self.use_bias:
            y = y + self.b
        if self.b is not None and self.training:
            y = y * 2.0
        if not self.training:
            y = y - 1.0
        return y


@pytest.mark.parametrize("use_bias,train", [(True, False), (False, False), (True, True)])
def test_if_on_self_flags_folds(use_bias, train):
    x = T([[1.0, 1.0], [2.0, -1.0]])
    net = FlagNet(use_bias)
    net.set_train(train)
    out = check_all_modes(net, x)
    want = npy(x) @ np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    if use_bias:
        want = want + np.array([0.5, -0.5], np.float32)
    if use_bias and train:
        want = want * 2.0
    if not train:
        want = want - 1.0
    np.testing.assert_array_equal(npy(out), want)
    assert "switch" not in graph_ir(net, x)


def nested_if(x, y):
    if x.max() > 0.0:
        if y.max() > 0.0:
            out = x + y
        else:
            out = x - y
    else:
        if y.min() < 0.0:
            out = x * y
        else:
            out = -x
    return out


@pytest.mark.parametrize("sx,sy", [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0)])
def test_nested_if(sx, sy):
    x = T([1.0, 2.0]) * sx
    y = T([0.5, 3.0]) * sy
    out = check_all_modes(nested_if, x, y)
    xs, ys = npy(x), npy(y)
    if xs.max() > 0:
        want = xs + ys if ys.max() > 0 else xs - ys
    else:
        want = xs * ys if ys.min() < 0 else -xs
    np.testing.assert_array_equal(npy(out), want)


def early_return(x):
    if x.sum() < 0.0:
        return -x
    y = x * 2.0
    if y.sum() > 10.0:
        return y - 10.0
    return y


@pytest.mark.parametrize("vals", [[-1.0, -2.0], [1.0, 2.0], [5.0, 6.0]])
def test_return_from_inside_branches(vals):
    x = T(vals)
    out = check_all_modes(early_return, x)
    xs = npy(x)
    if xs.sum() < 0:
        want = -xs
    elif (xs * 2).sum() > 10:
        want = xs * 2 - 10
    else:
        want = xs * 2
    np.testing.assert_array_equal(npy(out), want)


# ------------------------------------------------------------------------------------------
# while


def while_tensor(x, limit):
    n = T(0, np.int32)
    while x.sum() < limit:
        x = x * 2.0
        n = n + 1
    return x, n


def test_while_on_tensor_condition():
    x = T([0.5, 0.25])
    out = check_all_modes(while_tensor, x, T(40.0))
    xs, n = npy(x), 0
    while xs.sum() < 40.0:
        xs, n = xs * 2.0, n + 1
    np.testing.assert_array_equal(npy(out[0]), xs)
    assert int(npy(out[1])) == n == 6


def while_int_counter(x):
    i = 0
    acc = x
    while i < 4:
        acc = acc * x + float(i)
        i += 1
    return acc, i


def test_while_python_int_counter_unrolled():
    x = T([1.5, -0.5])
    out = check_all_modes(while_int_counter, x)
    xs = npy(x)
    acc = xs
    for i in range(4):
        acc = acc * xs + np.float32(i)
    np.testing.assert_array_equal(npy(out[0]), acc)
    assert out[1] == 4
    ir = graph_ir(while_int_counter, x)
    assert "switch" not in ir, ir  # a constant condition: fully unrolled


def return_from_while(x, limit):
    i = T(0.0)
    while i < 100.0:
        x = x + 1.0
        if x.max() > limit:
            return x, i
        i = i + 1.0
    return x * 0.0, i


@pytest.mark.parametrize("limit", [3.5, 1000.0])
def test_return_from_inside_while(limit):
    x = T([0.0, 1.0])
    out = check_all_modes(return_from_while, x, T(limit))
    if limit < 100:
        np.testing.assert_array_equal(npy(out[0]), [3.0, 4.0])
        assert float(npy(out[1])) == 2.0
    else:
        np.testing.assert_array_equal(npy(out[0]), [0.0, 0.0])
        assert float(npy(out[1])) == 100.0


def while_break_continue(x):
    i = T(0, np.int32)
    acc = ops.zeros_like(x)
    while i < 20:
        i = i + 1
        if i % 3 == 0:
            continue
        if i > 10:
            break
        acc = acc + x * i.astype(mycel.float32)
    return acc, i


def test_break_and_continue_in_while():
    x = T([1.0, 0.5])
    out = check_all_modes(while_break_continue, x)
    k = sum(i for i in range(1, 11) if i % 3 != 0)
    np.testing.assert_array_equal(npy(out[0]), npy(x) * np.float32(k))
    assert int(npy(out[1])) == 11


def count_to(limit):
    i = T(0, np.int32)
    s = T(0.0)
    while i < limit:
        i = i + 1
        s = s + 0.5
    return i, s


def test_while_100000_iterations_in_flat_memory():
    fn = mycel.jit(count_to)
    small = fn(T(10, np.int32))  # compile and warm up
    assert int(npy(small[0])) == 10
    before = _C.memory_stats()["in_use"]
    _C.reset_peak_memory()
    out = fn(T(100000, np.int32))
    stats = _C.memory_stats()
    assert int(npy(out[0])) == 100000
    assert float(npy(out[1])) == 50000.0
    del out
    after = _C.memory_stats()["in_use"]
    assert after <= before + 4096, (before, after)
    # The peak holds a few 0-d tensors, not one per iteration.
    assert stats["peak_in_use"] - before < 64 * 1024, (before, stats)
    # GRAPH mode gives the same answer as PYNATIVE on a smaller count.
    check_all_modes(count_to, T(1000, np.int32))


# ------------------------------------------------------------------------------------------
# for


def for_range_const(x):
    acc = x
    for i in range(5):
        acc = acc + x * float(i)
    return acc


def test_for_over_constant_range():
    x = T([1.0, 2.0, 4.0])
    out = check_all_modes(for_range_const, x)
    xs = npy(x)
    want = xs
    for i in range(5):
        want = want + xs * np.float32(i)
    np.testing.assert_array_equal(npy(out), want)


def for_range_large(x):
    acc = x
    for i in range(200):
        acc = acc * 0.5 + x
    return acc


def test_for_over_large_range_becomes_a_loop():
    x = T([1.0, -2.0])
    out = check_all_modes(for_range_large, x)
    xs = npy(x)
    want = xs
    for _ in range(200):
        want = want * np.float32(0.5) + xs
    np.testing.assert_array_equal(npy(out), want)
    # Constant-trip loops unroll up to ir.kMaxUnroll (64) iterations, then become a
    # loop: a graph that tail-calls itself through a switch.
    ir = graph_ir(for_range_large, x)
    assert "switch(" in ir and "@for_range_large.for" in ir, ir[-2000:]
    assert ir.count("Mul(") < 100, "range(200) was fully unrolled:\n" + ir[-2000:]


def for_growing_tuple_past_unroll_limit(x):
    out = ()
    for i in range(80):
        out = out + (x * float(i),)
    return ops.stack(out)


def test_a_tuple_built_over_more_iterations_than_the_unroll_limit():
    # The carried tuple grows on every iteration, so the loop cannot become a compact loop:
    # it unrolls past ir.kMaxUnroll (64), up to ir.kMaxUnrolledLoop.
    x = T([1.0, -2.0])
    out = check_all_modes(for_growing_tuple_past_unroll_limit, x)
    np.testing.assert_array_equal(npy(out), np.arange(80, dtype=np.float32)[:, None] * npy(x))


def test_a_sequential_cell_longer_than_the_unroll_limit():
    # `for cell in self.cell_list` reads a list of distinct cells by the loop index: a
    # broadened index could not pick from it, so the loop unrolls past ir.kMaxUnroll.
    def make():
        rng = np.random.default_rng(3)
        layers = []
        for _ in range(35):  # 70 cells
            d = nn.Dense(4, 4)
            d.weight.set_data(T(rng.standard_normal((4, 4)) * 0.5))
            d.bias.set_data(T(rng.standard_normal(4) * 0.1))
            layers.append(d)
            layers.append(nn.Tanh())
        return nn.SequentialCell(layers)

    x = T(np.linspace(-1, 1, 8).reshape(2, 4))
    net = make()
    out = check_all_modes(make, x, factory=True, rtol=1e-6)
    want = npy(x).astype(np.float64)
    for cell in net.cell_list:
        if isinstance(cell, nn.Dense):
            want = want @ npy(cell.weight).T.astype(np.float64) + npy(cell.bias)
        else:
            want = np.tanh(want)
    np.testing.assert_allclose(npy(out), want, rtol=1e-5, atol=1e-6)


def for_range_start_stop_step(x):
    acc = ops.zeros_like(x)
    for i in range(3, 17, 4):
        acc = acc + x * float(i)
    return acc


def test_for_range_start_stop_step():
    x = T([1.0, 0.5])
    out = check_all_modes(for_range_start_stop_step, x)
    np.testing.assert_array_equal(npy(out), npy(x) * np.float32(3 + 7 + 11 + 15))


def for_range_negative_step(x):
    acc = x
    seen = ()
    for i in range(10, 0, -3):
        acc = acc * 2.0 - float(i)
        seen = seen + (i,)
    return acc, seen


def test_for_range_negative_step():
    x = T([1.0, 3.0])
    out = check_all_modes(for_range_negative_step, x)
    want = npy(x)
    for i in range(10, 0, -3):
        want = want * np.float32(2.0) - np.float32(i)
    np.testing.assert_array_equal(npy(out[0]), want)
    assert out[1] == (10, 7, 4, 1)


def for_range_large_tensor_index(x, n):
    acc = T(0.0)
    for i in range(300):
        acc = acc + x[i % 3] * i
    return acc + n


def test_for_large_range_with_loop_index():
    x = T([1.0, 2.0, 3.0])
    out = check_all_modes(for_range_large_tensor_index, x, T(0.5))
    want = np.float32(0.0)
    xs = npy(x)
    for i in range(300):
        want = want + xs[i % 3] * np.float32(i)
    np.testing.assert_array_equal(npy(out), np.float32(want + np.float32(0.5)))


class Affine(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(T(w))
        self.b = Parameter(T(b))

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


class SequentialMLP(nn.Cell):
    """for over a tuple of sub-cells stored on self, relu between layers."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(7)
        dims = [4, 8, 8, 3]
        self.l0 = Affine(rng.standard_normal((4, 8)) * 0.5, rng.standard_normal(8) * 0.1)
        self.l1 = Affine(rng.standard_normal((8, 8)) * 0.5, rng.standard_normal(8) * 0.1)
        self.l2 = Affine(rng.standard_normal((8, 3)) * 0.5, rng.standard_normal(3) * 0.1)
        self.layers = (self.l0, self.l1, self.l2)
        self.dims = dims

    def construct(self, x):
        n = len(self.layers)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < n - 1:
                x = ops.relu(x)
        return x


def test_for_over_tuple_of_subcells():
    net = SequentialMLP()
    x = rand(5, 4)
    out = check_all_modes(net, x)
    h = npy(x)
    for i, layer in enumerate(net.layers):
        h = h @ npy(layer.w) + npy(layer.b)
        if i < 2:
            h = np.maximum(h, 0)
    np.testing.assert_allclose(npy(out), h, rtol=1e-5, atol=1e-6)


def for_over_list(x):
    scales = [0.5, 2.0, -1.0, 3.0]
    outs = [x * 0.0]
    for s in scales:
        outs = outs + [x * s]
    total = outs[1]
    for o in outs[2:]:
        total = total + o
    return total, len(outs)


def test_for_over_list():
    x = T([1.0, 2.0])
    out = check_all_modes(for_over_list, x)
    xs = npy(x)
    want = xs * np.float32(0.5) + xs * np.float32(2.0) + xs * np.float32(-1.0) + xs * 3.0
    np.testing.assert_array_equal(npy(out[0]), want.astype(np.float32))
    assert out[1] == 5


def for_over_tensor_tuple(a, b, c):
    acc = a * 0.0
    for t in (a, b, c):
        acc = acc * 2.0 + t
    return acc


def test_for_over_tuple_of_tensors():
    a, b, c = T([1.0]), T([2.0]), T([3.0])
    out = check_all_modes(for_over_tensor_tuple, a, b, c)
    np.testing.assert_array_equal(npy(out), [((1.0 * 2) + 2.0) * 2 + 3.0])


def _scale_all(ts, k):
    """ts (nested tuples of tensors) times k, recursively (as amp's _tree_map)."""
    if isinstance(ts, tuple):
        out = ()
        for t in ts:
            out = out + (_scale_all(t, k),)
        return out
    return ts * k


def for_over_mixed_tuple_in_a_run_time_branch(x, y):
    ts = (x, y, x + 1.0)  # tensors of two shapes: the loop must unroll
    if ops.sum(x) > 0:
        ts = _scale_all(ts, 2.0)
    return ts


def test_for_over_a_mixed_tuple_inside_a_run_time_branch():
    # A loop inside the branch of a run-time `if` is unrolled as anywhere else: the run-time
    # call below the loop's first entry is no reason to compile it as a loop (which a tuple
    # of mixed shapes cannot be; the mixed-precision tutorial's unscale hit that).
    for sign in (1.0, -1.0):
        x, y = T([sign, 2.0 * sign]), T([[1.0, 2.0, 3.0]])
        out = check_all_modes(for_over_mixed_tuple_in_a_run_time_branch, x, y)
        k = 2.0 if sign > 0 else 1.0
        for got, want in zip(out, (npy(x) * k, npy(y) * k, (npy(x) + 1.0) * k)):
            np.testing.assert_array_equal(npy(got), want.astype(np.float32))


def for_over_tensor_rows(x):
    acc = ops.zeros_like(x[0])
    best = x[0]
    for row in x:
        acc = acc + row * row
        best = ops.maximum(best, row)
    return acc, best


def test_for_over_tensor_first_axis():
    x = rand(6, 3)
    out = check_all_modes(for_over_tensor_rows, x)
    xs = npy(x)
    acc = np.zeros(3, np.float32)
    for row in xs:
        acc = acc + row * row
    np.testing.assert_array_equal(npy(out[0]), acc)
    np.testing.assert_array_equal(npy(out[1]), xs.max(axis=0))


def for_zip(xs, ws):
    acc = T(0.0)
    for x, w in zip(xs, ws):
        acc = acc + (x * w).sum()
    return acc


def test_for_over_zip():
    xs = (T([1.0, 2.0]), T([3.0, 4.0]), T([5.0, 6.0]))
    ws = (T([0.5, 0.5]), T([1.0, -1.0]), T([2.0, 0.0]))
    out = check_all_modes(for_zip, xs, ws)
    want = np.float32(0.0)
    for x, w in zip(xs, ws):
        want = want + (npy(x) * npy(w)).sum()
    np.testing.assert_array_equal(npy(out), np.float32(want))


def for_enumerate(x):
    acc = ops.zeros_like(x[0])
    for i, row in enumerate(x):
        acc = acc + row * float(i + 1)
    return acc


def test_for_over_enumerate_of_tensor():
    x = rand(4, 2)
    out = check_all_modes(for_enumerate, x)
    want = np.zeros(2, np.float32)
    for i, row in enumerate(npy(x)):
        want = want + row * np.float32(i + 1)
    np.testing.assert_array_equal(npy(out), want)


def for_break_continue(x):
    acc = ops.zeros_like(x)
    count = 0
    for i in range(10):
        if i % 2 == 1:
            continue
        if i >= 7:
            break
        acc = acc + x * float(i)
        count += 1
    return acc, count


def test_break_and_continue_in_for_constant():
    x = T([1.0, -1.0])
    out = check_all_modes(for_break_continue, x)
    np.testing.assert_array_equal(npy(out[0]), npy(x) * np.float32(0 + 2 + 4 + 6))
    assert out[1] == 4


def for_break_on_tensor(x, limit):
    acc = ops.zeros_like(x)
    steps = T(0, np.int32)
    for i in range(50):
        if acc.sum() > limit:
            break
        if i % 2 == 0:
            continue
        acc = acc + x
        steps = steps + 1
    return acc, steps


def test_break_and_continue_in_for_on_tensor_condition():
    x = T([1.0, 2.0])
    out = check_all_modes(for_break_on_tensor, x, T(10.0))
    # acc grows by 3 every odd i; stops once acc.sum() > 10 (after 4 additions).
    np.testing.assert_array_equal(npy(out[0]), npy(x) * np.float32(4))
    assert int(npy(out[1])) == 4


def nested_loops(a, b):
    # a: (m, k), b: (k, n): a matmul by explicit loops over rows and a constant range.
    m = a.shape[0]
    rows = ()
    for i in range(m):
        row = ops.zeros_like(b[0])
        for k in range(a.shape[1]):
            row = row + a[i, k] * b[k]
        rows = rows + (row,)
    return ops.stack(rows)


def test_nested_loops_matmul():
    a, b = rand(3, 4), rand(4, 5)
    out = check_all_modes(nested_loops, a, b)
    np.testing.assert_allclose(npy(out), npy(a) @ npy(b), rtol=1e-5, atol=1e-6)


def nested_tensor_loops(x):
    i = T(0, np.int32)
    total = T(0.0)
    while i < 4:
        j = T(0, np.int32)
        while j < i:
            total = total + x * (i * j).astype(mycel.float32)
            j = j + 1
        i = i + 1
    return total


def test_nested_while_loops_on_tensors():
    x = T(1.5)
    out = check_all_modes(nested_tensor_loops, x)
    want = sum(i * j for i in range(4) for j in range(i))
    np.testing.assert_array_equal(npy(out), np.float32(1.5) * np.float32(want))


def loop_carrying_tuple(x):
    state = (x, x * 0.0, T(0, np.int32))
    while state[2] < 5:
        a, b, n = state
        state = (a * 0.5, b + a, n + 1)
    return state


def test_loop_carrying_tuple():
    x = T([8.0, 16.0])
    out = check_all_modes(loop_carrying_tuple, x)
    a, b = npy(x), np.zeros(2, np.float32)
    for _ in range(5):
        a, b = a * np.float32(0.5), b + a
    np.testing.assert_array_equal(npy(out[0]), a)
    np.testing.assert_array_equal(npy(out[1]), b)
    assert int(npy(out[2])) == 5


def fibonacci_pair(n):
    a, b = T(0.0), T(1.0)
    i = T(0, np.int32)
    while i < n:
        a, b = b, a + b
        i += 1
    return a, b


def test_loop_swapping_unpacked_pair():
    out = check_all_modes(fibonacci_pair, T(20, np.int32))
    assert float(npy(out[0])) == 6765.0
    assert float(npy(out[1])) == 10946.0


class SimpleRNN(nn.Cell):
    """An Elman RNN: a loop over the time axis with Parameters and tanh."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(3)
        self.w_ih = Parameter(T(rng.standard_normal((3, 4)) * 0.4))
        self.w_hh = Parameter(T(rng.standard_normal((4, 4)) * 0.4))
        self.b = Parameter(T(rng.standard_normal(4) * 0.1))

    def construct(self, xs, h):
        outs = ()
        for t in range(xs.shape[0]):
            h = ops.tanh(ops.matmul(xs[t], self.w_ih) + ops.matmul(h, self.w_hh) + self.b)
            outs = outs + (h,)
        return ops.stack(outs), h


def test_rnn_cell_loop_over_time():
    net = SimpleRNN()
    xs, h0 = rand(6, 2, 3), T(np.zeros((2, 4)))
    out = check_all_modes(net, xs, h0)
    h = npy(h0)
    hs = []
    for t in range(6):
        h = np.tanh(npy(xs)[t] @ npy(net.w_ih) + h @ npy(net.w_hh) + npy(net.b))
        hs.append(h)
    np.testing.assert_allclose(npy(out[0]), np.stack(hs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(npy(out[1]), h, rtol=1e-5, atol=1e-6)


def return_from_for(x):
    for i in range(8):
        x = x + 1.0
        if x.sum() > 10.0:
            return x, i
    return x, -1


@pytest.mark.parametrize("start", [[0.0, 1.0], [-20.0, -20.0]])
def test_return_from_inside_for(start):
    x = T(start)
    out = check_all_modes(return_from_for, x)
    xs = npy(x)
    want_i = -1
    for i in range(8):
        xs = xs + 1
        if xs.sum() > 10:
            want_i = i
            break
    np.testing.assert_array_equal(npy(out[0]), xs)
    # The loop index of a tensor-dependent exit is a run-time value: a 0-d tensor or int.
    got_i = out[1] if isinstance(out[1], int) else int(npy(out[1]))
    assert got_i == want_i


# ------------------------------------------------------------------------------------------
# recursion


def power_const(x, n):
    if n == 0:
        return ops.ones_like(x)
    if n % 2 == 0:
        h = power_const(x, n // 2)
        return h * h
    return x * power_const(x, n - 1)


def test_recursion_constant_depth():
    x = T([1.5, -2.0, 0.5])
    out = check_all_modes(power_const, x, 7)
    xs = npy(x)
    h1 = xs
    h3 = xs * (h1 * h1)
    want = xs * (h3 * h3)
    np.testing.assert_array_equal(npy(out), want)
    assert "switch" not in graph_ir(power_const, x, 7)


def double_n(x, n):
    return x if n <= 0 else double_n(x * 2.0, n - 1)


@pytest.mark.parametrize("n", [0, 1, 5, 30])
def test_recursion_depth_from_tensor_value(n):
    x = T([1.0, -0.75])
    out = check_all_modes(double_n, x, T(n, np.int32))
    np.testing.assert_array_equal(npy(out), npy(x) * np.float32(2.0 ** n))


def is_even(n, acc):
    if n == 0:
        return acc
    return is_odd(n - 1, acc + 1.0)


def is_odd(n, acc):
    if n == 0:
        return -acc
    return is_even(n - 1, acc + 1.0)


@pytest.mark.parametrize("n", [0, 7, 12])
def test_mutual_recursion_on_tensor(n):
    out = check_all_modes(is_even, T(n, np.int32), T(0.0))
    want = float(n) if n % 2 == 0 else -float(n)
    assert float(npy(out)) == want


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def sum_digits(n):
    if n < 10:
        return n
    return n % 10 + sum_digits(n // 10)


def test_recursion_and_loop_on_int_tensors():
    def prog(a, b, n):
        return gcd(a, b), sum_digits(n)
    out = check_all_modes(prog, T(1071, np.int32), T(462, np.int32), T(98765, np.int32))
    assert int(npy(out[0])) == 21
    assert int(npy(out[1])) == 35


# ------------------------------------------------------------------------------------------
# closures, nested defs, lambdas


def closures(x, y):
    scale = 3.0

    def affine(v):
        return v * scale + y

    def affine_twice(v):
        return affine(affine(v))

    sq = lambda v: v * v  # noqa: E731
    return affine_twice(x), sq(sq(x)), (lambda a, b=2.0: a * b)(y)


def test_closures_nested_defs_and_lambdas():
    x, y = T([1.0, 2.0]), T([0.5, -0.5])
    out = check_all_modes(closures, x, y)
    xs, ys = npy(x), npy(y)
    f = lambda v: v * np.float32(3.0) + ys  # noqa: E731
    np.testing.assert_array_equal(npy(out[0]), f(f(xs)))
    np.testing.assert_array_equal(npy(out[1]), (xs * xs) * (xs * xs))
    np.testing.assert_array_equal(npy(out[2]), ys * np.float32(2.0))


def higher_order(x, y):
    def affine(v):
        return v * 3.0 + y

    def twice(f, v):
        return f(f(v))

    return twice(affine, x), twice(lambda v: v * v, x)


def test_function_passed_as_argument():
    x, y = T([1.0, 2.0]), T([0.5, -0.5])
    out = check_all_modes(higher_order, x, y)
    xs, ys = npy(x), npy(y)
    f = lambda v: v * np.float32(3.0) + ys  # noqa: E731
    np.testing.assert_array_equal(npy(out[0]), f(f(xs)))
    np.testing.assert_array_equal(npy(out[1]), (xs * xs) * (xs * xs))


def lambda_chosen_by_ifexp(x, flag):
    act = (lambda v: ops.relu(v)) if flag.sum() > 0 else (lambda v: -v)
    return act(x) + 1.0


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_lambda_chosen_by_tensor_conditional_expression(flag):
    x = T([-2.0, 0.5])
    out = check_all_modes(lambda_chosen_by_ifexp, x, T(flag))
    xs = npy(x)
    want = (np.maximum(xs, 0) if flag > 0 else -xs) + np.float32(1.0)
    np.testing.assert_array_equal(npy(out), want)


def make_scaler(k):
    def scale(v):
        return v * k
    return scale


def closure_factory(x, k):
    f = make_scaler(k)
    g = make_scaler(2.0)
    return f(x) + g(x)


def test_closure_returned_from_function():
    x = T([1.0, 3.0])
    out = check_all_modes(closure_factory, x, T(0.25))
    np.testing.assert_array_equal(npy(out), npy(x) * np.float32(0.25) + npy(x) * 2.0)


def closure_in_branch_and_loop(x, flag):
    if flag.sum() > 0:
        act = lambda v: ops.relu(v)  # noqa: E731
    else:
        act = lambda v: -v  # noqa: E731
    acc = x
    for _ in range(3):
        acc = act(acc) + 1.0
    return acc


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_closure_chosen_by_tensor_branch_used_in_loop(flag):
    x = T([-2.0, 0.5])
    out = check_all_modes(closure_in_branch_and_loop, x, T(flag))
    acc = npy(x)
    for _ in range(3):
        acc = (np.maximum(acc, 0) if flag > 0 else -acc) + np.float32(1.0)
    np.testing.assert_array_equal(npy(out), acc)


class GatedCell(nn.Cell):
    """A method calling a nested def that reads self and a captured local."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(T([[0.5, -1.0], [1.5, 2.0]]))
        self.gain = 2.0

    def construct(self, x):
        bias = x.mean()

        def gate(v):
            return ops.sigmoid(ops.matmul(v, self.w)) * self.gain + bias

        return gate(x) * x


def test_cell_with_nested_def_capturing_self_and_local():
    x = T([[1.0, -1.0], [0.25, 0.75]])
    out = check_all_modes(GatedCell(), x)
    xs = npy(x)
    z = xs @ np.array([[0.5, -1.0], [1.5, 2.0]], np.float32)
    want = (1.0 / (1.0 + np.exp(-z)) * 2.0 + xs.mean()) * xs
    np.testing.assert_allclose(npy(out), want, rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------------------------------
# conditional expressions and and/or/not


def cond_expr(x, k):
    a = x * 2.0 if x.sum() > 0 else x * -2.0
    b = a + 1.0 if k > 2 else a - 1.0
    c = (a if k == 3 else b) * 0.5
    return a, b, c


@pytest.mark.parametrize("sign,k", [(1.0, 3), (-1.0, 1)])
def test_conditional_expressions(sign, k):
    x = T([1.0, 2.0]) * sign
    out = check_all_modes(cond_expr, x, k)
    xs = npy(x)
    a = xs * 2 if xs.sum() > 0 else xs * -2
    b = a + 1 if k > 2 else a - 1
    c = (a if k == 3 else b) * np.float32(0.5)
    np.testing.assert_array_equal(npy(out[0]), a)
    np.testing.assert_array_equal(npy(out[1]), b)
    np.testing.assert_array_equal(npy(out[2]), c)


def bool_ops_const(x, a, b):
    r = x
    if a and b:
        r = r + 1.0
    if a or b:
        r = r * 2.0
    if not a:
        r = r - 3.0
    v = a and 5
    w = b or 7
    return r, v, w, not b


@pytest.mark.parametrize("a,b", [(True, False), (False, False), (True, True), (0, 4)])
def test_and_or_not_on_constants(a, b):
    x = T([1.0])
    out = check_all_modes(bool_ops_const, x, a, b)
    r = np.array([1.0], np.float32)
    if a and b:
        r = r + 1
    if a or b:
        r = r * 2
    if not a:
        r = r - 3
    np.testing.assert_array_equal(npy(out[0]), r)
    assert out[1:] == (a and 5, b or 7, not b)
    assert "switch" not in graph_ir(bool_ops_const, x, a, b)


def bool_ops_tensor(x, y):
    r = x * 0.0
    if x.sum() > 0 and y.sum() > 0:
        r = r + 1.0
    if x.sum() > 0 or y.sum() > 0:
        r = r + 10.0
    if not x.sum() > 0:
        r = r + 100.0
    if x.min() > 0 and not y.max() > 5.0 or y.min() < -5.0:
        r = r + 1000.0
    return r


@pytest.mark.parametrize("sx,sy", [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -10.0)])
def test_and_or_not_on_tensor_conditions(sx, sy):
    x, y = T([1.0, 2.0]) * sx, T([0.5, 1.0]) * sy
    out = check_all_modes(bool_ops_tensor, x, y)
    xs, ys = npy(x), npy(y)
    r = 0.0
    if xs.sum() > 0 and ys.sum() > 0:
        r += 1
    if xs.sum() > 0 or ys.sum() > 0:
        r += 10
    if not xs.sum() > 0:
        r += 100
    if xs.min() > 0 and not ys.max() > 5 or ys.min() < -5:
        r += 1000
    np.testing.assert_array_equal(npy(out), np.full(2, r, np.float32))


def short_circuit_values(x, y):
    # and/or on tensors yield one of the operands, as in Python.
    a = x and y
    b = x or y
    return a, b


@pytest.mark.parametrize("xv", [0.0, 2.0])
def test_and_or_return_operands_on_tensors(xv):
    out = check_all_modes(short_circuit_values, T(xv), T(3.0))
    assert float(npy(out[0])) == (3.0 if xv else 0.0)
    assert float(npy(out[1])) == (xv if xv else 3.0)


# ------------------------------------------------------------------------------------------
# print at run time


def print_values(x):
    y = x * 2.0
    print("y is", y)
    return y + 1.0


def test_print_inside_graph_runs_at_run_time(capsys):
    x = T([1.0, 2.0])
    fn = mycel.jit(print_values)
    fn(x)
    first = capsys.readouterr().out
    assert first.count("y is") == 1, first
    assert "2" in first and "4" in first, first
    fn(x)  # cached: no compile, still prints
    second = capsys.readouterr().out
    assert second.count("y is") == 1, second
    check_all_modes(print_values, x)
    assert capsys.readouterr().out.count("y is") == 3


def print_in_loop(n):
    i = T(0, np.int32)
    while i < n:
        print("step", i)
        i = i + 1
    return i


def test_print_inside_tensor_loop(capsys):
    fn = mycel.jit(print_in_loop)
    out = fn(T(4, np.int32))
    text = capsys.readouterr().out
    assert int(npy(out)) == 4
    assert text.count("step") == 4, text
    lines = [ln for ln in text.splitlines() if "step" in ln]
    assert [ln.split()[-1] for ln in lines] == ["0", "1", "2", "3"], text


def print_in_unrolled_loop(x):
    for i in range(3):
        print("i =", i)
        x = x + 1.0
    return x


def test_print_inside_unrolled_loop_graph_mode(capsys):
    x = T([0.0])
    out = run_mode(print_in_unrolled_loop, "graph", x)
    np.testing.assert_array_equal(npy(out), [3.0])
    text = capsys.readouterr().out
    assert [ln for ln in text.splitlines() if ln.startswith("i =")] == \
        ["i = 0", "i = 1", "i = 2"], text


# ------------------------------------------------------------------------------------------
# realistic small networks mixing the constructs


class ResidualStack(nn.Cell):
    """A residual MLP whose depth is a constructor constant; a tensor-dependent clamp."""

    def __init__(self, depth=3):
        super().__init__()
        rng = np.random.default_rng(11)
        self.depth = depth
        self.ws = Parameter(T(rng.standard_normal((depth, 4, 4)) * 0.3))

    def construct(self, x):
        for d in range(self.depth):
            h = ops.relu(ops.matmul(x, self.ws[d]))
            x = x + h
        if x.abs().max() > 5.0:
            x = x / x.abs().max()
        return x


@pytest.mark.parametrize("scale", [0.1, 10.0])
def test_residual_stack(scale):
    net = ResidualStack()
    x = rand(2, 4) * scale
    out = check_all_modes(net, x)
    xs = npy(x)
    for d in range(3):
        xs = xs + np.maximum(xs @ npy(net.ws)[d], 0)
    if np.abs(xs).max() > 5.0:
        xs = xs / np.abs(xs).max()
    np.testing.assert_allclose(npy(out), xs, rtol=1e-5, atol=1e-6)


class IterativeSolver(nn.Cell):
    """Newton's method for sqrt: a tensor while loop with a tolerance and a step cap."""

    def __init__(self, max_iter=50):
        super().__init__()
        self.max_iter = max_iter
        self.tol = 1e-6

    def construct(self, a):
        x = a * 0.5 + 0.5
        it = 0
        k = T(0, np.int32)
        while k < self.max_iter:
            nx = 0.5 * (x + a / x)
            if (nx - x).abs().max() < self.tol:
                x = nx
                break
            x = nx
            k = k + 1
            it = 1
        return x, k, it


def test_newton_sqrt_solver():
    a = T([2.0, 9.0, 0.25, 100.0])
    out = check_all_modes(IterativeSolver(), a)
    np.testing.assert_allclose(npy(out[0]), np.sqrt(npy(a)), rtol=1e-6)
    assert 0 < int(npy(out[1])) < 50


def argmax_search(x):
    # Linear scan with a running best: a loop over the first axis with a tensor if.
    best = x[0]
    best_i = T(0, np.int32)
    i = T(0, np.int32)
    for row in x:
        if row.sum() > best.sum():
            best = row
            best_i = i
        i = i + 1
    return best, best_i


def test_linear_scan_with_tensor_if_in_loop():
    x = rand(7, 3)
    out = check_all_modes(argmax_search, x)
    sums = npy(x).sum(axis=1)
    k = int(np.argmax(sums))
    np.testing.assert_array_equal(npy(out[0]), npy(x)[k])
    assert int(npy(out[1])) == k


def for_else_while_else(x, limit):
    for i in range(3):
        if i == 5:
            break
    else:
        x = x + 100.0  # runs: no break
    n = T(0, np.int32)
    while n < 10:
        n = n + 1
        if x.sum() + n.astype(mycel.float32) > limit:
            break
    else:
        x = x - 1000.0  # runs only when the loop ends without break
    return x, n


@pytest.mark.parametrize("limit", [105.0, 1e6])
def test_for_else_and_while_else(limit):
    x = T([1.0, 2.0])
    out = check_all_modes(for_else_while_else, x, T(limit))
    xs = npy(x) + np.float32(100.0)
    n, broke = 0, False
    while n < 10:
        n += 1
        if xs.sum() + n > limit:
            broke = True
            break
    if not broke:
        xs = xs - np.float32(1000.0)
    np.testing.assert_array_equal(npy(out[0]), xs)
    assert int(npy(out[1])) == n


class FlattenHead(nn.Cell):
    """Branches on the input's rank and a tuple/tensor argument: constant conditions."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(T(np.linspace(-1.0, 1.0, 12).reshape(12, 1)))

    def construct(self, x, extra):
        if x.ndim == 4:
            x = x.reshape(x.shape[0], -1)
        elif len(x.shape) == 3:
            x = x.reshape(x.shape[0], x.shape[1] * x.shape[2])
        y = ops.matmul(x, self.w)
        if isinstance(extra, tuple):
            for e in extra:
                y = y + e
        elif extra is not None:
            y = y * extra
        return y


@pytest.mark.parametrize("shape", [(2, 3, 2, 2), (2, 3, 4), (2, 12)])
@pytest.mark.parametrize("kind", ["tuple", "tensor", "none"])
def test_constant_conditions_on_shape_and_type(shape, kind):
    x = T(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10.0)
    extra = {"tuple": (T(1.0), T(2.0)), "tensor": T(3.0), "none": None}[kind]
    net = FlattenHead()
    out = check_all_modes(net, x, extra)
    y = npy(x).reshape(shape[0], -1) @ np.linspace(-1.0, 1.0, 12).reshape(12, 1).astype(
        np.float32)
    if kind == "tuple":
        y = y + np.float32(1.0) + np.float32(2.0)
    elif kind == "tensor":
        y = y * np.float32(3.0)
    np.testing.assert_allclose(npy(out), y, rtol=1e-6)
    assert "switch" not in graph_ir(net, x, extra)


def tensor_if_in_counted_loop(x):
    acc = ops.zeros_like(x)
    for _ in range(4):
        if acc.sum() > 2.0:
            acc = acc * 0.5
        acc = acc + x
    return acc


def test_tensor_if_with_join_inside_counted_loop():
    x = T([1.0, 0.5])
    out = check_all_modes(tensor_if_in_counted_loop, x)
    acc = np.zeros(2, np.float32)
    for _ in range(4):
        if acc.sum() > 2.0:
            acc = acc * np.float32(0.5)
        acc = acc + npy(x)
    np.testing.assert_array_equal(npy(out), acc)


def tensor_if_in_tensor_loop(x, n):
    i = T(0, np.int32)
    acc = ops.zeros_like(x)
    while i < n:
        if acc.sum() > 2.0:
            acc = acc * 0.5
        acc = acc + x
        i = i + 1
    return acc


def test_tensor_if_with_join_inside_tensor_while():
    x = T([1.0, 0.5])
    out = check_all_modes(tensor_if_in_tensor_loop, x, T(6, np.int32))
    acc = np.zeros(2, np.float32)
    for _ in range(6):
        if acc.sum() > 2.0:
            acc = acc * np.float32(0.5)
        acc = acc + npy(x)
    np.testing.assert_array_equal(npy(out), acc)


def find_pair(x, target):
    # Return from inside nested loops: the first (i, j), i < j, with x[i] + x[j] == target.
    n = x.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] + x[j] == target:
                return i, j
    return -1, -1


@pytest.mark.parametrize("target", [9.0, 100.0])
def test_return_from_nested_loops(target):
    x = T([2.0, 7.0, 11.0, 15.0])
    out = check_all_modes(find_pair, x, T(target))
    want = (-1, -1)
    xs = npy(x)
    for i in range(4):
        for j in range(i + 1, 4):
            if xs[i] + xs[j] == target and want == (-1, -1):
                want = (i, j)
    assert out == want


class Refiner(nn.Cell):
    """A while loop with a tensor condition that calls a sub-cell until convergence."""

    def __init__(self):
        super().__init__()
        self.step = Affine(np.eye(3) * 0.5, np.zeros(3))

    def construct(self, x):
        n = T(0, np.int32)
        while x.abs().max() > 0.01:
            x = self.step(x)
            n = n + 1
        return x, n


def test_while_calling_subcell_until_converged():
    x = T([[4.0, -2.0, 1.0]])
    out = check_all_modes(Refiner(), x)
    xs, n = npy(x), 0
    while np.abs(xs).max() > 0.01:
        xs = xs @ (np.eye(3, dtype=np.float32) * np.float32(0.5)) + np.zeros(3, np.float32)
        n += 1
    np.testing.assert_array_equal(npy(out[0]), xs)
    assert int(npy(out[1])) == n == 9


# ------------------------------------------------------------------------------------------
# values computed between two inner loops
#
# The code after an inner loop continues in the loop's exit graph; a value computed there
# (from the loop's result) and read only by the body of the next inner loop is a node of the
# exit graph that only graphs nested in it use. The specialiser must count such nodes (and
# what they read: the first loop's phis) when it finds the enclosing context of the graphs
# it specialises; it used to fail with "free variable of graph @f.for.1 outside the context
# chain" once an outer loop made the chain longer.


def value_between_inner_loops(x):
    # The program.
    pieces = ()
    for offsets in ((0, 2),):
        flat = ()
        for i in (0, 1):
            flat = flat + (x,)
        red = flat[0]
        for off in offsets:
            pieces = pieces + (red,)
    return pieces


def test_value_between_inner_loops():
    x = T([1.0, 2.0, 3.0, 4.0])
    out = check_all_modes(value_between_inner_loops, x)
    assert len(out) == 2
    for p in out:
        np.testing.assert_array_equal(npy(p), npy(x))


def values_between_inner_loops(x):
    # Several outer iterations, each inner loop reading the outer one's items and the value
    # computed between them.
    pieces = ()
    for scale, offsets in ((1.0, (0, 2)), (2.0, (1,)), (3.0, (0, 1, 2))):
        flat = ()
        for i in (0, 1, 2):
            flat = flat + (x * (i + 1),)
        red = (flat[0] + flat[2]) * scale
        for off in offsets:
            pieces = pieces + (red[off] + off,)
    return pieces


def test_values_between_inner_loops_oracle():
    x = T([1.0, -2.0, 0.5])
    out = check_all_modes(values_between_inner_loops, x)
    xs, want = npy(x), []
    for scale, offsets in ((1.0, (0, 2)), (2.0, (1,)), (3.0, (0, 1, 2))):
        red = (xs + xs * np.float32(3)) * np.float32(scale)
        want += [red[off] + np.float32(off) for off in offsets]
    assert len(out) == len(want)
    for got, w in zip(out, want):
        np.testing.assert_array_equal(npy(got), w)


def ifexp_between_inner_loops(x, c):
    # A conditional expression between the loops: its branch graphs capture the first
    # loop's result.
    pieces = ()
    for offsets in ((0, 2), (1,)):
        flat = ()
        for i in (0, 1):
            flat = flat + (x * (i + 1),)
        red = flat[1] * 2.0 if c else x
        for off in offsets:
            pieces = pieces + (red * off,)
    return pieces


@pytest.mark.parametrize("c", [True, False])
def test_ifexp_between_inner_loops(c):
    x = T([1.0, 2.0])
    out = check_all_modes(ifexp_between_inner_loops, x, c)
    red = npy(x) * np.float32(4.0) if c else npy(x)
    want = [red * np.float32(off) for off in (0, 2, 1)]
    assert len(out) == 3
    for got, w in zip(out, want):
        np.testing.assert_array_equal(npy(got), w)


def tensor_ifexp_between_inner_loops(x):
    pieces = ()
    for offsets in ((0, 2), (1,)):
        flat = ()
        for i in (0, 1):
            flat = flat + (x * (i + 1),)
        red = flat[1] * 2.0 if flat[0].sum() > 0.0 else flat[0] - 1.0
        for off in offsets:
            pieces = pieces + (red * off,)
    return pieces


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_tensor_ifexp_between_inner_loops(sign):
    x = T([1.0, 2.0]) * sign
    out = check_all_modes(tensor_ifexp_between_inner_loops, x)
    xs = npy(x)
    red = xs * np.float32(4.0) if xs.sum() > 0 else xs - np.float32(1.0)
    for got, off in zip(out, (0, 2, 1)):
        np.testing.assert_array_equal(npy(got), red * np.float32(off))


def three_levels_between_inner_loops(x):
    # The pattern at three levels: a value between two loops inside the second loop of a
    # pair, itself inside an outer loop.
    out = ()
    for group in (((0, 1), (2,)), ((1,), (0, 2))):
        for offsets in group:
            flat = ()
            for i in (0, 1):
                flat = flat + (x * (i + 1),)
            red = flat[0] + flat[1]
            for off in offsets:
                acc = ()
                for j in range(2):
                    acc = acc + (red[off] * (j + 1),)
                s = acc[0] + acc[1]
                for k in (1, 2):
                    out = out + (s * k,)
    return out


def test_three_levels_of_values_between_inner_loops():
    x = T([1.0, 2.0, 4.0])
    out = check_all_modes(three_levels_between_inner_loops, x)
    xs, want = npy(x), []
    for group in (((0, 1), (2,)), ((1,), (0, 2))):
        for offsets in group:
            red = xs + xs * np.float32(2)
            for off in offsets:
                s = red[off] * np.float32(1) + red[off] * np.float32(2)
                want += [s * np.float32(k) for k in (1, 2)]
    assert len(out) == len(want) == 12
    for got, w in zip(out, want):
        np.testing.assert_array_equal(npy(got), w)


def while_between_inner_loops(x):
    # while loops on Python ints (unrolled at compile time).
    out = x * 0.0
    i = 0
    while i < 2:
        j = 0
        acc = x
        while j < 3:
            acc = acc * 0.5 + 1.0
            j += 1
        red = acc * 2.0 + i
        k = 0
        while k < 2:
            out = out + red * k
            k += 1
        i += 1
    return out


def tensor_while_between_inner_loops(x, n):
    # The same on tensor conditions: the loops are recursive graphs.
    out = x * 0.0
    i = T(0, np.int32)
    while i < 2:
        j = T(0, np.int32)
        acc = x
        while j < n:
            acc = acc * 0.5 + 1.0
            j = j + 1
        red = acc * 2.0 + i.astype(mycel.float32)
        k = T(0, np.int32)
        while k < n - 1:
            out = out + red * k.astype(mycel.float32)
            k = k + 1
        i = i + 1
    return out


def while_oracle(xs, n_inner, n_second):
    out = xs * np.float32(0.0)
    for i in range(2):
        acc = xs
        for _ in range(n_inner):
            acc = acc * np.float32(0.5) + np.float32(1.0)
        red = acc * np.float32(2.0) + np.float32(i)
        for k in range(n_second):
            out = out + red * np.float32(k)
    return out


def test_while_loops_between_inner_loops():
    x = T([1.0, -3.0])
    out = check_all_modes(while_between_inner_loops, x)
    np.testing.assert_array_equal(npy(out), while_oracle(npy(x), 3, 2))
    out = check_all_modes(tensor_while_between_inner_loops, x, T(3, np.int32))
    np.testing.assert_array_equal(npy(out), while_oracle(npy(x), 3, 2))


class BucketedReduce(nn.Cell):
    """The pattern of nn.DistributedGradReducer: buckets of (members, offsets, counts), each
    flattened into one buffer, reduced, and cut back into pieces."""

    def __init__(self):
        super().__init__()
        self.buckets = (((0, 2), (0, 6), (6, 4)), ((1,), (0,), (3,)),
                        ((3, 4, 5), (0, 2, 5), (2, 3, 1)))
        self.concat = ops.Concat(axis=0)

    def construct(self, grads):
        pieces = ()
        for members, offsets, counts in self.buckets:
            flat = ()
            for i in members:
                flat = flat + (grads[i].reshape((-1,)),)
            red = self.concat(flat) * 0.5
            for off, cnt in zip(offsets, counts):
                pieces = pieces + (red[off:off + cnt],)
        return pieces


def test_bucketed_reduce_cell():
    shapes = ((2, 3), (3,), (4,), (2,), (3, 1), (1,))
    grads = tuple(T(RNG.standard_normal(s)) for s in shapes)
    out = check_all_modes(BucketedReduce(), grads)
    want = []
    for members in ((0, 2), (1,), (3, 4, 5)):
        want += [npy(grads[i]).reshape(-1) * np.float32(0.5) for i in members]
    assert len(out) == 6
    for got, w in zip(out, want):
        np.testing.assert_array_equal(npy(got), w)


class ReadBetweenLoopsThenUpdate(nn.Cell):
    """A Parameter read between two loops, then updated: the read is a node of the first
    loop's exit graph used only by the graphs of the second loop (and of a loop inside it),
    and must still run where the source has it, before the update."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0, 2.0]), name="p")

    def construct(self, x):
        out = ()
        for i in range(2):
            flat = ()
            for j in range(2):
                flat = flat + (x * j,)
            w = self.p * 1.0 + flat[1]
            ops.assign_add(self.p, x)
            for k in range(2):
                t = w + k
                for m in range(1):
                    out = out + (t,)
        return out, self.p * 1.0


def test_parameter_read_between_loops_before_update():
    x = T([10.0, 20.0])
    out = check_all_modes(ReadBetweenLoopsThenUpdate, x)
    p, xs, want = np.array([1.0, 2.0], np.float32), npy(x), []
    for _ in range(2):
        w = p + xs
        p = p + xs
        want += [w + np.float32(k) for k in range(2)]
    assert len(out[0]) == 4
    for got, w in zip(out[0], want):
        np.testing.assert_array_equal(npy(got), w)
    np.testing.assert_array_equal(npy(out[1]), p)
