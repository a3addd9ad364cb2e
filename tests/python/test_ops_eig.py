"""ops.eig / ops.eigvals / P.Eig / Tensor.eigvals (the op table's Eig: Hessenberg reduction and
shifted QR in kernels/cpu/eig.cc) against numpy.linalg.eig: eigenvalues matched one to one,
eigenvectors checked by A V = V diag(w) and unit length (they are unique only up to phase),
in both modes; typed errors for bad input."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel.ops import operations as P

RNG = np.random.default_rng(4242)


def _run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


def _match(got, want, tol):
    """Pairs each expected eigenvalue with the nearest unused computed one (per matrix)."""
    got, want = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    for g, w in zip(got, want):
        left = list(g)
        for x in w:
            k = int(np.argmin([abs(x - y) for y in left]))
            assert abs(x - left[k]) <= tol, (x, left[k], w, g)
            left.pop(k)


def _check(a, w, v, tol):
    """A V = V diag(w), columns of unit length, eigenvalues as numpy's."""
    a = a.astype(np.complex128)
    scale = max(1.0, float(np.abs(a).max())) if a.size else 1.0
    _match(w, np.linalg.eigvals(a), tol * scale)
    if v is not None:
        res = a @ v - v * w[..., None, :]
        assert np.abs(res).max(initial=0) <= tol * scale, np.abs(res).max()
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=tol, atol=0)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17, 33, 64])
def test_random_real_float64(mode, n):
    a = RNG.standard_normal((n, n))
    w, v = _run(mode, ops.eig, Tensor(a))
    assert w.dtype == ms.complex128 and v.dtype == ms.complex128
    assert w.shape == (n,) and v.shape == (n, n)
    _check(a, w.asnumpy(), v.asnumpy(), 1e-9)
    # real input: complex eigenvalues come in exact conjugate pairs, real ones exactly real
    ws = w.asnumpy()
    assert np.allclose(np.sort_complex(ws), np.sort_complex(ws.conj()), rtol=0, atol=0)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-4), (np.complex64, 2e-4),
                                       (np.complex128, 1e-9)])
def test_dtypes(mode, dtype, tol):
    a = RNG.standard_normal((6, 6))
    if np.iscomplexobj(np.zeros(1, dtype)):
        a = a + 1j * RNG.standard_normal((6, 6))
    a = a.astype(dtype)
    w, v = _run(mode, ops.eig, Tensor(a))
    want = ms.complex128 if dtype == np.complex128 else ms.complex64
    assert w.dtype == want and v.dtype == want
    _check(a.astype(np.complex128), w.asnumpy().astype(np.complex128),
           v.asnumpy().astype(np.complex128), tol)
    np.testing.assert_allclose(_run(mode, ops.eigvals, Tensor(a)).asnumpy(), w.asnumpy())


def test_mindspore_example_and_primitive(mode):
    x = Tensor(np.array([[1.0, 0.0], [0.0, 2.0]]), ms.float32)
    u, v = _run(mode, lambda t: P.Eig(compute_v=True)(t), x)
    np.testing.assert_allclose(u.asnumpy(), [1 + 0j, 2 + 0j])
    np.testing.assert_allclose(v.asnumpy(), np.eye(2))
    u, v = _run(mode, lambda t: P.Eig()(t), x)  # compute_v=False: v is empty
    np.testing.assert_allclose(u.asnumpy(), [1 + 0j, 2 + 0j])
    assert v.shape == (0,)
    np.testing.assert_allclose(x.eigvals().asnumpy(), [1 + 0j, 2 + 0j])


def test_structured_matrices(mode):
    cases = {
        "rotation": np.array([[0.0, -1.0], [1.0, 0.0]]),  # +-i
        "upper triangular": np.triu(RNG.standard_normal((7, 7))),
        "lower triangular": np.tril(RNG.standard_normal((7, 7))),
        "symmetric": (lambda s: s + s.T)(RNG.standard_normal((9, 9))),
        "identity x 3": 3.0 * np.eye(5),  # a repeated eigenvalue, a full eigenspace
        "cyclic shift": np.roll(np.eye(6), 1, axis=0),  # roots of unity: QR stagnates unshifted
        "zeros": np.zeros((4, 4)),
        "companion": np.array([[0.0, 0, 0, -6], [1, 0, 0, 11], [0, 1, 0, -6], [0, 0, 1, 0]]),
        "block diagonal": np.kron(np.eye(3), np.array([[1.0, 2.0], [-2.0, 1.0]])),
    }
    for name, a in cases.items():
        w, v = _run(mode, ops.eig, Tensor(a))
        _check(a, w.asnumpy(), v.asnumpy(), 1e-9)
    sym = cases["symmetric"]
    w = _run(mode, ops.eigvals, Tensor(sym)).asnumpy()
    np.testing.assert_allclose(w.imag, 0, atol=0)
    np.testing.assert_allclose(np.sort(w.real), np.linalg.eigvalsh(sym), rtol=1e-10, atol=1e-10)
    # a defective (Jordan) block: the double eigenvalue only to about sqrt(eps), as numpy's
    jordan = np.array([[2.0, 1.0], [0.0, 2.0]])
    np.testing.assert_allclose(_run(mode, ops.eigvals, Tensor(jordan)).asnumpy(), [2, 2],
                               atol=1e-7)


