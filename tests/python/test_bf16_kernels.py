"""bfloat16 kernels of mixed precision against independent numpy references: the one-pass
Add/Sub/Mul loops (contiguous, scalar, broadcast and strided operands, odd sizes, special
values) bit for bit, and O2's LayerNorm on bfloat16 activations with float32 parameters, in
GRAPH and PYNATIVE modes.

The reference rounds float32 to bfloat16 as mycel's kernels define it: to nearest, ties to
even, on the bits; a NaN stays a NaN. bfloat16 tensors come back from asnumpy() as float32
(exactly), so results are compared as float32 arrays (NaN equal to NaN, signs of zeros
checked)."""
import numpy as np
import pytest

import mycel as ms
from mycel import amp, nn
from mycel.ops import operations as P
from mycel.ops.composite import value_and_grad

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def round_bf16(x):
    """float32 array -> the float32 values of its bfloat16 rounding (nearest, ties to even)."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    out = (r.astype(np.uint32) << 16).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out).astype(np.float32)


def values(n, rng):
    """n float32 values already representable in bfloat16: normal, tiny (subnormal in
    bfloat16), huge (products and sums overflow), zeros of both signs, infinities, NaN."""
    v = rng.standard_normal(n).astype(np.float32) * rng.choice([1e-3, 1.0, 1e3], n)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-39, -2e-39,
                        1.0078125, 1.00390625], np.float32)
    k = min(n // 4, special.size)
    v[rng.choice(n, k, replace=False)] = special[:k]
    return round_bf16(v)


def assert_same(got, want):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


def bf16(a):
    return ms.Tensor(np.array(a, np.float32)).astype(ms.bfloat16)  # a 0-d array stays 0-d


OPS = {"Add": (P.Add(), np.add), "Sub": (P.Sub(), np.subtract), "Mul": (P.Mul(), np.multiply)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("shapes", [((1,), (1,)), ((17,), (17,)), ((4099,), (4099,)),
                                    ((33, 130), ()), ((), (65,)), ((7, 1), (7, 33)),
                                    ((5, 1, 19), (1, 6, 19)), ((64, 512), (512,))])
def test_binary_bf16_rounds_the_float32_result(mode, name, shapes):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(len(shapes[0]) * 100 + len(shapes[1]) + len(name))
    a = values(max(1, int(np.prod(shapes[0]))), rng).reshape(shapes[0])
    b = values(max(1, int(np.prod(shapes[1]))), rng).reshape(shapes[1])
    op, ref = OPS[name]
    fn = ms.jit(lambda x, y: op(x, y)) if mode == ms.GRAPH_MODE else (lambda x, y: op(x, y))
    ta, tb = bf16(a), bf16(b)
    assert_same(ta.asnumpy(), a)  # the inputs arrive exactly
    with np.errstate(all="ignore"):
        want = round_bf16(ref(a, b))
    y = fn(ta, tb)
    assert y.dtype == ms.bfloat16
    assert_same(y.asnumpy(), want)


@pytest.mark.parametrize("mode", MODES)
def test_binary_bf16_strided_operands(mode):
    """A transposed (strided) operand and a sliced one take the strided loops."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(7)
    a = values(37 * 41, rng).reshape(37, 41)
    b = values(41 * 37, rng).reshape(41, 37)
    ta, tb = bf16(a), bf16(b)
    fn = lambda x, y: P.Mul()(x, P.Transpose()(y, (1, 0)))  # noqa: E731
    fn = ms.jit(fn) if mode == ms.GRAPH_MODE else fn
    with np.errstate(all="ignore"):
        want = round_bf16(a * b.T)
    assert_same(fn(ta, tb).asnumpy(), want)
    if mode == ms.PYNATIVE_MODE:  # sliced views (every other column)
        with np.errstate(all="ignore"):
            want = round_bf16(a[:, 0:40:2] - a[:, 1:41:2])
        assert_same((ta[:, 0:40:2] - ta[:, 1:41:2]).asnumpy(), want)


UNARY = {"Neg": (P.Neg(), np.negative), "Abs": (P.Abs(), np.abs),
         "Square": (P.Square(), np.square),
         "ReLU": (P.ReLU(), lambda a: np.where(a < 0, np.float32(0), a))}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(1,), (31,), (4099,), (64, 513)])
