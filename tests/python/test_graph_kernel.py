"""Graph-kernel fusion (set_context(enable_graph_kernel=True); src/compiler/passes/graph_kernel.cc,
src/codegen/): every fused program equals its unfused graph (the op kernels), bit for bit where
nothing is reordered and to 1e-6 relative for float sums; gradients through fused graphs equal
the unfused ones; GRAPH equals PYNATIVE; the kernel cache on disk serves a second process and
survives damaged files."""
import os
import re
import subprocess
import sys
import textwrap
from itertools import combinations

import numpy as np
import pytest

import mycel as ms
from mycel import ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOG = re.compile(r"graph kernels .*: (\d+) fused clusters, kernel cache: (\d+) hit, (\d+) miss")


@pytest.fixture(autouse=True)
def graph_context(monkeypatch, tmp_path):
    """GRAPH mode, the compile log on, a fresh kernel cache; the context restored after."""
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    monkeypatch.setenv("MYCEL_CACHE_DIR", str(tmp_path / "kernels"))
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old, enable_graph_kernel=False)


def compiled(fn, args, fused, capsys):
    """fn compiled anew in GRAPH mode with fusion on or off: (outputs as numpy, clusters)."""
    ms.set_context(enable_graph_kernel=fused)
    capsys.readouterr()
    out = ms.jit(fn)(*[ms.Tensor(a) for a in args])
    log = capsys.readouterr().err
    assert "not built" not in log, log
    found = LOG.findall(log)
    assert bool(found) == fused, log
    clusters = sum(int(c) for c, _, _ in found)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o.asnumpy() for o in outs], clusters


def fused_vs_unfused(fn, args, capsys, rtol=0.0, min_clusters=1):
    """Checks that fn's fused program has clusters and equals its unfused one: bit-identical
    (rtol 0, NaN equal to NaN) or to rtol."""
    ref, none = compiled(fn, args, False, capsys)
    got, clusters = compiled(fn, args, True, capsys)
    assert none == 0 and clusters >= min_clusters, clusters
    for r, g in zip(ref, got):
        assert r.dtype == g.dtype and r.shape == g.shape
        if rtol == 0.0:
            np.testing.assert_array_equal(g, r)
        else:
            np.testing.assert_allclose(g, r, rtol=rtol, atol=0)
    return got


def values(shape, dtype, seed=0, lo=-4, hi=4):
    rng = np.random.default_rng(seed)
    return np.asarray(rng.uniform(lo, hi, size=shape)).astype(dtype)


def chain(x, y, z):
    a = x * y + z
    b = ops.relu(a) - x
    c = ops.maximum(b, z) * ops.minimum(a, y)
    return ops.square(c - a), ops.abs(ops.neg(b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("shapes", [
    [(7, 13), (7, 13), (7, 13)],
    [(3, 1, 5), (1, 4, 5), (5,)],
    [(1031,), (1,), (1031,)],
    [(2, 3, 4, 5), (3, 1, 5), (2, 1, 1, 1)],
    [(), (), ()],
])
def test_elementwise_chains_equal_the_op_kernels_bit_for_bit(dtype, shapes, capsys):
    args = [values(s, dtype, seed=i) for i, s in enumerate(shapes)]
    fused_vs_unfused(chain, args, capsys)


def test_nan_inf_and_signed_zero_follow_the_kernels(capsys):
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 3e38], np.float32)
    x = np.tile(special, 8)
    y = np.repeat(special, 8)

    def f(x, y):
        return (ops.maximum(x, y) + ops.minimum(y, x), ops.relu(x) * ops.sign(y),
                ops.sqrt(ops.abs(x)) - ops.rsqrt(y * y + 1) / ops.reciprocal(y))

    fused_vs_unfused(f, [x, y], capsys)


def test_exp_sigmoid_tanh_agree_with_the_kernels_to_an_ulp(capsys):
    # vmath.h's polynomials emitted step by step; the FMA contraction may differ by an ulp.
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.7, 89.0, -87.0, -104.5, 0.625,
                        -0.6251, 1e-30], np.float32)
    x = np.concatenate([special, values((1000,), np.float32, seed=4, lo=-30, hi=30)])

    def f(x):
        return ops.exp(x * 0.5) - 1.0, ops.sigmoid(x) * x, ops.tanh(x + 0.25) * 2.0

    ref, _ = compiled(f, [x], False, capsys)
    got, clusters = compiled(f, [x], True, capsys)
    assert clusters == 3  # three chains that share only an input: no horizontal fusion
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-30)


def test_softmax_rows_fuse_and_agree(capsys):
    x = values((37, 129), np.float32, seed=9)

    def f(x):
        e = ops.exp(x - ops.ReduceMax(keep_dims=True)(x, -1))
        return e / ops.ReduceSum(keep_dims=True)(e, -1)

    fused_vs_unfused(f, [x], capsys, rtol=1e-6)


def test_casts_compares_select_and_logic(capsys):
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 0.0, 1.0, 5.5] * 3, np.float32)
    y = values(x.shape, np.float32, seed=3)

    def f(x, y):
        i = ops.cast(x * 2.0, ms.int32)               # saturating, NaN -> 0
        back = ops.cast(i, ms.float32) + y
        d = ops.cast(y, ms.float64) * 3.0
        mask = ops.logical_and(x > y, ops.logical_not(x == 1.0))
        sel = ops.select(ops.logical_or(mask, y <= 0.0), back, y)
        flag = ops.cast(ops.cast(sel, ms.bool_), ms.int32) + i
        return sel, d - 1.0, flag, ops.cast(mask, ms.float32) * y

    fused_vs_unfused(f, [x, y], capsys)


