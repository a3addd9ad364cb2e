"""The gradient API (mycel.grad, value_and_grad, ops.GradOperation, stop_gradient, vjp, jvp,
jacfwd, jacrev, a Cell's own bprop) in both modes, its caches, and its errors.

Modes: "pynative" calls the gradient function from Python in PYNATIVE mode (the eager
forward is recorded into IR); "graph" calls it from Python in GRAPH mode (the function is
compiled); "jit" calls it inside a @jit function (the compiler expands it in the graph).
"""
import re

import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Parameter, Tensor
import mycel.numpy as mnp

MODES = ("pynative", "graph", "jit")


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def run(mode, make_grad_fn, *args):
    """make_grad_fn() builds the gradient function; runs it on args in `mode`."""
    if mode == "jit":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        gf = make_grad_fn()

        @ms.jit
        def wrapper(*a):
            return gf(*a)
        return wrapper(*args)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    return make_grad_fn()(*args)


def npy(x):
    if isinstance(x, (tuple, list)):
        return [npy(e) for e in x]
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def close(got, want, rtol=1e-6, atol=1e-7):
    got, want = npy(got), want
    if isinstance(want, (tuple, list)):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, rtol, atol)
        return
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- the acceptance values

TANH_DERIVATIVES = [0.070650816, -0.13621868, 0.25265405]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tanh", [ops.tanh, mnp.tanh], ids=["ops.tanh", "mycel.numpy.tanh"])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_tanh_derivatives(mode, tanh, order):
    def make():
        f = tanh
        for _ in range(order):
            f = ms.grad(f)
        return f
    got = run(mode, make, Tensor(2.0, ms.float32))
    assert abs(float(got.asnumpy()) - TANH_DERIVATIVES[order - 1]) < 2e-7


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_python_float_input(mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    got = ms.grad(ms.grad(ops.tanh))(2.0)
    assert abs(float(got.asnumpy()) - TANH_DERIVATIVES[1]) < 2e-7


# ---------------------------------------------------------------- API semantics

X = np.array([0.5, -1.5, 2.0], np.float32)
Y = np.array([1.0, 2.0, 3.0], np.float32)


def f_xy(x, y):
    return ops.sum(x * y + ops.sin(x))


@pytest.mark.parametrize("mode", MODES)
def test_grad_positions(mode):
    x, y = Tensor(X), Tensor(Y)
    close(run(mode, lambda: ms.grad(f_xy), x, y), Y + np.cos(X))
    close(run(mode, lambda: ms.grad(f_xy, 1), x, y), X)
    close(run(mode, lambda: ms.grad(f_xy, (1, 0)), x, y), [X, Y + np.cos(X)])


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.Dense(3, 2, weight_init="normal", bias_init="normal")
        self.scale = ms.Parameter(Tensor(np.array([1.5, -0.5], np.float32)), name="scale")

    def construct(self, x):
        return ops.sum(ops.tanh(self.inner(x)) * self.scale)


def affine_reference(net, x):
    w, b, s = (p.asnumpy().astype(np.float64) for p in
               (net.inner.weight, net.inner.bias, net.scale))
    x = x.astype(np.float64)
    h = x @ w.T + b
    t = np.tanh(h)
    dh = (1 - t * t) * s
    return {"x": dh @ w, "w": dh.T @ x, "b": dh.sum(0), "s": t.sum(0)}


@pytest.mark.parametrize("mode", MODES)
def test_weights_of_nested_cells_in_list_order(mode):
    ms.set_seed(1)
    net = Affine()
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    ref = affine_reference(net, x)
    weights = [net.scale, net.inner.weight, net.inner.bias]
    got = run(mode, lambda: ms.grad(net, None, weights), Tensor(x))
    close(got, [ref["s"], ref["w"], ref["b"]], rtol=1e-5, atol=1e-6)
    gx, gw = run(mode, lambda: ms.grad(net, 0, net.trainable_params()), Tensor(x))
    close(gx, ref["x"], rtol=1e-5, atol=1e-6)
    names = [p.name for p in net.trainable_params()]
    want = {"inner.weight": ref["w"], "inner.bias": ref["b"], "scale": ref["s"]}
    close(gw, [want[n] for n in names], rtol=1e-5, atol=1e-6)


def with_aux(x):
    y = x * x
    return ops.sum(y), y, x + 1


@pytest.mark.parametrize("mode", MODES)
def test_value_and_grad_and_has_aux(mode):
    x = Tensor(X)
    (value, sq, inc), g = run(mode, lambda: ms.value_and_grad(with_aux, has_aux=True), x)
    close([value, sq, inc, g], [np.sum(X * X), X * X, X + 1, 2 * X], rtol=1e-6)
    g, aux = run(mode, lambda: ms.grad(with_aux, has_aux=True), x)
    close(g, 2 * X)
    close(aux, [X * X, X + 1])
    v, g = run(mode, lambda: ms.value_and_grad(f_xy, (0, 1)), x, Tensor(Y))
    close(v, np.sum(X * Y + np.sin(X)), rtol=1e-6)
    close(g, [Y + np.cos(X), X])


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation(mode):
    net = Affine()
    x = np.random.RandomState(2).randn(2, 3).astype(np.float32)
    ref = affine_reference(net, x)
    weights = net.trainable_params()
    names = [p.name for p in weights]
    want_w = [{"inner.weight": ref["w"], "inner.bias": ref["b"], "scale": ref["s"]}[n]
              for n in names]
    tol = dict(rtol=1e-5, atol=1e-6)
    close(run(mode, lambda: ops.GradOperation()(net), Tensor(x)), ref["x"], **tol)
    close(run(mode, lambda: ops.GradOperation(get_all=True)(net), Tensor(x)), [ref["x"]], **tol)
    close(run(mode, lambda: ops.GradOperation(get_by_list=True)(net, weights), Tensor(x)),
          want_w, **tol)
    gi, gw = run(mode, lambda: ops.GradOperation(True, True)(net, weights), Tensor(x))
    close(gi, [ref["x"]], **tol)
    close(gw, want_w, **tol)
    sens = Tensor(np.array(3.0, np.float32))
    close(run(mode, lambda: ops.GradOperation(sens_param=True)(net), Tensor(x), sens),
          3 * ref["x"], **tol)


def uses_stop_gradient(x):
    return ops.sum(x * ops.stop_gradient(x * x))


@pytest.mark.parametrize("mode", MODES)
def test_stop_gradient(mode):
    close(run(mode, lambda: ms.grad(uses_stop_gradient), Tensor(X)), X * X)


def sin_times(x):
    return ops.sin(x) * x


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_vjp_jvp_jacobians(mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x = Tensor(X)
    d = np.cos(X) * X + np.sin(X)
    out, pull = ms.vjp(sin_times, x)
    close(out, np.sin(X) * X)
    close(pull(Tensor(Y))[0], Y * d, rtol=1e-6)  # a tuple, one gradient per input (MindSpore)
    out, tangent = ms.jvp(sin_times, x, Tensor(Y))
    close(tangent, Y * d, rtol=1e-6)
    close(ms.jacrev(sin_times)(x), np.diag(d), rtol=1e-6)
    close(ms.jacfwd(sin_times)(x), np.diag(d), rtol=1e-6)


# ---------------------------------------------------------------- PYNATIVE specifics

def test_pynative_backward_compiled_once_per_op_sequence():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(f_xy)
    for seed in range(3):
        x = np.random.RandomState(seed).randn(3).astype(np.float32)
        close(g(Tensor(x), Tensor(Y)), Y + np.cos(x), rtol=1e-6)
    assert len(g._backward_cache) == 1
    g(Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones((2, 2), np.float32)))
    assert len(g._backward_cache) == 2


def branchy(x):
    if float(ops.sum(x).asnumpy()) > 0:  # Python control flow on a value: PYNATIVE only
        return ops.sum(ops.exp(x))
    return ops.sum(x * x)


def test_pynative_follows_the_python_path_taken():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(branchy)
    close(g(Tensor(X)), np.exp(X), rtol=1e-6)
    close(g(Tensor(-X)), -2 * X, rtol=1e-6)
    assert len(g._backward_cache) == 2


@ms.jit
def jitted_inner(x):
    return ops.exp(x) * x


def calls_jit(x):
    return ops.sum(jitted_inner(x) + x)


def test_pynative_differentiates_through_jit_functions():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    close(ms.grad(calls_jit)(Tensor(X)), np.exp(X) * (X + 1) + 1, rtol=1e-6)
    close(ms.grad(ms.grad(lambda x: ops.sum(jitted_inner(x))))(Tensor(1.0)),
          np.exp(1.0) * 3, rtol=1e-6)


def test_pynative_float64():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.array([0.3, 0.7], np.float64)
    got = ms.grad(ms.grad(lambda t: ops.sum(ops.sin(t) * t)))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), 2 * np.cos(x) - x * np.sin(x), rtol=1e-12)


