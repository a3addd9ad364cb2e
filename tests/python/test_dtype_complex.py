"""The complex dtypes complex64 and complex128 end to end (issue 21): names, numpy conversion
both ways (arrays, 0-d, Python and numpy scalars), printing, item()/tolist(), casts to and from
every dtype, promotion, the elementwise ops with complex kernels, reductions, the matrix
product, data movement, the complex-number ops (real, imag, conj, angle, complex, polar, abs)
and Tensor's .real/.imag/.H/.mH/adjoint(), checkpoints and MINDIR, refusals of the ops without
complex kernels, and gradients against torch's autograd on complex tensors and against finite
differences on the real and imaginary parts. numpy (or torch) is the oracle; the ops run in
PYNATIVE and GRAPH mode (the `mode` fixture).
"""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from mycel.common import dtype as mstype
from mycel.ops import operations as P

COMPLEX = ["complex64", "complex128"]
RTOL = {"complex64": 2e-5, "complex128": 1e-12}


def run(fn, *args):
    """fn(*args) in the current mode: as it is in PYNATIVE, through ms.jit in GRAPH."""
    if ms.get_context("mode") == ms.GRAPH_MODE:
        return ms.jit(fn)(*args)
    return fn(*args)


def cplx(shape, name="complex128", seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale).astype(name)


def close(got, want, rtol=1e-12, atol=None):
    got = got.asnumpy() if isinstance(got, ms.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol if atol is None else atol)


# ---- names, numpy, printing ------------------------------------------------------------------

@pytest.mark.parametrize("name", COMPLEX)
def test_names_and_numpy_round_trip(name):
    d = getattr(ms, name)
    assert d is getattr(mstype, name) and d == ms.dtype_from_name(name)
    assert str(d) == name.replace("complex", "Complex") and d.name == name
    assert d.itemsize == np.dtype(name).itemsize and not d.is_floating_point
    assert mstype.dtype_to_nptype(d) == np.dtype(name).type
    assert mstype.pytype_to_dtype(np.dtype(name)) == d
    assert mstype.dtype_to_pytype(d) is complex
    assert d in mstype.number_type and d in mstype.complex_type
    a = cplx((3, 4), name)
    t = ms.Tensor(a)
    assert t.dtype == d and t.shape == (3, 4) and t.is_complex() and ops.is_complex(t)
    close(t, a, rtol=0)
    close(ms.Tensor(np.zeros((1, 2, 3)), d), np.zeros((1, 2, 3), name), rtol=0)
    # a strided numpy view, and the numpy view of a strided tensor
    close(ms.Tensor(a[:, ::2]), a[:, ::2], rtol=0)
    close(t[:, 1::2], a[:, 1::2], rtol=0)
    close(t.T, a.T, rtol=0)


def test_python_scalars_and_lists():
    t = ms.Tensor(1 + 2.5j)
    assert t.dtype == ms.complex128 and t.shape == ()
    assert t.item() == 1 + 2.5j and isinstance(t.item(), complex)
    assert complex(t) == 1 + 2.5j
    t = ms.Tensor([[1 + 0.1j, 2j, 3], [4 - 0.4j, 5, 6]])
    assert t.dtype == ms.complex128
    close(t, np.array([[1 + 0.1j, 2j, 3], [4 - 0.4j, 5, 6]]), rtol=0)
    assert t.tolist() == [[1 + 0.1j, 2j, 3], [4 - 0.4j, 5, 6]]
    s = ms.Tensor(np.complex64(1.5 - 2j))
    assert s.dtype == ms.complex64 and s.item() == 1.5 - 2j
    assert ms.Tensor([1, 2], ms.complex64).dtype == ms.complex64
    assert mstype.get_py_obj_dtype(0.1 + 3j) == ms.complex128
    assert mstype.get_py_obj_dtype(complex) == ms.complex128
    with pytest.raises(TypeError):
        float(ms.Tensor(1 + 1j))
    assert bool(ms.Tensor(1j)) and not bool(ms.Tensor(0j))