@pytest.mark.parametrize("shape", [(7,), (5, 3), (3, 5, 2), (2, 3, 5, 7)])
def test_reductions_over_every_axis_pattern(shape, capsys):
    x = values(shape, np.float32, seed=1)
    y = values(shape, np.float32, seed=2)
    r = len(shape)
    subsets = [s for k in range(r + 1) for s in combinations(range(r), k)]
    for n, axes in enumerate(subsets):
        keep = n % 2 == 1

        def f(x, y, axes=axes, keep=keep):
            v = x * y + 1.0
            return (ops.ReduceSum(keep_dims=keep)(v, axes), ops.ReduceMean(keep_dims=keep)(v, axes),
                    ops.ReduceMax(keep_dims=keep)(v, axes), ops.ReduceMin(keep_dims=keep)(v, axes),
                    v - y)

        got = fused_vs_unfused(f, [x, y], capsys, rtol=1e-6)
        # the oracle: numpy in float64 (axis () is every axis, as MindSpore's)
        v = x.astype(np.float64) * y + 1.0
        ax = axes if axes else None
        for g, fn in zip(got, [np.sum, np.mean, np.max, np.min]):
            np.testing.assert_allclose(g, fn(v, axis=ax, keepdims=keep), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_min_reductions_of_nan_inf_and_signed_zero_follow_the_kernels(dtype, capsys):
    # Fused max/min reduce ordered integer keys (llvm_emit.cc): a NaN anywhere in a row makes
    # it NaN, infinities and zeros order as the kernels order them, and rows long enough to
    # vectorise (67) as well as short ones (3) agree bit for bit with the op kernels.
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, -3e38], dtype)
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, size=(9, 3, 67)).astype(dtype)
    x[0, 0, 5] = x[1, 1, 60] = x[2, 2, 0] = np.nan  # NaN at the start, middle and end
    x[3, :, :] = -np.inf
    x[4, 0, 66] = np.inf
    x[5, :, :] = 0.0
    x[5, 1, 3] = -0.0
    x[6, 2, :8] = special
    x[7, :, :] = -0.0
    x[8, 0, :] = np.array(-np.ones(67), dtype) * np.finfo(dtype).max

    def f(x, one):
        v = x * one
        return (ops.ReduceMax()(v, (2,)), ops.ReduceMin(keep_dims=True)(v, (2,)),
                ops.ReduceMax()(v, (0, 2)), ops.ReduceMin()(v, (1,)), ops.ReduceMax()(v, ()))

    got = fused_vs_unfused(f, [x, np.ones(67, dtype)], capsys)
    with np.errstate(invalid="ignore"):
        for g, want in zip(got, [x.max(2), x.min(2, keepdims=True), x.max((0, 2)), x.min(1),
                                 x.max()]):
            np.testing.assert_array_equal(g, want)  # numpy: any NaN gives NaN; -0.0 == 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_reductions_in_float64_and_int32(dtype, capsys):
    x = values((6, 9, 4), dtype, seed=5, lo=-50, hi=50)

    def f(x):
        v = x * x - x
        out = (ops.ReduceSum()(v, (0, 2)), ops.ReduceMax(keep_dims=True)(v, 1),
               ops.ReduceMin()(v, ()))
        if dtype == np.float64:
            out = out + (ops.ReduceMean()(v, (1,)),)
        return out

    fused_vs_unfused(f, [x], capsys, rtol=1e-12 if dtype == np.float64 else 0.0)


def test_large_tensors_run_on_threads_and_equal(capsys):
    x = values((257, 4099), np.float32, seed=7)
    b = values((4099,), np.float32, seed=8)

    def f(x, b):
        h = ops.relu(x * 0.5 + b)
        return h * h, ops.ReduceSum()(h, (1,)), ops.ReduceMax()(h - b, (0,))

    fused_vs_unfused(f, [x, b], capsys, rtol=1e-6)


def test_empty_tensors_stay_unfused_and_agree(capsys):
    x = np.zeros((0, 5), np.float32)

    def f(x):
        return ops.relu(x * 2.0 + 1.0), ops.ReduceSum()(x * x, (0,))

    ref, _ = compiled(f, [x], False, capsys)
    got, clusters = compiled(f, [x], True, capsys)
    assert clusters == 0
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r)


def test_gradients_through_fused_graphs_equal_unfused(capsys):
    x = values((16, 33), np.float32, seed=11)
    w = values((33,), np.float32, seed=12)
    b = values((16, 1), np.float32, seed=13)

    def loss(x, w, b):
        h = ops.relu(x * w + b)
        d = h - ops.ReduceMean(keep_dims=True)(h, (1,))
        return ops.ReduceSum()(d * d * 0.5 + ops.abs(h), ())

    def f(x, w, b):
        return ms.grad(loss, grad_position=(0, 1, 2))(x, w, b)

    got = fused_vs_unfused(f, [x, w, b], capsys, rtol=1e-6, min_clusters=2)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(loss, grad_position=(0, 1, 2))(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b))
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_pynative_gradient_through_a_fused_jit_function(capsys):
    # The recorder must see the cluster's ops: under it the GraphKernel runs op by op.
    ms.set_context(mode=ms.PYNATIVE_MODE, enable_graph_kernel=True)
    x = ms.Tensor(values((5, 6), np.float32, seed=21))
    y = ms.Tensor(values((5, 6), np.float32, seed=22))

    @ms.jit
    def helper(a, b):
        return ops.relu(a * b + 1.0) * a

    def loss(a, b):
        return ops.ReduceSum()(helper(a, b) * 2.0, ())

    gx, gy = ms.grad(loss, grad_position=(0, 1))(x, y)
    a, b = x.asnumpy(), y.asnumpy()
    on = (a * b + 1.0 > 0).astype(np.float32)
    np.testing.assert_allclose(gx.asnumpy(), 2 * (on * b * a + np.maximum(a * b + 1, 0)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), 2 * on * a * a, rtol=1e-5, atol=1e-6)
    assert LOG.findall(capsys.readouterr().err)  # the helper was compiled with fusion


