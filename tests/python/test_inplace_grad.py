"""Gradients through in-place writes of computed tensors inside a differentiated function
(ops.assign, ops.assign_add, P.AssignAdd, `y += v`): PYNATIVE, GRAPH and a @jit function
differentiated in PYNATIVE give torch's gradient (the write's value flows on: Assign's and
AssignAdd's bprop rules, optim.def's grad column; GRAPH reads the update after it, the
specialiser's updated_; PYNATIVE's recording keeps the value an earlier op read before the
write, OpRecorder::before_write; GRAPH mode also follows a write in a branch, a loop, a
method or to a weight: the K transform's follow_writes). Where GRAPH mode's backward would
need a value the write overwrote, a TypeError (the K transform's check_overwritten, PyTorch's
rule). `x[i] = v`
inside a gradient is a TypeError in both modes rather than a gradient that skips the
write."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops, Tensor
from mycel.ops import operations as P

X = np.array([0.5, -1.0, 2.0], np.float32)


def augmented(x):
    y = x * 2
    y += x * x
    return (y * x).sum()


def assign_add(x):
    y = x * 2
    ops.assign_add(y, x * x)
    return (y * x).sum()


def prim_assign_add(x):
    y = x * 2
    P.AssignAdd()(y, x * x)
    return (y * x).sum()


def assign(x):
    y = x * 2
    ops.assign(y, x * x * x)
    return (y * x).sum()


def read_before_and_after(x):
    y = ops.exp(x)          # exp's rule reads its output, which the write changes
    a = y * y               # reads y before the write
    ops.assign_add(y, x * 3)
    return (a + y * x).sum()


def twice_and_returned(x):
    y = x * x
    ops.assign_add(y, x)
    ops.assign_add(y, ops.sin(x))
    return y


def broadcast_value(x):
    y = x * 2
    ops.assign_add(y, (x * x).sum().reshape((1,)))
    return (y * x).sum()


def t_sum_y_x(y, x):
    return (y * x).sum()


TORCH = {
    "augmented": lambda x: ((x * 2 + x * x) * x).sum(),
    "assign_add": lambda x: ((x * 2 + x * x) * x).sum(),
    "prim_assign_add": lambda x: ((x * 2 + x * x) * x).sum(),
    "assign": lambda x: ((x * x * x) * x).sum(),
    "read_before_and_after": lambda x: (torch.exp(x) ** 2 + (torch.exp(x) + x * 3) * x).sum(),
    "twice_and_returned": lambda x: x * x + x + torch.sin(x),
    "broadcast_value": lambda x: ((x * 2 + (x * x).sum()) * x).sum(),
}
FNS = {f.__name__: f for f in (augmented, assign_add, prim_assign_add, assign,
                               read_before_and_after, twice_and_returned, broadcast_value)}


def torch_grad(name):
    x = torch.tensor(X.astype(np.float64), requires_grad=True)
    out = TORCH[name](x)
    out.sum().backward() if out.dim() else out.backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(FNS))
@pytest.mark.parametrize("how", ["pynative", "graph", "jit_in_pynative"])
def test_gradient_through_an_in_place_write(name, how):
    fn = FNS[name]
    want_value, want_grad = torch_grad(name)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph" else ms.PYNATIVE_MODE)
    try:
        target = ms.jit(fn) if how == "jit_in_pynative" else fn
        if how == "graph" and name == "read_before_and_after":
            # exp's rule reads its output, which the write changes: GRAPH mode's backward
            # would read the written value (PyTorch raises here too); PYNATIVE's recording
            # keeps the old one
            with pytest.raises(TypeError, match="'AssignAdd' overwrites in place") as info:
                ops.value_and_grad(target)(Tensor(X))
            # the user's line, not ops.assign_add's inside the library (inlined there)
            assert "test_inplace_grad.py" in str(info.value)
            assert "ops.assign_add(y, x * 3)" in str(info.value)
            assert "array_func.py" not in str(info.value)
            return
        value, grad = ops.value_and_grad(target)(Tensor(X))
        np.testing.assert_allclose(value.asnumpy(), want_value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(grad.asnumpy(), want_grad, rtol=1e-5, atol=1e-5)
        # the forward alone gives the same value
        np.testing.assert_allclose(target(Tensor(X)).asnumpy(), want_value, rtol=1e-5,
                                   atol=1e-6)
    finally:
        ms.set_context(mode=old)


def setitem(x):
    y = x * 2
    y[0] = x[1] * x[2]
    return (y * x).sum()


def test_setitem_inside_a_gradient_is_a_type_error(mode):
    with pytest.raises(TypeError, match=r"assigning into a tensor \(x\[i\] = v\)"):
        ops.grad(setitem)(Tensor(X))


def test_setitem_outside_a_gradient_still_writes():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        got = setitem(Tensor(X)).asnumpy()
        y = X * 2
        y[0] = X[1] * X[2]
        np.testing.assert_allclose(got, (y * X).sum(), rtol=1e-6)
        # a constant written into a constant inside a gradient is not differentiated: allowed
        def const_write(x):
            c = Tensor(np.zeros(3, np.float32))
            c[1] = 4.0
            return (x * c).sum()
        np.testing.assert_allclose(ops.grad(const_write)(Tensor(X)).asnumpy(), [0, 4, 0])

        # nor is a tensor made from x's shape only (zeros_like: no gradient flows through it)
        def mask_write(x):
            m = ops.zeros_like(x)
            m[2] = 3.0
            return (x * m).sum()
        np.testing.assert_allclose(ops.grad(mask_write)(Tensor(X)).asnumpy(), [0, 0, 3])
    finally:
        ms.set_context(mode=old)


def prim_read_before(x):
    y = x * x
    a = y * y               # Mul's rule reads y
    P.AssignAdd()(y, x)
    return (a + y).sum()


def test_graph_mode_names_the_write_the_gradient_would_miss():
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(TypeError, match="'AssignAdd' overwrites in place") as info:
            ops.grad(prim_read_before)(Tensor(X))
        assert "P.AssignAdd()(y, x)" in str(info.value)
        assert "test_inplace_grad.py" in str(info.value)
        # PYNATIVE keeps the value Mul read: torch's gradient of y*y + (y + x), y = x*x
        ms.set_context(mode=ms.PYNATIVE_MODE)
        got = ops.grad(prim_read_before)(Tensor(X)).asnumpy()
        np.testing.assert_allclose(got, 4 * X ** 3 + 2 * X + 1, rtol=1e-5)
    finally:
        ms.set_context(mode=old)


def write_in_branch(x):
    y = x * 2
    if x.sum() > 0:
        ops.assign_add(y, x * x)
    return (y * x).sum()


def write_in_loop(x):
    y = x * 2
    i = 0
    while i < x.shape[0]:
        ops.assign_add(y, x * x)
        i += 1
    return (y * x).sum()


def _update(y, x):
    ops.assign_add(y, x * x)


def write_in_a_function(x):
    y = x * 2
    _update(y, x)
    return (y * x).sum()


FOLLOWED = {
    "write_in_branch": (write_in_branch, lambda x: ((x * 2 + x * x) * x).sum()),
    "write_in_loop": (write_in_loop, lambda x: ((x * 2 + 3 * x * x) * x).sum()),
    "write_in_a_function": (write_in_a_function, lambda x: ((x * 2 + x * x) * x).sum()),
}


@pytest.mark.parametrize("name", sorted(FOLLOWED))
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_write_in_a_branch_loop_or_function_is_followed(name, mode):
    # GRAPH mode raised a TypeError here before: the read after the write now reads the
    # write's result wherever the write is ordered before it (the K transform's follow_writes:
    # the call of the branch, the next iteration, the rest of the function)
    fn, torch_fn = FOLLOWED[name]
    tx = torch.tensor(X.astype(np.float64), requires_grad=True)
    torch_fn(tx).backward()
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        np.testing.assert_allclose(ops.grad(fn)(Tensor(X)).asnumpy(), tx.grad.numpy(),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(ms.jit(fn)(Tensor(X)).asnumpy(),
                                   torch_fn(torch.tensor(X.astype(np.float64))).item(),
                                   rtol=1e-5)
    finally:
        ms.set_context(mode=old)


def _noop(y, x):
    return None


def write_by_a_function_chosen_at_run_time(x):
    y = x * 2
    f = _update if x.sum() > 0 else _noop
    f(y, x)
    return (y * x).sum()


def test_a_write_graph_mode_cannot_follow_is_a_type_error():
    # the function that writes y is a value chosen at run time: GRAPH mode cannot give the
    # read after the call the write's result, so the gradient would miss the write
    tx = torch.tensor(X.astype(np.float64), requires_grad=True)
    ((tx * 2 + tx * tx) * tx).sum().backward()   # x.sum() > 0: _update runs
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(
            ops.grad(write_by_a_function_chosen_at_run_time)(Tensor(X)).asnumpy(),
            tx.grad.numpy(), rtol=1e-5, atol=1e-5)
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(TypeError, match="cannot follow the in-place write of 'AssignAdd'") \
                as info:
            ops.grad(write_by_a_function_chosen_at_run_time)(Tensor(X))
        assert "f(y, x)" in str(info.value)
        assert "return (y * x).sum()" in str(info.value)
        # the forward alone still runs, with PYNATIVE's value
        np.testing.assert_allclose(
            ms.jit(write_by_a_function_chosen_at_run_time)(Tensor(X)).asnumpy(),
            ((X * 2 + X * X) * X).sum(), rtol=1e-5)
    finally:
        ms.set_context(mode=old)


# ---- in-place writes to the differentiated function's own inputs ----
# (found with MindSpore's tests/st/compiler/tensor_inplace/test_tensor_inplace_grad.py; GRAPH
# mode used to give dx = 0 and let the backward read the overwritten input.) The oracle is
# torch writing in place into a clone of its input (a leaf cannot be written): the gradient
# flows through the write, the caller's tensor holds the written value in both modes, and a
# backward needing the input's old value is an error (torch's version counter; GRAPH mode's
# check_overwritten) except in PYNATIVE, whose recording keeps the old value.

XI = np.array([1.0, -2.0, 0.5], np.float32)
YI = np.array([4.0, 3.0, -1.5], np.float32)


def returns_written_input(x, y):
    P.AssignAdd()(y, x)
    return y


def functional_assign_add_read_after(x, y):
    ops.assign_add(y, x * x)
    return (y * x).sum()


def assign_then_read(x, y):
    ops.assign(y, x * 3)
    return (y * x).sum()


def assign_returned(x, y):
    return ops.assign(y, ops.sin(x))


INPUT_TORCH = {
    "returns_written_input": lambda x, y: y.add_(x),
    "functional_assign_add_read_after": lambda x, y: (y.add_(x * x) * x).sum(),
    "assign_then_read": lambda x, y: (y.copy_(x * 3) * x).sum(),
    "assign_returned": lambda x, y: y.copy_(torch.sin(x)),
}
INPUT_FNS = {f.__name__: f for f in (returns_written_input, functional_assign_add_read_after,
                                     assign_then_read, assign_returned)}


def torch_input_write(name):
    x = torch.tensor(XI.astype(np.float64), requires_grad=True)
    y = torch.tensor(YI.astype(np.float64), requires_grad=True)
    yc = y.clone()
    out = INPUT_TORCH[name](x, yc)
    out.sum().backward() if out.dim() else out.backward()
    return out.detach().numpy(), x.grad.numpy(), y.grad.numpy(), yc.detach().numpy()


@pytest.mark.parametrize("name", sorted(INPUT_FNS))
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_through_a_write_to_an_input(name, mode):
    want_value, want_dx, want_dy, want_y = torch_input_write(name)
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        x, y = Tensor(XI), Tensor(YI)
        value, (dx, dy) = ops.value_and_grad(INPUT_FNS[name], grad_position=(0, 1))(x, y)
        np.testing.assert_allclose(value.asnumpy(), want_value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(dy.asnumpy(), want_dy, rtol=1e-5, atol=1e-5)
        # the caller's tensor was written, as torch's clone was; x was not
        np.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(x.asnumpy(), XI)
    finally:
        ms.set_context(mode=old)


def reads_input_before_write(x, y):
    a = x * y               # Mul's rule reads x and y
    P.AssignAdd()(x, y)
    return a.sum()


def reads_input_before_and_after_write(x, y):
    a = x * y               # Mul's rule reads x and y
    P.AssignAdd()(x, y)
    return (a + x).sum()    # the output reads the new x: the backward runs after the write


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_backward_reading_an_input_its_output_does_not_wait_for(mode):
    # torch refuses both programs (its version counter sees x written after Mul saved it). The
    # gradient of the program as written is d/dx = y, d/dy = the old x: PYNATIVE's recording
    # keeps the old x; GRAPH's output does not read the write, so order_updates runs the
    # backward's read of x before it. x is written in both modes.
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        x = Tensor(XI)
        dx, dy = ops.grad(reads_input_before_write, grad_position=(0, 1))(x, Tensor(YI))
        np.testing.assert_allclose(dx.asnumpy(), YI, rtol=1e-6)
        np.testing.assert_allclose(dy.asnumpy(), XI, rtol=1e-6)
        np.testing.assert_allclose(x.asnumpy(), XI + YI, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_backward_needing_an_overwritten_input():
    # torch: the backward needs x's old value, which add_ overwrote -> an error
    tx = torch.tensor(XI.astype(np.float64), requires_grad=True).clone()
    ty = torch.tensor(YI.astype(np.float64), requires_grad=True)
    out = (tx * ty).sum()
    tx.add_(ty)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (out + tx.sum()).backward()
    old = ms.get_context("mode")
    try:
        # GRAPH: the backward waits for the output, which reads the write: a TypeError naming
        # the write, not the new x read as the old one
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(TypeError, match="'AssignAdd' overwrites in place") as info:
            ops.grad(reads_input_before_and_after_write, grad_position=(0, 1))(Tensor(XI),
                                                                               Tensor(YI))
        assert "P.AssignAdd()(x, y)" in str(info.value)
        assert "test_inplace_grad.py" in str(info.value)
        # PYNATIVE keeps the value Mul read: d/dx = y + 1, d/dy = the old x + 1
        ms.set_context(mode=ms.PYNATIVE_MODE)
        x = Tensor(XI)
        dx, dy = ops.grad(reads_input_before_and_after_write, grad_position=(0, 1))(x, Tensor(YI))
        np.testing.assert_allclose(dx.asnumpy(), YI + 1, rtol=1e-6)
        np.testing.assert_allclose(dy.asnumpy(), XI + 1, rtol=1e-6)
        np.testing.assert_allclose(x.asnumpy(), XI + YI, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def reads_between_writes_to_an_input(y, x):
    a = y * 1
    ops.assign(y, x)
    b = y * 1               # once simplified to the Assign's output, which AssignAdd writes
    ops.assign_add(y, x)
    return a, b, y + 0


def reads_between_writes_to_a_computed_tensor(y, x):
    y = y * 2
    a = y * 1
    ops.assign(y, x)
    b = y * 1
    ops.assign_add(y, x)
    return a, b, y + 0


@pytest.mark.parametrize("fn", [reads_between_writes_to_an_input,
                                reads_between_writes_to_a_computed_tensor])
@pytest.mark.parametrize("how", ["pynative", "graph", "jit_in_pynative"])
def test_reads_between_writes(fn, how):
    # each read sees the tensor as the writes before it left it (numpy oracle; jit read the
    # second write for b: simplify took the Assign's output for y * 1), and the caller's
    # tensor holds the last write when the function writes its input
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph" else ms.PYNATIVE_MODE)
    try:
        y = Tensor(YI)
        out = (ms.jit(fn) if how == "jit_in_pynative" else fn)(y, Tensor(XI))
        first = YI if fn is reads_between_writes_to_an_input else YI * 2
        for got, want in zip(out, (first, XI, XI + XI)):
            np.testing.assert_array_equal(got.asnumpy(), want)
        want_y = XI + XI if fn is reads_between_writes_to_an_input else YI
        np.testing.assert_array_equal(y.asnumpy(), want_y)
    finally:
        ms.set_context(mode=old)


# ---- algebraic simplification never aliases a tensor a later write changes ----------------
# `y = y * 1.0 + 0.0; a = y * 1; ops.assign(y, x); return a` returned x under jit: simplify
# took Add(m, 0) for m, so the Assign wrote m, and a = y * 1 for y. Each identity below
# (x * 1, x + 0, x - 0, x / 1, Cast to x's dtype, Neg(Neg(x))) is tested both ways: the
# result written (the write must not reach the operand) and the operand written (the result
# must keep the old value). A Reshape to the same shape is a view of its input in every mode
# (a write through either is seen by both). numpy is the oracle.

YS = np.array([4.0, 5.0, 6.0], np.float32)
XS = np.array([1.0, 2.0, 3.0], np.float32)

IDENTITIES = {
    "mul_one": lambda z: z * 1,
    "add_zero": lambda z: z + 0.0,
    "sub_zero": lambda z: z - 0,
    "div_one": lambda z: z / 1,
    "cast_same_dtype": lambda z: ops.cast(z, ms.float32),
    "neg_neg": lambda z: -(-z),
}


def chain_from_the_note(y, x):
    y = y * 1.0 + 0.0
    a = y * 1
    ops.assign(y, x)
    return a


def _result_written(ident):
    def fn(y, x):
        z = y * 2
        w = ident(z)
        ops.assign(w, x)
        return z, w
    return fn


def _operand_written(ident):
    def fn(y, x):
        z = y * 2
        a = ident(z)
        ops.assign(z, x)
        return a, z
    return fn


def constant_written(y, x):
    z = ops.zeros((3,), ms.float32)     # folded to a constant, every call wrote the same one
    ops.assign_add(z, x)
    return z + 0, z


def reshape_is_a_view(y, x):
    z = y * 2
    w = z.reshape((3,))
    ops.assign(w, x)
    return z, w


SIMPLIFY_CASES = {"chain_from_the_note": (chain_from_the_note, (YS,)),
                  "constant_written": (constant_written, (XS, XS)),
                  "reshape_is_a_view": (reshape_is_a_view, (XS, XS))}
for _name, _ident in IDENTITIES.items():
    SIMPLIFY_CASES[_name + "_result_written"] = (_result_written(_ident), (YS * 2, XS))
    SIMPLIFY_CASES[_name + "_operand_written"] = (_operand_written(_ident), (YS * 2, XS))


class _CallsFn(ms.nn.Cell):
    """A GRAPH-mode Cell around fn (a plain function called in GRAPH mode runs op by op)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, y, x):
        return self.fn(y, x)


