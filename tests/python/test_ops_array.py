"""The array family through the Python primitives, against numpy: views (Reshape, Transpose,
ExpandDims, Squeeze, Flatten, BroadcastTo, StridedSlice), joins and splits, Tile, Pad, Range,
the gather/scatter ops and OneHot; eager views share memory; and the errors bad input raises."""
import numpy as np
import pytest

import mycel as ms
from mycel.ops import operations as P

from arrays import NP_DTYPES, make_rand  # noqa: E402

rand = make_rand(0)
RNG = np.random.default_rng(1)


def T(a):
    return ms.Tensor(np.array(a, order="C"))


def same(got, want):
    got = got.asnumpy()
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def close(got, want, rtol=1e-5, atol=1e-6):
    got = got.asnumpy()
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=rtol,
                               atol=atol)


# ---- views ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_view_ops_all_dtypes(dtype):
    a = rand((3, 1, 4, 5), dtype)
    x = T(a)
    same(P.Reshape()(x, (5, -1, 3)), a.reshape(5, -1, 3))
    same(P.Transpose()(x, (3, 1, 0, 2)), a.transpose(3, 1, 0, 2))
    same(P.ExpandDims()(x, -1), np.expand_dims(a, -1))
    same(P.Squeeze()(x), np.squeeze(a))
    same(P.Flatten()(x), a.reshape(3, -1))
    same(P.BroadcastTo((2, 3, 6, 4, 5))(x), np.broadcast_to(a, (2, 3, 6, 4, 5)))
    same(P.StridedSlice()(x, (2, 0, 3), (0, 1, 0), (-1, 1, -2)), a[2:0:-1, 0:1, 3:0:-2])


@pytest.mark.parametrize("shape,target", [((7, 33), (33, 7)), ((2, 3, 4), (-1,)), ((6,), (2, -1, 1)),
                                          ((0, 5), (5, 0)), ((), (1, 1)), ((1, 1), ())])
def test_reshape(shape, target):
    a = rand(shape)
    same(P.Reshape()(T(a), target), a.reshape(target))


def test_reshape_of_strided_views():
    a = rand((6, 8))
    x = P.Transpose()(T(a), (1, 0))           # a view
    same(P.Reshape()(x, (4, 12)), a.T.reshape(4, 12))  # needs a copy
    s = T(a)[:, ::2]
    same(P.Reshape()(s, (24,)), a[:, ::2].reshape(24))
    b = rand((3, 4, 5))
    same(P.Flatten()(P.Transpose()(T(b), (2, 0, 1))), b.transpose(2, 0, 1).reshape(5, 12))


def test_eager_views_share_memory():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = T(a)
    for view in (P.Reshape()(x, (6, 4)), P.Transpose()(x, (2, 1, 0)), P.ExpandDims()(x, 1),
                 P.Flatten()(x), P.StridedSlice()(x, (0, 0, 0), (2, 3, 4), (1, 1, 1))):
        view[...] = 0
        assert x.asnumpy().sum() == 0
        x[...] = T(a)
    y = P.StridedSlice()(x, (1, 2, 3), (0, 0, 0), (-1, -1, -2))  # negative strides: a view too
    y[...] = -1
    expect = a.copy()
    expect[1:0:-1, 2:0:-1, 3:0:-2] = -1
    same(x, expect)


def test_transpose_large_and_negative_perm():
    a = rand((300, 517))
    same(P.Transpose()(T(a), (-1, 0)), a.T)
    b = rand((4, 16, 9, 8), np.float16)
    same(P.Transpose()(T(b), (0, 2, 1, 3)), b.transpose(0, 2, 1, 3))
    same(P.Transpose()(T(np.float32(3)), ()), np.float32(3))


def test_expand_dims_squeeze_flatten():
    a = rand((1, 7, 1, 3))
    for axis in (-5, -1, 0, 2, 4):
        same(P.ExpandDims()(T(a), axis), np.expand_dims(a, axis))
    same(P.Squeeze(0)(T(a)), np.squeeze(a, 0))
    same(P.Squeeze((-2, 0))(T(a)), np.squeeze(a, (-2, 0)))
    same(P.Squeeze()(T(np.float32(2))), np.float32(2))
    same(P.Flatten()(T(np.arange(5))), np.arange(5).reshape(5, 1))
    same(P.Flatten()(T(np.zeros((0, 3)))), np.zeros((0, 3)))


