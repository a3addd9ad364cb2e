"""ops.vjp, ops.jvp, linearize and jacrev run the forward once (as MindSpore's and
torch.func.vjp do): the pullback, called any number of times, runs only the backward on what
that forward kept. Checked with forward counters (a Python side effect, a Parameter
assign_add), a random forward whose pullback must use the same sample, values against
torch.autograd.functional, higher order, tuples of inputs and outputs, has_aux and weights;
in PYNATIVE mode, GRAPH mode called from Python, and inside jit (graph code)."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Parameter, Tensor, nn, ops

rng = np.random.default_rng(7)
X = rng.standard_normal((2, 3)).astype(np.float32)
Y = rng.standard_normal((2, 3)).astype(np.float32)
V = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]


def _t(a):
    return torch.tensor(a, dtype=torch.float64)


def _tvjp(f, *xs):
    """torch's pullback of f at xs: v -> the tuple of input gradients (the oracle)."""
    def pull(v):
        g = torch.autograd.functional.vjp(f, tuple(xs), v)[1]
        return g if isinstance(g, tuple) else (g,)
    return f(*xs), pull


def _tjvp(f, xs, vs):
    return torch.autograd.functional.jvp(f, tuple(xs), tuple(vs))[1]


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy() if isinstance(
        want, torch.Tensor) else want, rtol=rtol, atol=atol)


class Counted(nn.Cell):
    """x * sin(y) + x, counting its forward runs in a Parameter (an effect of the graph)."""

    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros((), np.float32)), name="count")

    def construct(self, x, y):
        ops.assign_add(self.count, Tensor(1.0, ms.float32))
        return x * ops.sin(y) + x


def _torch_counted(x, y):
    return x * torch.sin(y) + x


def test_python_side_effect_runs_once_pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    calls = []

    def f(x, y):
        calls.append(1)
        return x * ops.sin(y) + x

    out, pull = ops.vjp(f, Tensor(X), Tensor(Y))
    _, tpull = _tvjp(_torch_counted, _t(X), _t(Y))
    for v in V:
        gx, gy = pull(Tensor(v))
        tx, ty = tpull(_t(v))
        _close(gx, tx)
        _close(gy, ty)
    assert len(calls) == 1
    _close(out, _torch_counted(_t(X), _t(Y)))


