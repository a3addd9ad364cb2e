"""The unsigned dtypes uint16, uint32 and uint64 end to end (issue 21): numpy conversion both
ways, the names, MindSpore's promotion table (they promote only with bool and themselves),
wraparound arithmetic, comparisons above the signed range, reductions, data movement,
checkpoints, MINDIR and the data engine. numpy is the oracle (its array arithmetic wraps as
C++ unsigned arithmetic does); every op runs in PYNATIVE and GRAPH mode (the `mode` fixture).
Casts from and to these dtypes are covered with the other integers in test_cast_semantics.py.
"""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops
from mycel.common import dtype as mstype
from mycel.ops import operations as P

UNSIGNED = ["uint16", "uint32", "uint64"]


def ms_t(a):
    return ms.Tensor(np.asarray(a))


def extremes(name, n=12, seed=0):
    """n values of dtype `name`: 0, 1, the top of the range and random ones (the high bit set
    in about half, so a signed reading would be negative)."""
    info = np.iinfo(name)
    rng = np.random.default_rng(seed)
    r = rng.integers(0, info.max, size=n - 4, dtype=name, endpoint=True)
    return np.concatenate([np.array([0, 1, info.max, info.max - 1], name), r])


def run(fn, *args):
    """fn(*args) in the current mode: as it is in PYNATIVE, through ms.jit in GRAPH."""
    if ms.get_context("mode") == ms.GRAPH_MODE:
        return ms.jit(fn)(*args)
    return fn(*args)


def check(got, want):
    got = got.asnumpy() if isinstance(got, ms.Tensor) else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


# ---- names and numpy ------------------------------------------------------------------------

@pytest.mark.parametrize("name", UNSIGNED)
def test_names_and_numpy_round_trip(name):
    d = getattr(ms, name)
    assert d is getattr(mstype, name) and d == ms.dtype_from_name(name)
    assert str(d) == name.replace("uint", "UInt") and d.name == name
    assert d.itemsize == np.dtype(name).itemsize and not d.is_floating_point
    assert mstype.dtype_to_nptype(d) == np.dtype(name).type
    assert mstype.pytype_to_dtype(np.dtype(name)) == d
    assert d in mstype.number_type and d in mstype.uint_type
    a = extremes(name)
    t = ms.Tensor(a)
    assert t.dtype == d and not t.is_signed()
    check(t, a)
    check(ms.Tensor(a.tolist(), d), a)  # Python ints above int64's range for uint64
    check(ms.from_numpy(a), a)
    assert ms.Tensor(a[2]).dtype == d  # a numpy scalar keeps its type
    assert int(ms.Tensor(a)[2].asnumpy()) == int(np.iinfo(name).max)


def test_aliases():
    assert (mstype.ushort, mstype.uintc, mstype.uintp) == (ms.uint16, ms.uint32, ms.uint64)
    assert ms.numpy.uint64 == ms.uint64


# ---- promotion ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", UNSIGNED)
def test_promotion_table(name):
    d = getattr(ms, name)
    assert ms.common.dtype.promote_types(d, d) == d
    assert ms.common.dtype.promote_types(d, ms.bool_) == d
    assert ms.common.dtype.promote_types(ms.bool_, d) == d
    for other in (ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64, ms.float16, ms.float32,
                  ms.float64):
        with pytest.raises(TypeError, match="implicit conversion"):
            ms.common.dtype.promote_types(d, other)
    for a, b in [(ms.uint16, ms.uint32), (ms.uint32, ms.uint64), (ms.uint64, ms.uint16)]:
        with pytest.raises(TypeError):
            ms.common.dtype.promote_types(a, b)


@pytest.mark.parametrize("name", UNSIGNED)
def test_mixed_dtypes_are_a_typed_error_naming_the_op(mode, name):
    x = ms_t(np.arange(4, dtype=name))
    for other in (np.int32, np.float32, np.uint8):
        y = ms_t(np.arange(4, dtype=other))
        with pytest.raises(TypeError, match="For 'Add'.*implicit conversion"):
            run(lambda a, b: P.Add()(a, b), x, y)
    b = ms_t(np.array([True, False, True, True]))
    check(run(lambda u, v: u + v, x, b), np.arange(4, dtype=name) + np.array([1, 0, 1, 1], name))


@pytest.mark.parametrize("name", UNSIGNED)
def test_python_scalars_keep_the_tensor_dtype(mode, name):
    a = extremes(name)
    x = ms_t(a)
    check(run(lambda u: u + 3, x), a + np.array(3, name))  # wraps at the top
    check(run(lambda u: u * 2, x), a * np.array(2, name))
    # A float scalar would lift the tensor to float32, which MindSpore's scalar table (no
    # Float32 with UInt16/32/64 entry) refuses too: a TypeError naming the op.
    with pytest.raises(TypeError, match="For 'Mul'.*implicit conversion"):
        run(lambda u: u * 0.5, x)