def test_broadcast_to():
    a = rand((3, 1))
    same(P.BroadcastTo((-1, 4))(T(a)), np.broadcast_to(a, (3, 4)))
    same(P.BroadcastTo((2, 3, 5))(T(a)), np.broadcast_to(a, (2, 3, 5)))
    same(P.BroadcastTo((4, 2))(T(np.int8(5))), np.full((4, 2), 5, np.int8))


# ---- StridedSlice -----------------------------------------------------------------------------

def random_slice(ndim, rng):
    """(begin, end, strides, masks, the equivalent numpy index tuple)."""
    n = int(rng.integers(0, ndim + 1))
    ell_at = int(rng.integers(0, n)) if n and rng.random() < 0.4 else -1
    begin, end, strides, items = [], [], [], []
    bm = em = ell = na = sh = 0
    dims_used = 0
    for i in range(n):
        b, e = int(rng.integers(-8, 9)), int(rng.integers(-8, 9))
        s = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        kind = rng.random()
        if i == ell_at:
            ell |= 1 << i
            items.append(Ellipsis)
        elif kind < 0.15:
            na |= 1 << i
            items.append(None)
        elif kind < 0.3 and dims_used < ndim:
            sh |= 1 << i
            b = int(rng.integers(-3, 3))
            items.append(b)
            dims_used += 1
        elif dims_used < ndim:
            start, stop = b, e
            if rng.random() < 0.3:
                bm |= 1 << i
                start = None
            if rng.random() < 0.3:
                em |= 1 << i
                stop = None
            items.append(slice(start, stop, s))
            dims_used += 1
        else:
            na |= 1 << i
            items.append(None)
        begin.append(b)
        end.append(e)
        strides.append(s)
    return begin, end, strides, (bm, em, ell, na, sh), tuple(items)


def test_strided_slice_matches_numpy_slicing():
    rng = np.random.default_rng(1)
    for trial in range(300):
        shape = tuple(int(d) for d in rng.integers(3, 7, size=int(rng.integers(1, 4))))
        a = rand(shape)
        begin, end, strides, masks, items = random_slice(len(shape), rng)
        got = P.StridedSlice(*masks)(T(a), tuple(begin), tuple(end), tuple(strides))
        same(got, a[items])


def test_strided_slice_masks_explicit():
    a = rand((4, 5, 6))
    x = T(a)
    same(P.StridedSlice(1, 3)(x, (3, 1), (0, 2), (1, 1)), a[:, 1:])
    same(P.StridedSlice(1, 2)(x, (3, 1), (2, 2), (1, 1)), a[:2, 1:])
    same(P.StridedSlice(0, 0, 1)(x, (0, 1), (0, 3), (1, 1)), a[..., 1:3])
    same(P.StridedSlice(0, 0, 0, 0b10)(x, (1, 0, 2), (3, 0, 5), (1, 1, 1)), a[1:3, None, 2:5])
    same(P.StridedSlice(0, 0, 0, 0, 0b101)(x, (-1, 1, 2), (0, 5, 0), (1, 2, 1)), a[-1, 1:5:2, 2])
    same(P.StridedSlice()(x, (-100, 100), (100, -100), (1, -1)), a[-100:100, 100:-100:-1])
    same(P.StridedSlice()(x, (3,), (1,), (1,)), a[3:1])


def test_strided_slice_with_huge_strides():
    # |stride| up to 2**63: one element, as numpy gives (no overflow in the length or the
    # view's stride).
    a = rand((5, 3))
    x = T(a)
    for st in (2**62, 2**63 - 1):
        same(P.StridedSlice()(x, (0, 0), (5, 3), (st, 1)), a[0:5:st, 0:3])
        same(P.StridedSlice()(x, (4, 0), (-6, 3), (-st, 1)), a[4:-6:-st, 0:3])
    same(P.StridedSlice()(x, (4, 0), (-6, 3), (-2**63, 1)), a[4::-(2**63), 0:3])
    same(P.StridedSlice()(x, (1, 0), (5, 3), (2**62, 2**62)), a[1:5:2**62, 0:3:2**62])