# ---------------------------------------------------------------- a Cell's own bprop

class Scaled(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout * 2, dout * 3


class UsesScaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = Scaled()

    def construct(self, x, y):
        return ops.sum(ops.sin(self.m(x, y)))


@pytest.mark.parametrize("mode", MODES)
def test_cell_bprop_is_its_gradient(mode):
    x, y = Tensor(X), Tensor(Y)
    net = UsesScaled()
    c = np.cos(X * Y)
    close(run(mode, lambda: ms.grad(net, (0, 1)), x, y), [2 * c, 3 * c], rtol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)
    close(net(x, y), np.sum(np.sin(X * Y)), rtol=1e-6)  # the forward is construct's


class WrongCount(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return (dout,)


class NotATuple(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout  # one tensor, not a tuple of two


class WrongShape(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout, ops.sum(dout)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cell, pattern", [
    (WrongCount, r"must return a tuple of 2 gradients"),
    (NotATuple, r"^For bprop function, output should be a tuple: .*must return a tuple of 2"),
    (WrongShape, r"returns f32\[\]? ?.*gradient of input 1|gradient of input 1"),
])
def test_cell_bprop_errors(mode, cell, pattern):
    with pytest.raises(TypeError, match=pattern) as e:
        run(mode, lambda: ms.grad(cell(), (0, 1)), Tensor(X), Tensor(Y))
    assert re.search(r'test_grad_api\.py", line \d+', str(e.value)), str(e.value)
    if mode != "pynative":
        assert "def bprop" in str(e.value)


class ExtraReturns(nn.Cell):
    def construct(self, x, y):
        return x * y * y

    def bprop(self, x, y, out, dout):
        return x + y, x * y, out, dout  # the values after the two gradients are not used


@pytest.mark.parametrize("mode", MODES)
def test_cell_bprop_may_return_more_than_the_gradients(mode):
    """MindSpore's rule: a bprop returns one gradient per input first; more is allowed."""
    gx, gy = run(mode, lambda: ms.grad(ExtraReturns(), (0, 1)), Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), X + Y, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), X * Y, rtol=1e-6)


