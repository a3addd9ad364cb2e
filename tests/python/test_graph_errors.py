"""Graph-mode programs that must fail (issue #3 acceptance): each error names this file and
the line of the offending construct, quotes the source line, and says what went wrong.

The expected line is found through a marker comment (`# <- name`) on that line, so the
tests do not depend on where the programs sit in this file.
"""
import os

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops, context

HERE = os.path.abspath(__file__)
with open(HERE) as _f:
    _SOURCE = _f.read().splitlines()


def marker_line(name):
    """(line number, stripped source text) of the line carrying the marker `# <- name`."""
    tag = f"# <- {name}"
    hits = [i for i, l in enumerate(_SOURCE) if l.rstrip().endswith(tag)]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    i = hits[0]
    return i + 1, _SOURCE[i].split("# <-")[0].strip()


def check_location(exc, name):
    """The message names this file, the marked line, and quotes the line's source."""
    msg = str(exc)
    line, text = marker_line(name)
    assert os.path.basename(HERE) in msg, msg
    assert f"line {line}" in msg or f"{os.path.basename(HERE)}:{line}" in msg, \
        f"expected line {line} in:\n{msg}"
    assert text in msg, f"expected source {text!r} in:\n{msg}"
    return msg


def f32(*shape):
    return Tensor(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 7 + 1)


@pytest.fixture
def graph_mode():
    saved = context.get_context("mode")
    context.set_context(mode=context.GRAPH_MODE)
    yield
    context.set_context(mode=saved)


# ---------------------------------------------------------------- shape and dtype errors

def e_matmul_shapes(x, y):
    h = x * 2
    z = ops.matmul(h, y)  # <- matmul
    return z + 1


def test_shape_mismatch_names_the_op_line():
    with pytest.raises(ValueError, match=r"(?i)matmul|shape") as ei:
        ms.jit(e_matmul_shapes)(f32(2, 3), f32(4, 5))
    check_location(ei.value, "matmul")


def helper_broadcast(a, b):
    return a + b  # <- broadcast


@ms.jit
def e_broadcast_nested(x, y):
    return helper_broadcast(x, y) * 2


def test_shape_error_in_a_called_function_names_its_line():
    with pytest.raises(ValueError, match=r"(?i)broadcast|shape") as ei:
        e_broadcast_nested(f32(2, 3), f32(4, 3))
    check_location(ei.value, "broadcast")


def e_dtype(x):
    m = x > 0
    return ops.matmul(m, m)  # <- dtype


def test_dtype_error():
    with pytest.raises(TypeError, match=r"(?i)bool|dtype|type") as ei:
        ms.jit(e_dtype)(f32(2, 2))
    check_location(ei.value, "dtype")


# ---------------------------------------------------------------- names and statements

def e_unknown_name(x):
    return x + undefined_thing  # noqa: F821  # <- name


def test_unknown_name():
    # Python's NameError (also a ValueError, as mycel raised before), its name in the text.
    with pytest.raises(NameError, match="NameError: name 'undefined_thing'") as ei:
        ms.jit(e_unknown_name)(f32(2))
    assert isinstance(ei.value, ValueError)
    check_location(ei.value, "name")


def e_unbound(x):
    if x.sum() > 0:
        y = x
    return y  # noqa: F821  # <- unbound


def test_unbound_local_is_an_unbound_local_error():
    with pytest.raises(UnboundLocalError, match="local variable 'y'") as ei:
        ms.jit(e_unbound)(f32(2))
    assert isinstance(ei.value, ValueError)
    check_location(ei.value, "unbound")


def e_try(x):
    try:  # <- try
        y = x + 1
    except ValueError:
        y = x
    return y


def test_unsupported_try_statement():
    with pytest.raises(Exception, match=r"(?i)try") as ei:
        ms.jit(e_try)(f32(2))
    check_location(ei.value, "try")


COUNTER = 0


def e_global(x):
    global COUNTER  # <- global
    COUNTER = COUNTER + 1
    return x


def test_unsupported_global_statement():
    with pytest.raises(Exception, match=r"(?i)global") as ei:
        ms.jit(e_global)(f32(2))
    check_location(ei.value, "global")


