"""The linalg family through the Python primitives, against numpy and PyTorch: MatMul and
BatchMatMul over every numeric dtype, both transposes, odd and zero sizes, broadcast batch
dims and rank-2 operands against batches; BiasAdd in NCHW / NHWC / NCDHW; and the errors bad
input raises."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel.ops import operations as P

RNG = np.random.default_rng(1)

NUMERIC = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


def rand(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        lo = 0 if dtype == np.uint8 else -12
        return RNG.integers(lo, 12, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def op_t(x, transpose):
    return np.swapaxes(x, -1, -2) if transpose else x


def numpy_matmul(a, b, ta, tb):
    a, b = op_t(a, ta), op_t(b, tb)
    if np.issubdtype(a.dtype, np.integer):
        # Exact in int64, then wrapped to the input width as the op's own dtype does.
        return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


def check(got, want, dtype, k):
    got = got.asnumpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        scale = np.sqrt(max(k, 1))
        tol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[dtype] * scale
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 4)


MATMUL_SHAPES = [((7, 33), (33, 5)), ((1, 1), (1, 1)), ((1, 33), (33, 1)), ((65, 17), (17, 130)),
                 ((101, 300), (300, 67)), ((0, 5), (5, 3)), ((4, 0), (0, 3)), ((4, 5), (5, 0))]


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy(sa, sb, ta, tb, dtype):
    a = rand(sa[::-1] if ta else sa, dtype)
    b = rand(sb[::-1] if tb else sb, dtype)
    got = P.MatMul(transpose_a=ta, transpose_b=tb)(ms.Tensor(a), ms.Tensor(b))
    check(got, numpy_matmul(a, b, ta, tb).astype(dtype), dtype, sa[1])


def test_matmul_bfloat16():
    a = ms.Tensor(rand((37, 64), np.float32)).astype(ms.bfloat16)
    b = ms.Tensor(rand((64, 29), np.float32)).astype(ms.bfloat16)
    got = P.MatMul()(a, b)
    assert got.dtype == ms.bfloat16
    want = a.asnumpy().astype(np.float64) @ b.asnumpy().astype(np.float64)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-2, atol=5e-2)


def test_matmul_big_float32_matches_torch():
    a = rand((300, 257), np.float32)
    b = rand((257, 301), np.float32)
    got = P.MatMul()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    want = torch.matmul(torch.from_numpy(a).double(), torch.from_numpy(b).double()).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    got_t = P.MatMul(transpose_a=True, transpose_b=True)(ms.Tensor(a.T.copy()),
                                                         ms.Tensor(b.T.copy())).asnumpy()
    np.testing.assert_allclose(got_t, want, rtol=1e-4, atol=1e-4)


def test_matmul_big_float64_and_int():
    a = rand((200, 520), np.float64)
    b = rand((520, 2100), np.float64)
    np.testing.assert_allclose(P.MatMul()(ms.Tensor(a), ms.Tensor(b)).asnumpy(), a @ b,
                               rtol=1e-11, atol=1e-11)
    ai = rand((131, 300), np.int32)
    bi = rand((2100, 300), np.int32)
    got = P.MatMul(transpose_b=True)(ms.Tensor(ai), ms.Tensor(bi)).asnumpy()
    np.testing.assert_array_equal(got, ai @ bi.T)


def test_matmul_integer_overflow_wraps():
    a = np.full((2, 40), 100, np.int8)
    b = np.full((40, 3), 100, np.int8)
    got = P.MatMul()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_array_equal(got, np.full((2, 3), np.int64(400000).astype(np.int8)))


BMM_SHAPES = [  # (x1 shape, x2 shape) before the transposes
    ((3, 7, 5), (3, 5, 4)), ((2, 1, 9, 5), (3, 5, 4)), ((4, 6, 5), (5, 3)), ((6, 5), (2, 4, 5, 3)),
    ((2, 4, 6, 5), (5, 3)), ((1, 7, 5), (3, 5, 4)), ((96, 16, 24), (96, 24, 16)),
    ((0, 3, 4), (0, 4, 5)), ((2, 3, 0), (2, 0, 5)), ((5, 1, 2, 3), (1, 4, 3, 2)),
]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float16, np.float32,
                                   np.float64])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("sa,sb", BMM_SHAPES)
def test_batch_matmul_matches_numpy(sa, sb, ta, tb, dtype):
    a = op_t(rand(sa, dtype), ta).copy()  # stored transposed when ta: op(a) has shape sa
    b = op_t(rand(sb, dtype), tb).copy()
    got = P.BatchMatMul(transpose_a=ta, transpose_b=tb)(ms.Tensor(a), ms.Tensor(b))
    check(got, numpy_matmul(a, b, ta, tb).astype(dtype), dtype, sa[-1])


def test_batch_matmul_big_float32_matches_torch():
    a = rand((3, 200, 150), np.float32)
    b = rand((3, 170, 150), np.float32)
    got = P.BatchMatMul(transpose_b=True)(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    want = torch.bmm(torch.from_numpy(a).double(), torch.from_numpy(b).double().transpose(1, 2))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)
    a2 = rand((8, 128, 64), np.float32)
    w = rand((64, 96), np.float32)
    got2 = P.BatchMatMul()(ms.Tensor(a2), ms.Tensor(w)).asnumpy()
    want2 = torch.matmul(torch.from_numpy(a2).double(), torch.from_numpy(w).double()).numpy()
    np.testing.assert_allclose(got2, want2, rtol=1e-4, atol=1e-4)


def test_matmul_results_do_not_depend_on_thread_count_much():
    a = ms.Tensor(rand((64, 48, 40), np.float64))
    b = ms.Tensor(rand((64, 40, 56), np.float64))
    before = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(1)
        one = P.BatchMatMul()(a, b).asnumpy()
        ms._mycel.set_num_threads(2)
        two = P.BatchMatMul()(a, b).asnumpy()
    finally:
        ms._mycel.set_num_threads(before)
    np.testing.assert_allclose(one, two, rtol=1e-13, atol=1e-13)


def test_matmul_errors():
    f = lambda s, d=np.float32: ms.Tensor(np.ones(s, d))  # noqa: E731
    with pytest.raises(ValueError, match=r"For 'MatMul', the input dimensions must be equal, "
                       r"but got x1 col 3 and x2 row 4 \(x1 shape \[2, 3\], x2 shape \[4, 5\], "
                       r"transpose_a False, transpose_b False\)"):
        P.MatMul()(f((2, 3)), f((4, 5)))
    with pytest.raises(ValueError, match=r"For 'MatMul'.*x1 col 2 .*x2 row 4.*\[2, 3\].*\[4, 5\]"
                       r".*transpose_a True"):
        P.MatMul(transpose_a=True)(f((2, 3)), f((4, 5)))
    with pytest.raises(ValueError, match=r"For 'MatMul'.*2-d.*\[2, 3, 4\].*\[4, 5\]"):
        P.MatMul()(f((2, 3, 4)), f((4, 5)))
    with pytest.raises(ValueError, match=r"For 'MatMul'.*2-d.*\[3\]"):
        P.MatMul()(f((3,)), f((3, 2)))
    with pytest.raises(TypeError, match=r"For 'MatMul'.*Bool"):
        P.MatMul()(f((2, 2), np.bool_), f((2, 2), np.bool_))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*batch dimensions.*\[2, 3, 4\].*"
                       r"\[3, 4, 5\].*cannot broadcast"):
        P.BatchMatMul()(f((2, 3, 4)), f((3, 4, 5)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*x1 col 4 and x2 row 3.*"
                       r"\[2, 3, 4\].*\[2, 3, 5\]"):
        P.BatchMatMul()(f((2, 3, 4)), f((2, 3, 5)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*rank at least 2.*\[4\]"):
        P.BatchMatMul()(f((4,)), f((2, 4, 5)))
    with pytest.raises(TypeError, match=r"For 'BatchMatMul'.*Bool"):
        P.BatchMatMul()(f((2, 2, 2), np.bool_), f((2, 2, 2), np.bool_))


def test_matmul_promotes_mixed_dtypes():
    a = rand((3, 4), np.int32)
    b = rand((4, 2), np.float32)
    got = P.MatMul()(ms.Tensor(a), ms.Tensor(b))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


# ---- BiasAdd ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape,fmt", [((33, 7), "NCHW"), ((4, 6, 5, 7), "NCHW"),
                                       ((4, 6, 5, 7), "NHWC"), ((2, 3, 4, 5, 6), "NCDHW"),
                                       ((2, 3), "NHWC"), ((0, 5), "NCHW"), ((3, 5, 0), "NCHW"),
                                       ((16, 64, 33, 31), "NCHW"), ((16, 33, 31, 64), "NHWC")])
def test_bias_add_matches_numpy(shape, fmt, dtype):
    c = shape[-1] if fmt == "NHWC" else shape[1]
    x = rand(shape, dtype)
    b = rand((c,), dtype)
    got = P.BiasAdd(data_format=fmt)(ms.Tensor(x), ms.Tensor(b))
    bshape = [1] * len(shape)
    bshape[-1 if fmt == "NHWC" else 1] = c
    want = (x.astype(np.float64) + b.reshape(bshape).astype(np.float64))
    if np.issubdtype(dtype, np.integer):
        want = (x.astype(np.int64) + b.reshape(bshape).astype(np.int64)).astype(dtype)
    assert got.dtype == ms.Tensor(x).dtype
    np.testing.assert_allclose(got.asnumpy().astype(np.float64),
                               want.astype(dtype).astype(np.float64),
                               rtol=1e-3 if dtype == np.float16 else 1e-7)


def test_bias_add_matches_torch_conv_bias():
    x = rand((2, 8, 5, 5), np.float32)
    b = rand((8,), np.float32)
    want = (torch.from_numpy(x) + torch.from_numpy(b).view(1, 8, 1, 1)).numpy()
    np.testing.assert_allclose(P.BiasAdd()(ms.Tensor(x), ms.Tensor(b)).asnumpy(), want, rtol=1e-7)


def test_bias_add_errors():
    f = lambda s, d=np.float32: ms.Tensor(np.ones(s, d))  # noqa: E731
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*bias.*3 for x shape \[2, 3, 4\].*"
                       r"bias shape \[4\]"):
        P.BiasAdd()(f((2, 3, 4)), f((4,)))
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*4 for x shape \[2, 3, 4\] in NHWC.*"
                       r"\[3\]"):
        P.BiasAdd(data_format="NHWC")(f((2, 3, 4)), f((3,)))
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*bias shape \[3, 1\]"):
        P.BiasAdd()(f((2, 3)), f((3, 1)))
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*rank at least 2.*\[3\]"):
        P.BiasAdd()(f((3,)), f((3,)))
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*data_format.*'NCW'"):
        P.BiasAdd(data_format="NCW")(f((2, 3)), f((3,)))
    with pytest.raises(TypeError, match=r"For 'BiasAdd'.*Bool"):
        P.BiasAdd()(f((2, 3), np.bool_), f((3,), np.bool_))