# ---------------------------------------------------------------- errors

def int_input(x, n):
    return ops.sum(x * n)


@pytest.mark.parametrize("mode", MODES)
def test_grad_of_a_bool_input(mode):
    # integer inputs have gradients (tests/python/test_grad_integer.py); bool ones do not
    with pytest.raises(TypeError, match=r"grad with respect to input 1, which is bool"):
        run(mode, lambda: ms.grad(int_input, 1), Tensor(X), Tensor(np.array([True, False, True])))


@pytest.mark.parametrize("mode", MODES)
def test_grad_position_out_of_range(mode):
    with pytest.raises(IndexError, match=r"grad_position 2 is out of range: the function is "
                                         r"called with 2 inputs"):
        run(mode, lambda: ms.grad(f_xy, 2), Tensor(X), Tensor(Y))


@pytest.mark.parametrize("mode", MODES)
def test_weights_must_be_parameters(mode):
    with pytest.raises(TypeError, match=r"weights must be Parameters, but element 0 is"):
        run(mode, lambda: ms.grad(f_xy, 0, [Tensor(X)]), Tensor(X), Tensor(Y))


def test_graph_errors_name_the_line():
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def bad(x, n):
        return ms.grad(int_input, 1)(x, n)
    with pytest.raises(TypeError) as e:
        bad(Tensor(X), Tensor(np.array([True, False, True])))
    msg = str(e.value)
    assert re.search(r'test_grad_api\.py", line \d+', msg), msg
    assert "return ms.grad(int_input, 1)(x, n)" in msg


def late_bound(x):
    y = x
    g = lambda z: z * y  # noqa: E731
    y = x * x
    return g(x)


def test_late_bound_closures_are_refused_not_miscompiled():
    """Python reads y when g is called (x*x); graph mode would bind it at the definition:
    refused with the line, never a wrong value or gradient."""
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match=r"'y', which the nested function 'g' .* is assigned "
                                         r"again here") as e:
        ms.grad(late_bound)(Tensor(X))
    assert re.search(r'test_grad_api\.py", line \d+\n\s+y = x \* x', str(e.value)), str(e.value)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    close(ms.grad(lambda x: ops.sum(late_bound(x)))(Tensor(X)), 3 * X * X, rtol=1e-6)


def test_creation_errors():
    with pytest.raises(ValueError, match="cannot both be None"):
        ms.grad(f_xy, None, None)
    with pytest.raises(TypeError, match="grad_position"):
        ms.grad(f_xy, "0")
    # GradOperation(get_by_list=True)(fn) takes no weights (an empty tuple of gradients, as
    # MindSpore): tests/python/test_grad_rules.py