@pytest.mark.parametrize("graph_mode", [False, True], ids=["pynative", "graph"])
def test_parameter_counter_once_from_python(graph_mode):
    ms.set_context(mode=ms.GRAPH_MODE if graph_mode else ms.PYNATIVE_MODE)
    try:
        net = Counted()
        out, pull = ops.vjp(net, Tensor(X), Tensor(Y))
        assert float(net.count.asnumpy()) == 1.0
        _, tpull = _tvjp(_torch_counted, _t(X), _t(Y))
        for v in V:
            gx, gy = pull(Tensor(v))
            tx, ty = tpull(_t(v))
            _close(gx, tx)
            _close(gy, ty)
        assert float(net.count.asnumpy()) == 1.0
        _close(out, _torch_counted(_t(X), _t(Y)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("graph_mode", [False, True], ids=["pynative", "graph"])
def test_parameter_counter_once_inside_jit(graph_mode):
    ms.set_context(mode=ms.GRAPH_MODE if graph_mode else ms.PYNATIVE_MODE)
    try:
        net = Counted()

        @ms.jit
        def step(x, y, v0, v1, v2):
            out, pull = ops.vjp(net, x, y)
            return out, pull(v0), pull(v1), pull(v2)

        out, *grads = step(Tensor(X), Tensor(Y), *(Tensor(v) for v in V))
        assert float(net.count.asnumpy()) == 1.0
        _, tpull = _tvjp(_torch_counted, _t(X), _t(Y))
        for (gx, gy), v in zip(grads, V):
            tx, ty = tpull(_t(v))
            _close(gx, tx)
            _close(gy, ty)
        _close(out, _torch_counted(_t(X), _t(Y)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _dropped(x):
    return ops.dropout(x, p=0.5) * 3.0


def test_random_forward_pullback_uses_the_same_sample(mode):
    # x = 1 everywhere: the output is 0 where dropped, 2 * 3 = 6 where kept; the pullback of
    # v must be v * 6 exactly where the output is kept (the forward's own mask).
    x = Tensor(np.ones((64, 64), np.float32))
    for _ in range(2):
        out, pull = ops.vjp(_dropped, x)
        o = out.asnumpy()
        kept = o != 0
        assert 0 < kept.sum() < kept.size
        np.testing.assert_allclose(o[kept], 6.0, rtol=1e-6)
        for v in V[:2]:
            big = np.resize(v, (64, 64))
            (g,) = pull(Tensor(big))
            np.testing.assert_allclose(g.asnumpy(), np.where(kept, 6.0 * big, 0.0), rtol=1e-6)


def test_random_forward_inside_jit(mode):
    @ms.jit
    def f(x, v):
        out, pull = ops.vjp(_dropped, x)
        return out, pull(v)[0], pull(2 * v)[0]

    x = Tensor(np.ones((32, 32), np.float32))
    v = np.resize(V[0], (32, 32))
    out, g1, g2 = f(x, Tensor(v))
    kept = out.asnumpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(g1.asnumpy(), np.where(kept, 6.0 * v, 0.0), rtol=1e-6)
    np.testing.assert_allclose(g2.asnumpy(), np.where(kept, 12.0 * v, 0.0), rtol=1e-6)


def _two(x, y):
    return x * y, ops.exp(x) - y


def _torch_two(x, y):
    return x * y, torch.exp(x) - y


def test_tuples_of_inputs_and_outputs(mode):
    out, pull = ops.vjp(_two, Tensor(X), Tensor(Y))
    _, tpull = _tvjp(_torch_two, _t(X), _t(Y))
    for a, b in zip(out, _torch_two(_t(X), _t(Y))):
        _close(a, b)
    want = tpull((_t(V[0]), _t(V[1])))
    for got in (pull(Tensor(V[0]), Tensor(V[1])), pull((Tensor(V[0]), Tensor(V[1])))):
        assert isinstance(got, tuple) and len(got) == 2
        for a, b in zip(got, want):
            _close(a, b)


def test_has_aux(mode):
    calls = []

    def f(x, y):
        calls.append(1)
        return ops.sin(x) * y, x + 1.0, y * 2.0

    out, pull, aux = ops.vjp(f, Tensor(X), Tensor(Y), has_aux=True)
    _close(out, np.sin(X) * Y, rtol=1e-5)
    _close(aux[0], X + 1.0)
    _close(aux[1], Y * 2.0)
    gx, gy = pull(Tensor(V[0]))
    _close(gx, np.cos(X) * Y * V[0], rtol=1e-5)
    _close(gy, np.sin(X) * V[0], rtol=1e-5)
    if mode == ms.PYNATIVE_MODE:
        assert len(calls) == 1


def test_weights(mode):
    class Lin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(Y), name="w")

        def construct(self, x):
            return ops.tanh(x * self.w)

    net = Lin()
    out, pull = ops.vjp(net, Tensor(X), weights=net.trainable_params())
    (gx,), (gw,) = pull(Tensor(V[0]))
    _, tpull = _tvjp(lambda x, w: torch.tanh(x * w), _t(X), _t(Y))
    tx, tw = tpull(_t(V[0]))
    _close(gx, tx)
    _close(gw, tw)


def _inner(x):
    return ops.sin(x) * x


def _with_grad(x):
    return ms.grad(_inner)(x) * x  # (cos x * x + sin x) * x


def test_vjp_of_a_function_containing_grad(mode):
    out, pull = ops.vjp(_with_grad, Tensor(X))

    def tf(x):
        if not x.requires_grad:
            x = x.clone().requires_grad_()
        a = x
        (g,) = torch.autograd.grad((torch.sin(a) * a).sum(), a, create_graph=True)
        return g * x

    tout, tpull = _tvjp(tf, _t(X))
    _close(out, tout)
    for v in V:
        (g,) = pull(Tensor(v))
        _close(g, tpull(_t(v))[0])


def _pulled(x):
    _, pull = ops.vjp(lambda a: ops.sin(a) * a, x)
    return pull(ops.ones_like(x))[0].sum()  # sum(cos x * x + sin x)


def test_grad_of_a_function_using_vjp():
    # PYNATIVE: the pullback's backward runs on the executor, which the outer recording sees
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(_pulled)(Tensor(X))
    _close(g, 2 * np.cos(X) - X * np.sin(X), rtol=1e-5)


def test_jvp_runs_forward_once(mode):
    net = Counted()
    v0, v1 = Tensor(V[0]), Tensor(V[1])
    out, tangent = ops.jvp(net, (Tensor(X), Tensor(Y)), (v0, v1))
    assert float(net.count.asnumpy()) == 1.0
    tt = _tjvp(_torch_counted, (_t(X), _t(Y)), (_t(V[0]), _t(V[1])))
    _close(out, _torch_counted(_t(X), _t(Y)))
    _close(tangent, tt)


def test_linearize_runs_forward_once(mode):
    from mycel.ops.functional import linearize
    net = Counted()
    out, jvp_fn = linearize(net, (Tensor(X), Tensor(Y)))
    for i in range(3):
        t = jvp_fn((Tensor(V[i]), Tensor(V[(i + 1) % 3])))
        tt = _tjvp(_torch_counted, (_t(X), _t(Y)), (_t(V[i]), _t(V[(i + 1) % 3])))
        _close(t, tt)
    assert float(net.count.asnumpy()) == 1.0


def test_linearize_inside_jit_runs_forward_once(mode):
    # graph code: each jvp_fn call differentiates the pullback (a closure over the one
    # forward's residuals); it used to run jvp, whose forward ran once per call
    from mycel.ops.functional import linearize
    net = Counted()

    @ms.jit
    def f(x, y, v0, v1, v2):
        out, jvp_fn = linearize(net, (x, y))
        return out, jvp_fn((v0, v1)), jvp_fn((v1, v2)), jvp_fn((v2, v0))

    out, *ts = f(Tensor(X), Tensor(Y), *(Tensor(v) for v in V))
    assert float(net.count.asnumpy()) == 1.0
    _close(out, _torch_counted(_t(X), _t(Y)))
    for i, t in enumerate(ts):
        _close(t, _tjvp(_torch_counted, (_t(X), _t(Y)), (_t(V[i]), _t(V[(i + 1) % 3]))))


def test_jvp_inside_jit_once(mode):
    net = Counted()

    @ms.jit
    def f(x, y, v0, v1):
        return ops.jvp(net, (x, y), (v0, v1))

    out, tangent = f(Tensor(X), Tensor(Y), Tensor(V[0]), Tensor(V[1]))
    assert float(net.count.asnumpy()) == 1.0
    tt = _tjvp(_torch_counted, (_t(X), _t(Y)), (_t(V[0]), _t(V[1])))
    _close(tangent, tt)


class Branchy(nn.Cell):
    """Control flow on a tensor value: GRAPH mode compiles a switch, the recorder sees the
    branch taken."""

    def construct(self, x):
        if x.sum() > 0:
            return ops.exp(x) * x
        return ops.sin(x)


def test_control_flow_forward(mode):
    for sign in (1.0, -1.0):
        a = np.abs(X) * sign
        out, pull = ops.vjp(Branchy(), Tensor(a))
        f = (lambda t: torch.exp(t) * t) if sign > 0 else torch.sin
        tout, tpull = _tvjp(f, _t(a))
        _close(out, tout)
        for v in V[:2]:
            _close(pull(Tensor(v))[0], tpull(_t(v))[0])


def test_cotangent_must_match_the_output(mode):
    _, pull = ops.vjp(_two, Tensor(X), Tensor(Y))
    with pytest.raises(TypeError):
        pull(Tensor(V[0]))  # one cotangent for two outputs
    _, pull = ops.vjp(lambda a: a * 2.0, Tensor(X))
    with pytest.raises(TypeError):
        pull(Tensor(np.ones((3, 2), np.float32)))


def test_cotangent_checked_inside_jit(mode):
    @ms.jit
    def f(x, v):
        _, pull = ops.vjp(_two, x, x)
        return pull(v)

    with pytest.raises(TypeError):
        f(Tensor(X), Tensor(V[0]))


def test_inputs_must_be_tensors(mode):
    # MindSpore's rule (a TypeError), also for a number inside a tuple input
    with pytest.raises(TypeError, match="vjp.*input 0 is int"):
        ops.vjp(lambda a: a * 2, 1)
    with pytest.raises(TypeError, match="vjp.*input 1 is float"):
        ops.vjp(lambda a, b: a * b[0], Tensor(X), (2.0,))

    @ms.jit
    def f(x):
        return ops.vjp(lambda a, k: a * k, x, 3)[0]

    with pytest.raises(TypeError, match="vjp"):
        f(Tensor(X))


def test_jacrev_runs_forward_once(mode):
    net = Counted()
    jx, jy = ms.jacrev(net, grad_position=(0, 1))(Tensor(X), Tensor(Y))
    assert float(net.count.asnumpy()) == 1.0
    tx, ty = torch.autograd.functional.jacobian(_torch_counted, (_t(X), _t(Y)))
    _close(jx, tx)
    _close(jy, ty)


def test_jacrev_has_aux_inside_jit(mode):
    def f(x):
        return ops.sin(x) * x, x * 2.0

    @ms.jit
    def g(x):
        return ms.jacrev(f, has_aux=True)(x)

    j, aux = g(Tensor(X[0]))
    tj = torch.autograd.functional.jacobian(lambda a: torch.sin(a) * a, _t(X[0]))
    _close(j, tj)
    _close(aux, X[0] * 2.0)


def _with_aux(x):
    return ops.sin(x) * 2.0, x + 1.0


def test_has_aux_inside_jit(mode):
    @ms.jit
    def g(x, v):
        out, pull, aux = ops.vjp(_with_aux, x, has_aux=True)
        return out, pull(v)[0], aux

    out, gx, aux = g(Tensor(X), Tensor(V[0]))
    _close(out, np.sin(X) * 2.0, rtol=1e-5)
    _close(gx, 2.0 * np.cos(X) * V[0], rtol=1e-5)
    _close(aux, X + 1.0)
