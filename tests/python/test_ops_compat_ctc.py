"""P.CTCLossV2 and ops.ctc_loss (composed, ops/function/ctc_func.py) against torch's
ctc_loss: losses for every reduction with per-example input and target lengths, infinite
losses and zero_infinity, the gradient (torch's and MindSpore's convention), log_alpha's
shape; PYNATIVE and GRAPH mode; errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel.ops import operations as P
from ms_cell import Fn

RNG = np.random.default_rng(17)


def _case(t=9, n=4, c=5, s=4, dtype=np.float64):
    lp = torch.log_softmax(torch.tensor(RNG.standard_normal((t, n, c))), 2).numpy()
    targets = RNG.integers(1, c, (n, s))
    il = RNG.integers(t - 3, t + 1, n)
    tl = RNG.integers(1, s + 1, n)
    return lp.astype(dtype), targets, il, tl


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_matches_torch(mode, reduction, blank):
    lp, targets, il, tl = _case()
    targets = np.where(targets == blank, 1 if blank != 1 else 3, targets)
    op = P.CTCLossV2(blank=blank, reduction=reduction)
    loss, log_alpha = Fn(op)(ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))
    tlp = torch.tensor(lp, requires_grad=True)
    want = torch.nn.functional.ctc_loss(tlp, torch.tensor(targets), torch.tensor(il),
                                        torch.tensor(tl), blank=blank, reduction=reduction)
    np.testing.assert_allclose(loss.asnumpy(), want.detach().numpy(), rtol=1e-10)
    assert log_alpha.shape == (4, 9, 2 * 4 + 1)
    sens = RNG.standard_normal(want.shape)
    want.backward(torch.tensor(sens))

    def f(x):
        return (op(x, ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))[0] *
                ms.Tensor(sens)).sum()
    got = ms.grad(f)(ms.Tensor(lp)).asnumpy()
    np.testing.assert_allclose(got, tlp.grad.numpy(), rtol=1e-8, atol=1e-12)


def test_ctc_loss_float32_and_functional_form(mode):
    lp, targets, il, tl = _case(dtype=np.float32)
    loss, _ = Fn(lambda *a: ms.ops.ctc_loss(*a, reduction="none"))(
        ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))
    want = torch.nn.functional.ctc_loss(torch.tensor(lp), torch.tensor(targets),
                                        torch.tensor(il), torch.tensor(tl), reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), want.numpy(), rtol=1e-5)


def test_ctc_loss_impossible_alignment(mode):
    # 3 steps cannot emit the 3 labels "1 1 1" (repeats need blanks between): the loss is inf,
    # or 0 with zero_infinity.
    lp = torch.log_softmax(torch.tensor(RNG.standard_normal((3, 1, 3))), 2).numpy()
    args = (ms.Tensor(lp), ms.Tensor(np.array([[1, 1, 1]])), ms.Tensor(np.array([3])),
            ms.Tensor(np.array([3])))
    loss, _ = Fn(P.CTCLossV2(reduction="none"))(*args)
    assert np.isinf(loss.asnumpy()[0])
    loss, _ = Fn(P.CTCLossV2(reduction="none", zero_infinity=True))(*args)
    assert loss.asnumpy()[0] == 0.0


def test_ctc_loss_errors():
    lp, targets, il, tl = _case()
    with pytest.raises(ValueError, match="CTCLossV2"):
        P.CTCLossV2(reduction="avg")
    with pytest.raises(TypeError, match="Float32"):
        P.CTCLossV2()(ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(il), (0.5, 1.0, 2.0, 1.0))
    with pytest.raises(ValueError, match="CTCLossV2"):
        P.CTCLossV2(blank=5)(ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))
    with pytest.raises(ValueError, match="CTCLossV2"):
        P.CTCLossV2()(ms.Tensor(lp), ms.Tensor(targets[:2]), ms.Tensor(il), ms.Tensor(tl))