@pytest.mark.parametrize("name", sorted(SIMPLIFY_CASES))
@pytest.mark.parametrize("how", ["pynative", "graph_cell", "jit_in_pynative"])
def test_a_simplification_never_aliases_a_written_tensor(name, how):
    fn, want = SIMPLIFY_CASES[name]
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph_cell" else ms.PYNATIVE_MODE)
    try:
        target = {"pynative": fn, "graph_cell": _CallsFn(fn), "jit_in_pynative": ms.jit(fn)}[how]
        for _ in range(2):      # a second call sees no state left by the first
            out = target(Tensor(YS), Tensor(XS))
            out = out if isinstance(out, tuple) else (out,)
            assert len(out) == len(want)
            for got, w in zip(out, want):
                np.testing.assert_array_equal(got.asnumpy(), w)
    finally:
        ms.set_context(mode=old)


GLOBAL_WRITTEN = Tensor(np.zeros(3, np.float32))


def writes_a_global_tensor(y, x):
    ops.assign_add(GLOBAL_WRITTEN, x)
    return GLOBAL_WRITTEN * 1


def writes_a_tensor_made_from_constants(y, x):
    c = Tensor(np.zeros(3, np.float32))
    ops.assign_add(c, x)
    return c * 1


@pytest.mark.parametrize("fn", [writes_a_global_tensor, writes_a_tensor_made_from_constants])
@pytest.mark.parametrize("how", ["graph_cell", "jit_in_pynative"])
def test_a_write_into_a_compile_time_constant_is_a_type_error(fn, how):
    # graph mode compiles both tensors as constants: the global's later read returned its
    # old value (the read of a constant is not ordered after the write, and fold ran it at
    # compile time), the other kept the sum across calls (one buffer)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph_cell" else ms.PYNATIVE_MODE)
    try:
        target = _CallsFn(fn) if how == "graph_cell" else ms.jit(fn)
        with pytest.raises(TypeError, match="For 'AssignAdd', input 0 is written in place but "
                                            "is a tensor known at compile time") as info:
            target(Tensor(YS), Tensor(XS))
        assert "ops.assign_add(" in str(info.value)
        np.testing.assert_array_equal(GLOBAL_WRITTEN.asnumpy(), np.zeros(3, np.float32))
    finally:
        ms.set_context(mode=old)
    # PYNATIVE makes a fresh tensor per call
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        for _ in range(2):
            np.testing.assert_array_equal(
                writes_a_tensor_made_from_constants(Tensor(YS), Tensor(XS)).asnumpy(), XS)
    finally:
        ms.set_context(mode=old)