# ---- arithmetic and comparisons ---------------------------------------------------------------

@pytest.mark.parametrize("name", UNSIGNED)
def test_arithmetic_wraps_as_numpy(mode, name):
    a, b = extremes(name, seed=1), extremes(name, seed=2)[::-1].copy()
    x, y = ms_t(a), ms_t(b)
    check(run(lambda u, v: u + v, x, y), a + b)
    check(run(lambda u, v: u - v, x, y), a - b)
    check(run(lambda u, v: u * v, x, y), a * b)
    check(run(lambda u: -u, x), np.negative(a))
    check(run(lambda u: ops.abs(u), x), a)
    check(run(lambda u: ops.square(u), x), a * a)
    check(run(lambda u, v: ops.maximum(u, v), x, y), np.maximum(a, b))
    check(run(lambda u, v: ops.minimum(u, v), x, y), np.minimum(a, b))
    nz = np.where(b == 0, np.array(7, name), b)
    check(run(lambda u, v: u // v, x, ms_t(nz)), a // nz)
    check(run(lambda u, v: u % v, x, ms_t(nz)), a % nz)
    q = run(lambda u, v: u / v, x, ms_t(nz))  # true division computes in float32
    assert q.dtype == ms.float32
    np.testing.assert_allclose(q.asnumpy(), a.astype(np.float32) / nz.astype(np.float32),
                               rtol=1e-6)


@pytest.mark.parametrize("name", UNSIGNED)
def test_comparisons_above_the_signed_range(mode, name):
    a, b = extremes(name, seed=3), extremes(name, seed=4)
    x, y = ms_t(a), ms_t(b)
    for op, npop in [(P.Greater(), np.greater), (P.GreaterEqual(), np.greater_equal),
                     (P.Less(), np.less), (P.LessEqual(), np.less_equal),
                     (P.Equal(), np.equal), (P.NotEqual(), np.not_equal)]:
        check(run(lambda u, v, op=op: op(u, v), x, y), npop(a, b))
    check(run(lambda u: ops.sign(u), x), np.sign(a))


@pytest.mark.parametrize("name", UNSIGNED)
def test_bitwise(mode, name):
    a, b = extremes(name, seed=5), extremes(name, seed=6)
    x, y = ms_t(a), ms_t(b)
    check(run(lambda u, v: ops.bitwise_and(u, v), x, y), a & b)
    check(run(lambda u, v: ops.bitwise_or(u, v), x, y), a | b)
    check(run(lambda u, v: ops.bitwise_xor(u, v), x, y), a ^ b)
    check(run(lambda u: P.Invert()(u), x), np.invert(a))
    s = np.array([0, 1, 3, np.iinfo(name).bits - 1] * 3, name)
    check(run(lambda u, v: ops.bitwise_right_shift(u, v), x, ms_t(s)), a >> s)
    check(run(lambda u, v: ops.bitwise_left_shift(u, v), x, ms_t(s)), a << s)


# ---- reductions and data movement --------------------------------------------------------------

@pytest.mark.parametrize("name", UNSIGNED)
def test_reductions(mode, name):
    a = extremes(name, n=24, seed=7).reshape(4, 6)
    x = ms_t(a)
    check(run(lambda u: ops.sum(u, 1), x), np.add.reduce(a, 1, dtype=a.dtype))  # wraps
    check(run(lambda u: ops.amax(u, 0), x), a.max(0))
    check(run(lambda u: ops.amin(u, 1), x), a.min(1))
    check(run(lambda u: ops.prod(u, 1), x), np.multiply.reduce(a, 1, dtype=a.dtype))
    check(run(lambda u: ops.argmax(u, 1), x), a.argmax(1).astype(np.int64))
    check(run(lambda u: ops.cumsum(u, 1), x), np.cumsum(a, 1, dtype=a.dtype))


@pytest.mark.parametrize("name", UNSIGNED)
def test_data_movement(mode, name):
    a = extremes(name, n=24, seed=8).reshape(2, 3, 4)
    x = ms_t(a)
    idx = ms_t(np.array([2, 0], np.int32))
    check(run(lambda u: ops.reshape(u, (6, 4)), x), a.reshape(6, 4))
    check(run(lambda u: ops.transpose(u, (2, 0, 1)), x), a.transpose(2, 0, 1))
    check(run(lambda u: ops.concat((u, u), 1), x), np.concatenate([a, a], 1))
    check(run(lambda u: ops.stack((u, u), 0), x), np.stack([a, a]))
    check(run(lambda u, i: ops.gather(u, i, 1), x, idx), a[:, [2, 0]])
    check(run(lambda u: u[1, ::2, 1:3], x), a[1, ::2, 1:3])
    check(run(lambda u: ops.tile(u, (1, 2, 1)), x), np.tile(a, (1, 2, 1)))
    check(run(lambda u: ops.flip(u, (2,)), x), a[:, :, ::-1])
    c = np.array([[[True, False, True, False]] * 3] * 2)
    check(run(lambda m, u, v: ops.select(m, u, v), ms_t(c), x, ms_t(a[::-1].copy())),
          np.where(c, a, a[::-1]))
    check(run(lambda u: ops.zeros_like(u), x), np.zeros_like(a))
    check(run(lambda u: ops.ones_like(u), x), np.ones_like(a))


def test_float_only_op_refuses_them_with_a_typed_error(mode):
    # An op whose rule needs floats (and that does not cast integer inputs to float32 first,
    # as Softmax or Exp do) refuses an unsigned input by name, never reinterprets it.
    x = ms_t(np.arange(6, dtype=np.uint32).reshape(2, 3))
    with pytest.raises(TypeError, match="For 'SoftmaxCrossEntropyWithLogits'.*UInt32"):
        run(lambda u: P.SoftmaxCrossEntropyWithLogits()(u, u), x)
    s = run(lambda u: P.Softmax()(u), x)  # cast to float32 first, as for the other integers
    np.testing.assert_allclose(s.asnumpy(), np.exp(np.arange(6.0).reshape(2, 3)) / np.exp(
        np.arange(6.0).reshape(2, 3)).sum(1, keepdims=True), rtol=1e-5)


# ---- serialization --------------------------------------------------------------------------

def test_checkpoint_round_trip(tmp_path):
    arrays = [extremes(n, seed=9 + i) for i, n in enumerate(UNSIGNED)]
    path = str(tmp_path / "u.ckpt")
    ms.save_checkpoint([{"name": f"p{i}", "data": ms.Tensor(a)} for i, a in enumerate(arrays)],
                       path)
    loaded = ms.load_checkpoint(path)
    for i, a in enumerate(arrays):
        check(loaded[f"p{i}"], a)


def test_mindir_round_trip(tmp_path):
    class Net(nn.Cell):
        def construct(self, x, y):
            return x * y + 1, ops.maximum(x, y)

    a, b = extremes("uint32", seed=12), extremes("uint32", seed=13)
    x, y = ms_t(a), ms_t(b)
    ms.export(Net(), x, y, file_name=str(tmp_path / "u"), file_format="MINDIR")
    graph = ms.load(str(tmp_path / "u.mindir"))
    out = nn.GraphCell(graph)(x, y)
    check(out[0], a * b + np.uint32(1))
    check(out[1], np.maximum(a, b))


# ---- the data engine ----------------------------------------------------------------------

@pytest.mark.parametrize("name", UNSIGNED)
def test_generator_columns_and_typecast(name):
    import mycel.dataset as ds
    import mycel.dataset.transforms as T
    a = extremes(name, n=8, seed=14).reshape(4, 2)

    def gen():
        for row in a:
            yield (row,)

    d = ds.GeneratorDataset(gen, ["x"], shuffle=False)
    rows = [r[0] for r in d.create_tuple_iterator()]
    assert all(r.dtype == getattr(ms, name) for r in rows)
    np.testing.assert_array_equal(np.stack([r.asnumpy() for r in rows]), a)
    d2 = ds.GeneratorDataset(gen, ["x"], shuffle=False).map(T.TypeCast(getattr(mstype, name)),
                                                             "x")
    d2 = d2.map(T.TypeCast(mstype.int64), "x")
    got = np.stack([r["x"] for r in d2.create_dict_iterator(output_numpy=True)])
    np.testing.assert_array_equal(got, a.astype(np.int64))  # numpy's wrap above int64


@pytest.mark.parametrize("name", UNSIGNED)
def test_to_number_and_mask(name):
    import mycel.dataset as ds
    import mycel.dataset.text as text
    import mycel.dataset.transforms as T
    top = int(np.iinfo(name).max)
    strings = np.array([str(top), "0", "17"])
    d = ds.NumpySlicesDataset({"s": [strings]}, shuffle=False)
    d = d.map(text.ToNumber(getattr(mstype, name)), "s")
    got = next(d.create_dict_iterator(output_numpy=True))["s"]
    check(got, np.array([top, 0, 17], name))
    bad = ds.NumpySlicesDataset({"s": [np.array([str(top + 1)])]}, shuffle=False)
    with pytest.raises(RuntimeError, match="out of the range"):
        next(bad.map(text.ToNumber(getattr(mstype, name)), "s").create_dict_iterator())
    m = ds.NumpySlicesDataset({"s": [np.array([1, 5, 9], name)]}, shuffle=False)
    m = m.map(T.Mask(T.Relational.GE, 5, getattr(mstype, name)), "s")
    check(next(m.create_dict_iterator(output_numpy=True))["s"], np.array([0, 1, 1], name))
