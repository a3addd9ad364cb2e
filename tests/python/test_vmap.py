"""vmap (src/compiler/vmap): every op with a batching rule against a Python loop over the
batch, in_axes/out_axes, composition with grad in both orders, nested vmap, closures, Cells
and control flow, in PYNATIVE and GRAPH mode.

The per-op rows are test_grad_ops.py's table (one or more rows per differentiable op, each a
function of small float64 tensors): each row runs batched over 3 examples, (a) every input
batched on axis 0, (b) only the first batched, the others shared, (c) every input batched on
its last axis with the result's batch last, and must equal the row's function run on each
example and stacked (numpy), to 1e-10. "graph" calls the vmap function from an @ms.jit
function (the vmap call is compiled as part of a graph); "pynative" calls it from Python.
"""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops

from test_grad_ops import ROWS

B = 3


def _np(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def run(mode, f, *args):
    """f(*args) from Python (PYNATIVE) or from a jit function (GRAPH)."""
    if mode == ms.PYNATIVE_MODE:
        return f(*args)

    @ms.jit
    def g(*xs):
        return f(*xs)
    return g(*args)


def _examples(r, seed):
    rng = np.random.RandomState(seed)
    return [[mk(rng) for mk in r.inputs] for _ in range(B)]


def _loop(r, ex):
    outs = [_tuple(r.fn(*[Tensor(a) for a in xs])) for xs in ex]
    return [np.stack([_np(o[j]) for o in outs]) for j in range(len(outs[0]))]


@pytest.mark.parametrize("r", ROWS, ids=[r.id for r in ROWS])
@pytest.mark.parametrize("how", ["all", "first", "last_axis"])
def test_op_batched_equals_loop(r, how, mode):
    ex = _examples(r, abs(hash((r.id, how))) % 2**31)
    n = len(r.inputs)
    if how == "first":  # the others shared by every example
        ex = [[xs[0]] + ex[0][1:] for xs in ex]
        args = [Tensor(np.stack([xs[0] for xs in ex]))] + [Tensor(a) for a in ex[0][1:]]
        f = ms.vmap(r.fn, in_axes=(0,) + (None,) * (n - 1))
    elif how == "all":
        args = [Tensor(np.stack([xs[i] for xs in ex])) for i in range(n)]
        f = ms.vmap(r.fn)
    else:
        args = [Tensor(np.stack([xs[i] for xs in ex], axis=-1)) for i in range(n)]
        f = ms.vmap(r.fn, in_axes=-1, out_axes=-1)
    if r.id.startswith("BatchNorm/training"):  # writes running statistics the batch shares
        with pytest.raises(ValueError, match="BatchNorm in training mode"):
            run(mode, f, *args)
        return
    want = _loop(r, ex)
    got = _tuple(run(mode, f, *args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = _np(g)
        if how == "last_axis":
            g = np.moveaxis(g, -1, 0)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


# ---- in_axes / out_axes ------------------------------------------------------------------

def test_axes_nested_none_and_negative(mode):
    rng = np.random.RandomState(0)
    a = rng.standard_normal((4, B)).astype(np.float32)     # batch on axis 1 (-1)
    b = rng.standard_normal((B, 4)).astype(np.float32)     # batch on axis 0
    c = rng.standard_normal((4,)).astype(np.float32)       # shared

    def f(pair, z):
        x, y = pair
        return x * y + z, (x - z).sum()

    got = run(mode, ms.vmap(f, in_axes=((-1, 0), None), out_axes=(1, 0)),
              (Tensor(a), Tensor(b)), Tensor(c))
    w0 = np.stack([a[:, k] * b[k] + c for k in range(B)], axis=1)
    w1 = np.stack([(a[:, k] - c).sum() for k in range(B)])
    np.testing.assert_allclose(got[0].asnumpy(), w0, rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), w1, rtol=1e-5)


def test_list_axes_and_int_for_a_tuple_argument(mode):
    x0 = np.arange(B * 3, dtype=np.float32).reshape(B, 3)
    x1 = x0 * 10
    got = run(mode, ms.vmap(lambda t: t[0] + t[1], in_axes=[0]), (Tensor(x0), Tensor(x1)))
    np.testing.assert_allclose(got.asnumpy(), x0 + x1)


def test_unbatched_output_is_broadcast(mode):
    w = Tensor(np.ones((2,), np.float32))
    got = run(mode, ms.vmap(lambda x, v: (x * 2, v + 1), in_axes=(0, None)), Tensor(
        np.ones((B, 2), np.float32)), w)
    assert got[1].shape == (B, 2)
    got = run(mode, ms.vmap(lambda x, v: (x * 2, v + 1), in_axes=(0, None), out_axes=(0, None)),
              Tensor(np.ones((B, 2), np.float32)), w)
    assert got[1].shape == (2,)


def test_errors(mode):
    x = Tensor(np.ones((B, 2), np.float32))
    y = Tensor(np.ones((B + 1, 2), np.float32))
    with pytest.raises(ValueError, match="batch sizes"):
        run(mode, ms.vmap(lambda a, b: a + b), x, y)
    with pytest.raises(ValueError, match="out of range"):
        run(mode, ms.vmap(lambda a: a, in_axes=2), x)
    with pytest.raises(ValueError, match="in_axes has 1 entries"):
        run(mode, ms.vmap(lambda a, b: a + b, in_axes=(0,)), x, x)
    with pytest.raises(ValueError, match="only Tensors can be batched"):
        run(mode, ms.vmap(lambda a, n: a * n), x, 2)
    with pytest.raises(ValueError, match="no argument is batched"):
        run(mode, ms.vmap(lambda a: a, in_axes=None), x)
    with pytest.raises(ValueError, match="out_axes is None"):
        run(mode, ms.vmap(lambda a: a * 2, out_axes=None), x)
    with pytest.raises(TypeError, match="in_axes"):
        run(mode, ms.vmap(lambda a: a, in_axes="0"), x)
    with pytest.raises(TypeError, match="out_axes"):
        run(mode, ms.vmap(lambda a: a, out_axes=1.5), x)


# ---- composition ---------------------------------------------------------------------------

def _mlp_params(rng, d_in=5, d_h=7, d_out=3):
    return (rng.standard_normal((d_in, d_h)) * 0.5, rng.standard_normal((d_h,)) * 0.1,
            rng.standard_normal((d_h, d_out)) * 0.5, rng.standard_normal((d_out,)) * 0.1)


def mlp_loss(w1, b1, w2, b2, x, y):
    h = ops.tanh(ops.matmul(x, w1) + b1)
    out = ops.matmul(h, w2) + b2
    return ((out - y) ** 2).sum()


def test_per_sample_gradients_of_an_mlp_equal_a_loop(mode):
    rng = np.random.RandomState(1)
    params = [Tensor(p) for p in _mlp_params(rng)]
    xs = rng.standard_normal((8, 1, 5))
    ys = rng.standard_normal((8, 1, 3))
    g = ms.grad(mlp_loss, grad_position=(0, 1, 2, 3))
    got = run(mode, ms.vmap(g, in_axes=(None, None, None, None, 0, 0)), *params, Tensor(xs),
              Tensor(ys))
    for k in range(8):
        want = g(*params, Tensor(xs[k]), Tensor(ys[k]))
        for gg, ww in zip(got, want):
            np.testing.assert_allclose(gg.asnumpy()[k], ww.asnumpy(), rtol=1e-10, atol=1e-12)


def test_grad_of_vmap(mode):
    rng = np.random.RandomState(2)
    w = Tensor(rng.standard_normal((4, 3)))
    x = Tensor(rng.standard_normal((B, 2, 4)))

    def loss(w, x):  # vmap called inside the differentiated function (graph code in GRAPH)
        return ms.vmap(lambda xi, v: ops.sin(ops.matmul(xi, v)), in_axes=(0, None))(x, w).sum()

    def loss_loop(w, x):
        return ops.sin(ops.matmul(x.reshape(B * 2, 4), w)).sum()

    got = run(mode, ms.grad(loss), w, x)
    want = ms.grad(loss_loop)(w, x)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-10)


def test_nested_vmap(mode):
    rng = np.random.RandomState(3)
    a = rng.standard_normal((B, 4, 5))
    b = rng.standard_normal((4, 5))
    inner = ms.vmap(lambda u, v: (u * v).sum(), in_axes=(0, 0))       # over the 4 rows
    outer = ms.vmap(inner, in_axes=(0, None))                          # over the B examples
    got = run(mode, outer, Tensor(a), Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), (a * b).sum(-1), rtol=1e-12)


