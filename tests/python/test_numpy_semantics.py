"""mycel.numpy against numpy (the oracle by definition) where numpy's argument semantics go
beyond mycel.ops': array creation (copies, nested Tensors, broadcast fill values, linspace /
geomspace over arrays with axis and retstep, windows, grids), every pad mode, manipulation
(concatenate axis=None, where / select by truth value, roll with broadcast shifts, tile,
apply_along_axis, unravel_index, intersect1d / unique), the ufuncs' dtype, reductions with
initial / where, dot for every rank, dtype promotion and histograms; GRAPH mode compiles the
functions that MindSpore programs call inside a Cell and gives PYNATIVE's answer."""
import numpy as np
import pytest

import mycel as ms
import mycel.numpy as mnp

RNG = np.random.default_rng(7)
SHAPES = [(5,), (2, 3), (2, 3, 4)]
DTYPES = [np.float32, np.int32]


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


def _same(got, want, tol=1e-5, dtype=True):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, tol, dtype)
        return
    g, w = _np(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    if dtype:  # numpy's, or mindspore.numpy's default narrowing of float64 / int64
        narrow = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}
        assert g.dtype in (w.dtype, narrow.get(w.dtype, w.dtype)), (g.dtype, w.dtype)
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


def _data(shape, dtype):
    x = RNG.integers(-5, 6, shape) if dtype == np.int32 else RNG.standard_normal(shape)
    return x.astype(dtype)


# ---- creation -------------------------------------------------------------------------------
def test_array_copy_identity_and_nested_data():
    t = ms.Tensor(np.arange(4, dtype=np.float32))
    assert mnp.array(t, copy=False) is t and mnp.asarray(t) is t
    c = mnp.array(t)
    assert c is not t and np.array_equal(c.asnumpy(), t.asnumpy())
    i = mnp.asarray([1, 2], dtype="int32")
    assert mnp.asarray(i, dtype=mnp.int32) is i
    nested = [(mnp.ones(3), mnp.ones(3)), [[1, 1, 1], (1, 1, 1)]]
    want = np.array([(np.ones(3), np.ones(3)), [[1, 1, 1], (1, 1, 1)]])
    _same(mnp.array(nested), want)
    with pytest.raises(ValueError, match="ragged"):
        mnp.asarray([[1, 2, 3], [4, 5]])
    with pytest.raises(TypeError):
        mnp.asarray({1, 2, 3})


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_full_and_like_functions(shape, dtype):
    x = _data(shape, dtype)
    fill = _data(shape[-1:], dtype)
    _same(mnp.full(shape, fill), np.full(shape, fill))
    _same(mnp.full(shape, 2.5, dtype=mnp.float64), np.full(shape, 2.5))
    _same(mnp.full_like(ms.Tensor(x), ms.Tensor(fill)), np.full_like(x, fill))
    for new in [(4,), (2, 2, 1)]:
        for fn, ref in ((mnp.ones_like, np.ones_like), (mnp.zeros_like, np.zeros_like)):
            _same(fn(ms.Tensor(x), shape=new), ref(x, shape=new))
            _same(fn(ms.Tensor(x), dtype=mnp.float16, shape=new),
                  ref(x, dtype=np.float16, shape=new))
    assert mnp.empty_like(ms.Tensor(x), shape=(3, 1)).shape == (3, 1)
    with pytest.raises(ValueError, match="ragged"):
        mnp.empty_like([[1, 2, 3], [4, 5]])