# ---- a write to a weight (Parameter) inside the differentiated Cell ------------------------
# GRAPH mode gave d/dx = the new w here (the read after the write was depend(w, state), whose
# gradient stops at the weight); the K transform's follow_writes now reads the write's result
# there, as PYNATIVE's recording does. The oracle is torch computing the same program
# functionally (w1 = w + v for AssignAdd, w1 = v for Assign), which gives the gradient with
# respect to the weight's value before the step, and the weight's value after it.

W0 = np.array([2.0, -1.0], np.float32)
XW = np.array([1.5, 0.5], np.float32)


class _Weighted(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(W0), name="w")


class AssignAddThenRead(_Weighted):
    def construct(self, x):
        ops.assign_add(self.w, x * 3)
        return (self.w * x).sum()


class PrimAssignAddThenRead(_Weighted):
    def __init__(self):
        super().__init__()
        self.assign_add = P.AssignAdd()

    def construct(self, x):
        self.assign_add(self.w, x * 3)
        return (self.w * x).sum()


class AssignThenRead(_Weighted):
    def construct(self, x):
        ops.assign(self.w, x * 3)
        return (self.w * x).sum()


class AssignSubThenRead(_Weighted):
    def construct(self, x):
        ops.assign_sub(self.w, x * 3)
        return (self.w * ops.exp(x)).sum()