def test_printing():
    t = ms.Tensor(np.array([1 + 2j, 3.5 - 4j], np.complex64))
    assert str(t) == "[1. +2.j 3.5-4.j]" or str(t) == str(np.array([1 + 2j, 3.5 - 4j], np.complex64))
    assert str(ms.Tensor(np.complex128(1 + 2j))) == "(1+2j)"
    assert str(ms.Tensor(np.complex128(-1.5 - 0.25j))) == "(-1.5-0.25j)"
    assert "dtype=Complex64" in repr(t)
    assert str(ms.Tensor(np.zeros((2, 2), np.complex128))).count("j") == 4


# ---- casts and promotion -------------------------------------------------------------------

REAL = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64",
        "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("real", REAL)
def test_cast_both_ways(mode, name, real):
    a = cplx((7,), name, scale=3.0)
    if real in ("uint8", "uint16", "uint32", "uint64"):
        a = np.abs(a.real).astype(name) + 1j * a.imag.astype(name)
    x = ms.Tensor(a)
    with np.errstate(invalid="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning
                                  if hasattr(np, "exceptions") else np.ComplexWarning)
            want = a.astype(real) if real != "bool" else (a != 0)
    got = run(lambda v: ops.cast(v, getattr(ms, "bool_" if real == "bool" else real)), x)
    close(got, want, rtol=0 if real != "float16" else 1e-3)
    # and back: the value becomes the real part
    r = np.arange(-3, 4).astype(real) if real not in ("bool",) and not real.startswith("u") \
        else np.arange(0, 7).astype(real)
    back = run(lambda v: ops.cast(v, getattr(ms, name)), ms.Tensor(r))
    close(back, r.astype(name), rtol=0)


def test_cast_between_complex(mode):
    a = cplx((5,), "complex128")
    close(run(lambda v: v.astype(ms.complex64), ms.Tensor(a)), a.astype("complex64"), rtol=0)
    b = a.astype("complex64")
    close(run(lambda v: v.astype(ms.complex128), ms.Tensor(b)), b.astype("complex128"), rtol=0)


def test_promotion():
    assert mstype.promote_types(ms.complex64, ms.float32) == ms.complex64
    assert mstype.promote_types(ms.complex64, ms.float64) == ms.complex128
    assert mstype.promote_types(ms.float16, ms.complex64) == ms.complex64
    assert mstype.promote_types(ms.int64, ms.complex64) == ms.complex64
    assert mstype.promote_types(ms.bool_, ms.complex128) == ms.complex128
    assert mstype.promote_types(ms.complex64, ms.complex128) == ms.complex128
    for t in (ms.complex64, ms.complex128):
        for u in (ms.float32, ms.float64, ms.int32, ms.complex64, ms.complex128):
            want = torch.promote_types(getattr(torch, str(t).lower()), getattr(torch,
                                                                               str(u).lower()))
            assert str(mstype.promote_types(t, u)).lower() == str(want).split(".")[1]


def test_scalar_operands(mode):
    x32 = ms.Tensor(np.array([1.0, 2.0], np.float32))
    x64 = ms.Tensor(np.array([1.0, 2.0], np.float64))
    close(run(lambda v: v * 1j, x32), np.array([1j, 2j], np.complex64), rtol=0)
    close(run(lambda v: v + (1 - 1j), x64), np.array([2 - 1j, 3 - 1j]), rtol=0)
    z = ms.Tensor(np.array([1 + 1j], np.complex64))
    close(run(lambda v: v * 2.0, z), np.array([2 + 2j], np.complex64), rtol=0)
    close(run(lambda v: 1 - v, z), np.array([-1j], np.complex64), rtol=0)


# ---- elementwise -----------------------------------------------------------------------------

