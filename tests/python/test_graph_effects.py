"""Effects keep program order in GRAPH mode (issue #16, class 9).

A corpus of small functions and Cells that read and write Parameters (ops.assign,
ops.assign_add, P.Assign) and print, around if (constant and tensor conditions), while and
for loops, nested calls, methods, sub-cells, closures and grad. Each runs in PYNATIVE mode,
under @jit and in GRAPH mode with fresh Parameters per mode; the results and the final
Parameter values must be identical (PYNATIVE runs the statements in source order, as
MindSpore's auto-monad does in graph mode). Most cases also check PYNATIVE against the
hand-computed value. The second part covers the other wrong behaviours of class 9:
in-place ops through x[True]/x[False]/x[None]/x[...], @jit on construct, keyword-only
construct arguments, jit of grad/value_and_grad, and control-flow programs that reached
internal errors in the specialiser.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, context, nn, ops
from mycel.ops import functional as F
from mycel.ops import operations as P

from graph_harness import assert_same, run_mode


def T(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype=dtype))


def run_all(make, *args, modes=("pynative", "jit", "graph")):
    """make() -> (callable, [Parameters]): fresh state per mode. Returns the PYNATIVE
    (result, parameter values) after checking that every mode agrees."""
    got = {}
    for mode in modes:
        fn, params = make()
        out = run_mode(fn, mode, *args)
        got[mode] = (out, [p.asnumpy().copy() for p in params])
    ref_out, ref_params = got["pynative"]
    for mode in modes[1:]:
        out, params = got[mode]
        try:
            assert_same(ref_out, out)
        except AssertionError as e:
            raise AssertionError(f"{mode} result differs from PYNATIVE: {e}") from None
        for i, (a, b) in enumerate(zip(ref_params, params)):
            np.testing.assert_array_equal(a, b, err_msg=f"{mode}: Parameter {i} differs")
    return ref_out, ref_params


def cell(cls, *a):
    def make():
        net = cls(*a)
        return net, [p for p in net.get_parameters()]
    return make


def vals(out):
    if isinstance(out, (tuple, list)):
        return [vals(o) for o in out]
    return out.asnumpy().tolist()


# ------------------------------------------------------------------------------------------
# The issue's two examples, verbatim


class IssueIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([0.0]), name="p")

    def construct(self, x):
        out = x
        if x > 0:
            F.assign(self.p, 1)
            out = out + self.p
            F.assign(self.p, 6)
        return out


class IssueMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param = Parameter(T([1.0, 2.0]), name="param")
        self.assign = P.Assign()

    def construct(self, v):
        self.assign(self.param, v * 2)
        return self.param + 2


def test_issue_if_example():
    out, (p,) = run_all(cell(IssueIf), T([2.0]))
    assert vals(out) == [3.0] and p.tolist() == [6.0]
    out, (p,) = run_all(cell(IssueIf), T([-2.0]))
    assert vals(out) == [-2.0] and p.tolist() == [0.0]


def test_issue_method_example():
    out, (p,) = run_all(cell(IssueMethod), T([3.0, 4.0]))
    assert vals(out) == [8.0, 10.0] and p.tolist() == [6.0, 8.0]


P_GLOBAL = Parameter(T([0.0]), name="p_global")


def issue_if_global(x):
    out = x
    if x > 0:
        F.assign(P_GLOBAL, 1)
        out = out + P_GLOBAL
        F.assign(P_GLOBAL, 6)
    return out


def test_issue_if_example_with_a_global_parameter():
    def make():
        P_GLOBAL.set_data(T([0.0]))
        return issue_if_global, [P_GLOBAL]
    out, (p,) = run_all(make, T([2.0]))
    assert vals(out) == [3.0] and p.tolist() == [6.0]


# ------------------------------------------------------------------------------------------
# Straight-line code


class ReadWriteRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0, 1.0]), name="p")

    def construct(self, x):
        a = self.p * 1
        ops.assign(self.p, x)
        b = self.p * 1
        ops.assign_add(self.p, x)
        c = self.p + 0
        return a, b, c


def test_reads_between_writes():
    out, (p,) = run_all(cell(ReadWriteRead), T([2.0, 3.0]))
    assert vals(out) == [[1, 1], [2, 3], [4, 6]] and p.tolist() == [4, 6]


class TwoParams(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(T([1.0]), name="a")
        self.b = Parameter(T([10.0]), name="b")

    def construct(self, x):
        ops.assign(self.a, self.b + x)   # a = 10 + x
        ops.assign(self.b, self.a * 2)   # b = 2a
        ops.assign_add(self.a, self.b)   # a = 3a
        return self.a + self.b


def test_writes_read_each_other():
    out, (a, b) = run_all(cell(TwoParams), T([1.0]))
    assert vals(out) == [55.0] and a.tolist() == [33.0] and b.tolist() == [22.0]


class ReturnsParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([5.0]), name="p")

    def construct(self, x):
        y = ops.assign_add(self.p, x)
        return y * 1, self.p * 1


def test_update_result_and_later_read():
    out, (p,) = run_all(cell(ReturnsParam), T([1.0]))
    assert vals(out) == [[6.0], [6.0]] and p.tolist() == [6.0]


# ------------------------------------------------------------------------------------------
# if: constant and tensor conditions, both branches, reads before/after, early return


class IfElse(nn.Cell):
    def __init__(self, flag):
        super().__init__()
        self.flag = flag
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        before = self.p * 1
        if self.flag:
            ops.assign(self.p, x)
        else:
            ops.assign_add(self.p, x)
        return before, self.p * 1


@pytest.mark.parametrize("flag", [True, False])
def test_if_constant_condition(flag):
    out, (p,) = run_all(cell(IfElse, flag), T([3.0]))
    assert vals(out) == [[1.0], [3.0 if flag else 4.0]]


class IfTensor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        a = self.p * 1
        if x.sum() > 0:
            ops.assign(self.p, x)
            b = self.p * 2
        else:
            b = self.p * 3
            ops.assign_add(self.p, x)
        return a, b, self.p * 1


@pytest.mark.parametrize("v", [2.0, -2.0])
def test_if_tensor_condition(v):
    out, (p,) = run_all(cell(IfTensor), T([v]))
    if v > 0:
        assert vals(out) == [[1.0], [4.0], [2.0]]
    else:
        assert vals(out) == [[1.0], [3.0], [-1.0]]


class ReadBeforeUsedInBranch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        old = self.p * 1          # read before the assign, used only in a branch
        ops.assign(self.p, x)
        if x > 0:
            return old + self.p
        return old - self.p


def test_read_before_assign_used_in_branch():
    out, _ = run_all(cell(ReadBeforeUsedInBranch), T([5.0]))
    assert vals(out) == [6.0]


class EarlyReturn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([0.0]), name="p")

    def construct(self, x):
        ops.assign(self.p, x)
        if x > 1:
            ops.assign_add(self.p, x)
            return self.p * 1
        ops.assign_add(self.p, 100 * x)
        return self.p * 1


@pytest.mark.parametrize("v", [2.0, 0.5])
def test_early_return_after_assign(v):
    out, (p,) = run_all(cell(EarlyReturn), T([v]))
    assert p.tolist() == vals(out)


# ------------------------------------------------------------------------------------------
# Loops


class WhileAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x, n):
        s = x * 0
        i = 0
        while i < n:
            s = s + self.p
            ops.assign_add(self.p, x)
            s = s + self.p
            i += 1
        return s, self.p * 1


def test_while_tensor_condition():
    out, (p,) = run_all(cell(WhileAssign), T([1.0]), T(3, np.int32))
    # p: 1 -> 2 -> 3 -> 4; s = (1+2) + (2+3) + (3+4)
    assert vals(out) == [[15.0], [4.0]] and p.tolist() == [4.0]


class ForAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([0.0]), name="p")

    def construct(self, x):
        acc = x * 0
        for i in range(4):
            ops.assign(self.p, self.p * 2 + i)
            if i % 2 == 0:
                acc = acc + self.p
        return acc + x


def test_for_range_with_constant_if():
    out, (p,) = run_all(cell(ForAssign), T([1.0]))
    # p: 0 -> 0 -> 1 -> 4 -> 11; acc = p after i=0 (0) + after i=2 (4)
    assert vals(out) == [5.0] and p.tolist() == [11.0]


class WhileBreak(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([0.0]), name="p")

    def construct(self, x):
        while self.p < 10:
            ops.assign_add(self.p, x)
            if self.p > 5:
                break
        return self.p * 1


def test_while_condition_reads_param_and_break():
    out, (p,) = run_all(cell(WhileBreak), T([2.0]))
    assert vals(out) == [6.0] and p.tolist() == [6.0]


# ------------------------------------------------------------------------------------------
# Calls: methods, sub-cells, closures, plain functions with closure Parameters


class Methods(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def bump(self, v):
        ops.assign_add(self.p, v)
        return self.p * 1

    def read(self):
        return self.p * 10

    def construct(self, x):
        a = self.read()
        b = self.bump(x)
        c = self.read()
        self.bump(x)
        d = self.read()
        return a, b, c, d


def test_methods_read_and_write():
    out, (p,) = run_all(cell(Methods), T([2.0]))
    assert vals(out) == [[10.0], [3.0], [30.0], [50.0]] and p.tolist() == [5.0]


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = Parameter(T([0.0]), name="n")

    def construct(self, x):
        ops.assign_add(self.n, x)
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.counter = Counter()

    def construct(self, x):
        before = self.counter.n * 1
        self.counter(x)
        y = self.counter(x * 2)
        return before, y, self.counter.n * 1


def test_sub_cell_updates_seen_by_parent():
    out, (n,) = run_all(cell(Outer), T([1.0]))
    assert vals(out) == [[0.0], [2.0], [3.0]] and n.tolist() == [3.0]


class Closure(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        def step(v):
            ops.assign(self.p, self.p * v)
            return self.p + 0

        a = step(x)
        b = step(x)
        return a, b, self.p * 1


def test_closure_writes():
    out, (p,) = run_all(cell(Closure), T([3.0]))
    assert vals(out) == [[3.0], [9.0], [9.0]] and p.tolist() == [9.0]


def make_function():
    p = Parameter(T([1.0, 2.0]), name="fp")

    def helper(v):
        ops.assign_add(p, v)

    def f(x):
        a = p * 1
        helper(x)
        b = p * 1
        helper(x)
        return a, b, p + 0

    return f, [p]


def test_function_with_closure_parameter():
    out, (p,) = run_all(make_function, T([1.0, 1.0]))
    assert vals(out) == [[1, 2], [2, 3], [3, 4]] and p.tolist() == [3, 4]


# ------------------------------------------------------------------------------------------
# print keeps its place


PRINT_PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import mycel as ms
    from mycel import Parameter, Tensor, nn, ops, context

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.array([1.0], np.float32)), name="p")

        def construct(self, x):
            print("first", self.p * 1)
            ops.assign(self.p, x)
            print("second", self.p * 1)
            ops.assign_add(self.p, x)
            y = self.p * 1
            print("third", y)
            return y

    mode = context.GRAPH_MODE if sys.argv[1] == "graph" else context.PYNATIVE_MODE
    context.set_context(mode=mode)
    Net()(Tensor(np.array([5.0], np.float32)))
""")


