"""ops.matrix_diag_part and array_ops.MatrixDiagPartV3 (composed, ops/function/diag_func.py)
against numpy's diagonal, padded by hand as each align says; PYNATIVE with k a tensor, GRAPH
with k a constant; the gradient scatters back onto the diagonals; errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops
from mycel.ops.operations.array_ops import MatrixDiagPartV3

RNG = np.random.default_rng(5)


def _want(x, k0, k1, pad, align):
    m, n = x.shape[-2:]
    lens = {d: min(m + min(d, 0), n - max(d, 0)) for d in range(k0, k1 + 1)}
    width = max(lens.values())
    rows = []
    for d in range(k1, k0 - 1, -1):
        diag = np.diagonal(x, offset=d, axis1=-2, axis2=-1)
        fill = np.full(x.shape[:-2] + (width - lens[d],), pad, x.dtype)
        left = (d >= 0 and align.startswith("LEFT")) or (d <= 0 and align.endswith("_LEFT"))
        rows.append(np.concatenate([diag, fill] if left else [fill, diag], axis=-1))
    out = np.stack(rows, axis=-2)
    return out[..., 0, :] if k0 == k1 else out


@pytest.mark.parametrize("align", ["LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"])
@pytest.mark.parametrize("k", [(-2, 1), (0, 3), (-3, -1), (2, 2), (-1, -1)])
def test_matrix_diag_part_matches_numpy(align, k):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    got = MatrixDiagPartV3(align)(ms.Tensor(x), ms.Tensor(np.array(k, np.int32)),
                                  ms.Tensor(np.float32(7.0))).asnumpy()
    np.testing.assert_array_equal(got, _want(x, k[0], k[1], 7.0, align))


def test_matrix_diag_part_in_graph_mode_with_constant_k():
    x = RNG.standard_normal((3, 6, 4)).astype(np.float64)

    class Net(nn.Cell):
        def construct(self, a, pad):
            return ops.matrix_diag_part(a, (-2, 2), pad, align="LEFT_RIGHT")

    old = ms.get_context("mode")
    try:
        for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
            ms.set_context(mode=mode)
            got = Net()(ms.Tensor(x), ms.Tensor(np.float64(-1.0))).asnumpy()
            np.testing.assert_array_equal(got, _want(x, -2, 2, -1.0, "LEFT_RIGHT"))
    finally:
        ms.set_context(mode=old)


def test_matrix_diag_part_gradient(mode):
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3)).astype(np.float32)

    def f(a):
        return (ops.matrix_diag_part(a, (-1, 1), 0.0) * ms.Tensor(w)).sum()

    got = ms.grad(f)(ms.Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    eps = 1e-3
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        want[idx] = ((_want(x + d, -1, 1, 0.0, "RIGHT_LEFT") * w).sum() -
                     (_want(x - d, -1, 1, 0.0, "RIGHT_LEFT") * w).sum()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_matrix_diag_part_errors():
    x = ms.Tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="MatrixDiagPartV3"):
        MatrixDiagPartV3("LEFT")
    with pytest.raises(ValueError, match="MatrixDiagPartV3"):
        ops.matrix_diag_part(x, (2, 1), 0.0)
    with pytest.raises(ValueError, match="MatrixDiagPartV3"):
        ops.matrix_diag_part(x, (-3, 0), 0.0)
    with pytest.raises(ValueError, match="MatrixDiagPartV3"):
        ops.matrix_diag_part(x, 0, ms.Tensor(np.zeros(2, np.float32)))
    with pytest.raises(TypeError, match="MatrixDiagPartV3"):
        ops.matrix_diag_part(x, ms.Tensor(np.array([0.0], np.float32)), 0.0)


def _want_diag(diags, k0, k1, rows, cols, pad, align):
    """Matrices with the (padded, aligned) diagonals placed, written from the definition."""
    out = np.full(diags.shape[:-1 if k0 == k1 else -2] + (rows, cols), pad, diags.dtype)
    width = diags.shape[-1]
    for d in range(k0, k1 + 1):
        row = diags[..., :] if k0 == k1 else diags[..., k1 - d, :]
        length = min(rows + min(d, 0), cols - max(d, 0))
        left = (d >= 0 and align.startswith("LEFT")) or (d <= 0 and align.endswith("_LEFT"))
        off = 0 if left else width - length
        for i in range(length):
            out[..., i + max(-d, 0), i + max(d, 0)] = row[..., off + i]
    return out


@pytest.mark.parametrize("align", ["LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"])
@pytest.mark.parametrize("k, rows, cols", [((-1, 2), -1, -1), ((0, 0), 5, -1), ((1, 1), -1, 6),
                                           ((-2, -1), 5, 4)])
def test_matrix_diag_matches_the_definition(align, k, rows, cols):
    from mycel.ops.operations.array_ops import MatrixDiagV3
    ms.set_context(mode=ms.PYNATIVE_MODE)
    k0, k1 = k
    width = 4
    shape = (2, width) if k0 == k1 else (2, k1 - k0 + 1, width)
    diags = RNG.standard_normal(shape).astype(np.float32)
    min_rows, min_cols = width - min(k1, 0), width + max(k0, 0)
    r, c = rows, cols
    if r == -1 and c == -1:
        r = c = max(min_rows, min_cols)
    elif r == -1:
        r = min_rows
    elif c == -1:
        c = min_cols
    got = MatrixDiagV3(align)(ms.Tensor(diags), ms.Tensor(np.array(k, np.int32)),
                              ms.Tensor(np.int32(rows)), ms.Tensor(np.int32(cols)),
                              ms.Tensor(np.float32(-3.0))).asnumpy()
    np.testing.assert_array_equal(got, _want_diag(diags, k0, k1, r, c, -3.0, align))


def test_matrix_diag_inverts_matrix_diag_part():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((3, 5, 5)).astype(np.float32)
    band = ops.matrix_diag_part(ms.Tensor(x), (-1, 1), 0.0, align="LEFT_RIGHT")
    back = ops.matrix_diag(band, (-1, 1), 5, 5, 0.0, align="LEFT_RIGHT").asnumpy()
    np.testing.assert_array_equal(back, np.triu(np.tril(x, 1), -1))