def test_linspace_logspace_geomspace_over_arrays():
    start = RNG.random((2, 1, 4)).astype(np.float32)
    stop = RNG.random((1, 5, 1)).astype(np.float32) + 1
    for axis in (0, 1, -1):
        for endpoint in (True, False):
            got = mnp.linspace(ms.Tensor(start), ms.Tensor(stop), 7, endpoint, axis=axis)
            _same(got, np.linspace(start, stop, 7, endpoint, axis=axis, dtype=np.float32))
    y, step = mnp.linspace(2.0, [3, 4, 5], num=5, retstep=True)
    wy, wstep = np.linspace(2.0, [3, 4, 5], num=5, retstep=True)
    _same(y, wy.astype(np.float32))
    _same(step, wstep.astype(np.float32))
    _same(mnp.linspace(ms.Tensor(start), ms.Tensor(stop), 20, dtype=mnp.int16, endpoint=False),
          np.linspace(start, stop, 20, dtype=np.int16, endpoint=False))
    _same(mnp.linspace(0, 1, 1), np.linspace(0, 1, 1, dtype=np.float32))
    _same(mnp.logspace(0, [1, 2], 4, base=2.0, axis=1), np.logspace(0, [1, 2], 4, base=2.0,
                                                                   axis=1), tol=1e-4)
    base = np.arange(1, 7).reshape(2, 3)
    for axis in (0, -1):
        for endpoint in (True, False):
            _same(mnp.geomspace(ms.Tensor(base), [1000, 2000, 3000], 4, endpoint, axis=axis),
                  np.geomspace(base, [1000, 2000, 3000], 4, endpoint, axis=axis), tol=1e-4)
    _same(mnp.geomspace(-1, -256, 9), np.geomspace(-1, -256, 9), tol=1e-4)
    with pytest.raises(ValueError, match="zero"):
        mnp.geomspace(0, 10)
    with pytest.raises(ValueError, match="num"):
        mnp.linspace(0, 1, -1)


@pytest.mark.parametrize("m", [-3, 0, 1, 2, 7])
def test_windows(m):
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        _same(getattr(mnp, name)(m), getattr(np, name)(m), tol=1e-6)