def test_graph_mode_fused_equals_pynative(capsys):
    args = [values((9, 11), np.float32, seed=i) for i in range(3)]
    got, _ = compiled(chain, args, True, capsys)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = chain(*[ms.Tensor(a) for a in args])
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(g, e.asnumpy())


def test_dump_ir_and_executor_show_the_clusters(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MYCEL_DUMP_IR", str(tmp_path / "ir"))
    ms.set_context(enable_graph_kernel=True)
    x = ms.Tensor(values((4, 8), np.float32))

    def f(a):
        return ops.relu(a * a - 1.0) + a

    ms.jit(f)(x)
    dumps = sorted(os.listdir(tmp_path / "ir"))
    last = [d for d in dumps if d.endswith("_graph_kernel.ir")]
    assert last, dumps
    text = (tmp_path / "ir" / last[-1]).read_text()
    assert "graph @GraphKernel_0(" in text and "@GraphKernel_0(%" in text, text


def test_set_context_checks_the_flag():
    with pytest.raises(TypeError, match="enable_graph_kernel must be a bool"):
        ms.set_context(enable_graph_kernel=1)
    ms.set_context(enable_graph_kernel=True)
    assert ms.get_context("enable_graph_kernel") is True


CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import mycel as ms
    from mycel import ops

    def f(x, y):
        a = ops.relu(x * y + 1.0)
        return a * a - y, ops.ReduceSum()(a - x, (1,)), ops.ReduceMax()(a, (0,))

    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=True)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((33, 65)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((33, 65)).astype(np.float32))
    outs = ms.jit(f)(x, y)
    np.savez(sys.argv[1], *[o.asnumpy() for o in outs])