def test_unary_bf16_rounds_the_float32_result(mode, name, shape):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(int(np.prod(shape)) + len(name))
    a = values(int(np.prod(shape)), rng).reshape(shape)
    op, ref = UNARY[name]
    fn = ms.jit(lambda x: op(x)) if mode == ms.GRAPH_MODE else (lambda x: op(x))
    with np.errstate(all="ignore"):
        want = round_bf16(ref(a))
    y = fn(bf16(a))
    assert y.dtype == ms.bfloat16
    assert_same(y.asnumpy(), want)
    if len(shape) == 2:  # a transposed (strided) operand
        ft = ms.jit(lambda x: op(P.Transpose()(x, (1, 0)))) if mode == ms.GRAPH_MODE else (
            lambda x: op(P.Transpose()(x, (1, 0))))
        with np.errstate(all="ignore"):
            assert_same(ft(bf16(a)).asnumpy(), round_bf16(ref(a.T)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,fmt", [((64, 130), "NCHW"), ((3, 7), "NCHW"),
                                       ((2, 5, 3, 9), "NCHW"), ((2, 3, 4, 33), "NHWC")])
def test_bias_add_bf16_rounds_the_float32_sum(mode, shape, fmt):
    """BiasAdd in bfloat16: the bias along the rows (2-d, NHWC) or one value per row of a
    channel (NCHW), each sum rounded once."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(sum(shape))
    c = shape[-1] if fmt == "NHWC" else shape[1]
    x = values(int(np.prod(shape)), rng).reshape(shape)
    b = values(c, rng)
    op = P.BiasAdd(data_format=fmt)
    fn = ms.jit(lambda u, v: op(u, v)) if mode == ms.GRAPH_MODE else (lambda u, v: op(u, v))
    bshape = [1] * len(shape)
    bshape[-1 if fmt == "NHWC" else 1] = c
    with np.errstate(all="ignore"):
        want = round_bf16(x + b.reshape(bshape))
    y = fn(bf16(x), bf16(b))
    assert y.dtype == ms.bfloat16
    assert_same(y.asnumpy(), want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,keep", [((1031,), 0.5), ((64,), 0.9), ((3, 65), 0.8),
                                        ((32, 4, 16, 16), 0.9)])
def test_dropout_bf16_keeps_the_float32_draws(mode, shape, keep):
    """bfloat16 Dropout (one pass in registers) draws the same keep bits as float32's with
    the same seeds (the op's stream does not depend on the dtype), its mask is exactly 1 or 0
    and y is x * mask / keep computed in float and rounded once; dropped infinities and NaNs
    give NaN (x * 0)."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(int(np.prod(shape)))
    x = values(int(np.prod(shape)), rng).reshape(shape)
    def run(u):  # a fresh op of the same seeds: its stream starts at the same offset
        op = P.Dropout(keep_prob=keep, Seed0=3, Seed1=17)
        return (ms.jit(lambda v: op(v)) if mode == ms.GRAPH_MODE else op)(u)
    _, mask32 = run(ms.Tensor(x))
    y, mask = run(bf16(x))
    assert y.dtype == ms.bfloat16 and mask.dtype == ms.bfloat16
    m = mask32.asnumpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    assert_same(mask.asnumpy(), m)
    with np.errstate(all="ignore"):
        want = round_bf16(x * (m * np.float32(1.0 / keep)))
    assert_same(y.asnumpy(), want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,axis", [((64, 128), -1), ((3, 7, 33), -1), ((5, 1), -1),
                                        ((4, 9, 6), 1)])