def e_with(x):
    with open(HERE) as f:  # <- with
        n = len(f.read())
    return x + n


def test_unsupported_with_statement():
    with pytest.raises(Exception, match=r"(?i)with") as ei:
        ms.jit(e_with)(f32(2))
    check_location(ei.value, "with")


# ---------------------------------------------------------------- control flow

def e_branch_shapes(x):
    if x.sum() > 0:  # <- branches
        y = x
    else:
        y = x.reshape(-1)
    return y


def test_branches_with_different_shapes_on_tensor_condition():
    with pytest.raises((TypeError, ValueError), match=r"(?i)shape|branch") as ei:
        ms.jit(e_branch_shapes)(f32(2, 3))
    msg = str(ei.value)
    assert os.path.basename(HERE) in msg, msg
    # The error points into the if statement (its condition or one of its branches).
    lo, _ = marker_line("branches")
    lines = [int(t) for t in __import__("re").findall(r"line (\d+)", msg)]
    assert any(lo <= n <= lo + 4 for n in lines), msg


def e_raise_in_constant_branch(x, mode):
    if mode == "bad":
        raise ValueError(f"unknown mode {mode}")  # <- raise
    return x * 2


def test_raise_in_constant_condition_branch():
    fn = ms.jit(e_raise_in_constant_branch)
    np.testing.assert_array_equal(fn(f32(2), "good").asnumpy(), f32(2).asnumpy() * 2)
    with pytest.raises(ValueError, match="unknown mode bad") as ei:
        fn(f32(2), "bad")
    check_location(ei.value, "raise")


def e_raise_fstring_of_shape(x, n):
    if n > 2:
        raise ValueError(f"n must be at most 2, got {n} for shape {x.shape}")  # <- fshape
    return x * n


def test_raise_fstring_over_known_values_is_formatted_at_compile_time():
    """The f-string reads a tensor argument's shape (known at compile time): the message is
    the formatted string, not the source line alone."""
    fn = ms.jit(e_raise_fstring_of_shape)
    np.testing.assert_array_equal(fn(f32(3), 2).asnumpy(), f32(3).asnumpy() * 2)
    with pytest.raises(ValueError) as ei:
        fn(f32(3), 5)
    msg = check_location(ei.value, "fshape")
    assert msg.splitlines()[0] == "n must be at most 2, got 5 for shape (3,)", msg


def e_raise_fstring_of_value(x):
    s = x.sum()
    if s > 10:
        raise ValueError(f"the sum {s} is too large")  # <- fvalue
    return x


def e_raise_type_error_at_run_time(x, n):
    if x.sum() > n:
        raise TypeError("the sum", x.sum(), f"exceeds {n} for shape {x.shape}")  # <- ftype
    return x


def test_raise_fstring_over_a_run_time_value_formats_it_at_run_time():
    """A message that depends on tensor values is made when the raise runs (MindSpore runs
    such a raise at run time): the same text as PYNATIVE, the exception's own type."""
    big = Tensor(np.full(3, 5.0, np.float32))
    with pytest.raises(ValueError) as eager:
        e_raise_fstring_of_value(big)
    fn = ms.jit(e_raise_fstring_of_value)
    np.testing.assert_array_equal(fn(f32(2)).asnumpy(), f32(2).asnumpy())
    with pytest.raises(ValueError) as ei:
        fn(big)
    msg = check_location(ei.value, "fvalue")
    assert msg.splitlines()[0] == str(eager.value), (msg, str(eager.value))
    assert "the sum 15" in msg, msg
    fn = ms.jit(e_raise_type_error_at_run_time)
    with pytest.raises(TypeError) as ei:  # its class, not a RuntimeError
        fn(big, 4)
    msg = check_location(ei.value, "ftype")
    first = msg.splitlines()[0]
    assert first.startswith("the sum 15") and first.endswith("exceeds 4 for shape (3,)"), msg


def e_fstring_value(x, n):
    return x + 1, f"{n:>4}|{x.shape}|{n!r}|{'a' + 'b'}|{x.dtype}"