def test_closure_and_cell(mode):
    rng = np.random.RandomState(4)
    ms.set_seed(4)  # the weights, whatever ran before
    net = nn.Dense(4, 2)
    x = rng.standard_normal((B, 4)).astype(np.float32)
    got = run(mode, ms.vmap(net), Tensor(x))
    want = np.stack([net(Tensor(x[k:k + 1])).asnumpy()[0] for k in range(B)])
    # One batched MatMul against B single-row ones: float32 sums in another order, so an
    # output near zero (cancellation) needs an absolute bound too.
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)

    scale = Tensor(np.float32(3.0))

    def f(v):
        def g(u):
            return u * scale + v.sum()
        return g(v)
    got = run(mode, ms.vmap(f), Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), x * 3 + x.sum(1, keepdims=True), rtol=1e-5)


def test_if_on_a_batched_condition_selects_per_example(mode):
    def f(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = -x
        return y

    x = np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, -0.1]], np.float32)
    got = run(mode, ms.vmap(f), Tensor(x))
    want = np.stack([x[k] * 2 if x[k].sum() > 0 else -x[k] for k in range(B)])
    np.testing.assert_allclose(got.asnumpy(), want)

    def g(x):  # `not`, and an early return in a branch
        if not x.sum() > 0:
            return -x
        return x * 2
    np.testing.assert_allclose(run(mode, ms.vmap(g), Tensor(x)).asnumpy(), want)