def test_grids():
    _same(mnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2])
    _same(mnp.ogrid[0:1:5j], np.ogrid[0:1:5j])
    for got, want in zip(mnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        _same(got, want)


def test_random_argument_checks():
    for bad in [{"dtype": "int32"}, {"dtype": mnp.int32}]:
        with pytest.raises(ValueError):
            mnp.rand(2, **bad)
        with pytest.raises(ValueError):
            mnp.randn(2, **bad)
    for args in [({1},), (1, 1.2, 2)]:
        with pytest.raises(TypeError):
            mnp.rand(*args)
    for args, err in [((1.2,), TypeError), ((0,), ValueError), ((1, 1.2), TypeError),
                      ((2, 1), ValueError)]:
        with pytest.raises(err):
            mnp.randint(*args)
    with pytest.raises(ValueError):
        mnp.randint(1, dtype=mnp.float32)
    with pytest.raises(TypeError):
        ms.ops.arange([1])
    with pytest.raises(ValueError):
        ms.ops.arange(10, 1)


# ---- pad ------------------------------------------------------------------------------------
PADS = [
    dict(pad_width=((1, 1), (2, 3), (4, 5)), constant_values=((3, 4), (5, 6), (7, 8))),
    dict(pad_width=2),
    dict(pad_width=((1, 1), (2, 2), (3, 4)), mode="mean", stat_length=((1, 2), (2, 10), (3, 4))),
    dict(pad_width=(1, 3), mode="maximum", stat_length=2),
    dict(pad_width=(2, 1), mode="minimum"),
    dict(pad_width=2, mode="median"),
    dict(pad_width=((1, 1), (2, 2), (3, 4)), mode="edge"),
    dict(pad_width=((1, 1), (2, 2), (3, 2)), mode="wrap"),
    dict(pad_width=((1, 3), (5, 2), (3, 0)), mode="linear_ramp",
         end_values=((0, 10), (9, 1), (-10, 99))),
    dict(pad_width=((10, 3), (5, 2), (3, 0)), mode="symmetric"),
    dict(pad_width=((10, 3), (5, 2), (3, 0)), mode="symmetric", reflect_type="odd"),
    dict(pad_width=((10, 13), (5, 12), (3, 7)), mode="reflect"),
    dict(pad_width=((10, 13), (5, 12), (3, 0)), mode="reflect", reflect_type="odd"),
]


@pytest.mark.parametrize("case", range(len(PADS)))
@pytest.mark.parametrize("dtype", DTYPES)
def test_pad_matches_numpy(case, dtype):
    x = _data((2, 3, 4), dtype)
    _same(mnp.pad(ms.Tensor(x), **PADS[case]), np.pad(x, **PADS[case]), tol=1e-4)


def test_pad_wrap_past_the_array_is_periodic():
    # numpy 1.24 repeats a partial period when the pad exceeds the size (fixed in numpy 1.25);
    # the definition is the periodic extension
    x = np.arange(5, dtype=np.float32)
    want = x[np.mod(np.arange(-9, 9), 5)]
    _same(mnp.pad(ms.Tensor(x), (9, 4), mode="wrap"), want)
    with pytest.raises(ValueError, match="mode"):
        mnp.pad(ms.Tensor(x), 1, mode="cubic")
    with pytest.raises(ValueError, match="pad_width"):
        mnp.pad(ms.Tensor(x), -1)


# ---- manipulation ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
def test_manipulation_matches_numpy(shape):
    x = _data(shape, np.float32)
    xi = _data(shape, np.int32)
    t, ti = ms.Tensor(x), ms.Tensor(xi)
    _same(mnp.concatenate((t, ti), None), np.concatenate((x, xi), None))
    _same(mnp.concatenate((t, ti), 0), np.concatenate((x, xi), 0))
    _same(mnp.where(t, t, ti), np.where(x, x, xi))
    _same(mnp.where(ti), np.where(xi))
    _same(mnp.select([t > 0, ti > 1], [t, ti], default=10), np.select([x > 0, xi > 1], [x, xi],
                                                                        default=10))
    _same(mnp.roll(t, -3), np.roll(x, -3))
    if len(shape) >= 2:
        _same(mnp.roll(t, [-2, -3], 1), np.roll(x, [-2, -3], 1))
        _same(mnp.roll(t, (4,), [0, 0, 1]), np.roll(x, (4,), [0, 0, 1]))
    for reps in (1, 3, [5, 1], [2, 1, 2, 3]):
        _same(mnp.tile(t, reps), np.tile(x, reps))
    for axis in range(-len(shape), len(shape)):
        _same(mnp.apply_along_axis(mnp.diag, axis, t), np.apply_along_axis(np.diag, axis, x))
        _same(mnp.apply_along_axis(lambda v: v.sum(), axis, t),
              np.apply_along_axis(lambda v: v.sum(), axis, x))


def test_index_and_set_functions():
    idx = RNG.integers(0, 140, (2, 6, 3))
    for dims in [(5, 4, 7), 140]:
        for order in ("C", "F"):
            _same(mnp.unravel_index(ms.Tensor(idx.astype(np.int32)), dims, order),
                  np.unravel_index(idx, dims, order), dtype=False)
    x, y = RNG.integers(1, 6, (2, 1, 4)), RNG.integers(1, 6, (2, 1, 4))
    got = mnp.intersect1d(ms.Tensor(x), ms.Tensor(y), return_indices=True)
    _same(got, np.intersect1d(x, y, return_indices=True), dtype=False)
    _same(mnp.unique(ms.Tensor(x), return_index=True, return_inverse=True, return_counts=True),
          np.unique(x, return_index=True, return_inverse=True, return_counts=True), dtype=False)
    _same(mnp.isin(ms.Tensor(x), ms.Tensor(y)), np.isin(x, y))
    _same(mnp.argwhere(ms.Tensor(x - 3)), np.argwhere(x - 3), dtype=False)
    with pytest.raises(ValueError):
        mnp.argwhere(1)
    with pytest.raises(TypeError):
        mnp.argwhere(None)
    with pytest.raises(TypeError):
        mnp.intersect1d(x, y, assume_unique=1)
    assert bool(mnp.array_equal([1, 2], [1, 2])) and not bool(mnp.array_equal([1], [[1], [1]]))
    assert bool(mnp.array_equiv([1, 2], [[1, 2], [1, 2]]))


def test_tensor_methods():
    x = RNG.integers(1, 5, (3, 5)).astype(np.float32)
    t = ms.Tensor(x)
    _same(t.flatten(order="F"), x.flatten(order="F"))
    for new in [(2, 4), (3, 1), (7, 4)]:
        want = x.copy()
        want.resize(new, refcheck=False)
        _same(t.resize(*new), want)
    _same(t.reshape([-1, 5]), x.reshape(-1, 5))
    with pytest.raises(TypeError):
        t.reshape({0, 1, 2})
    a = RNG.integers(0, 3, (2, 1, 4)).astype(np.int32)
    ch = RNG.integers(0, 9, (3, 2, 5, 4)).astype(np.int32)
    _same(ms.Tensor(a).choose(ms.Tensor(ch), mode="wrap"), a.choose(ch, mode="wrap"))
    s = np.sort(RNG.standard_normal(8)).astype(np.float32)
    v = RNG.standard_normal(5).astype(np.float32)
    _same(ms.Tensor(s).searchsorted(ms.Tensor(v)), s.searchsorted(v), dtype=False)


# ---- math -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
def test_ufunc_dtype_clip_and_abs(shape):
    a, b = _data(shape, np.int32), _data(shape, np.int32)
    for fn in ("add", "subtract", "multiply", "maximum", "minimum"):
        _same(getattr(mnp, fn)(a, b, dtype=mnp.float32), getattr(np, fn)(a, b,
                                                                         dtype=np.float32))
    _same(mnp.absolute(ms.Tensor(a > 0)), np.absolute(a > 0))
    x = _data(shape, np.float32)
    _same(mnp.clip(ms.Tensor(x), ms.Tensor(np.float32(1.0)), ms.Tensor([0.5])),
          np.clip(x, 1.0, [0.5]).astype(np.float32))
    _same(mnp.clip(ms.Tensor(a), 0, 10, dtype=mnp.float32), np.clip(a, 0, 10,
                                                                      dtype=np.float32))
    _same(mnp.cbrt(x), np.cbrt(x), tol=1e-5)
    _same(mnp.divmod(a, np.where(b == 0, 3, b)), np.divmod(a, np.where(b == 0, 3, b)))


@pytest.mark.parametrize("sa,sb", [((), (3, 4)), ((4,), (4,)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                   ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2)), ((3,), (2, 3, 4))])
def test_dot_every_rank(sa, sb):
    a, b = RNG.standard_normal(sa).astype(np.float32), RNG.standard_normal(sb).astype(np.float32)
    _same(mnp.dot(ms.Tensor(a), ms.Tensor(b)), np.dot(a, b), tol=1e-4)