UNARY = [("neg", np.negative), ("square", np.square), ("exp", np.exp), ("log", np.log),
         ("sqrt", np.sqrt), ("reciprocal", np.reciprocal), ("sin", np.sin), ("cos", np.cos),
         ("tan", np.tan), ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh), ("tanh", np.tanh),
         ("conj", np.conj)]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("op,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary(mode, name, op, ref):
    a = cplx((4, 5), name, seed=1)
    got = run(getattr(ops, op), ms.Tensor(a))
    close(got, ref(a).astype(name), rtol=RTOL[name])


@pytest.mark.parametrize("name", COMPLEX)
def test_abs_sign_angle_real_imag(mode, name):
    a = cplx((3, 6), name, seed=2)
    a[0, 0] = 0
    part = np.float32 if name == "complex64" else np.float64
    x = ms.Tensor(a)
    close(run(ops.abs, x), np.abs(a).astype(part), rtol=RTOL[name])
    close(run(lambda v: P.ComplexAbs()(v), x), np.abs(a).astype(part), rtol=RTOL[name])
    close(run(ops.angle, x), np.angle(a).astype(part), rtol=RTOL[name])
    close(run(ops.real, x), a.real, rtol=0)
    close(run(ops.imag, x), a.imag, rtol=0)
    close(run(lambda v: v.real(), x), a.real, rtol=0)
    close(run(lambda v: v.imag(), x), a.imag, rtol=0)
    sgn = torch.sgn(torch.from_numpy(a)).numpy()
    close(run(ops.sign, x), sgn, rtol=RTOL[name])


def test_complex_ops_on_real_input(mode):
    a = np.array([-1.5, 0.0, 2.0, -0.0], np.float32)
    x = ms.Tensor(a)
    close(run(ops.real, x), a, rtol=0)
    close(run(ops.imag, x), np.zeros(4, np.float32), rtol=0)
    close(run(ops.conj, x), a, rtol=0)
    close(run(ops.angle, x), np.angle(a).astype(np.float32), rtol=0)
    close(run(ops.angle, ms.Tensor(np.array([-2, 3], np.int32))),
          np.angle(np.array([-2, 3])).astype(np.float32), rtol=1e-7)


BINARY = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
          ("pow", np.power)]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast(mode, name, op, ref):
    a, b = cplx((3, 1, 4), name, 3), cplx((5, 1), name, 4)
    got = run(getattr(ops, op), ms.Tensor(a), ms.Tensor(b))
    close(got, ref(a, b), rtol=RTOL[name] * (10 if op == "pow" else 1))


def test_mixed_real_complex_and_operators(mode):
    a = cplx((4,), "complex64", 5)
    r = np.arange(4, dtype=np.float64)
    got = run(lambda x, y: x * y + y / 2 - x ** 2, ms.Tensor(a), ms.Tensor(r))
    want = a * r + r / 2 - a ** 2
    assert want.dtype == np.complex128
    close(got, want, rtol=2e-6)


def test_pow_zero(mode):
    base = ms.Tensor(np.zeros(3, np.complex128))
    ex = ms.Tensor(np.array([0, 1 + 1j, 2.5], np.complex128))
    close(run(ops.pow, base, ex), np.array([1, 0, 0], np.complex128), rtol=0)


def test_equal_not_equal_and_order_refused(mode):
    a = np.array([1 + 1j, 2, 3j], np.complex64)
    b = np.array([1 + 1j, 2 + 1e-3j, 3j], np.complex64)
    close(run(ops.equal, ms.Tensor(a), ms.Tensor(b)), a == b, rtol=0)
    close(run(ops.not_equal, ms.Tensor(a), ms.Tensor(b)), a != b, rtol=0)
    for fn in (ops.less, ops.greater_equal, ops.maximum):
        with pytest.raises(TypeError, match="Complex64"):
            run(fn, ms.Tensor(a), ms.Tensor(b))


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_bias_add(mode, name, fmt):
    x = cplx((2, 3, 4, 5), name, seed=7)
    c = 3 if fmt == "NCHW" else 5
    b = cplx((c,), name, seed=8)
    want = x + (b.reshape(1, 3, 1, 1) if fmt == "NCHW" else b)
    got = run(lambda u, v: ops.bias_add(u, v, fmt), ms.Tensor(x), ms.Tensor(b))
    close(got, want, rtol=0)


def test_unsupported_ops_refuse_with_type_error(mode):
    x = ms.Tensor(cplx((2, 3), "complex64"))
    for fn in (ops.sigmoid, ops.relu, ops.floor, lambda v: ops.cumsum(v, 0), ops.erf):
        with pytest.raises(TypeError, match="Complex64|complex"):
            run(fn, x)


# ---- reductions, matmul, data movement -------------------------------------------------------

