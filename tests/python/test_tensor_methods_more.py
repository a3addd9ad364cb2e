"""Tensor methods composed from the ops (MindSpore 2.x / PyTorch names): comparisons, split,
chunk, t, mm, dot, norm, new_ones/new_zeros, type_as, from_numpy; against numpy, in PYNATIVE
mode and inside a GRAPH-mode Cell."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
Y = np.full((3, 4), 1.0, np.float32)

CASES = {  # name: (mycel call, numpy value)
    "eq": (lambda x, y: x.eq(y), lambda: X == Y),
    "ne": (lambda x, y: x.ne(y), lambda: X != Y),
    "lt": (lambda x, y: x.lt(y), lambda: X < Y),
    "le": (lambda x, y: x.le(y), lambda: X <= Y),
    "gt": (lambda x, y: x.gt(y), lambda: X > Y),
    "ge": (lambda x, y: x.ge(y), lambda: X >= Y),
    "t": (lambda x, y: x.t(), lambda: X.T),
    "mm": (lambda x, y: x.mm(y.t()), lambda: X @ Y.T),
    "norm": (lambda x, y: x.norm(), lambda: np.float32(np.linalg.norm(X))),
    "norm_dim": (lambda x, y: x.norm(dim=1), lambda: np.linalg.norm(X, axis=1)),
    "dot": (lambda x, y: x[0].dot(y[0]), lambda: np.float32(X[0] @ Y[0])),
    "split": (lambda x, y: x.split(2, axis=1)[1], lambda: X[:, 2:4]),
    "chunk": (lambda x, y: x.chunk(2, 0)[1], lambda: X[2:]),
    "type_as": (lambda x, y: x.type_as(y.astype(ms.int32)), lambda: X.astype(np.int32)),
}


class Apply(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x, y):
        return self.fn(x, y)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_method_matches_numpy(name, mode):
    fn, want = CASES[name]
    ms.set_context(mode=mode)
    try:
        got = Apply(fn)(ms.Tensor(X), ms.Tensor(Y)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want(), rtol=1e-6)
    assert got.dtype == np.asarray(want()).dtype


def test_construction_helpers():
    x = ms.Tensor(X)
    assert x.new_ones((2, 2)).asnumpy().tolist() == [[1, 1], [1, 1]]
    assert x.new_zeros((2,), ms.int32).dtype == ms.int32
    assert ms.Tensor.from_numpy(np.ones(2, np.float64)).dtype == ms.float64
    assert [c.shape for c in x.chunk(3, 1)] == [(3, 2), (3, 2)]
    # Tensor.norm is ops.norm: ord 1 of a matrix is its largest column sum (test_ops_norm.py);
    # the norms of singular values are refused.
    np.testing.assert_allclose(x.norm(1).asnumpy(), np.linalg.norm(X, 1), rtol=1e-6)
    with pytest.raises(ValueError, match="singular value"):
        x.norm(2)
    with pytest.raises(ValueError, match="For 'Tensor.t'"):
        ms.Tensor(np.ones((2, 2, 2))).t()