def test_reductions_with_initial_and_where():
    x = RNG.random((2, 3, 4)).astype(np.float32)
    mask = RNG.random((2, 3, 4)) > 0.3
    t, tm = ms.Tensor(x), ms.Tensor(mask)
    _same(mnp.sum(t, initial=1), np.sum(x, initial=1))
    _same(mnp.sum(t, axis=(0, 2), keepdims=True, initial=0.5, dtype=mnp.float64),
          np.sum(x, axis=(0, 2), keepdims=True, initial=0.5, dtype=np.float64))
    _same(mnp.sum(t, where=tm), np.sum(x, where=mask))
    for fn in ("amax", "amin"):
        m, n = getattr(mnp, fn), getattr(np, fn)
        _same(m(t, initial=0.5), n(x, initial=0.5))
        _same(m(t, axis=(1, 2), initial=0.5, where=tm, keepdims=True),
              n(x, axis=(1, 2), initial=0.5, where=mask, keepdims=True))
        with pytest.raises(TypeError):
            m(t, initial=[1.0, 2.0])
        with pytest.raises(ValueError):
            m(t, where=tm)
    b = ms.Tensor(np.ones((4, 4), bool))
    _same(mnp.cumsum(b), np.cumsum(np.ones((4, 4), bool)))
    _same(mnp.cumsum(ms.Tensor(x > 0.5), axis=1, dtype=mnp.bool_),
          np.cumsum(x > 0.5, axis=1, dtype=bool))
    _same(mnp.diff(t, 0, append=3.0), np.diff(x, 0, append=3.0))
    _same(mnp.polyadd(2.0, [1.0, 3.0]), np.polyadd(2.0, [1.0, 3.0]).astype(np.float32))
    _same(mnp.polymul(ms.Tensor(np.float32(2.0)), ms.Tensor(np.float32(3.0))),
          np.polymul(2.0, 3.0).astype(np.float32))
    i1, i2 = np.arange(-12, 12).reshape(2, 3, 4), np.arange(24).reshape(2, 3, 4)
    _same(mnp.gcd(ms.Tensor(i1.astype(np.float32)), ms.Tensor(i2.astype(np.float32))),
          np.gcd(i1, i2).astype(np.float32))
    _same(mnp.lcm(i1.astype(np.int32), i2.astype(np.int32)), np.lcm(i1, i2).astype(np.int32))