class ReadThenWrite(_Weighted):
    def construct(self, x):
        a = self.w * x
        ops.assign_add(self.w, x * 3)
        return a.sum()


class WritesInAMethod(_Weighted):
    def bump(self, x):
        ops.assign_add(self.w, x * 3)

    def construct(self, x):
        self.bump(x)
        return (self.w * x).sum()


class ParentReadsAfterSubCell(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = AssignAddThenRead()

    def construct(self, x):
        a = self.inner(x)
        return a * 2 + (self.inner.w * x).sum()


class WritesInAForLoop(_Weighted):
    def construct(self, x):
        for _ in range(2):
            ops.assign_add(self.w, x * 3)
        return (self.w * x).sum()


class WritesInAWhileLoop(_Weighted):
    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < 2:
            ops.assign_add(self.w, x * 3)
            i += 1
        return (self.w * x).sum()


class WritesInABranch(_Weighted):
    def construct(self, x):
        if x.sum() > 0:
            ops.assign_add(self.w, x * 3)
        return (self.w * x).sum()


class ReadsInABranch(_Weighted):
    def construct(self, x):
        ops.assign_add(self.w, x * 3)
        if x.sum() > 0:
            return (self.w * x).sum()
        return x.sum()


WEIGHT_WRITES = {  # Cell, its parameter holder, torch (w, x) -> (output, w after)
    AssignAddThenRead: lambda w, x: (((w + x * 3) * x).sum(), w + x * 3),
    PrimAssignAddThenRead: lambda w, x: (((w + x * 3) * x).sum(), w + x * 3),
    AssignThenRead: lambda w, x: (((x * 3 + w * 0) * x).sum(), x * 3),
    AssignSubThenRead: lambda w, x: (((w - x * 3) * torch.exp(x)).sum(), w - x * 3),
    ReadThenWrite: lambda w, x: ((w * x).sum(), w + x * 3),
    WritesInAMethod: lambda w, x: (((w + x * 3) * x).sum(), w + x * 3),
    ParentReadsAfterSubCell: lambda w, x: (((w + x * 3) * x).sum() * 3, w + x * 3),
    WritesInAForLoop: lambda w, x: (((w + x * 6) * x).sum(), w + x * 6),
    WritesInAWhileLoop: lambda w, x: (((w + x * 6) * x).sum(), w + x * 6),
    WritesInABranch: lambda w, x: (((w + x * 3) * x).sum(), w + x * 3),  # x.sum() > 0
    ReadsInABranch: lambda w, x: (((w + x * 3) * x).sum(), w + x * 3),
}


def torch_weight_write(cls):
    w = torch.tensor(W0.astype(np.float64), requires_grad=True)
    x = torch.tensor(XW.astype(np.float64), requires_grad=True)
    out, w_after = WEIGHT_WRITES[cls](w, x)
    out.backward()
    return out.item(), x.grad.numpy(), w.grad.numpy(), w_after.detach().numpy()


@pytest.mark.parametrize("cls", list(WEIGHT_WRITES), ids=lambda c: c.__name__)
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_through_a_write_to_a_weight(cls, mode):
    want_out, want_dx, want_dw, want_w = torch_weight_write(cls)
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        # d/dx alone (grad_position=0, no weights): one step, one write
        net = cls()
        dx = ms.grad(net)(Tensor(XW))
        np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(net.parameters_dict()[
            "inner.w" if cls is ParentReadsAfterSubCell else "w"].asnumpy(), want_w, rtol=1e-6)
        # the value, d/dx and d/dw (weights=) from a fresh Cell
        net = cls()
        value, (dx, dws) = ms.value_and_grad(net, grad_position=0,
                                             weights=net.trainable_params())(Tensor(XW))
        np.testing.assert_allclose(value.asnumpy(), want_out, rtol=1e-5)
        np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5, atol=1e-5)
        assert len(dws) == 1
        np.testing.assert_allclose(dws[0].asnumpy(), want_dw, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(net.trainable_params()[0].asnumpy(), want_w, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_gradient_through_a_write_to_a_weight_analytic():
    # (w + 3x) * x summed, w = 2, x = 1: d/dx = w + 6x = 8, d/dw = x = 1, w becomes 5
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        old = ms.get_context("mode")
        ms.set_context(mode=mode)
        try:
            net = AssignAddThenRead()
            net.w = ms.Parameter(Tensor(np.array([2.0], np.float32)), name="w")
            dx, dw = ms.grad(net, grad_position=0, weights=net.w)(Tensor(np.array([1.0],
                                                                                np.float32)))
            assert dx.asnumpy().tolist() == [8.0] and dw.asnumpy().tolist() == [1.0], mode
            assert net.w.asnumpy().tolist() == [5.0], mode
        finally:
            ms.set_context(mode=old)


class JitConstructWritesItsWeight(_Weighted):
    @ms.jit
    def construct(self, x):
        ops.assign_add(self.w, x * 3)
        return (self.w * x).sum()


def test_gradient_through_a_write_to_a_weight_in_a_jit_construct():
    # a @jit construct differentiated in PYNATIVE mode: the compiled graph's gradient
    want_out, want_dx, want_dw, want_w = torch_weight_write(AssignAddThenRead)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        net = JitConstructWritesItsWeight()
        value, (dx, (dw,)) = ms.value_and_grad(net, grad_position=0,
                                               weights=net.trainable_params())(Tensor(XW))
        np.testing.assert_allclose(value.asnumpy(), want_out, rtol=1e-5)
        np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5)
        np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-5)
        np.testing.assert_allclose(net.w.asnumpy(), want_w, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


class ReadBeforeAndAfterAWrite(_Weighted):
    def __init__(self):
        super().__init__()
        self.assign_add = P.AssignAdd()

    def construct(self, x):
        a = self.w * x
        self.assign_add(self.w, x * 3)
        return (a + self.w * x).sum()


class ReadBetweenWritesNonlinear(_Weighted):
    def __init__(self):
        super().__init__()
        self.assign_add = P.AssignAdd()

    def construct(self, x):
        ops.assign_add(self.w, x)
        a = self.w * x
        self.assign_add(self.w, x * 3)
        return ((a + self.w * x) ** 2).sum()


class WriteReadWrite(_Weighted):
    def __init__(self):
        super().__init__()
        self.assign = P.Assign()

    def construct(self, x):
        ops.assign_add(self.w, x * 3)
        b = self.w + x
        self.assign(self.w, self.w * x)     # Mul's rule reads w, which Assign overwrites
        return (b * 2 + self.w).sum()


class ReadBetweenWrites(_Weighted):
    def __init__(self):
        super().__init__()
        self.assign_add = P.AssignAdd()

    def construct(self, x):
        ops.assign_add(self.w, x * 3)
        b = self.w * x
        self.assign_add(self.w, x)
        return (b + self.w).sum()


WEIGHT_READ_THEN_OVERWRITTEN = {  # Cell: (torch (w, x) -> output, the write, the read)
    ReadBeforeAndAfterAWrite: (lambda w, x: (w * x + (w + x * 3) * x).sum(),
                               "self.assign_add(self.w, x * 3)", "a = self.w * x"),
    ReadBetweenWritesNonlinear: (lambda w, x: (((w + x) * x + (w + x * 4) * x) ** 2).sum(),
                                 "self.assign_add(self.w, x * 3)", "a = self.w * x"),
    WriteReadWrite: (lambda w, x: ((w + x * 3 + x) * 2 + (w + x * 3) * x).sum(),
                     "self.assign(self.w, self.w * x)", "self.assign(self.w, self.w * x)"),
    ReadBetweenWrites: (lambda w, x: ((w + x * 3) * x + (w + x * 4)).sum(),
                        "self.assign_add(self.w, x)", "b = self.w * x"),
}


@pytest.mark.parametrize("cls", list(WEIGHT_READ_THEN_OVERWRITTEN), ids=lambda c: c.__name__)
def test_a_weight_read_before_a_write_its_backward_needs(cls):
    # A rule (Mul's) needs the weight as it was before a later write, and the backward waits
    # for the output, which reads the write: GRAPH mode would read the written weight
    # (silently: ReadBetweenWritesNonlinear gave a wrong d/dx), so it is a TypeError naming
    # the write and the read, as torch raises for the same program written in place.
    # PYNATIVE's recording keeps the old value: torch's functional program is its oracle.
    torch_fn, write_line, read_line = WEIGHT_READ_THEN_OVERWRITTEN[cls]
    w = torch.tensor(W0.astype(np.float64), requires_grad=True)
    x = torch.tensor(XW.astype(np.float64), requires_grad=True)
    torch_fn(w, x).backward()
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = cls()
        dx, (dw,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(XW))
        np.testing.assert_allclose(dx.asnumpy(), x.grad.numpy(), rtol=1e-5)
        np.testing.assert_allclose(dw.asnumpy(), w.grad.numpy(), rtol=1e-5)
        ms.set_context(mode=ms.GRAPH_MODE)
        net = cls()
        with pytest.raises(TypeError, match="overwrites in place afterwards") as info:
            ms.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(XW))
        assert write_line in str(info.value)
        assert "the value was read before the write by:" in str(info.value)
        assert read_line in str(info.value).split("read before the write by:")[1]
    finally:
        ms.set_context(mode=old)