def test_strided_slice_grad():
    rng = np.random.default_rng(2)
    for trial in range(60):
        shape = tuple(int(d) for d in rng.integers(2, 6, size=int(rng.integers(1, 4))))
        begin, end, strides, masks, items = random_slice(len(shape), rng)
        dy = rand(np.zeros(shape)[items].shape)
        got = P.StridedSliceGrad(*masks)(T(dy), shape, tuple(begin), tuple(end), tuple(strides))
        want = np.zeros(shape, np.float32)
        want[items] = dy
        same(got, want)


# ---- joins, splits, Tile, Pad, Range ------------------------------------------------------------

def test_concat_stack_split():
    a, b, c = rand((2, 3, 4)), rand((2, 1, 4)), rand((2, 5, 4))
    same(P.Concat(1)((T(a), T(b), T(c))), np.concatenate([a, b, c], 1))
    same(P.Concat(-1)((T(a), T(a))), np.concatenate([a, a], -1))
    same(P.Concat()([T(np.zeros((0, 2))), T(np.ones((3, 2)))]), np.ones((3, 2)))
    i, f = rand((2, 3), np.int32), rand((4, 3), np.float32)
    same(P.Concat()((T(i), T(f))), np.concatenate([i.astype(np.float32), f]))
    same(P.Stack()((T(a), T(a), T(a))), np.stack([a, a, a]))
    same(P.Stack(-1)((T(a), T(a))), np.stack([a, a], -1))
    same(P.Stack()((T(np.int64(1)), T(np.int64(2)))), np.array([1, 2]))
    parts = P.Split(1, 3)(T(rand((2, 6, 5))))
    assert isinstance(parts, tuple) and len(parts) == 3
    big = rand((4, 9, 2), np.int16)
    for got, want in zip(P.Split(-2, 3)(T(big)), np.split(big, 3, -2)):
        same(got, want)
    same(P.Split(0, 1)(T(big))[0], big)


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_joins_all_dtypes(dtype):
    a, b = rand((3, 4), dtype), rand((2, 4), dtype)
    same(P.Concat()((T(a), T(b))), np.concatenate([a, b]))
    same(P.Stack(1)((T(a), T(a))), np.stack([a, a], 1))
    same(P.Split(1, 2)(T(a))[1], a[:, 2:])
    same(P.Tile()(T(a), (2, 1, 3)), np.tile(a, (2, 1, 3)))
    same(P.Pad(((1, 0), (2, 1)))(T(a)), np.pad(a, ((1, 0), (2, 1))))


def test_tile():
    a = rand((7, 3))
    same(P.Tile()(T(a), (2, 3)), np.tile(a, (2, 3)))
    same(P.Tile()(T(a), (2, 1, 2)), np.tile(a, (2, 1, 2)))
    same(P.Tile()(T(a), (0, 2)), np.tile(a, (0, 2)))
    same(P.Tile()(T(np.float32(2.5)), (3,)), np.tile(np.float32(2.5), 3))
    col = rand((1000, 1))
    same(P.Tile()(T(col), (1, 300)), np.tile(col, (1, 300)))


def test_pad():
    a = rand((3, 4, 5))
    same(P.Pad(((0, 0), (2, 1), (1, 3)))(T(a)), np.pad(a, ((0, 0), (2, 1), (1, 3))))
    same(P.Pad(((1, 2),), value=-1.5)(T(a[0, 0])),
         np.pad(a[0, 0], (1, 2), constant_values=-1.5))
    same(P.Pad(((1, 1), (0, 2)), value=7)(T(np.zeros((0, 2), np.int32))),
         np.pad(np.zeros((0, 2), np.int32), ((1, 1), (0, 2)), constant_values=7))


@pytest.mark.parametrize("args", [(0, 10, 3), (10, 0, -3), (3, 1, 1), (0.5, 2.0, 0.25),
                                  (5.0, -2.5, -0.5), (-3, 7, 2), (1, 2, 5)])
def test_range(args):
    got = P.Range()(*args)
    want = np.arange(*args)
    if all(isinstance(v, int) for v in args):
        same(got, want.astype(np.int64))
    else:
        close(got, want.astype(np.float32))


def test_range_large():
    same(P.Range()(-3, 300000, 1), np.arange(-3, 300000, dtype=np.int64))