@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax"])
def test_softmax_bf16_rounds_the_float32_rows(mode, shape, axis, name):
    """bfloat16 (Log)Softmax: each row widened, computed with the float32 row code and
    rounded once: the float32 kernel's values on the same inputs, rounded, and within a
    bfloat16 rounding of a float64 numpy reference."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(sum(shape))
    x = round_bf16(rng.standard_normal(shape).astype(np.float32) * 4)
    op = getattr(P, name)(axis=axis)
    fn = ms.jit(lambda u: op(u)) if mode == ms.GRAPH_MODE else (lambda u: op(u))
    y = fn(bf16(x))
    assert y.dtype == ms.bfloat16
    assert_same(y.asnumpy(), round_bf16(fn(ms.Tensor(x)).asnumpy()))
    z = x.astype(np.float64) - x.max(axis, keepdims=True)
    lse = np.log(np.exp(z).sum(axis, keepdims=True))
    want = z - lse if name == "LogSoftmax" else np.exp(z - lse)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=2 ** -8, atol=1e-6)


def _layer_norm_ref(x, gamma, beta, eps):
    """float64 LayerNorm over the last axis: (y, mean, rstd)."""
    x = x.astype(np.float64)
    mean = x.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps)
    return (x - mean) * rstd * gamma + beta, mean, rstd


class _Norm(nn.Cell):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm((d,), epsilon=1e-5)

    def construct(self, x):
        return self.norm(x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(64, 128), (3, 5, 300), (2, 17)])
def test_o2_layernorm_takes_bf16_input_with_float32_parameters(mode, shape):
    """O2's LayerNorm reads bfloat16 x with the float32 gamma/beta (no casts around it): the
    output is bfloat16, equal to the float32 LayerNorm of the same values rounded once, and
    the gradients (dx bfloat16, dgamma/dbeta float32) match a float64 reference."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(sum(shape))
    d = shape[-1]
    net = _Norm(d)
    gamma = (1 + 0.5 * rng.standard_normal(d)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(d)).astype(np.float32)
    net.norm.gamma.set_data(ms.Tensor(gamma))
    net.norm.beta.set_data(ms.Tensor(beta))
    net = amp.auto_mixed_precision(net, "O2")
    assert isinstance(net.norm, amp._LayerNormTo)
    x = round_bf16(rng.standard_normal(shape).astype(np.float32) * 3 + 1)
    y = net(bf16(x))
    assert y.dtype == ms.bfloat16
    # The same values as the float32 LayerNorm on the widened input, rounded once.
    f32 = P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)(
        ms.Tensor(x), ms.Tensor(gamma), ms.Tensor(beta))[0]
    assert_same(y.asnumpy(), round_bf16(f32.asnumpy()))
    want, _, rstd = _layer_norm_ref(x, gamma, beta, 1e-5)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=2 ** -8, atol=1e-6)

    dy = round_bf16(rng.standard_normal(shape).astype(np.float32))
    grad = value_and_grad(lambda v: net(v) * bf16(dy), 0, net.trainable_params())
    _, (dx, (dgamma, dbeta)) = grad(bf16(x))
    assert dx.dtype == ms.bfloat16 and dgamma.dtype == ms.float32
    xh = (x.astype(np.float64) - x.mean(-1, keepdims=True)) * rstd
    g = dy * gamma
    want_dx = rstd * (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True))
    flat = (-1, d)
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=2 ** -7, atol=2e-2)
    np.testing.assert_allclose(dgamma.asnumpy(), (dy * xh).reshape(flat).sum(0), rtol=1e-4,
                               atol=1e-3)
    np.testing.assert_allclose(dbeta.asnumpy(), dy.reshape(flat).sum(0), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("mode", MODES)
def test_o2_layernorm_float32_input_still_casts(mode):
    """A float32 input reaching O2's LayerNorm wrapper itself keeps the float32 path:
    normalised in float32, the output cast to bfloat16. (Inside the network, the network's
    own cast has made the input bfloat16 already.)"""
    ms.set_context(mode=mode)
    net = amp.auto_mixed_precision(_Norm(24), "O2")
    x = np.random.default_rng(3).standard_normal((4, 24)).astype(np.float32)
    f32 = P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)(
        ms.Tensor(x), ms.Tensor(np.ones(24, np.float32)), ms.Tensor(np.zeros(24, np.float32)))[0]
    y = net.norm(ms.Tensor(x))
    assert y.dtype == ms.bfloat16
    assert_same(y.asnumpy(), round_bf16(f32.asnumpy()))
    # Through the network, the input is rounded to bfloat16 first.
    f32 = P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)(
        ms.Tensor(round_bf16(x)), ms.Tensor(np.ones(24, np.float32)),
        ms.Tensor(np.zeros(24, np.float32)))[0]
    assert_same(net(ms.Tensor(x)).asnumpy(), round_bf16(f32.asnumpy()))