class WritesThroughAFunctionChosenAtRunTime(_Weighted):
    def bump(self, x):
        ops.assign_add(self.w, x * 3)

    def keep(self, x):
        return None

    def construct(self, x):
        f = self.bump if x.sum() > 0 else self.keep
        f(x)
        return (self.w * x).sum()


def test_a_weight_write_graph_mode_cannot_follow_is_a_type_error():
    # the method that writes w is a value chosen at run time: GRAPH mode's read of w after
    # the call cannot take the write's result (it gave d/dx = the new w, silently)
    want_out, want_dx, want_dw, want_w = torch_weight_write(AssignAddThenRead)  # x.sum() > 0
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = WritesThroughAFunctionChosenAtRunTime()
        dx, (dw,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(XW))
        np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5)
        np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-5)
        np.testing.assert_allclose(net.w.asnumpy(), want_w, rtol=1e-6)
        ms.set_context(mode=ms.GRAPH_MODE)
        net = WritesThroughAFunctionChosenAtRunTime()
        with pytest.raises(TypeError, match="cannot follow the in-place write of 'AssignAdd'") \
                as info:
            ms.grad(net)(Tensor(XW))
        assert "f(x)" in str(info.value)
        assert "return (self.w * x).sum()" in str(info.value)
        # the forward alone still runs and writes w
        net = WritesThroughAFunctionChosenAtRunTime()
        np.testing.assert_allclose(net(Tensor(XW)).asnumpy(), want_out, rtol=1e-5)
        np.testing.assert_allclose(net.w.asnumpy(), want_w, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_torch_refuses_a_weight_read_before_an_in_place_write_its_backward_needs():
    # the oracle's own rule for the cases above, on a clone of the weight
    w = torch.tensor(W0.astype(np.float64), requires_grad=True).clone()
    x = torch.tensor(XW.astype(np.float64), requires_grad=True)
    a = w * x
    w.add_(x * 3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (a + w * x).sum().backward()