def test_loop_with_an_unbatched_bound(mode):
    def f(x, n):
        i = 0
        while i < n:
            x = x * 0.5 + 1
            i += 1
        return x

    x = np.arange(6, dtype=np.float32).reshape(B, 2)
    got = run(mode, ms.vmap(f, in_axes=(0, None)), Tensor(x), 4)
    want = x.copy()
    for _ in range(4):
        want = want * 0.5 + 1
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def test_loop_on_a_batched_condition_is_an_error(mode):
    def f(x):
        while x.sum() < 10:
            x = x * 2
        return x

    with pytest.raises(ValueError, match="loop whose condition depends on the batched"):
        run(mode, ms.vmap(f), Tensor(np.ones((B, 2), np.float32)))


def test_batched_update_is_an_error(mode):
    class Acc(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="p")

        def construct(self, x):
            ops.assign(self.p, x)
            return x

    with pytest.raises(ValueError, match="cannot batch 'Assign'"):
        run(mode, ms.vmap(Acc()), Tensor(np.ones((B, 2), np.float32)))


def test_random_draws_are_the_same_for_every_example(mode):
    """MindSpore's vmap: a random op inside vmap draws the same numbers for every example."""
    x = Tensor(np.ones((64, 50), np.float32))
    for drop in (ops.operations.Dropout(keep_prob=0.5),
                 ops.operations.Dropout(keep_prob=0.5, Seed0=3, Seed1=4)):
        y, mask = run(mode, ms.vmap(drop), x)
        y, mask = y.asnumpy(), mask.asnumpy()
        assert set(np.unique(mask)) == {0.0, 1.0}
        np.testing.assert_allclose(y, mask * 2.0)
        assert len({m.tobytes() for m in mask}) == 1
    seeded = ops.operations.Dropout(keep_prob=0.5, Seed0=3, Seed1=4)
    np.testing.assert_allclose(mask[0], seeded(Tensor(np.ones(50, np.float32)))[1].asnumpy())
    z = run(mode, ms.vmap(lambda v: v + ops.operations.StandardNormal()((3,))), x[:, :3])
    z = z.asnumpy() - 1.0
    np.testing.assert_allclose(z, np.broadcast_to(z[0], z.shape))


# ---- ops without a gradient (not in the gradient corpus): the same check against a loop -----

_NODIFF = [
    ("Equal", ops.equal, [lambda r: r.randint(0, 3, (2, 3)).astype(np.float64)] * 2),
    ("Less", ops.less, [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal(3)]),
    ("GreaterEqual", ops.greater_equal, [lambda r: r.standard_normal((3,)),
                                         lambda r: r.standard_normal((2, 3))]),
    ("LogicalAnd", ops.logical_and, [lambda r: r.standard_normal((2, 3)) > 0] * 2),
    ("LogicalOr", ops.logical_or, [lambda r: r.standard_normal((2, 3)) > 0] * 2),
    ("LogicalNot", ops.logical_not, [lambda r: r.standard_normal((2, 3)) > 0]),
    ("FloorDiv", ops.floor_divide, [lambda r: r.randint(-9, 9, (2, 3)),
                                    lambda r: r.randint(1, 4, (3,))]),
    ("Argmax", lambda x: ops.argmax(x, dim=1), [lambda r: r.standard_normal((3, 4))]),
    ("Argmin", lambda x: ops.operations.Argmin(axis=0)(x), [lambda r: r.standard_normal((3, 4))]),
    ("OneHot", lambda i: ops.operations.OneHot()(i, 5, 1.0, 0.0),
     [lambda r: r.randint(0, 5, (4,)).astype(np.int32)]),
    ("OneHot/axis0", lambda i: ops.operations.OneHot(axis=0)(i, 5, 2.0, -1.0),
     [lambda r: r.randint(0, 5, (2, 3)).astype(np.int32)]),
    ("Cast", lambda x: ops.cast(x, ms.int32), [lambda r: r.standard_normal((2, 3)) * 5]),
    ("ZerosLike", ops.zeros_like, [lambda r: r.standard_normal((2, 3))]),
    ("OnesLike", ops.ones_like, [lambda r: r.standard_normal((2, 3))]),
]


