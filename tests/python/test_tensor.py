"""mycel.Tensor basics against numpy: construction (lists, numpy arrays, scalars, dtypes),
numpy interop that shares memory, indexing and slicing, __setitem__, and printing (str is
numpy's str, repr is MindSpore's)."""
import numpy as np
import pytest

import mycel as ms
from mycel.ops import operations as P

from arrays import NP_DTYPES, make_rand  # noqa: E402

rand = make_rand(0)


def same(got, want):
    got = got.asnumpy() if isinstance(got, ms.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


# ---- construction -------------------------------------------------------------------------------

def test_from_python_lists_and_scalars():
    same(ms.Tensor([1, 2, 3]), np.array([1, 2, 3], np.int64))
    same(ms.Tensor([[1.5, 2], [3, 4]]), np.array([[1.5, 2], [3, 4]], np.float32))
    same(ms.Tensor([True, False]), np.array([True, False]))
    same(ms.Tensor(3), np.array(3, np.int64))
    same(ms.Tensor(2.5), np.array(2.5, np.float32))
    same(ms.Tensor(True), np.array(True))
    assert ms.Tensor(2.5).shape == () and ms.Tensor(2.5).ndim == 0
    same(ms.Tensor([1, 2], ms.float16), np.array([1, 2], np.float16))
    same(ms.Tensor([1.7, -2.2], dtype=ms.int32), np.array([1, -2], np.int32))
    same(ms.Tensor((1, 0, 2), ms.bool_), np.array([True, False, True]))
    same(ms.Tensor(shape=(2, 3), dtype=ms.int8), np.zeros((2, 3), np.int8))
    t = ms.Tensor([1.0, 2.0], ms.bfloat16)
    assert t.dtype == ms.bfloat16
    same(t, np.array([1, 2], np.float32))


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_from_numpy_arrays_keep_dtype(dtype):
    a = rand((3, 4), dtype)
    t = ms.Tensor(a)
    assert t.shape == (3, 4) and t.size == 12 and t.ndim == 2
    assert t.itemsize == a.itemsize and t.nbytes == a.nbytes
    same(t, a)
    same(ms.Tensor(a.T), a.T)            # non-contiguous input
    same(ms.Tensor(a[::2, ::-1]), a[::2, ::-1])
    same(ms.Tensor(a[:1, :1].reshape(())), a[0, 0])    # 0-d array
    same(ms.Tensor(np.zeros((0, 3), dtype)), np.zeros((0, 3), dtype))


def test_tensor_copies_its_input():
    a = np.arange(4.0, dtype=np.float32)
    t = ms.Tensor(a)
    a[0] = 9
    assert t.asnumpy()[0] == 0
    u = ms.Tensor(t)
    t[1] = 7
    assert u.asnumpy()[1] == 1


def test_asnumpy_is_zero_copy():
    t = ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    a = t.asnumpy()
    a[1, 2] = 100
    assert t.asnumpy()[1, 2] == 100
    t[0, 0] = -5
    assert a[0, 0] == -5
    v = t[:, 1:]   # a view: its numpy array points into the same memory
    v.asnumpy()[0, 0] = 42
    assert t.asnumpy()[0, 1] == 42
    del t
    assert a[1, 2] == 100  # the array keeps the storage alive


def test_from_numpy_shares_memory():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = ms.from_numpy(a)
    a[0, 1] = 50
    assert t.asnumpy()[0, 1] == 50
    t[1, 1] = -1
    assert a[1, 1] == -1
    b = np.arange(10, dtype=np.int16)[::2]   # not contiguous: copied
    tb = ms.from_numpy(b)
    b[0] = 99
    same(tb, np.arange(10, dtype=np.int16)[::2])


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i2", ">i8", ">u4", ">c8", ">f2"])
def test_arrays_in_the_other_byte_order_keep_their_values(dtype):
    # A big-endian array's bytes were read as they lie: 1.0 became 4.6e-41 (found by the
    # parse_print fuzz test: numpy's .npy blocks keep the writer's byte order).
    want = np.arange(1, 7).reshape(2, 3).astype(dtype)
    same(ms.Tensor(want), want.astype(want.dtype.newbyteorder("=")))
    same(ms.from_numpy(want), want.astype(want.dtype.newbyteorder("=")))
    same(ms.Tensor(want.T), want.T.astype(want.dtype.newbyteorder("=")))
    same(ms.ops.add(ms.Tensor(np.ones((2, 3), want.dtype.newbyteorder("="))), want), want + 1)


# ---- indexing -----------------------------------------------------------------------------------

def random_basic_index(shape, rng):
    """Ints, slices and None for the first k dims, or (after a leading ...) the last k."""
    k = int(rng.integers(0, len(shape) + 1))
    lead = rng.random() < 0.3
    dims = shape[len(shape) - k:] if lead else shape[:k]
    items = [Ellipsis] if lead else []
    for n in dims:
        while rng.random() < 0.15:
            items.append(None)
        if rng.random() < 0.3:
            items.append(int(rng.integers(-n, n)))
        else:
            lo, hi = int(rng.integers(-n - 2, n + 2)), int(rng.integers(-n - 2, n + 2))
            step = int(rng.choice([-3, -2, -1, 1, 1, 2, 3]))
            items.append(slice(lo if rng.random() < 0.8 else None,
                               hi if rng.random() < 0.8 else None,
                               step if rng.random() < 0.7 else None))
    if rng.random() < 0.2:
        items.append(None)
    return tuple(items)


def test_basic_indexing_matches_numpy():
    rng = np.random.default_rng(3)
    a = rand((4, 5, 6, 3))
    t = ms.Tensor(a)
    for _ in range(400):
        idx = random_basic_index(a.shape, rng)
        same(t[idx], a[idx])


def test_indexing_examples():
    a = rand((4, 5, 6))
    t = ms.Tensor(a)
    same(t[-1], a[-1])
    same(t[1, -2], a[1, -2])
    same(t[1, 2, 3], a[1, 2, 3])
    same(t[::-1, 1::2, :-1], a[::-1, 1::2, :-1])
    same(t[None, ..., None], a[None, ..., None])
    same(t[..., 2], a[..., 2])
    same(t[:, None, 3], a[:, None, 3])
    same(t[10:], a[10:])
    same(t[()], a)


def test_tensor_and_mask_indices():
    a = rand((5, 4, 3))
    t = ms.Tensor(a)
    idx = np.array([4, 0, -1, 2])
    same(t[ms.Tensor(idx)], a[idx])
    same(t[:, ms.Tensor(np.array([[3, 0], [1, 1]], np.int32))], a[:, np.array([[3, 0], [1, 1]])])
    same(t[1:, ..., ms.Tensor(np.array([2, 0]))], a[1:, ..., np.array([2, 0])])
    same(t[[0, 2]], a[[0, 2]])
    mask = a[:, :, 0] > 0
    same(t[ms.Tensor(mask)], a[mask])
    m1 = np.array([True, False, True, True, False])
    same(t[ms.Tensor(m1)], a[m1])
    same(t[ms.Tensor(a > 0.5)], a[a > 0.5])


def test_index_errors():
    t = ms.Tensor(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension .* size 4"):
        t[0, -5]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="Gather.*index 7"):
        t[ms.Tensor(np.array([0, 7]))]
    with pytest.raises(IndexError, match="integer or bool"):
        t[ms.Tensor(np.array([0.5]))]


# ---- __setitem__ ----------------------------------------------------------------------------------

def test_setitem_scalars_tensors_broadcast():
    a = rand((4, 5, 3))
    t = ms.Tensor(a)
    w = a.copy()
    t[1] = 2.5
    w[1] = 2.5
    t[:, 1:4:2] = ms.Tensor(np.arange(3, dtype=np.float32))   # broadcast along two dims
    w[:, 1:4:2] = np.arange(3, dtype=np.float32)
    t[-1, ::-1, 0] = ms.Tensor(np.arange(5, dtype=np.float64))  # cast to the tensor's dtype
    w[-1, ::-1, 0] = np.arange(5)
    t[..., 2] = 7
    w[..., 2] = 7
    t[None, 0, 0] = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    w[None, 0, 0] = [[1.0, 2.0, 3.0]]
    same(t, w)


def test_setitem_with_tensor_indices_and_masks():
    a = rand((5, 3), np.int32)
    t = ms.Tensor(a)
    w = a.copy()
    t[ms.Tensor(np.array([4, 0]))] = 9
    w[[4, 0]] = 9
    t[:, ms.Tensor(np.array([2, 0]))] = 6
    w[:, [2, 0]] = 6
    t[ms.Tensor(np.array([1, 3], np.int32))] = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    w[[1, 3]] = [[1, 2, 3], [4, 5, 6]]
    t[ms.Tensor(np.array([2]))] = ms.Tensor(np.array([7, 8, 9], np.int32))   # broadcast rows
    w[[2]] = [7, 8, 9]
    mask = a > 0
    t[ms.Tensor(mask)] = -1
    w[mask] = -1
    same(t, w)
    rows = np.array([True, False, True, False, False])
    t[ms.Tensor(rows)] = ms.Tensor(np.array([10, 20, 30], np.int32))
    w[rows] = [10, 20, 30]
    same(t, w)


def test_setitem_through_a_view_writes_the_base():
    t = ms.Tensor(np.zeros((3, 4), np.float32))
    v = t[1:, ::2]
    v[:] = 1
    want = np.zeros((3, 4), np.float32)
    want[1:, ::2] = 1
    same(t, want)


# ---- printing -----------------------------------------------------------------------------------

def random_array(rng):
    nd = int(rng.integers(0, 5))
    shape = tuple(int(s) for s in rng.integers(0, 8 if nd > 1 else 30, size=nd))
    dt = NP_DTYPES[int(rng.integers(0, len(NP_DTYPES)))]
    if dt == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if np.issubdtype(dt, np.integer):
        hi = 100 if dt in (np.int8, np.uint8) else 100000
        lo = 0 if dt == np.uint8 else -hi
        return np.asarray(rng.integers(lo, hi, size=shape).astype(dt))
    scale = 10.0 ** int(rng.integers(-10, 12 if dt != np.float16 else 4))
    a = rng.standard_normal(shape) * scale
    mode = int(rng.integers(0, 4))
    if mode == 1:
        a = np.round(a)
    if mode == 2 and a.size:
        a.flat[int(rng.integers(0, a.size))] = [np.nan, np.inf, -np.inf][int(rng.integers(0, 3))]
    return np.asarray(a.astype(dt))


def test_str_matches_numpy_for_many_arrays():
    rng = np.random.default_rng(5)
    for _ in range(1500):
        a = random_array(rng)
        assert str(ms.Tensor(a)) == str(a), (a.dtype, a.shape)


@pytest.mark.parametrize("a", [
    np.arange(2000, dtype=np.float32) / 7,                 # summarised 1-d
    np.arange(3000).reshape(30, 100),                      # summarised 2-d, wrapped rows
    np.arange(24000, dtype=np.float64).reshape(10, 20, 120) * 1e9,
    np.arange(1001, dtype=np.int8),
    np.ones((2, 600), bool),
    np.linspace(-1, 1, 60, dtype=np.float32),              # line wrapping
    np.array([1e-5, 1.0, 1e5], np.float32),                # scientific
    np.array([1e8, 2.0]),
    np.array([1.5, np.nan, -np.inf], np.float16),
    np.array([np.nan, np.inf]),
    np.array([-0.0, 0.0, 1.0]),
    np.array([0.1, 0.2, 0.3], np.float32),
    np.array([123456.789, 0.001]),
    np.array([[1, -22], [333, 4]], np.int64),
    np.zeros((2, 0, 3)),
    np.zeros((0,), np.int32),
    np.array(3.0, np.float32),
    np.array(1e20),
    np.array(-2.5e-7, np.float32),
    np.array(7, np.uint8),
    np.array(False),
    np.array(np.nan, np.float16),
])
def test_str_examples(a):
    assert str(ms.Tensor(a)) == str(a)


def test_str_of_views_and_float16_values():
    a = rand((6, 7))
    assert str(ms.Tensor(a)[::-2, 1::3]) == str(a[::-2, 1::3])
    assert str(ms.Tensor(a).T) == str(a.T)
    h = np.arange(0, 65536, 97, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    for v in h:
        assert str(ms.Tensor(np.array([v]))) == str(np.array([v]))
        assert str(ms.Tensor(np.asarray(v))) == str(np.asarray(v))


def test_print_of_mul_result(capsys):
    x = ms.Tensor(np.array([1, 2, 3], np.float32))
    y = ms.Tensor(np.array([4, 5, 6], np.float32))
    print(P.Mul()(x, y))
    assert capsys.readouterr().out == str(np.array([4, 10, 18], np.float32)) + "\n"


def test_repr_is_mindspores():
    # MindSpore 2.x: value= then the elements in its own %.8e style, comma separated.
    assert repr(ms.Tensor(np.array([4, 10, 18], np.float32))) == (
        "Tensor(shape=[3], dtype=Float32, value= "
        "[ 4.00000000e+00,  1.00000000e+01,  1.80000000e+01])")
    assert repr(ms.Tensor(np.array([1, 2, 3], np.int32))) == \
        "Tensor(shape=[3], dtype=Int32, value= [1, 2, 3])"
    assert repr(ms.Tensor(np.array([[1, 20], [300, 4]]))) == (
        "Tensor(shape=[2, 2], dtype=Int64, value=\n[[  1,  20],\n [300,   4]])")
    assert repr(ms.Tensor(np.array([True, False]))) == \
        "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert repr(ms.Tensor(np.array([1.5, -2], np.float16))) == \
        "Tensor(shape=[2], dtype=Float16, value= [ 1.5000e+00, -2.0000e+00])"
    assert repr(ms.Tensor(2.5)) == "Tensor(shape=[], dtype=Float32, value= 2.5)"
    r = repr(ms.Tensor(np.arange(70).reshape(7, 10)))
    rows = r.split("\n")
    assert rows[0] == "Tensor(shape=[7, 10], dtype=Int64, value="
    assert rows[1] == "[[ 0,  1,  2 ...  7,  8,  9],"
    assert rows[4] == " ..."
    assert rows[5] == " [40, 41, 42 ... 47, 48, 49],"
    assert rows[-1] == " [60, 61, 62 ... 67, 68, 69]])"
