"""The grad API's rules (src/compiler/grad_spec.h) are stated once, so every mode raises the
same error, of the same type and with the same words, for each of them.

Modes: "pynative" (the call is checked before the eager forward is recorded), "graph" (the
call is compiled from Python in GRAPH mode), "jit" (a gradient function made in Python and
called inside @jit), "inside" (made and called inside @jit: the compiler checks its creation
too). Errors raised in graph code also name the user's line; the first line is the same.
"""
import re

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel.ops.composite import grad_operation

MODES = ("pynative", "graph", "jit", "inside")

X = Tensor(np.array([0.5, -1.0, 2.0], np.float32))
Y = Tensor(np.array([1.5, 2.0, -0.5], np.float32))
N = Tensor(np.array([1, 2, 3]))
B = Tensor(np.array([True, False, True]))
SHORT = Tensor(np.ones(2, np.float32))


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def f_xy(x, y):
    return ops.sum(x * y)


def f_vec(x, y):
    return x * y


def int_input(x, n):
    return ops.sum(x * n)


def no_inputs():
    return ops.sum(X)


def argmax(x):
    return ops.argmax(x)


def is_positive(x):
    return x > 0


def run(mode, call, *args):
    """call = (api, fn, api_args): runs api(fn, *api_args)(*args) in `mode`."""
    api, fn, api_args = call
    if mode in ("jit", "inside"):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if mode == "jit":
            gf = api(fn, *api_args)

            @ms.jit
            def wrapper(*a):
                return gf(*a)
        else:
            @ms.jit
            def wrapper(*a):
                return api(fn, *api_args)(*a)
        return wrapper(*args)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    return api(fn, *api_args)(*args)


GRAD = ms.grad
VALUE_AND_GRAD = ms.value_and_grad
GRAD_OP = grad_operation  # GradOperation(get_all, get_by_list, sens_param)(fn, weights)

CASES = {
    "position out of range": ((GRAD, f_xy, (2,)), (X, Y), IndexError,
                              "grad_position 2 is out of range: the function is called with 2 "
                              "inputs"),
    # integer tensors have gradients (in their dtype, as MindSpore): bool tensors have none
    "bool input": ((GRAD, int_input, (1,)), (X, B), TypeError,
                   "grad with respect to input 1, which is bool[3]: only float and integer "
                   "tensors (or tuples of them) have gradients"),
    "weights not Parameters": ((GRAD, f_xy, (0, [X])), (X, Y), TypeError,
                               "grad: weights must be Parameters, but element 0 is "),
    "has_aux on one output": ((GRAD, f_xy, (0, None, True)), (X, Y), TypeError,
                              "grad with has_aux=True needs the function to return a tuple of "
                              "at least two outputs, but it returns f32[]"),
    "sensitivity missing": ((GRAD_OP, no_inputs, (None, False, False, True)), (), TypeError,
                            "GradOperation with sens_param=True expects the sensitivity as the "
                            "last argument"),
    "sensitivity mismatch": ((GRAD_OP, f_vec, (None, True, False, True)), (X, Y, SHORT),
                             TypeError,
                             "GradOperation: the sensitivity must match the output f32[3], but "
                             "it is f32[2]"),
    "grad_position and weights None": ((GRAD, f_xy, (None, None)), (X, Y), ValueError,
                                       "grad(): 'grad_position' and 'weights' cannot both be "
                                       "None"),
    "grad_position empty": ((GRAD, f_xy, ((),)), (X, Y), RuntimeError,
                            "grad(): 'grad_position' must not be an empty tuple; pass None for "
                            "no input gradients"),
    "grad_position a string": ((GRAD, f_xy, ("0",)), (X, Y), TypeError,
                               "grad(): 'grad_position' must be None, an int or a tuple of "
                               "ints, but got "),
    "grad_position holding a float": ((VALUE_AND_GRAD, f_xy, ((0, 1.5),)), (X, Y), TypeError,
                                      "value_and_grad(): 'grad_position' must be None, an int "
                                      "or a tuple of ints, but got "),
}


@pytest.mark.parametrize("mode", MODES)
def test_get_by_list_with_weights_none_gives_an_empty_tuple(mode):
    # MindSpore's GradOperation(get_all=True, get_by_list=True)(fn, None): ((dx, dy), ())
    (dx, dy), dw = run(mode, (GRAD_OP, f_xy, (None, True, True, False)), X, Y)
    np.testing.assert_allclose(dx.asnumpy(), Y.asnumpy())
    np.testing.assert_allclose(dy.asnumpy(), X.asnumpy())
    assert dw == ()