@pytest.mark.parametrize("case", _NODIFF, ids=[c[0] for c in _NODIFF])
def test_nodiff_op_batched_equals_loop(case, mode):
    _, fn, makers = case
    rng = np.random.RandomState(7)
    ex = [[mk(rng) for mk in makers] for _ in range(B)]
    args = [Tensor(np.stack([xs[i] for xs in ex])) for i in range(len(makers))]
    got = _np(run(mode, ms.vmap(fn), *args))
    want = np.stack([_np(fn(*[Tensor(a) for a in xs])) for xs in ex])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_per_sample_gradients_of_a_conv_net(mode):
    rng = np.random.RandomState(5)
    w = Tensor(rng.standard_normal((4, 2, 3, 3)) * 0.3)
    x = rng.standard_normal((B, 1, 2, 7, 7))

    def loss(w, xi):
        y = ops.relu(ops.conv2d(xi, w, pad_mode="pad", padding=1))
        return ops.max_pool2d(y, 2, 2).sum()

    g = ms.grad(loss)
    got = run(mode, ms.vmap(g, in_axes=(None, 0)), w, Tensor(x)).asnumpy()
    for k in range(B):
        np.testing.assert_allclose(got[k], g(w, Tensor(x[k])).asnumpy(), rtol=1e-10, atol=1e-12)


def test_per_sample_gradients_of_a_cells_parameters(mode):
    net = nn.Dense(4, 3)

    def loss(x, y):
        return ((net(x) - y) ** 2).sum()

    g = ms.grad(loss, grad_position=None, weights=net.trainable_params())
    rng = np.random.RandomState(6)
    x = rng.standard_normal((5, 1, 4)).astype(np.float32)
    y = rng.standard_normal((5, 1, 3)).astype(np.float32)
    got = run(mode, ms.vmap(g), Tensor(x), Tensor(y))
    assert [t.shape for t in got] == [(5, 3, 4), (5, 3)]
    for k in range(5):
        for a, b in zip(got, g(Tensor(x[k]), Tensor(y[k]))):
            np.testing.assert_allclose(a.asnumpy()[k], b.asnumpy(), rtol=1e-5, atol=1e-6)


def test_batched_update_of_a_batched_parameter(mode):
    """MindSpore's vmap of in-place updates: with the Parameter batched (in_axes), each
    example updates its own slice, in place; any in_axis writes through to the Parameter."""
    def update(p, x):
        ops.assign(p, p * 2 + x)
        ops.assign_add(p, x)
        return p

    for axis in (0, 1):
        base = np.arange(12, dtype=np.float32).reshape(3, 4)
        x = np.ones((4,), np.float32) * 0.5 if axis == 1 else np.ones((3,), np.float32)
        per = base if axis == 0 else base.T
        p = ms.Parameter(Tensor(base.copy()), name=f"p{axis}")
        run(mode, ms.vmap(update, in_axes=(axis, 0)), p, Tensor(x))
        want = np.stack([row * 2 + xi + xi for row, xi in zip(per, x)])
        np.testing.assert_allclose(p.asnumpy(), want if axis == 0 else want.T)


def test_a_check_with_a_batched_condition_raises_when_any_example_fails(mode):
    """An `if` one branch of which only raises (a run-time check) runs once on the condition
    reduced over the batch: no error when every example passes, the error when one fails; a
    branch with another effect (print) is still refused."""
    def checked(x):
        if (x < 0).any():
            raise ValueError("a negative entry")
        return x * 2

    def else_raises(x):
        if (x >= 0).all():
            return x + 1
        raise ValueError("a negative entry")

    good = np.arange(6.0).reshape(3, 2)
    for fn, want in ((checked, good * 2), (else_raises, good + 1)):
        np.testing.assert_array_equal(ms.vmap(fn)(Tensor(good)).asnumpy(), want)
        bad = good.copy()
        bad[2, 1] = -1
        with pytest.raises(ValueError, match="a negative entry"):
            ms.vmap(fn)(Tensor(bad)).asnumpy()

    def prints(x):
        if (x < 0).any():
            print("negative")
        return x

    with pytest.raises(ValueError, match="may not have effects"):
        ms.vmap(prints)(Tensor(good))