def test_dtype_rules():
    assert mnp.promote_types(int, mnp.bool_) == mnp.int32
    assert mnp.promote_types("float32", mnp.int64) == mnp.float32
    assert mnp.promote_types(int, float) == mnp.float32
    args = ("?", True, mnp.uint16, mnp.ones((2, 3)).astype(mnp.int32))
    want = (mnp.bool_, mnp.bool_, mnp.uint16, mnp.int32)
    for i in range(4):
        assert mnp.result_type(*args[:i + 1]) == want[i]
    assert mnp.result_type(mnp.ones(2).astype(mnp.int32), 2.0) == mnp.float32


def test_histograms():
    x = RNG.integers(-10, 10, 30)
    for bins in [(1, 2, 3), [2], 1, 5]:
        for rng in [None, (2, 20)]:
            got = mnp.histogram(ms.Tensor(x.astype(np.float32)), bins=bins, range=rng)
            _same(got, np.histogram(x, bins=bins, range=rng), dtype=False)
    w = RNG.random(30)
    _same(mnp.histogram(x, bins=4, weights=w, density=True),
          np.histogram(x, bins=4, weights=w, density=True), tol=1e-4, dtype=False)
    s = RNG.integers(-10, 10, (20, 3))
    got = mnp.histogramdd(ms.Tensor(s), bins=(15, 4, 9), range=[[0, 5], [2, 7], [1, 3]])
    want = np.histogramdd(s, bins=(15, 4, 9), range=[[0, 5], [2, 7], [1, 3]])
    _same(got[0], want[0], dtype=False)
    _same(got[1], want[1], tol=1e-5, dtype=False)
    y = RNG.integers(-10, 10, 30)
    for bins in [4, [8, [1, 2, 3]]]:
        got = mnp.histogram2d(ms.Tensor(x), ms.Tensor(y), bins=bins)
        _same(got, np.histogram2d(x, y, bins=bins), tol=1e-5, dtype=False)
    for right in (False, True):
        for edges in ([-5, 0, 3, 7], [7, 3, 0, -5]):
            _same(mnp.digitize(ms.Tensor(x), ms.Tensor(edges), right),
                  np.digitize(x, edges, right), dtype=False)


# ---- GRAPH mode -----------------------------------------------------------------------------
GRAPH_CASES = {
    "linspace_axis": lambda m, a, b: m.linspace(a, b + 2, 5, axis=1),
    "geomspace": lambda m, a, b: m.geomspace(m.abs(a) + 1, 100.0, 4, axis=-1),
    "pad_modes": lambda m, a, b: (m.pad(a, ((1, 2), (3, 0)), mode="reflect", reflect_type="odd")
                                  + m.pad(b, ((1, 2), (3, 0)), mode="mean", stat_length=2)),
    "pad_constant_ramp": lambda m, a, b: (m.pad(a, ((1, 1), (2, 2)), constant_values=((1, 2),
                                                                                       (3, 4)))
                                          + m.pad(b, ((1, 1), (2, 2)), mode="linear_ramp",
                                                  end_values=5)),
    "roll_tile": lambda m, a, b: m.roll(a, (1, -2), (0, 1)) + m.tile(b, 1),
    "where_select": lambda m, a, b: m.where(a > 0, a, b) + m.select([a > 0, b > 0], [a, b], 3),
    "concat_none": lambda m, a, b: m.concatenate((a, b), None),
    "dot_clip": lambda m, a, b: m.clip(m.dot(a, m.transpose(b)), -1.0, 1.0),
    "sum_initial": lambda m, a, b: m.sum(a, axis=1, initial=2.0) + m.amax(b, axis=1, initial=0.5),
    "diff_cumsum": lambda m, a, b: m.diff(a, 2, axis=1).sum() + m.cumsum(b, axis=0),
    "add_dtype": lambda m, a, b: m.add(a, b, dtype=m.float64),
    "full_like": lambda m, a, b: m.full_like(a, 3.0) + m.ones_like(b, dtype=m.float32),
}