@pytest.mark.parametrize("name", COMPLEX)
def test_reductions(mode, name):
    a = cplx((3, 4, 5), name, 6)
    x = ms.Tensor(a)
    close(run(lambda v: ops.sum(v, 1), x), a.sum(1), rtol=RTOL[name] * 10)
    close(run(lambda v: ops.mean(v, (0, 2), True), x), a.mean((0, 2), keepdims=True),
          rtol=RTOL[name] * 10)
    close(run(lambda v: ops.prod(v, -1), x), a.prod(-1), rtol=RTOL[name] * 10)
    close(run(lambda v: v.sum(), x), np.array(a.sum()), rtol=RTOL[name] * 10)


def naive_matmul(a, b):
    """An independent oracle: the triple loop in Python complex arithmetic."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.complex128)
    for i in range(m):
        for j in range(n):
            out[i, j] = sum(complex(a[i, p]) * complex(b[p, j]) for p in range(k))
    return out


@pytest.mark.parametrize("name", COMPLEX)
def test_matmul(mode, name):
    a, b = cplx((9, 13), name, 7), cplx((13, 6), name, 8)
    got = run(ops.matmul, ms.Tensor(a), ms.Tensor(b))
    close(got, (a @ b).astype(name), rtol=RTOL[name] * 10)
    np.testing.assert_allclose(got.asnumpy(), naive_matmul(a, b), rtol=RTOL[name] * 10)
    # transposes (no conjugation), batches with broadcasting, large enough for blocking
    ta = run(lambda x, y: P.MatMul(transpose_a=True, transpose_b=True)(x, y),
             ms.Tensor(a.T.copy()), ms.Tensor(b.T.copy()))
    close(ta, (a @ b).astype(name), rtol=RTOL[name] * 10)
    x, y = cplx((2, 1, 70, 150), name, 9), cplx((3, 150, 40), name, 10)
    close(run(ops.matmul, ms.Tensor(x), ms.Tensor(y)), np.matmul(x, y), rtol=RTOL[name] * 100)


def test_data_movement(mode):
    a = cplx((2, 3, 4), "complex128", 11)
    b = cplx((2, 3, 4), "complex64", 12)
    x = ms.Tensor(a)
    close(run(lambda v: ops.reshape(v, (6, 4)), x), a.reshape(6, 4), rtol=0)
    close(run(lambda v: ops.transpose(v, (2, 0, 1)), x), a.transpose(2, 0, 1), rtol=0)
    close(run(lambda v: ops.concat((v, v), 1), x), np.concatenate((a, a), 1), rtol=0)
    close(run(lambda v: ops.stack((v, v), 0), x), np.stack((a, a)), rtol=0)
    close(run(lambda v: v[:, 1:, ::2], x), a[:, 1:, ::2], rtol=0)
    idx = ms.Tensor(np.array([2, 0], np.int32))
    close(run(lambda v, i: ops.gather(v, i, 1), x, idx), a[:, [2, 0]], rtol=0)
    close(run(lambda v: ops.tile(v, (1, 2, 1)), ms.Tensor(b)), np.tile(b, (1, 2, 1)), rtol=0)
    cond = np.array([[True], [False], [True]])
    close(run(lambda c, u, v: ops.select(c, u, v), ms.Tensor(cond), x, ms.Tensor(a[::-1].copy())),
          np.where(cond, a, a[::-1]), rtol=0)
    close(run(lambda v: ops.zeros_like(v), x), np.zeros_like(a), rtol=0)
    close(run(lambda v: ops.ones_like(v), ms.Tensor(b)), np.ones_like(b), rtol=0)


# ---- complex-number ops and Tensor methods ---------------------------------------------------

def test_complex_polar_view_as_real(mode):
    re = np.random.default_rng(13).standard_normal((3, 4))
    im = np.random.default_rng(14).standard_normal((4,))
    close(run(ops.complex, ms.Tensor(re), ms.Tensor(im)), re + 1j * im, rtol=0)
    close(run(ops.complex, ms.Tensor(re.astype(np.float32)), ms.Tensor(im.astype(np.float32))),
          (re + 1j * im).astype(np.complex64), rtol=0)
    r, th = np.abs(re), im
    close(run(ops.polar, ms.Tensor(r), ms.Tensor(th)),
          torch.polar(torch.from_numpy(r), torch.from_numpy(th)).numpy(), rtol=1e-12)
    a = cplx((2, 3), "complex64", 15)
    close(run(ops.view_as_real, ms.Tensor(a)), np.stack((a.real, a.imag), -1), rtol=0)
    close(run(ops.view_as_complex, ms.Tensor(np.stack((a.real, a.imag), -1))), a, rtol=0)
    with pytest.raises(TypeError):
        run(ops.complex, ms.Tensor(np.array([1], np.int32)), ms.Tensor(np.array([1], np.int32)))


def test_conjugate_transposes(mode):
    a = cplx((3, 4), "complex128", 16)
    x = ms.Tensor(a)
    close(run(lambda v: v.H, x), a.conj().T, rtol=0)
    close(run(lambda v: v.mH, x), a.conj().T, rtol=0)
    close(run(lambda v: v.mT, x), a.T, rtol=0)
    close(run(lambda v: v.adjoint(), x), a.conj().T, rtol=0)
    close(run(lambda v: P.ConjugateTranspose()(v, (1, 0)), x), a.conj().T, rtol=0)
    b = cplx((2, 3, 4), "complex64", 17)
    close(run(lambda v: v.mH, ms.Tensor(b)), np.conj(b).transpose(0, 2, 1), rtol=0)
    close(run(lambda v: v.conj(), ms.Tensor(b)), np.conj(b), rtol=0)
    close(run(lambda v: v.angle(), ms.Tensor(b)), np.angle(b).astype(np.float32), rtol=2e-6)
    c = np.array([1 + 0j, 2j, -3.5], np.complex64)
    close(run(lambda v: v.isreal(), ms.Tensor(c)), np.isreal(c), rtol=0)
    close(run(lambda v: v.sgn(), ms.Tensor(c)), torch.sgn(torch.from_numpy(c)).numpy(), rtol=1e-6)
    close(run(ops.isreal, ms.Tensor(np.array([1.5, -2.0]))), np.array([True, True]), rtol=0)


def test_primitives(mode):
    a = cplx((4,), "complex64", 18)
    x = ms.Tensor(a)
    close(run(lambda v: P.Real()(v), x), a.real, rtol=0)
    close(run(lambda v: P.Imag()(v), x), a.imag, rtol=0)
    close(run(lambda v: P.Conj()(v), x), a.conj(), rtol=0)
    close(run(lambda v: P.Angle()(v), x), np.angle(a).astype(np.float32), rtol=2e-6)
    close(run(lambda u, v: P.Complex()(u, v), ms.Tensor(a.real), ms.Tensor(a.imag)), a, rtol=0)


# ---- serialization ---------------------------------------------------------------------------

def test_checkpoint_round_trip(tmp_path):
    a = cplx((2, 3), "complex64", 19)
    b = cplx((4,), "complex128", 20)
    path = str(tmp_path / "c.ckpt")
    ms.save_checkpoint([{"name": "a", "data": ms.Tensor(a)}, {"name": "b", "data": ms.Tensor(b)}],
                       path)
    got = ms.load_checkpoint(path)
    close(got["a"], a, rtol=0)
    close(got["b"], b, rtol=0)


# ---- gradients -------------------------------------------------------------------------------

def torch_grad(fn, *arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    loss = fn(*ts)
    loss.backward()
    return [t.grad.numpy() for t in ts]


GRAD_CASES = [
    ("mul", lambda x, y: x * y, lambda x, y: x * y),
    ("div", lambda x, y: x / y, lambda x, y: x / y),
    ("exp_sin", lambda x, y: ops.exp(x) * ops.sin(y), lambda x, y: torch.exp(x) * torch.sin(y)),
    ("log_sqrt", lambda x, y: ops.log(x) + ops.sqrt(y), lambda x, y: torch.log(x) + torch.sqrt(y)),
    ("pow", lambda x, y: ops.pow(x, y), lambda x, y: torch.pow(x, y)),
    ("tanh_cosh", lambda x, y: ops.tanh(x) - ops.cosh(y), lambda x, y: torch.tanh(x) - torch.cosh(y)),
    ("square_recip", lambda x, y: ops.square(x) * ops.reciprocal(y),
     lambda x, y: torch.square(x) * torch.reciprocal(y)),
    ("matmul", lambda x, y: ops.matmul(x, y.T), lambda x, y: torch.matmul(x, y.T)),
    ("prod_sum", lambda x, y: ops.prod(x, 1) + ops.sum(y, 1), lambda x, y: x.prod(1) + y.sum(1)),
    ("conj_neg", lambda x, y: ops.conj(x) - y, lambda x, y: torch.conj(x) - y),
    ("atan_mul", lambda x, y: ops.atan(x) * y, lambda x, y: torch.atan(x) * y),
    ("bias_add", lambda x, y: ops.bias_add(x * y, y[0]), lambda x, y: x * y + y[0][None, :]),
]


def _real_loss_ms(f, w):
    """A real loss of a complex result: sum(re(f) * w_re + im(f) * w_im)."""
    return lambda x, y: ops.sum(ops.real(f(x, y)) * w[0] + ops.imag(f(x, y)) * w[1])


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_against_torch(mode, name, case):
    _, fms, ft = case
    rng = np.random.default_rng(21)
    x = cplx((3, 4), name, 22) + 1.5
    y = cplx((3, 4), name, 23) + 1.5
    w = (rng.standard_normal((3,)), rng.standard_normal((3,))) if case[0] == "matmul" \
        else (rng.standard_normal((3, 4) if case[0] != "prod_sum" else (3,)),) * 2
    w = tuple(np.asarray(v, np.float32 if name == "complex64" else np.float64) for v in w)
    w = (w[0], w[1] * 0.5)
    loss_ms = _real_loss_ms(fms, [ms.Tensor(v) for v in w])
    gx, gy = run(ms.grad(loss_ms, grad_position=(0, 1)), ms.Tensor(x), ms.Tensor(y))
    wt = [torch.tensor(v) for v in w]
    want = torch_grad(lambda a, b: (ft(a, b).real * wt[0] + ft(a, b).imag * wt[1]).sum(), x, y)
    tol = 1e-4 if name == "complex64" else 1e-10
    close(gx, want[0], rtol=tol)
    close(gy, want[1], rtol=tol)


def test_grad_finite_differences_on_parts(mode):
    """d loss / d re and d loss / d im by central differences: the gradient is their sum
    re + i im (PyTorch's and MindSpore's convention)."""
    x0 = cplx((2, 3), "complex128", 24) + 1.0

    def loss_np(z):
        return float(np.sum(np.real(np.exp(z) * np.conj(z)) + np.imag(np.sin(z) * z)))

    def loss_ms(z):
        return ops.sum(ops.real(ops.exp(z) * ops.conj(z)) + ops.imag(ops.sin(z) * z))

    g = run(ms.grad(loss_ms), ms.Tensor(x0)).asnumpy()
    eps = 1e-6
    fd = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        for part in (1, 1j):
            zp, zm = x0.copy(), x0.copy()
            zp[i] += eps * part
            zm[i] -= eps * part
            fd[i] += part * (loss_np(zp) - loss_np(zm)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-7)


def test_grad_complex_number_ops(mode):
    """real/imag/abs/angle/complex against torch."""
    x = cplx((5,), "complex128", 25)
    re, im = np.random.default_rng(26).standard_normal((2, 5))

    def f_ms(z, a, b):
        c = ops.complex(a, b)
        return ops.sum(ops.abs(z) * 2 + ops.angle(z) * 3 + ops.real(z * c) - ops.imag(z) * 0.5)

    def f_t(z, a, b):
        c = torch.complex(a, b)
        return (z.abs() * 2 + z.angle() * 3 + (z * c).real - z.imag * 0.5).sum()

    got = run(ms.grad(f_ms, grad_position=(0, 1, 2)), ms.Tensor(x), ms.Tensor(re),
              ms.Tensor(im))
    want = torch_grad(f_t, x, re, im)
    for g, w in zip(got, want):
        close(g, w, rtol=1e-10)