def test_sorted_canonical_order(mode):
    a = RNG.standard_normal((10, 10))
    w = _run(mode, ops.eigvals, Tensor(a)).asnumpy()
    key = [(x.real, x.imag) for x in w]
    assert key == sorted(key)


def test_batched_and_empty(mode):
    a = RNG.standard_normal((2, 3, 5, 5))
    w, v = _run(mode, ops.eig, Tensor(a))
    assert w.shape == (2, 3, 5) and v.shape == (2, 3, 5, 5)
    for i in range(2):
        for j in range(3):
            _check(a[i, j], w.asnumpy()[i, j], v.asnumpy()[i, j], 1e-9)
    w, v = _run(mode, ops.eig, Tensor(np.zeros((0, 0))))
    assert w.shape == (0,) and v.shape == (0, 0)
    w = _run(mode, ops.eigvals, Tensor(np.zeros((3, 0, 0), np.float32)))
    assert w.shape == (3, 0) and w.dtype == ms.complex64
    w = _run(mode, ops.eigvals, Tensor(np.zeros((0, 4, 4))))
    assert w.shape == (0, 4)


def test_nan_input_gives_nan_without_hanging(mode):
    a = RNG.standard_normal((2, 4, 4))
    a[1, 2, 3] = np.nan
    w, v = _run(mode, ops.eig, Tensor(a))
    assert np.isnan(w.asnumpy()[1]).all() and np.isnan(v.asnumpy()[1]).all()
    _check(a[0], w.asnumpy()[0], v.asnumpy()[0], 1e-9)  # the finite matrix is unaffected
    a[1, 2, 3] = np.inf
    assert np.isnan(_run(mode, ops.eigvals, Tensor(a)).asnumpy()[1]).all()


def test_bad_input_is_a_typed_error(mode):
    with pytest.raises(ValueError, match=r"Eig.*square.*\[2, 3\]"):
        _run(mode, ops.eigvals, Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="Eig.*square"):
        _run(mode, ops.eig, Tensor(np.float32(1.0)))
    with pytest.raises(TypeError, match="Eig.*float32, float64, complex64 or complex128.*Int32"):
        _run(mode, ops.eigvals, Tensor(np.ones((2, 2), np.int32)))


def test_eigvals_gradient_matches_torch(mode):
    """An order-independent loss of the eigenvalues (mycel's and torch's orders differ)."""
    import torch
    # 34 x 34: the backward solves with matrix_solve (a 68-step complex elimination, unrolled
    # in graph mode); 101 x 101: past N = 100 it inverts V by Newton-Schulz (eig_func._solve_h)
    for a in (RNG.standard_normal((5, 5)),
              RNG.standard_normal((2, 4, 4)) + 1j * RNG.standard_normal((2, 4, 4)),
              RNG.standard_normal((34, 34)), RNG.standard_normal((101, 101))):
        def loss(t):
            w = ops.eigvals(t)
            return (ops.real(w) ** 2).sum() + (ops.imag(w) ** 2 * 0.5).sum() + \
                ops.real(w).sum() * 0.3

        g = _run(mode, ms.grad(loss), Tensor(a)).asnumpy()
        ta = torch.tensor(a, requires_grad=True)
        w = torch.linalg.eigvals(ta)
        ((w.real ** 2).sum() + (w.imag ** 2 * 0.5).sum() + w.real.sum() * 0.3).backward()
        np.testing.assert_allclose(g, ta.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_eig_gradient_matches_torch(mode):
    """A loss of eigenvalues and eigenvectors that neither the order nor the eigenvectors'
    phases change: sum_k Re(w_k) |v_k[0]|^2 + Im(w_k)^2 |v_k[1]|^2."""
    import torch
    for a in (RNG.standard_normal((5, 5)),
              RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))):
        def loss(t):
            w, v = ops.eig(t)
            p = ops.real(v * ops.conj(v))
            return (ops.real(w) * p[0]).sum() + (ops.imag(w) ** 2 * p[1]).sum()

        g = _run(mode, ms.grad(loss), Tensor(a)).asnumpy()
        ta = torch.tensor(a, requires_grad=True)
        w, v = torch.linalg.eig(ta)
        p = (v * v.conj()).real
        ((w.real * p[0]).sum() + (w.imag ** 2 * p[1]).sum()).backward()
        np.testing.assert_allclose(g, ta.grad.numpy(), rtol=1e-8, atol=1e-8)


def test_primitive_is_differentiable_and_checks_compute_v(mode):
    import torch
    a = RNG.standard_normal((4, 4))

    def loss(t):
        w, _ = P.Eig()(t)
        return (ops.real(w) ** 2).sum()

    g = _run(mode, ms.grad(loss), Tensor(a)).asnumpy()
    ta = torch.tensor(a, requires_grad=True)
    (torch.linalg.eigvals(ta).real ** 2).sum().backward()
    np.testing.assert_allclose(g, ta.grad.numpy(), rtol=1e-9, atol=1e-9)
    with pytest.raises(TypeError, match="Eig.*compute_v.*bool"):
        P.Eig(compute_v=1)