@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
def test_graph_mode_matches_numpy(name):
    fn = GRAPH_CASES[name]
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    want = fn(np, a, b)
    eager = fn(mnp, ms.Tensor(a), ms.Tensor(b))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(lambda x, y: fn(mnp, x, y))(ms.Tensor(a), ms.Tensor(b))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, want, tol=1e-4, dtype=False)
    _same(got, _np(eager), tol=1e-6, dtype=False)


def test_ravel_multi_index_graph_mode():
    idx = np.array([[3, 6, 6], [4, 5, 1]], np.int32)
    want = [np.ravel_multi_index(idx, (7, 6)), np.ravel_multi_index(idx, (7, 6), order="F")]

    def fn(t):
        return mnp.ravel_multi_index(t, (7, 6)), mnp.ravel_multi_index(t, (7, 6), order="F")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(fn)(ms.Tensor(idx))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, want, dtype=False)
    _same(fn(ms.Tensor(idx)), want, dtype=False)


def test_fft_submodule_matches_numpy():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    t = ms.Tensor(x)
    for name, kw in [("fft", {"n": 8, "axis": 0}), ("ifft", {"norm": "ortho"}), ("rfft", {}),
                     ("irfft", {"n": 10}), ("hfft", {}), ("ihfft", {})]:
        _same(getattr(mnp.fft, name)(t, **kw), getattr(np.fft, name)(x, **kw), tol=1e-4,
              dtype=False)
    for name, kw in [("fft2", {}), ("ifft2", {"s": (3, 5)}), ("fftn", {"axes": (1,)}),
                     ("ifftn", {}), ("rfft2", {}), ("irfft2", {}), ("rfftn", {}),
                     ("irfftn", {"s": (4, 6)})]:
        _same(getattr(mnp.fft, name)(t, **kw), getattr(np.fft, name)(x, **kw), tol=1e-4,
              dtype=False)
    _same(mnp.fft.fftshift(t), np.fft.fftshift(x))
    _same(mnp.fft.ifftshift(t, axes=1), np.fft.ifftshift(x, axes=1))


@pytest.mark.parametrize("fn", ["convolve", "correlate"])
@pytest.mark.parametrize("kinds", [("f", "f"), ("i", "i"), ("c", "c"), ("c", "f"), ("f", "c"),
                                   ("b", "b")])
def test_convolve_and_correlate_match_numpy(fn, kinds):
    # correlate of a shorter first array came out reversed ([5, 8, 11] for numpy's
    # [11, 8, 5]) and complex inputs lost their imaginary parts (both computed in float32).
    rng = np.random.default_rng(3)

    def make(kind, n):
        if kind == "b":
            return rng.random(n) > 0.5
        if kind == "i":
            return rng.integers(-50, 50, n).astype(np.int32)
        x = rng.standard_normal(n).astype(np.float32)
        return x + 1j * rng.standard_normal(n).astype(np.float32) if kind == "c" else x
    for la, lv in [(5, 3), (3, 5), (4, 4), (1, 6), (7, 1)]:
        a, v = make(kinds[0], la), make(kinds[1], lv)
        for mode in ("full", "same", "valid"):
            got = getattr(mnp, fn)(mnp.asarray(a), mnp.asarray(v), mode).asnumpy()
            want = getattr(np, fn)(a, v, mode)
            assert got.shape == want.shape, (la, lv, mode)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=f"{la} {lv} {mode}")
            if kinds[0] in "ib" and kinds[1] in "ib":
                assert got.dtype.kind == want.dtype.kind  # integer sums stay exact integers
