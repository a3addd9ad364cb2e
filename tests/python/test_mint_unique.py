"""mint.unique's flags (sorted, return_inverse, return_counts) against torch.unique, in both
modes (it ignored them and returned ops.unique's (values in first-occurrence order, inverse))."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, mint


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


@pytest.mark.parametrize("inv,cnt", [(False, False), (True, False), (False, True), (True, True)])
def test_sorted_flags_match_torch(mode, inv, cnt):
    x = np.array([[3, 1, 3], [2, 7, 1]], np.int64)

    def f(t):
        return mint.unique(t, sorted=True, return_inverse=inv, return_counts=cnt)

    got = ms.jit(f)(Tensor(x)) if mode == ms.GRAPH_MODE else f(Tensor(x))
    want = torch.unique(torch.tensor(x), sorted=True, return_inverse=inv, return_counts=cnt)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
        assert g.asnumpy().shape == tuple(w.shape)