def test_print_order_matches_pynative(tmp_path):
    prog = tmp_path / "print_order.py"
    prog.write_text(PRINT_PROGRAM)
    outs = []
    for mode in ("pynative", "graph"):
        r = subprocess.run([sys.executable, str(prog), mode], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append([line for line in r.stdout.splitlines() if line.strip()])
    assert outs[0] == outs[1]
    assert [line.split()[0] for line in outs[0]] == ["first", "second", "third"]
    assert "10" in outs[0][2]


# ------------------------------------------------------------------------------------------
# grad of functions with effects


class GradWithAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def construct(self, x):
        ops.assign_add(self.p, 1)
        return x * x * self.p


def test_grad_of_function_with_assign():
    def make():
        net = GradWithAssign()
        return (lambda x: ms.grad(net)(x)), [net.p]
    # d/dx of x^2 * p after p += 1 (p = 3): 2 * x * 3
    out, (p,) = run_all(make, T([1.5]), modes=("pynative", "graph"))
    assert vals(out) == [9.0] and p.tolist() == [3.0]


class UpdateAfterUse(nn.Cell):
    """The output is computed before the update and does not read it."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(T([3.0]), name="w")

    def construct(self, x):
        a = x * self.w
        P.AssignAdd()(self.w, T([10.0]))
        return a


def test_grad_called_from_python_keeps_an_update_its_output_does_not_read():
    """ms.grad(net) called from Python in GRAPH mode compiles the grad function itself: the
    update inside the differentiated Cell still runs once per call (it was dropped)."""
    def make():
        net = UpdateAfterUse()
        return ms.grad(net), [net.w]
    out, (w,) = run_all(make, T([2.0]), modes=("pynative", "graph"))
    assert vals(out) == [3.0] and w.tolist() == [13.0]


# ------------------------------------------------------------------------------------------
# The optimised IR keeps no state token when there are no effects


def test_no_token_without_effects():
    net = nn.Dense(3, 2)
    ir = ms.jit(net.construct).ir(T(np.ones((1, 3))))
    assert "depend" not in ir


# ------------------------------------------------------------------------------------------
# In-place ops through bool, None and Ellipsis indices (PYNATIVE)


@pytest.mark.parametrize("idx", [True, False, None, Ellipsis, np.bool_(True), (True, 0),
                                 (Ellipsis, None), (None, 1)])
def test_inplace_through_special_indices(idx):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Tensor(a.copy())
    x[idx] *= 3
    want = a.copy()
    want[idx] *= 3
    np.testing.assert_array_equal(x.asnumpy(), want)
    np.testing.assert_array_equal(Tensor(a)[idx].asnumpy(), a[idx])


def test_bool_index_assignment_and_read():
    a = np.arange(4, dtype=np.float32)
    x = Tensor(a.copy())
    assert x[True].shape == (1, 4) and x[False].shape == (0, 4)
    x[True] = 7.0
    np.testing.assert_array_equal(x.asnumpy(), np.full(4, 7, np.float32))
    x[False] = 1.0
    np.testing.assert_array_equal(x.asnumpy(), np.full(4, 7, np.float32))


# ------------------------------------------------------------------------------------------
# @jit on construct, keyword-only construct arguments, jit of grad


class JitConstruct(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T([2.0]), name="w")

    @ms.jit
    def construct(self, x, y):
        return x * self.w + y


@pytest.mark.parametrize("mode", [context.PYNATIVE_MODE, context.GRAPH_MODE])
def test_jit_on_construct(mode):
    saved = context._context["mode"]
    try:
        context.set_context(mode=mode)
        net = JitConstruct()
        np.testing.assert_array_equal(net(T([3.0]), T([1.0])).asnumpy(), [7.0])
        np.testing.assert_array_equal(net(T([3.0]), y=T([2.0])).asnumpy(), [8.0])
    finally:
        context.set_context(mode=saved)


class KwOnly(nn.Cell):
    def construct(self, x, *, scale=1.0, shift=0.0):
        return x * scale + shift


class KwOnlyVarargs(nn.Cell):
    def construct(self, x, *rest, scale=2.0):
        for r in rest:
            x = x + r
        return x * scale


@pytest.mark.parametrize("kwargs,want", [({}, [1.0, 2.0]), ({"scale": 3.0}, [3.0, 6.0]),
                                         ({"shift": 1.0, "scale": 2.0}, [3.0, 5.0])])
def test_keyword_only_construct(kwargs, want):
    for mode in (context.PYNATIVE_MODE, context.GRAPH_MODE):
        saved = context._context["mode"]
        try:
            context.set_context(mode=mode)
            out = KwOnly()(T([1.0, 2.0]), **kwargs)
            np.testing.assert_array_equal(out.asnumpy(), want)
            scale = {k: v for k, v in kwargs.items() if k == "scale"}
            out = KwOnlyVarargs()(T([1.0]), T([1.0]), T([2.0]), **scale)
            np.testing.assert_array_equal(out.asnumpy(), [4.0 * scale.get("scale", 2.0)])
        finally:
            context.set_context(mode=saved)


def test_jit_of_grad_and_value_and_grad():
    def f(x, y):
        return (x * x * y).sum()

    x, y = T([1.0, 2.0]), T([3.0, 4.0])
    g = ms.jit(ops.grad(f))(x, y)
    np.testing.assert_allclose(g.asnumpy(), [6.0, 16.0])
    g_all = ms.jit(ops.grad(f, grad_position=(0, 1)))(x, y)
    np.testing.assert_allclose(g_all[1].asnumpy(), [1.0, 4.0])
    v, g = ms.jit(ms.value_and_grad(f))(x, y)
    np.testing.assert_allclose(v.asnumpy(), 19.0)
    np.testing.assert_allclose(g.asnumpy(), [6.0, 16.0])


def test_graph_bool_index_is_a_new_axis():
    def f(x):
        return x[True] * 2, x[True, 0], x[..., True] + 1

    run_all(lambda: (f, []), T(np.arange(6).reshape(2, 3)))


# ------------------------------------------------------------------------------------------
# Control flow around closures (these reached internal errors or gave wrong answers)


def _mk(y):
    return lambda v: v + y


def cf_closure_in_branch(x):
    g = _mk(x)
    if x.sum() > 0:
        return g(x)
    return g(-x)


def cf_closure_in_while(x):
    g = _mk(x)
    i = T(0)
    while i < 3:
        if x.sum() > 3:
            x = g(x)
        i = i + 1
    return x


def cf_closure_in_for(x):
    g = _mk(x)
    for _ in range(3):
        x = g(x)
    return x


def cf_closure_chosen_in_loop(x):
    g = _mk(x)
    h = _mk(x * 2)
    i = T(0)
    while i < 2:
        x = g(x) if x.sum() > 0 else h(x)
        i = i + 1
    return x


def cf_closures_in_tuple(x):
    gs = (_mk(x), _mk(x * 2))
    i = T(0)
    while i < 2:
        x = gs[0](x) + gs[1](x)
        i = i + 1
    return x


def cf_closure_in_nested_fn_loop(x):
    def inner(v):
        g = _mk(v)
        i = T(0)
        while i < 2:
            v = g(v)
            i = i + 1
        return v
    return inner(x)


def cf_closure_per_branch(x):
    if x.sum() > 0:
        y = x * 2
        f = lambda v: v + y
    else:
        y = x * 3
        f = lambda v: v - y
    return f(x)


def cf_nested_while_break_continue(x):
    i = T(0)
    s = x * 0
    while i < 4:
        j = T(0)
        while j < 4:
            j = j + 1
            if j == 2:
                continue
            if j > 3:
                break
            s = s + j
        i = i + 1
    return s


def cf_early_return_in_loop(x):
    for i in range(3):
        y = x + i
        if y.sum() > 10:
            return y
        x = y
    return x * 0


def cf_closure_in_tensor_while(x):
    g = _mk(x * x + 1)      # adds a positive step: the loop ends for any x
    while x.sum() < 20:
        x = g(x)
    return x


def cf_lambda_rebound_in_loop(x):
    g = lambda v: v
    i = T(0)
    while i < 3:
        g = lambda v: v + 1
        i = i + 1
    return g(x)


def cf_closure_made_in_loop(x):
    i = T(0)
    g = _mk(x)
    while i < 3:
        g = _mk(x * 2)
        i = i + 1
    return g(x)


@pytest.mark.parametrize("fn", [cf_closure_in_tensor_while, cf_lambda_rebound_in_loop,
                                cf_closure_made_in_loop,
                                cf_closure_in_branch, cf_closure_in_while, cf_closure_in_for,
                                cf_closure_chosen_in_loop, cf_closures_in_tuple,
                                cf_closure_in_nested_fn_loop, cf_closure_per_branch,
                                cf_nested_while_break_continue, cf_early_return_in_loop])
@pytest.mark.parametrize("v", [1.0, -1.0])
def test_control_flow_closures(fn, v):
    run_all(lambda: (fn, []), T([v, 2 * v]))


def cf_late_binding_in_loop(x):
    def g():
        return x * 2
    i = T(0)
    while i < 2:
        x = g()      # Python reads the current x at each call; graph mode cannot
        i = i + 1
    return x


def test_late_binding_in_loop_is_an_error_not_a_wrong_answer():
    out = run_mode(cf_late_binding_in_loop, "pynative", T([1.0]))
    assert vals(out) == [4.0]
    with pytest.raises(ValueError, match="assigned again here"):
        run_mode(cf_late_binding_in_loop, "graph", T([1.0]))


# ------------------------------------------------------------------------------------------
# More programs: nested defs whose only use of an outer variable is an effect (these reached
# "check 'k != nullptr' failed" in the specialiser), effects in branches of methods called
# twice, loops with break/continue, loop conditions reading the state, grad inside construct


class G1(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        def bump():
            ops.assign_add(self.p, x)
        i = T(0)
        while i < 3:
            if x.sum() > 0:
                bump()
            i = i + 1
        return self.p * 2


class G2(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def f(self, v):
        if v.sum() > 0:
            ops.assign(self.p, v)
            return self.p * 2
        return self.p * 3

    def construct(self, x):
        a = self.f(x)
        b = self.f(-x)
        return a, b, self.p * 1


class G3(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        for i in range(3):
            if i == 1:
                continue
            ops.assign_add(self.p, x)
            if self.p.sum() > 4:
                break
        return self.p * 1


class G4(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")
        self.q = Parameter(T([0.0]), name="q")

    def construct(self, x):
        while x.sum() < 10:
            x = x + self.p
            ops.assign(self.q, x)
            ops.assign_add(self.p, 1)
        return x, self.q * 1


class G5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def construct(self, x):
        def loss(v):
            return (v * self.p).sum()
        g = ms.grad(loss)(x)
        ops.assign(self.p, g)
        return self.p * 1 + ms.grad(loss)(x)


class G6(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def construct(self, x):
        y = x * 1
        if x.sum() > 0:
            ops.assign(self.p, x)
        else:
            pass
        while y.sum() < 5:
            y = y + self.p
        return y


class G7(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def helper(self, v):
        def inner(w):
            ops.assign_add(self.p, w)
            return w
        return inner(v) + self.p

    def construct(self, x):
        return self.helper(x) + self.helper(x)


class G8(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        r = self.p * 1
        n = 0
        while n < 3:
            ops.assign(self.p, self.p * 2)
            n += 1
        return r, self.p * 1


class G9(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.p, x)
            if x.sum() > 5:
                return self.p * 10
            ops.assign_add(self.p, x)
        return self.p * 1


class G10(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0]), name="p")

    def construct(self, x):
        out = ()
        for k in (1.0, 2.0, 3.0):
            ops.assign(self.p, x * k)
            out = out + (self.p * 1,)
        return out


@pytest.mark.parametrize("cls", [G1, G2, G3, G4, G5, G6, G7, G8, G9, G10])
@pytest.mark.parametrize("v", [1.0, -1.0, 3.0])
def test_effect_programs(cls, v):
    run_all(cell(cls), T([v]))


class BoundBeforeUsedAfter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([1.0, 2.0]), name="p")

    def construct(self, x):
        a = self.p               # the Parameter itself, not a copy
        before = a * 2
        ops.assign(self.p, x)
        after = a * 2            # read where it is used: after the assign
        return before, after


def test_parameter_bound_before_and_used_after_an_assign():
    out, (p,) = run_all(cell(BoundBeforeUsedAfter), T([5.0, 6.0]))
    assert vals(out) == [[2.0, 4.0], [10.0, 12.0]]


class GradAfterAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def construct(self, x):
        ops.assign(self.p, x * 3)

        def f(v):
            return (v * self.p).sum()

        g = ms.grad(f)(x)            # d/dv (v * p) = p, the new p
        ops.assign_add(self.p, 1)
        return g, self.p * 1


class ReadAfterGradOfAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(T([2.0]), name="p")

    def construct(self, x):
        def f(v):
            ops.assign_add(self.p, 1)
            return (v * v).sum()

        g = ms.grad(f)(x)            # runs f once: p += 1
        return g, self.p * 1


@pytest.mark.parametrize("cls", [GradAfterAssign, ReadAfterGradOfAssign])
def test_grad_between_effects(cls):
    out, (p,) = run_all(cell(cls), T([1.5]), modes=("pynative", "graph"))
    if cls is GradAfterAssign:
        assert vals(out) == [[4.5], [5.5]] and p.tolist() == [5.5]
    else:
        assert vals(out) == [[3.0], [3.0]] and p.tolist() == [3.0]


# ------------------------------------------------------------------------------------------
# An argument (not a Parameter) written by an update: reads after the write see the new
# value in every mode, whether the write is in construct, in a helper it calls, or through a
# Primitive instance (each of these read the old value in GRAPH mode before: the ordering
# only looked at the entry graph's own parameters, and construct's arguments are not those).


def _assign_helper(x, y):
    ops.assign(x, x * y)


class ArgWriteThenRead(nn.Cell):
    def __init__(self, how):
        super().__init__()
        self.how = how
        self.assign = P.Assign()

    def construct(self, x, y):
        before = x * 1
        if self.how == "ops":
            ops.assign(x, x * y)
        elif self.how == "helper":
            _assign_helper(x, y)
        else:
            self.assign(x, x * y)
        return before, x + 1


@pytest.mark.parametrize("how", ["ops", "helper", "primitive"])
def test_an_argument_written_by_an_update_is_read_after_it(how):
    for mode in ("pynative", "jit", "graph"):
        x = T([1.0, 2.0, 3.0])
        before, after = run_mode(ArgWriteThenRead(how), mode, x, T([2.0, 2.0, 2.0]))
        assert vals(before) == [1, 2, 3], mode
        assert vals(after) == [3, 5, 7], mode
        assert vals(x) == [2, 4, 6], mode


# An update whose result is bound to a name nothing reads still writes (as in Python). The
# front end used to drop such an assignment before the specialiser saw it, so GRAPH mode
# left the Parameter unchanged.


class UnreadUpdateResult(nn.Cell):
    def __init__(self, where):
        super().__init__()
        self.where = where
        self.p = Parameter(T([1.0, 2.0, 3.0]), name="p")

    def _update(self, y):
        unused = ops.assign(self.p, self.p * y)  # noqa: F841 (the point of the test)
        return y

    def construct(self, y):
        if self.where == "construct":
            z = ops.assign(self.p, self.p * y)  # noqa: F841
        elif self.where == "method":
            y = self._update(y)
        else:  # under a run-time condition
            if y.sum() > 0:
                z = ops.assign_add(self.p, y)  # noqa: F841
        unread = y * 3  # noqa: F841 (a pure value nobody reads changes nothing)
        return self.p + 1


@pytest.mark.parametrize("where,want", [("construct", [2, 4, 6]), ("method", [2, 4, 6]),
                                        ("branch", [3, 4, 5])])
def test_an_update_bound_to_a_name_never_read_still_writes(where, want):
    out, (p,) = run_all(cell(UnreadUpdateResult, where), T([2.0, 2.0, 2.0]))
    assert p.tolist() == want
    assert vals(out) == [w + 1 for w in want]