# ---- gather and scatter ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_gather_all_dtypes(dtype):
    a = rand((5, 6, 7), dtype)
    idx = np.array([[4, -1], [0, 2]], np.int32)
    same(P.Gather()(T(a), T(idx), 1), np.take(a, idx % 6, axis=1))


def test_gather():
    a = rand((7, 33))
    for axis in (0, 1, -1, -2):
        n = a.shape[axis]
        idx = RNG.integers(-n, n, size=(3, 4)).astype(np.int64)
        same(P.Gather()(T(a), T(idx), axis), np.take(a, idx % n, axis=axis))
    same(P.Gather()(T(a), T(np.int64(-2)), 0), a[-2])
    same(P.Gather()(T(a), T(np.zeros((0,), np.int32)), 1), a[:, :0])
    big = rand((1000, 300))
    idx = RNG.integers(0, 1000, 1031)
    same(P.Gather()(T(big), T(idx), 0), big[idx])


def test_gather_batch_dims():
    a = rand((3, 4, 5))
    idx = RNG.integers(-4, 4, size=(3, 6)).astype(np.int32)
    want = np.stack([np.take(a[b], idx[b] % 4, axis=0) for b in range(3)])
    same(P.Gather(batch_dims=1)(T(a), T(idx), 1), want)
    same(P.Gather(batch_dims=-1)(T(a), T(idx), 1), want)


def test_unsorted_segment_sum():
    x = rand((9, 4))
    ids = np.array([0, 2, -1, 2, 5, 1, 0, 3, 7], np.int32)   # -1, 5 and 7 are dropped
    want = np.zeros((5, 4), np.float64)
    for i, s in enumerate(ids):
        if 0 <= s < 5:
            want[s] += x[i]
    close(P.UnsortedSegmentSum()(T(x), T(ids), 5), want)
    xi = rand((3, 4, 2), np.int32)
    ids2 = RNG.integers(0, 3, size=(3, 4))
    want2 = np.zeros((3, 2), np.int64)
    np.add.at(want2, ids2, xi)
    same(P.UnsortedSegmentSum()(T(xi), T(ids2), 3), want2.astype(np.int32))


def test_gather_d_and_grad():
    x = rand((4, 5, 6))
    for dim in (0, 1, 2, -1):
        n = x.shape[dim]
        idx_shape = list(x.shape)
        idx_shape[dim] = 3
        idx_shape[(dim + 1) % 3] -= 1
        idx = RNG.integers(-n, n, size=idx_shape).astype(np.int64)
        sub = x[tuple(slice(0, s) if d != dim % 3 else slice(None)
                      for d, s in enumerate(idx_shape))]
        same(P.GatherD()(T(x), dim, T(idx)), np.take_along_axis(sub, idx % n, dim))
        dout = rand(idx_shape)
        want = np.zeros(x.shape, np.float64)
        ii = np.indices(idx_shape)
        target = list(ii)
        target[dim % 3] = idx % n
        np.add.at(want, tuple(target), dout)
        close(P.GatherDGrad(dim, x.shape)(T(idx), T(dout)), want, rtol=1e-5, atol=1e-5)


def test_scatter_nd_accumulates_duplicates():
    idx = np.array([[0, 1], [2, 0], [0, 1], [1, 1]], np.int32)
    upd = rand((4, 3))
    want = np.zeros((3, 2, 3), np.float64)
    for k, (i, j) in enumerate(idx):
        want[i, j] += upd[k]
    close(P.ScatterNd()(T(idx), T(upd), (3, 2, 3)), want)
    idx1 = np.array([[1], [3], [1]])
    upd1 = rand((3,), np.int64)
    want1 = np.zeros(5, np.int64)
    np.add.at(want1, idx1[:, 0], upd1)
    same(P.ScatterNd()(T(idx1), T(upd1), (5,)), want1)