def first_line(mode, call, args, exc):
    with pytest.raises(exc) as e:
        run(mode, call, *args)
    return str(e.value).splitlines()[0]


@pytest.mark.parametrize("rule", sorted(CASES))
def test_every_mode_gives_the_same_error(rule):
    call, args, exc, words = CASES[rule]
    lines = {mode: first_line(mode, call, args, exc) for mode in MODES}
    for mode, line in lines.items():
        assert line.startswith(words), (mode, line)
    assert len(set(lines.values())) == 1, lines


@pytest.mark.parametrize("mode", MODES)
def test_integer_output_has_zero_gradients(mode):
    """MindSpore's rule: a function whose output depends on no input differentiably (an
    argmax, whose rule passes nothing back; a Python int) has zero gradients."""
    g = run(mode, (GRAD, argmax, ()), X)
    np.testing.assert_array_equal(g.asnumpy(), np.zeros(X.shape))
    g = run(mode, (GRAD_OP, lambda x, y: ops.size(x), (None, True, False, False)), X, Y)
    assert len(g) == 2
    for t, a in zip(g, (X, Y)):
        assert t.shape == a.shape and t.dtype == a.dtype
        np.testing.assert_array_equal(t.asnumpy(), np.zeros(a.shape))


@pytest.mark.parametrize("mode", ["jit", "inside"])
def test_graph_errors_name_the_line(mode):
    with pytest.raises(TypeError) as e:
        run(mode, CASES["bool input"][0], X, B)
    assert re.search(r'test_grad_rules\.py", line \d+', str(e.value)), str(e.value)


# The result's shape is one rule too (grad_result): every mode returns the same structure.
def aux2(x, y):
    return ops.sum(x * y), x


def aux3(x, y):
    return ops.sum(x * y), x, y


SHAPES = [
    ((GRAD, f_xy, (1,)), "t"),
    ((GRAD, f_xy, ((1,),)), "t"),  # a tuple of one position: the gradient bare (MindSpore)
    ((GRAD, f_xy, ((0, 1),)), "(tt)"),
    ((VALUE_AND_GRAD, f_xy, (0,)), "(tt)"),
    ((GRAD_OP, f_xy, (None, True, False, False)), "(tt)"),
    ((GRAD, aux3, (0, None, True)), "(t(tt))"),
    ((GRAD, aux2, ((0, 1), None, True)), "((tt)(t))"),  # aux: the tuple out[1:]
]


def shape(x):
    if isinstance(x, (tuple, list)):
        return "(" + "".join(shape(e) for e in x) + ")"
    return "t" if isinstance(x, Tensor) else type(x).__name__


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", range(len(SHAPES)))
def test_every_mode_returns_the_same_shape(mode, k):
    call, want = SHAPES[k]
    assert shape(run(mode, call, X, Y)) == want


# An output that takes no gradient (a bool tensor) is seeded with None in every mode, so only
# the other outputs count: d/dx of (2x, x > 0) is 2 everywhere. An integer output is seeded
# with ones of its dtype, and Cast passes its cotangent back (MindSpore's rules): d/dx of
# (2x, int(x)) is 2 + 1.
def float_and_bool(x):
    return x * 2, x > 0


def float_and_int(x):
    return x * 2, ops.cast(x, ms.int64)


@pytest.mark.parametrize("mode", MODES)
def test_a_bool_output_takes_no_gradient_in_every_mode(mode):
    g = run(mode, (GRAD, float_and_bool, (0,)), X)
    np.testing.assert_array_equal(g.asnumpy(), np.full(3, 2.0, np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_an_integer_output_is_seeded_with_ones_in_every_mode(mode):
    g = run(mode, (GRAD, float_and_int, (0,)), X)
    np.testing.assert_array_equal(g.asnumpy(), np.full(3, 3.0, np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_a_sensitivity_for_a_bool_output_gives_zero_gradients(mode):
    # MindSpore's rule (its ops test table differentiates Equal, Greater, ... with a bool
    # sensitivity): the output depends on no input differentiably, the sensitivity is ignored
    g = run(mode, (GRAD_OP, is_positive, (None, True, False, True)), X, B)
    np.testing.assert_array_equal(g[0].asnumpy(), np.zeros(3, np.float32))