""")


def run_child(tmp_path, cache, n):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, MYCEL_LOG_COMPILE="1", MYCEL_CACHE_DIR=str(cache),
               PYTHONPATH=os.path.join(ROOT, "python"))
    out = tmp_path / f"out{n}.npz"
    proc = subprocess.run([sys.executable, str(script), str(out)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    found = LOG.findall(proc.stderr)
    assert len(found) == 1, proc.stderr
    data = np.load(out)
    return tuple(int(v) for v in found[0]), [data[k] for k in sorted(data.files)]


def test_a_second_process_hits_the_disk_cache_and_damage_recompiles(tmp_path):
    cache = tmp_path / "cache"
    (clusters, hit, miss), first = run_child(tmp_path, cache, 0)
    assert clusters >= 1 and hit == 0 and miss == clusters
    files = sorted(p for p in cache.iterdir() if p.suffix == ".o")
    assert len(files) == clusters and not [p for p in cache.iterdir() if ".tmp." in p.name]
    (clusters2, hit, miss), second = run_child(tmp_path, cache, 1)
    assert (clusters2, hit, miss) == (clusters, clusters, 0)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    # A truncated file and a file with one byte flipped: both compiled again and rewritten.
    data = files[0].read_bytes()
    files[0].write_bytes(data[: len(data) // 2])
    if len(files) > 1:
        other = bytearray(files[1].read_bytes())
        other[len(other) // 2] ^= 0xFF
        files[1].write_bytes(bytes(other))
    damaged = min(len(files), 2)
    (_, hit, miss), third = run_child(tmp_path, cache, 2)
    assert (hit, miss) == (clusters - damaged, damaged)
    for a, b in zip(first, third):
        np.testing.assert_array_equal(a, b)
    (_, hit, miss), _ = run_child(tmp_path, cache, 3)
    assert (hit, miss) == (clusters, 0)


def test_erf_and_gelu_fuse_and_agree_with_the_kernels_to_float_tolerance(capsys):
    # vmath.h's erf, gelu (erf form) and gelu (tanh form) emitted step by step: equal to the op
    # kernels to an ulp or two (FMA contraction), NaN where they give NaN, the tails exact.
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.999, 1.0, -1.0, 3.9, 4.0, -4.1,
                        14.1, -14.2, -20.0, 1e-30, -1e-20], np.float32)
    x = np.concatenate([special, values((2000,), np.float32, seed=5, lo=-12, hi=12)])

    def f(x):
        return (ops.erf(x) * 0.5, ops.gelu(x, approximate="none") + 1.0,
                ops.gelu(x * 0.5, approximate="tanh") - x)

    ref, _ = compiled(f, [x], False, capsys)
    got, clusters = compiled(f, [x], True, capsys)
    assert clusters == 3
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        np.testing.assert_allclose(g, r, rtol=2e-6, atol=1e-30)
    # and the fused erf against the exact function (vmath.h's accuracy: 3.3 ulp)
    from math import erf
    xs = x[np.isfinite(x)].astype(np.float64)
    exact = np.array([erf(v) for v in xs]) * 0.5
    np.testing.assert_allclose(got[0][np.isfinite(x)], exact, rtol=1e-6, atol=1e-37)


def test_gelu_gradient_chain_fuses_whole(capsys):
    # GeLU's backward (Erf, Exp, Square, Mul, Add) was the largest unfused part of the
    # Transformer step: with Erf and GeLU fusible, forward and backward are one cluster each.
    x = values((64, 96), np.float32, seed=8)

    def f(x):
        return ms.grad(lambda v: (ops.gelu(v * 1.5, approximate="none") * v).sum())(x)

    fused_vs_unfused(f, [x], capsys, rtol=2e-6)


def bf16_chain(x, y, z):
    a = ops.cast(x, ms.bfloat16) * ops.cast(y, ms.bfloat16)
    b = ops.gelu(a + 0.5, approximate="none") - ops.exp(a * 0.25) / (ops.abs(a) + 1.0)
    c = ops.select(b > 0.0, ops.sigmoid(b), ops.tanh(a) * ops.erf(b))
    return (ops.cast(c, ms.float32) + z, c * c, ops.sqrt(ops.square(b)),
            ops.maximum(a, b) - ops.minimum(a, c))


@pytest.mark.parametrize("shapes", [
    [(37, 19), (37, 19), (37, 19)],
    [(3, 1, 5), (1, 4, 5), (5,)],
    [(), (), ()],
])
def test_bfloat16_chains_round_each_op_as_the_kernels_do(shapes, capsys):
    # Each bfloat16 op computes in float32 and rounds its result to bfloat16, fused or not:
    # the fused chain equals the op-by-op one bit for bit (the transcendental ops' float32
    # results may differ by an ulp before rounding, which rounding hides but for rare ties).
    args = [values(s, np.float32, seed=i, lo=-3, hi=3) for i, s in enumerate(shapes)]
    ref, _ = compiled(bf16_chain, args, False, capsys)
    got, clusters = compiled(bf16_chain, args, True, capsys)
    assert clusters >= 1
    for r, g in zip(ref, got):
        assert r.dtype == g.dtype and r.shape == g.shape
        assert np.mean(r != g) <= 0.002, (r, g)
        np.testing.assert_allclose(g, r, rtol=2 ** -7, atol=0)  # one bfloat16 ulp at most


def test_bfloat16_casts_nan_rounding_and_sums(capsys):
    # float32 -> bfloat16 rounds to nearest even (ties, NaN quieted, overflow to inf) exactly
    # as Cast's kernel; bfloat16 sums accumulate in double and round once.
    ties = np.array([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -(1.0 + 2 ** -8), 3.3895e38, -3.3896e38,
                     np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 2.0 ** -133], np.float32)
    x = np.concatenate([ties, values((500,), np.float32, seed=2, lo=-50, hi=50)])
    x2 = values((24, 40), np.float32, seed=6)

    def f(x, x2):
        b = ops.cast(x * 1.0, ms.bfloat16)
        m = ops.cast(x2 + 1.0, ms.bfloat16)
        return (ops.cast(b, ms.float32) * 2.0, b + b, ops.ReduceSum()(m * m, 1),
                ops.ReduceMean(keep_dims=True)(m - 1.0, 0))

    ref, _ = compiled(f, [x, x2], False, capsys)
    got, clusters = compiled(f, [x, x2], True, capsys)
    assert clusters == 2  # the x chain; the m chain with both its reductions
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    for r, g in zip(ref[2:], got[2:]):
        np.testing.assert_allclose(g, r, rtol=2 ** -8, atol=0)


def test_bfloat16_gradients_through_fused_graphs_equal_unfused(capsys):
    x = values((16, 48), np.float32, seed=11)
    w = values((48,), np.float32, seed=12)

    def f(x, w):
        def loss(x, w):
            h = ops.cast(x, ms.bfloat16) * ops.cast(w, ms.bfloat16)
            return ops.cast(ops.gelu(h, approximate="none") * h, ms.float32).sum()
        return ms.grad(loss, grad_position=(0, 1))(x, w)

    ref, _ = compiled(f, [x, w], False, capsys)
    got, clusters = compiled(f, [x, w], True, capsys)
    assert clusters >= 1
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=2 ** -7, atol=1e-6 * np.abs(r).max())


# ---- staged (row) kernels: elementwise nodes read row reductions in the same kernel -------

def layer_norm_chain(x, gamma, beta, keep, axes=(-1,)):
    mu = ops.ReduceMean(keep_dims=True)(x, axes)
    d = x - mu
    var = ops.ReduceMean(keep_dims=True)(d * d, axes)
    y = d * ops.rsqrt(var + 1e-5) * gamma + beta
    h = 0.5 * y * (1.0 + ops.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
    return h * keep * (1.0 / 0.9), var


@pytest.mark.parametrize("shape,axes", [
    ((37, 1031), (-1,)),       # odd rows and row length (a vector remainder)
    ((3, 5, 129), (-1,)),      # rows over two dimensions
    ((3, 5, 129), (1, 2)),     # a row of two dimensions
    ((6, 1, 7), (1, 2)),       # a size-1 axis among the row axes
    ((5, 7), (0, 1)),          # one row: the whole tensor
    ((4, 1), (-1,)),           # rows of one element
])
def test_layer_norm_gelu_dropout_is_one_staged_kernel_and_equals_unfused(shape, axes, capsys):
    # The mean, the variance and the normalised output in one kernel that reads each row from
    # memory once (codegen::LoopKernel::row_dims); the variance, also a result, comes back.
    x = values(shape, np.float32, seed=31)
    gamma = values(shape[-1:], np.float32, seed=32)
    beta = values(shape[-1:], np.float32, seed=33)
    keep = (values(shape, np.float32, seed=34, lo=0, hi=1) < 0.9).astype(np.float32)

    def f(x, gamma, beta, keep):
        return layer_norm_chain(x, gamma, beta, keep, axes)

    ref, _ = compiled(f, [x, gamma, beta, keep], False, capsys)
    got, clusters = compiled(f, [x, gamma, beta, keep], True, capsys)
    assert clusters == 1
    for r, g in zip(ref, got):
        assert r.dtype == g.dtype and r.shape == g.shape
        np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-6 * np.abs(r).max())
    # the oracle: numpy in float64
    x64 = x.astype(np.float64)
    ax = tuple(a % len(shape) for a in axes)
    var = x64.var(axis=ax, keepdims=True)
    np.testing.assert_allclose(got[1], var, rtol=1e-5)
    y = (x64 - x64.mean(axis=ax, keepdims=True)) / np.sqrt(var + 1e-5) * gamma + beta
    h = 0.5 * y * (1 + np.tanh(0.7978845608 * (y + 0.044715 * y ** 3))) * keep / 0.9
    np.testing.assert_allclose(got[0], h, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(37, 129), (3, 5000)])
def test_softmax_is_one_staged_kernel(shape, capsys):
    # exp(x - max) is needed by the sum's stage and the quotient's: rows of up to 4096 keep it
    # in a row buffer (computed once), longer rows compute it twice; the same values either way.
    x = values(shape, np.float32, seed=9)

    def f(x):
        e = ops.exp(x - ops.ReduceMax(keep_dims=True)(x, -1))
        return e / ops.ReduceSum(keep_dims=True)(e, -1)

    got = fused_vs_unfused(f, [x], capsys, rtol=1e-6)
    _, clusters = compiled(f, [x], True, capsys)
    assert clusters == 1
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    np.testing.assert_allclose(got[0], e / e.sum(-1, keepdims=True), rtol=1e-5)


def test_long_rows_prefetch_the_next_row_in_the_last_stage(tmp_path, monkeypatch, capsys):
    # Rows of 256 elements or more run their last stage in cache-line blocks that prefetch the
    # next row (llvm_emit.cc, plan_prefetch): the block is 64 bytes of the widest input read
    # along and across rows (16 float32, 8 float64, 32 bfloat16), a remainder after the whole
    # blocks; shorter rows and last stages that accumulate keep the plain loop. Equal to unfused.
    # Kernels that sum float32 or bfloat16 in double ask for 16 lanes in their row loops.
    monkeypatch.setenv("MYCEL_DUMP_KERNELS", str(tmp_path))
    wide = '!{!"llvm.loop.vectorize.width", i32 16}'

    def norm(x, keep):
        mu = ops.ReduceMean(keep_dims=True)(x, -1)
        d = x - mu
        y = d * ops.rsqrt(ops.ReduceMean(keep_dims=True)(d * d, -1) + 1e-5)
        return ops.select(keep, y * 2.0, y)

    def dumped():  # the one kernel's LLVM IR (MYCEL_DUMP_KERNELS), then removed
        files = sorted(tmp_path.glob("*.ll"))
        assert len(files) == 1, files
        text = files[0].read_text()
        files[0].unlink()
        return text

    def block_step(text):  # the step of the last stage's block loop, 0 without prefetching
        if "@llvm.prefetch" not in text:
            return 0
        steps = {int(m) for m in re.findall(r"add nuw nsw i64 %t\d+, (\d+)\n", text)} - {1}
        assert len(steps) == 1, steps
        return steps.pop()

    for dtype, cols, block in [(np.float32, 1000, 16), (np.float64, 300, 8),
                               (np.float32, 255, 0), (np.float32, 4096, 16)]:
        x = values((7, cols), dtype, seed=cols)
        keep = values((7, cols), np.float32, seed=1, lo=0, hi=1) < 0.5
        fused_vs_unfused(norm, [x, keep], capsys, rtol=1e-6 if dtype == np.float32 else 1e-14)
        text = dumped()
        assert block_step(text) == block, (dtype, cols)
        assert (wide in text) == (dtype == np.float32), (dtype, cols)
    # bfloat16 rows: 32 elements a line; each op rounds as the op kernels do
    x = ms.Tensor(values((5, 700), np.float32, seed=3)).astype(ms.bfloat16)

    def bnorm(b):
        d = b - ops.ReduceMean(keep_dims=True)(b, -1)
        return ops.cast(d * ops.rsqrt(ops.ReduceMean(keep_dims=True)(d * d, -1) + 1e-5),
                        ms.float32)

    ref, _ = compiled(bnorm, [x], False, capsys)
    got, clusters = compiled(bnorm, [x], True, capsys)
    text = dumped()
    assert clusters == 1 and block_step(text) == 32 and wide in text
    np.testing.assert_array_equal(got[0], ref[0])
    # a last stage that accumulates (a sum over the normalised row) keeps the plain loop
    x = values((6, 512), np.float32, seed=4)

    def acc(x):
        d = x - ops.ReduceMean(keep_dims=True)(x, -1)
        return ops.ReduceSum(keep_dims=True)(d * d * d, -1)

    fused_vs_unfused(acc, [x], capsys, rtol=1e-5)
    text = dumped()
    assert block_step(text) == 0 and wide in text


def test_row_values_of_int_and_max_min_reductions_are_exact(capsys):
    # Staged kernels of integer sums and float max/min: nothing is reordered, so bit for bit.
    xi = values((9, 33), np.int32, seed=3, lo=-100, hi=100)
    xf = values((9, 33), np.float32, seed=4)
    xf[2, 5] = np.nan

    def f(xi, xf):
        s = ops.ReduceSum(keep_dims=True)(xi * 3, -1)
        a = xi * 3 - s
        m = xf - ops.ReduceMax(keep_dims=True)(xf, -1)
        return a * 2, m * ops.ReduceMin(keep_dims=True)(m, -1)

    fused_vs_unfused(f, [xi, xf], capsys)


def test_reductions_that_do_not_keep_rows_end_chains(capsys):
    # Reducing the first axis (columns) or dropping the reduced axes is no row: such a reduction
    # ends its chain as before, and the program still equals the unfused one.
    x = values((12, 10), np.float32, seed=5)

    def f(x):
        c = ops.ReduceMean(keep_dims=True)(x * 2.0, 0)
        r = ops.ReduceSum()(x + 1.0, -1)
        return (x - c) * 3.0, ops.ExpandDims()(r, 1) * x

    fused_vs_unfused(f, [x], capsys, rtol=1e-6)


def test_layer_norm_gradients_through_staged_kernels_equal_unfused(capsys):
    x = values((24, 129), np.float32, seed=41)
    g = values((129,), np.float32, seed=42)

    def f(x, g):
        def loss(x, g):
            mu = ops.ReduceMean(keep_dims=True)(x, -1)
            d = x - mu
            y = d * ops.rsqrt(ops.ReduceMean(keep_dims=True)(d * d, -1) + 1e-5) * g
            e = ops.exp(y - ops.ReduceMax(keep_dims=True)(y, -1))
            return (e / ops.ReduceSum(keep_dims=True)(e, -1) * y).sum()
        return ms.grad(loss, grad_position=(0, 1))(x, g)

    got = fused_vs_unfused(f, [x, g], capsys, rtol=2e-5)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    xt, gt = ms.Tensor(x), ms.Tensor(g)
    # finite differences of the loss along a random direction, in float64 numpy
    def np_loss(x, g):
        d = x - x.mean(-1, keepdims=True)
        y = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * g
        e = np.exp(y - y.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True) * y).sum()
    rng = np.random.default_rng(3)
    u = rng.standard_normal(x.shape)
    x64, g64, h = x.astype(np.float64), g.astype(np.float64), 1e-6
    fd = (np_loss(x64 + h * u, g64) - np_loss(x64 - h * u, g64)) / (2 * h)
    np.testing.assert_allclose(np.sum(got[0] * u), fd, rtol=1e-3)
    del xt, gt


def test_bfloat16_layer_norm_stages_round_as_the_kernels(capsys):
    x = values((16, 130), np.float32, seed=51)

    def f(x):
        b = ops.cast(x, ms.bfloat16)
        mu = ops.ReduceMean(keep_dims=True)(b, -1)
        d = b - mu
        y = d * ops.rsqrt(ops.ReduceMean(keep_dims=True)(d * d, -1) + 1e-5)
        e = ops.exp(y - 1.0)  # kept in the row buffer as its bfloat16 value
        return ops.cast(y + e / ops.ReduceSum(keep_dims=True)(e, -1), ms.float32)

    ref, _ = compiled(f, [x], False, capsys)
    got, clusters = compiled(f, [x], True, capsys)
    assert clusters == 1
    np.testing.assert_allclose(got[0], ref[0], rtol=2 ** -7, atol=0)
    assert np.mean(got[0] != ref[0]) <= 0.01


# ---- merged clusters, outer-dimension reductions on threads -------------------------------

def test_adam_update_is_one_kernel_and_equals_unfused_bit_for_bit(capsys):
    n = 100_003
    p, m, g = (values((n,), np.float32, seed=s) for s in (1, 2, 3))
    v = np.abs(values((n,), np.float32, seed=4)) * 0.1

    def adam(p, m, v, g):
        m2 = m * 0.9 + g * 0.1
        v2 = v * 0.999 + g * g * 0.001
        return p - m2 * 1e-3 / (ops.sqrt(v2) + 1e-8), m2, v2

    fused_vs_unfused(adam, [p, m, v, g], capsys)
    _, clusters = compiled(adam, [p, m, v, g], True, capsys)
    assert clusters == 1  # the m and v chains merge where the update reads both


@pytest.mark.parametrize("shape,axes", [((4099, 67), (0,)), ((300, 7, 100), (0, 2)),
                                        ((1 << 18,), ()), ((40, 5000), (0,))])
def test_outer_reductions_run_in_fixed_slices_whatever_the_threads(shape, axes, capsys):
    # A kernel that reduces dims[0] runs in slices (a number fixed by the sizes) on the threads,
    # the partial accumulators combined in slice order: the same bits on 1 and 2 threads,
    # integer sums and max/min exact, float sums to 1e-6 of numpy's float64.
    x = values(shape, np.float32, seed=61)
    y = x.copy()
    y[(0,) * len(shape)] = np.nan  # max/min: NaN wins wherever its slice is
    xi = values(shape, np.int32, seed=62, lo=-1000, hi=1000)

    def f(x, y, xi):
        v = x * 2.0 - 1.0
        u = y * 2.0 - 1.0
        w = xi * 3 + 1
        return (ops.ReduceSum()(v, axes), ops.ReduceMean()(v, axes), ops.ReduceMax()(u, axes),
                ops.ReduceMin()(u, axes), ops.ReduceSum()(w, axes), ops.ReduceMax()(w, axes))

    threads = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(1)
        one, _ = compiled(f, [x, y, xi], True, capsys)
        ms._mycel.set_num_threads(2)
        two = fused_vs_unfused(f, [x, y, xi], capsys, rtol=1e-6)
    finally:
        ms._mycel.set_num_threads(threads)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    ax = axes if axes else None
    v = x.astype(np.float64) * 2 - 1
    np.testing.assert_allclose(two[0], np.sum(v, axis=ax), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(two[1], np.mean(v, axis=ax), rtol=1e-5, atol=1e-6)
    u = y.astype(np.float64) * 2 - 1
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(two[2], np.max(u, axis=ax), rtol=1e-7)  # NaN where numpy's
        np.testing.assert_allclose(two[3], np.min(u, axis=ax), rtol=1e-7)
    w = xi.astype(np.int64) * 3 + 1
    np.testing.assert_array_equal(two[4], np.sum(w, axis=ax).astype(np.int32))
    np.testing.assert_array_equal(two[5], np.max(w, axis=ax))


@pytest.mark.parametrize("dtype", [np.float32, "bf16"])
def test_bias_add_fuses_where_its_channel_axis_is_last(dtype, capsys):
    # A Dense layer's BiasAdd (a matrix) and NHWC's fuse as Add; NCHW's of rank 4 (the channel
    # axis is 1) stays with its kernel. Bit for bit against the op kernels.
    x = values((33, 17), np.float32, seed=71)
    b = values((17,), np.float32, seed=72)
    x4 = values((2, 3, 5, 7), np.float32, seed=73)
    b4 = values((7,), np.float32, seed=74)
    c4 = values((3,), np.float32, seed=75)
    cast = (lambda t: ops.cast(t, ms.bfloat16)) if dtype == "bf16" else (lambda t: t)

    def f(x, b, x4, b4, c4):
        h = ops.gelu(ops.BiasAdd()(cast(x) * 2.0, cast(b)), approximate="tanh")
        n = ops.relu(ops.BiasAdd(data_format="NHWC")(cast(x4) * 2.0, cast(b4)))
        m = ops.relu(ops.BiasAdd()(cast(x4) * 3.0, cast(c4)))
        return h, n, m

    ref, _ = compiled(f, [x, b, x4, b4, c4], False, capsys)
    got, clusters = compiled(f, [x, b, x4, b4, c4], True, capsys)
    # float32: [Mul, BiasAdd, GeLU] and [Mul, BiasAdd NHWC, ReLU]; NCHW's Mul and ReLU are
    # single ops (a fused NCHW BiasAdd would make a third cluster)
    assert clusters == 2 if dtype == np.float32 else clusters >= 2, clusters
    for r, g in zip(ref, got):
        if dtype == "bf16":  # the tanh form's float32 may differ by an ulp before rounding
            np.testing.assert_allclose(g.astype(np.float32), r.astype(np.float32),
                                       rtol=2 ** -7, atol=0)
        else:
            np.testing.assert_allclose(g, r, rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(got[1], ref[1])
    np.testing.assert_array_equal(got[2], ref[2])


@pytest.mark.parametrize("shape", [(7,), (5, 3), (3, 5, 2), (2, 3, 5, 7)])
def test_reduced_values_read_back_over_every_axis_pattern(shape, capsys):
    # Every axis subset reduced with keep_dims and read back elementwise: suffixes of the axes
    # make staged kernels, other subsets end their chains; all equal the unfused program and
    # numpy's float64.
    x = values(shape, np.float32, seed=81)
    r = len(shape)
    for axes in [s for k in range(1, r + 1) for s in combinations(range(r), k)]:
        def f(x, axes=axes):
            v = x * 1.5 + 0.25
            c = v - ops.ReduceMean(keep_dims=True)(v, axes)
            return (c * ops.ReduceMax(keep_dims=True)(c, axes),
                    ops.ReduceSum(keep_dims=True)(c * c, axes))

        got = fused_vs_unfused(f, [x], capsys, rtol=1e-6)
        v = x.astype(np.float64) * 1.5 + 0.25
        c = v - v.mean(axis=axes, keepdims=True)
        np.testing.assert_allclose(got[0], c * c.max(axis=axes, keepdims=True), rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(got[1], (c * c).sum(axis=axes, keepdims=True), rtol=1e-4,
                                   atol=1e-5)


def donations(fn, args):
    """fn compiled with fusion on: (its executable's text, its outputs as numpy, the peak of
    host memory in use during a call above what was in use before it, in bytes)."""
    ms.set_context(enable_graph_kernel=True)
    jf = ms.jit(fn)
    ts = [ms.Tensor(a) for a in args]
    jf(*ts)  # compiled
    text = jf._graph.vm(*ts)
    before = ms._mycel.memory_stats()["in_use"]
    ms._mycel.reset_peak_memory()
    out = jf(*ts)
    peak = ms._mycel.memory_stats()["peak_in_use"] - before
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return text, [o.asnumpy() for o in outs], peak


def test_a_fused_call_writes_into_its_dying_inputs(capsys):
    # floor's results are fresh and die at the Add + ReLU kernel, which stores its result into
    # the first: as the unfused Add and ReLU write in place, the fused program holds two
    # buffers at once, not three, and computes the same.
    a, b = values((64, 1024), np.float32, seed=91), values((64, 1024), np.float32, seed=92)

    def f(a, b):
        return ops.relu(ops.floor(a) + ops.floor(b))

    text, got, peak = donations(f, [a, b])
    assert re.search(r"fused @GraphKernel#\d+\(donate r\d+, donate r\d+\)", text), text
    np.testing.assert_array_equal(got[0], np.maximum(np.floor(a) + np.floor(b), 0))
    assert peak == 2 * a.nbytes, peak
    fused_vs_unfused(f, [a, b], capsys)


def test_an_input_read_after_the_fused_call_is_not_donated(capsys):
    # x = floor(a) is read again after the kernel: the kernel must not write into it.
    a, b = values((33, 65), np.float32, seed=93), values((33, 65), np.float32, seed=94)

    def f(a, b):
        x = ops.floor(a)
        y = ops.relu(x + b) * 2.0
        return ops.ceil(y) - ops.ceil(x)

    text, got, _ = donations(f, [a, b])
    assert "donate" not in text.split("fused", 1)[1].split("\n", 1)[0], text
    ref = np.ceil(np.maximum(np.floor(a) + b, 0) * 2.0) - np.ceil(np.floor(a))
    np.testing.assert_array_equal(got[0], ref)
    fused_vs_unfused(f, [a, b], capsys)


@pytest.mark.parametrize("shape", [(1,), (7,), (6, 130), (3, 4, 257)])
def test_donated_inputs_of_staged_and_reducing_kernels_and_tuple_results(shape, capsys):
    # A staged (row) kernel reads its donated input (floor's result) in every stage before its
    # last stage stores over it, and returns a tuple (c, c * c); its items are fresh in turn,
    # so Ceil writes into c and the last kernel is donated Ceil's result; Floor wrote into
    # the first kernel's result. Each equals the unfused program and numpy.
    a = values(shape, np.float32, seed=95)

    def f(a):
        x = ops.floor(a * 4.0 + 0.5)  # (a * 4.0 + 0.5 fuses; floor does not)
        m = ops.ReduceMean(keep_dims=True)(x, -1)
        c = x - m
        s = ops.ReduceSum()(c * c)  # all axes: a reduction the staged kernel cannot hold
        y = ops.ceil(c)
        return y * 3.0 + 1.0, s

    text, got, _ = donations(f, [a])
    entry = text.split("\n@", 1)[0]
    assert len(re.findall(r"fused @GraphKernel#\d+\(donate r\d+", entry)) == 2, text
    assert re.search(r"= Floor\(r\d+\) .* in r\d+", entry), text
    assert re.search(r"= Ceil\(r\d+\) .* in r\d+", entry), text
    x = np.floor(a * np.float32(4.0) + np.float32(0.5))
    c = x - x.mean(axis=-1, keepdims=True, dtype=np.float64).astype(np.float32)
    np.testing.assert_allclose(got[0], np.ceil(c) * 3.0 + 1.0, rtol=1e-6)
    np.testing.assert_allclose(got[1], (c.astype(np.float64) ** 2).sum(), rtol=1e-5)
    fused_vs_unfused(f, [a], capsys, rtol=1e-6)


class _BNBlock(ms.nn.Cell):
    """Training BatchNorm, then ReLU (and the residual Add before it): the expansion's cost
    rule lets BatchNorm and BatchNormGrad become reductions + elementwise prims here."""

    def __init__(self, c, two_d, residual):
        super().__init__()
        self.bn = ms.nn.BatchNorm1d(c) if two_d else ms.nn.BatchNorm2d(c)
        self.residual = residual

    def construct(self, x, s):
        y = self.bn(x)
        return ops.relu(y + s) if self.residual else ops.relu(y)


def _bn_step(shape, residual, fused, capsys, shift=0.0):
    """One training step of _BNBlock compiled anew (fusion on or off): the loss, the gradients
    of x, s, gamma and beta, the running mean and variance after it, and the clusters."""
    ms.set_context(enable_graph_kernel=fused)
    rng = np.random.default_rng(5)
    c = shape[1]
    net = _BNBlock(c, len(shape) == 2, residual)
    net.set_train(True)
    net.bn.gamma.set_data(ms.Tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
    net.bn.beta.set_data(ms.Tensor(rng.uniform(-1, 1, c).astype(np.float32)))
    net.bn.moving_mean.set_data(ms.Tensor(rng.uniform(-1, 1, c).astype(np.float32)))
    net.bn.moving_variance.set_data(ms.Tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
    x = (rng.standard_normal(shape) * 3 + shift).astype(np.float32)
    s = rng.standard_normal(shape).astype(np.float32)
    w = ms.Tensor(rng.standard_normal(shape).astype(np.float32))

    def loss(x, s):
        return (net(x, s) * w).sum()

    step = ms.jit(ms.value_and_grad(loss, grad_position=(0, 1), weights=net.trainable_params()))
    capsys.readouterr()
    value, (gin, gw) = step(ms.Tensor(x), ms.Tensor(s))
    clusters = sum(int(n) for n, _, _ in LOG.findall(capsys.readouterr().err))
    outs = [value] + list(gin) + list(gw) + [net.bn.moving_mean, net.bn.moving_variance]
    return [o.asnumpy() for o in outs], clusters


@pytest.mark.parametrize("shape,residual", [
    ((4, 8, 6, 5), True), ((3, 5, 7, 9), False), ((16, 6), False), ((2, 3, 1, 1), True)])
def test_training_batch_norm_fuses_with_its_neighbours_and_equals_unfused(
        shape, residual, tmp_path, monkeypatch, capsys):
    # Forward: statistics kernel, per-channel kernel, normalise + (Add +) ReLU in one; backward:
    # ReluGrad + both channel sums in one pass, then dx. Sums are reordered (float64
    # accumulators in both), so to float32 tolerance; the running statistics too.
    ref, none = _bn_step(shape, residual, False, capsys)
    monkeypatch.setenv("MYCEL_DUMP_IR", str(tmp_path))
    got, clusters = _bn_step(shape, residual, True, capsys)
    text = sorted(tmp_path.glob("*graph_kernel.ir"))[-1].read_text()
    assert "BatchNorm{" not in text and "BatchNormGrad{" not in text and "Assign" in text
    assert none == 0 and clusters >= 4, clusters
    names = ["loss", "dx", "ds", "dgamma", "dbeta", "moving_mean", "moving_variance"]
    for name, r, g in zip(names, ref, got):
        scale = np.abs(r).max()
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6 * scale, err_msg=name)


def test_batch_norm_variance_keeps_float32_accuracy_far_from_zero_mean(capsys):
    # The expansion sums x and x^2 in one pass (in float64): a mean 1000 standard deviations
    # from zero must still give the variance the two-pass op kernel gives.
    ref, _ = _bn_step((8, 4, 5, 5), False, False, capsys, shift=3000.0)
    got, _ = _bn_step((8, 4, 5, 5), False, True, capsys, shift=3000.0)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.abs(r).max())


def test_batch_norm_without_a_fusing_neighbour_stays_an_op(tmp_path, monkeypatch, capsys):
    # The cost rule: BatchNorm's op kernel makes its passes per channel in cache; where its
    # result feeds no fusible node (Log does not fuse) it is not expanded.
    monkeypatch.setenv("MYCEL_DUMP_IR", str(tmp_path))
    ms.set_context(enable_graph_kernel=True)
    bn = ms.nn.BatchNorm2d(3)
    bn.set_train(True)
    ms.jit(lambda x: ops.log(bn(x)))(ms.Tensor(values((2, 3, 4, 4), np.float32)))
    text = sorted(tmp_path.glob("*graph_kernel.ir"))[-1].read_text()
    assert "BatchNorm{" in text


def test_dense_bias_before_a_reshape_joins_the_activation_kernel(tmp_path, monkeypatch, capsys):
    # nn.Dense on a sequence: [B, T, K] -> [B*T, K] @ W + b -> [B, T, N]. The BiasAdd moves
    # past the reshape (Add of the same sums) and fuses with the ReLU after it; bit for bit.
    x = values((4, 6, 8), np.float32, seed=31)
    w = values((8, 16), np.float32, seed=32)
    b = values((16,), np.float32, seed=33)

    def f(x, w, b):
        h = ops.bias_add(ops.matmul(ops.reshape(x, (24, 8)), w), b)
        return ops.relu(ops.reshape(h, (4, 6, 16))) * 2.0

    monkeypatch.setenv("MYCEL_DUMP_IR", str(tmp_path))
    fused_vs_unfused(f, [x, w, b], capsys)
    text = sorted(tmp_path.glob("*graph_kernel.ir"))[-1].read_text()
    assert "BiasAdd" not in text and "Add(" in text