@pytest.mark.parametrize("mode", MODES)
def test_has_aux_needs_several_outputs(mode):
    with pytest.raises(TypeError, match="has_aux=True needs the function to return a tuple"):
        run(mode, lambda: ms.grad(f_xy, has_aux=True), Tensor(X), Tensor(Y))


@pytest.mark.parametrize("mode", MODES)
def test_integer_output_has_zero_gradient(mode):
    """MindSpore's rule (it was a TypeError here before): an integer output depends on no
    input differentiably, so the gradient is zeros."""
    g = run(mode, lambda: ms.grad(lambda x: ops.argmax(x)), Tensor(X))
    np.testing.assert_array_equal(g.asnumpy(), np.zeros(np.shape(X)))


# ---------------------------------------------------------------- the optimised backward

def two_parts(x, y):
    return ops.sum(ops.sin(x)) + ops.sum(ops.exp(y))


def test_unneeded_forward_values_are_dropped():
    """grad w.r.t. x of sin(x) + exp(y): the backward needs cos(x) only; exp(y) and the
    output value are dead once AD output is optimised."""
    ms.set_context(mode=ms.GRAPH_MODE)
    g = ms.grad(two_parts)
    g(Tensor(X), Tensor(Y))
    ir = g._graph.ir(Tensor(X), Tensor(Y))
    assert "Exp" not in ir and "Sin" not in ir, ir
    assert "Cos" in ir and "vjp" not in ir, ir


# ---------------------------------------------------------------- higher order through control flow

def grows(x):
    y = x
    while ops.sum(y) < 10:
        y = y * x + ops.sin(y) * 0.1
    return ops.sum(y)


def grows_t(x):
    import torch
    y = x
    while y.sum() < 10:
        y = y * x + torch.sin(y) * 0.1
    return y.sum()


def deep(x, n):
    if n <= 0:
        return x
    return ops.sin(deep(x, n - 1)) * x


def deep_t(x, n):
    import torch
    return x if n <= 0 else torch.sin(deep_t(x, n - 1)) * x


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("case", ["while", "recursion"])
def test_third_order_through_loops_and_recursion(mode, case):
    """d/dx of sum(d/dx of sum(d/dx f)) through a tensor-condition while loop and a
    tensor-depth recursion, against torch's create_graph=True."""
    import torch
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x0 = np.array([1.2, 1.5])
    if case == "while":
        f, extra, t, textra = grows, (), grows_t, ()
    else:
        f, extra, t, textra = (lambda x, n: ops.sum(deep(x, n))), (Tensor(3),), \
            (lambda x, n: deep_t(x, n).sum()), (3,)
    xt = torch.tensor(x0, requires_grad=True)
    want = []
    g = t(xt, *textra)
    for _ in range(3):
        (g,) = torch.autograd.grad(g.sum(), xt, create_graph=True)
        want.append(g.detach().numpy())
    d1 = ms.grad(f)
    d2 = ms.grad(lambda z, *e: ops.sum(d1(z, *e)))
    d3 = ms.grad(lambda z, *e: ops.sum(d2(z, *e)))
    x = Tensor(x0)
    for d, w in zip((d1, d2, d3), want):
        np.testing.assert_allclose(d(x, *extra).asnumpy(), w, rtol=1e-10)


class _ScaleNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([2.0, -1.0], np.float32)), name="w")
        self.b = ms.Parameter(Tensor(np.array([0.5], np.float32)), name="b")

    def construct(self, x):
        return (x * self.w + self.b).sum()


class _GradByTupleAttr(nn.Cell):
    """A Cell holding its weights as a ParameterTuple attribute (MindSpore's training-cell
    pattern), read directly or through a local name."""

    def __init__(self, net, alias):
        super().__init__()
        self.net = net
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)
        self.alias = alias

    def construct(self, x):
        if self.alias:
            weights = self.weights
            return self.grad(self.net, weights)(x)
        return self.grad(self.net, self.weights)(x)


@pytest.mark.parametrize("alias", [False, True])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_grad_by_a_parameter_tuple_attribute(mode, alias):
    ms.set_context(mode=mode)
    try:
        x = np.array([3.0, 4.0], np.float32)
        gw, gb = _GradByTupleAttr(_ScaleNet(), alias)(Tensor(x))
        np.testing.assert_allclose(gw.asnumpy(), x)  # d/dw sum(x*w + b) = x
        np.testing.assert_allclose(gb.asnumpy(), [2.0])  # b broadcast over 2 elements
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