def test_fstring_as_a_value_equals_python():
    x = f32(2, 3)
    want = e_fstring_value(x, 7)[1]
    got = ms.jit(e_fstring_value)(x, 7)[1]
    assert got == want == f"   7|(2, 3)|7|ab|{x.dtype}", (got, want)


def e_assert_tensor(x):
    y = x * 2
    assert y.sum() < 100, "sum too large"  # <- assert
    return y


def test_assert_on_tensor_fails_at_run_time_with_line():
    fn = ms.jit(e_assert_tensor)
    small = Tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal(fn(small).asnumpy(), np.full(3, 2, np.float32))
    with pytest.raises((AssertionError, RuntimeError, ValueError), match="sum too large") as ei:
        fn(Tensor(np.full(3, 40.0, np.float32)))
    check_location(ei.value, "assert")


# ---------------------------------------------------------------- values and calls

def e_tuple_index(x):
    t = (x, x + 1)
    return t[2]  # <- tuple_index


def test_tuple_index_out_of_range():
    with pytest.raises(IndexError, match=r"(?i)out of range") as ei:
        ms.jit(e_tuple_index)(f32(2))
    check_location(ei.value, "tuple_index")


def two_args(a, b):
    return a + b


def e_wrong_arg_count(x):
    return two_args(x, x, x)  # <- nargs


def test_wrong_number_of_arguments_to_user_function():
    with pytest.raises(TypeError, match=r"(?i)argument") as ei:
        ms.jit(e_wrong_arg_count)(f32(2))
    msg = check_location(ei.value, "nargs")
    assert "two_args" in msg, msg


def e_unexpected_kw(x):
    return two_args(x, c=x)  # <- kwarg


def test_unexpected_keyword_argument():
    with pytest.raises(TypeError, match=r"(?i)keyword|'c'") as ei:
        ms.jit(e_unexpected_kw)(f32(2))
    check_location(ei.value, "kwarg")


def e_truth_multi(x):
    if x:  # <- truth
        return x
    return -x


def test_truth_value_of_multi_element_tensor():
    with pytest.raises((ValueError, TypeError), match=r"(?i)truth|ambiguous|element") as ei:
        ms.jit(e_truth_multi)(f32(3))
    check_location(ei.value, "truth")


def e_item_assign(x):
    y = x * 1
    y[0] = 5.0  # <- setitem
    return y


def test_tensor_item_assignment():
    with pytest.raises(Exception, match=r"(?i)assign|setitem|support") as ei:
        ms.jit(e_item_assign)(f32(3))
    check_location(ei.value, "setitem")


def e_call_non_callable(x):
    k = 3
    return k(x)  # <- noncallable


def test_calling_a_non_callable():
    with pytest.raises(TypeError, match=r"(?i)callable") as ei:
        ms.jit(e_call_non_callable)(f32(2))
    check_location(ei.value, "noncallable")


class MissingAttr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def construct(self, x):
        return x * self.scael  # <- attr


def test_attribute_missing_on_self(graph_mode):
    with pytest.raises((AttributeError, ValueError), match="AttributeError: .*'scael'") as ei:
        MissingAttr()(f32(2))
    check_location(ei.value, "attr")


class BadShapeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.ones((5, 2), np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)  # <- cell_matmul


def test_shape_error_in_graph_mode_cell(graph_mode):
    with pytest.raises(ValueError, match=r"(?i)matmul|shape") as ei:
        BadShapeNet()(f32(2, 3))
    check_location(ei.value, "cell_matmul")


# ---------------------------------------------------------------- loops without a fixed point

def e_growing_tuple(x):
    out = ()
    for i in range(300):  # <- growing
        out = out + (x * i,)
    return ops.stack(out)


def test_a_loop_whose_carried_type_never_settles_says_so(graph_mode):
    # A loop whose carried type changes on every iteration (a longer tuple) cannot be
    # broadened into a compact loop; it unrolls up to ir.kMaxUnrolledLoop (256) iterations,
    # then fails with a RecursionError that says why, not only "too deep".
    with pytest.raises(RecursionError) as e:
        ms.jit(e_growing_tuple)(f32(3))
    msg = str(e.value)
    assert "still changes the type of a value it carries" in msg, msg
    assert "PYNATIVE" in msg, msg