def test_tensor_scatter_update():
    x = rand((5, 4, 3), np.float16)
    idx = np.array([[4], [0], [2]])
    upd = rand((3, 4, 3), np.float16)
    want = x.copy()
    want[[4, 0, 2]] = upd
    same(P.TensorScatterUpdate()(T(x), T(idx), T(upd)), want)
    idx2 = np.array([[1, 3], [4, 0]], np.int32)
    upd2 = rand((2, 3), np.float16)
    want2 = x.copy()
    want2[1, 3] = upd2[0]
    want2[4, 0] = upd2[1]
    same(P.TensorScatterUpdate()(T(x), T(idx2), T(upd2)), want2)
    same(T(x), x)  # the input is not modified


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    ind = np.array([[0, 3, -1], [2, 5, 1]], np.int32)   # -1 and 5 are all-off rows
    depth = 4
    eye = np.vstack([np.eye(depth), np.zeros((1, depth))])
    base = eye[np.where((ind >= 0) & (ind < depth), ind, depth)]   # [2, 3, depth]
    want = np.moveaxis(base, -1, axis if axis >= 0 else 2) * 5.0 + (1 - np.moveaxis(
        base, -1, axis if axis >= 0 else 2)) * -2.0
    close(P.OneHot(axis)(T(ind), depth, 5.0, -2.0), want)
    on = ms.Tensor(np.array(1, np.int32))
    got = P.OneHot(axis)(T(ind), depth, on, ms.Tensor(np.array(0, np.int32)))
    assert got.dtype == ms.int32


# ---- errors -------------------------------------------------------------------------------------

def ones(shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


ERRORS = [
    (lambda: P.Reshape()(ones((2, 3)), (4, 2)), ValueError,
     r"For 'Reshape', cannot reshape a tensor of shape \[2, 3\] \(6 elements\) to \[4, 2\]"),
    (lambda: P.Reshape()(ones((2, 3)), (-1, -1)), ValueError, r"For 'Reshape'.*only one"),
    (lambda: P.Transpose()(ones((2, 3, 4)), (0, 1, 1)), ValueError,
     r"For 'Transpose', the permutation \[0, 1, 1\] repeats axis 1"),
    (lambda: P.Transpose()(ones((2, 3)), (0,)), ValueError, r"For 'Transpose'.*\[2, 3\]"),
    (lambda: P.Transpose()(ones((2, 3)), (0, 2)), ValueError, r"For 'Transpose'.*perm"),
    (lambda: P.ExpandDims()(ones((2, 3)), 3), ValueError, r"For 'ExpandDims'.*\[-3, 3\)"),
    (lambda: P.Squeeze(1)(ones((2, 3))), ValueError, r"For 'Squeeze'.*axis 1 of size 3"),
    (lambda: P.Flatten()(ones(())), ValueError, r"For 'Flatten'"),
    (lambda: P.BroadcastTo((4, 3))(ones((2, 3))), ValueError,
     r"For 'BroadcastTo', cannot broadcast shape \[2, 3\] to \[4, 3\]"),
    (lambda: P.BroadcastTo((-1, 2, 3))(ones((2, 3))), ValueError, r"For 'BroadcastTo'.*-1"),
    (lambda: P.StridedSlice()(ones((4, 5)), (0, 0), (2, 2), (1, 0)), ValueError,
     r"For 'StridedSlice', the 'strides' must not contain 0"),
    (lambda: P.StridedSlice()(ones((4, 5)), (0,), (2, 2), (1, 1)), ValueError,
     r"For 'StridedSlice'.*same length"),
    (lambda: P.StridedSlice()(ones((4,)), (0, 0), (1, 1), (1, 1)), ValueError,
     r"For 'StridedSlice'.*\[4\]"),
    (lambda: P.StridedSlice(0, 0, 0, 0, 1)(ones((4, 5)), (4,), (5,), (1,)), IndexError,
     r"For 'StridedSlice', the index 4 .*\[-4, 4\)"),
    (lambda: P.StridedSlice(0, 0, 0b11)(ones((4, 5)), (0, 0), (1, 1), (1, 1)), ValueError,
     r"ellipsis_mask"),
    (lambda: P.StridedSliceGrad()(ones((3,)), (4, 5), (0,), (2,), (1,)), ValueError,
     r"For 'StridedSliceGrad'.*\[3\].*\[2, 5\]"),
    (lambda: P.Concat()((ones((2, 3)), ones((3, 4)))), ValueError,
     r"For 'Concat', the shapes of the inputs must be equal except at axis 0, but got \[2, 3\] "
     r"and \[3, 4\]"),
    (lambda: P.Concat()((ones((2, 3)), ones((2, 3, 1)))), ValueError, r"For 'Concat'"),
    (lambda: P.Concat()((ones(()), ones(()))), ValueError, r"For 'Concat'.*at least 1"),
    (lambda: P.Stack()((ones((2, 3)), ones((3, 2)))), ValueError,
     r"For 'Stack'.*\[2, 3\] and \[3, 2\]"),
    (lambda: P.Split(1, 3)(ones((2, 7))), ValueError,
     r"For 'Split', the size 7 of axis 1 must be divisible by output_num 3"),
    (lambda: P.Split(0, 0)(ones((2, 7))), ValueError, r"For 'Split'.*output_num"),
    (lambda: P.Tile()(ones((2, 3)), (2,)), ValueError, r"For 'Tile'.*\[2, 3\]"),
    (lambda: P.Tile()(ones((2, 3)), (2, -1)), ValueError, r"For 'Tile'.*negative"),
    (lambda: P.Pad(((1, 1),))(ones((2, 3))), ValueError, r"For 'Pad'.*\[2, 3\]"),
    (lambda: P.Pad(((1, -1), (0, 0)))(ones((2, 3))), ValueError, r"For 'Pad'.*negative"),
    (lambda: P.Range()(0, 5, 0), ValueError, r"For 'Range', delta must not be 0"),
    (lambda: P.Gather()(ones((3, 2)), ms.Tensor(np.array([0, 7], np.int32)), 0), IndexError,
     r"For 'Gather', the index 7 is out of range \[-3, 3\) for axis 0 of size 3"),
    (lambda: P.Gather()(ones((3, 2)), ms.Tensor(np.array([-4])), 0), IndexError,
     r"For 'Gather', the index -4 .* size 3"),
    (lambda: P.Gather()(ones((3, 2)), ones((2,)), 0), TypeError,
     r"For 'Gather'.*int32 or int64.*Float32"),
    (lambda: P.Gather()(ones((3, 2)), ms.Tensor(np.array([0])), 2), ValueError,
     r"For 'Gather'.*axis"),
    (lambda: P.Gather(batch_dims=1)(ones((3, 2)), ms.Tensor(np.zeros((4, 1), np.int32)), 1),
     ValueError, r"For 'Gather'.*batch"),
    (lambda: P.UnsortedSegmentSum()(ones((3, 2)), ms.Tensor(np.zeros(4, np.int32)), 2),
     ValueError, r"For 'UnsortedSegmentSum'.*\[4\].*\[3, 2\]"),
    (lambda: P.GatherD()(ones((3, 2)), 0, ms.Tensor(np.array([[3, 0]]))), IndexError,
     r"For 'GatherD', the index 3 is out of range"),
    (lambda: P.GatherD()(ones((3, 2)), 0, ms.Tensor(np.zeros((1, 3), np.int64))), ValueError,
     r"For 'GatherD'.*\[1, 3\].*\[3, 2\]"),
    (lambda: P.ScatterNd()(ms.Tensor(np.array([[3]])), ones((1, 2)), (3, 2)), IndexError,
     r"For 'ScatterNd', the index 3 in 'indices' is out of range \[0, 3\)"),
    (lambda: P.ScatterNd()(ms.Tensor(np.array([[1]])), ones((1, 3)), (3, 2)), ValueError,
     r"For 'ScatterNd'.*\[1, 2\].*\[1, 3\]"),
    (lambda: P.TensorScatterUpdate()(ones((3, 2)), ms.Tensor(np.array([[1]])),
                                     ones((1, 2), np.float64)), TypeError,
     r"For 'TensorScatterUpdate'.*Float32.*Float64"),
    (lambda: P.OneHot()(ones((3,)), 4), TypeError, r"For 'OneHot'.*integer.*Float32"),
    (lambda: P.OneHot(axis=3)(ms.Tensor(np.zeros(3, np.int32)), 4), ValueError,
     r"For 'OneHot'.*axis"),
]


@pytest.mark.parametrize("fn,exc,pattern", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()


def test_failed_gather_leaves_nothing_behind():
    x = ones((3, 2))
    with pytest.raises(IndexError):
        P.Gather()(x, ms.Tensor(np.array([0, 9])), 0)
    same(P.Gather()(x, ms.Tensor(np.array([2, 0])), 0), np.ones((2, 2), np.float32))
