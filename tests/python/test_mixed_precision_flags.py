"""Mixed precision as MindSpore programs spell it besides amp: to_float on a whole training
step (its optimizer included: the optimizer updates in its Parameters' dtype, the gradients
it gets are not cast), the add_flags(fp16=True) / add_flags_recursive(bf16=True) flags that
MindSpore's to_float sets, and the mindspore.train.amp module. Oracle: PyTorch computing in
float16; both modes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import Tensor, nn

R = np.random.RandomState(3)
X = R.randn(4, 3).astype(np.float32)
Y = R.randn(4, 2).astype(np.float32)


def _net():
    ms.set_seed(1)
    return nn.Dense(3, 2)


def test_to_float_on_a_training_step_leaves_the_optimizer_alone(mode):
    net = _net()
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt).to_float(ms.float16)
    step(Tensor(X), Tensor(Y))
    assert net.weight.dtype == ms.float32 and opt.moments[0].dtype == ms.float32
    # PyTorch: the forward and loss in float16 (the matmul's float16 operands multiplied in
    # float32, as CPU PyTorch has no float16 matmul, its result rounded to float16),
    # gradients of the float32 master weights
    tw, tb = (torch.tensor(a, requires_grad=True) for a in (w0, b0))

    def h(t):
        return t.half().float()
    out = F.linear(h(torch.tensor(X)), h(tw), h(tb)).half()
    ((out - torch.tensor(Y).half()) ** 2).mean().backward()
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.1 * tw.grad.numpy(), rtol=1e-2,
                               atol=2e-3)
    np.testing.assert_allclose(net.bias.asnumpy(), b0 - 0.1 * tb.grad.numpy(), rtol=1e-2,
                               atol=2e-3)
    # the same step as marking the network alone: the optimizer's gradients were not cast
    net2 = _net()
    step2 = nn.TrainOneStepCell(nn.WithLossCell(net2, nn.MSELoss()).to_float(ms.float16),
                                nn.Momentum(net2.trainable_params(), 0.1, 0.9))
    step2(Tensor(X), Tensor(Y))
    np.testing.assert_array_equal(net.weight.asnumpy(), net2.weight.asnumpy())


@pytest.mark.parametrize("flag, dtype", [("fp16", ms.float16), ("bf16", ms.bfloat16)])
def test_precision_flags_mark_cells_as_to_float(mode, flag, dtype):
    net = _net().add_flags_recursive(**{flag: True})
    want = _net().to_float(dtype)(Tensor(X))
    got = net(Tensor(X))
    assert got.dtype == dtype and net.get_flags()[flag] is True
    np.testing.assert_array_equal(got.astype(ms.float32).asnumpy(),
                                  want.astype(ms.float32).asnumpy())
    net.add_flags(fp32=True)  # back to float32 (a later mark overwrites, as to_float)
    out = net(Tensor(X))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), X @ net.weight.asnumpy().T + net.bias.asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert _net().add_flags(fp16=False)(Tensor(X)).dtype == ms.float32  # False: no mark


def test_train_amp_is_mycel_amp():
    from mycel import amp
    from mycel.train import amp as train_amp
    from mycel.train.amp import build_train_network
    assert build_train_network is amp.build_train_network
    assert train_amp.auto_mixed_precision is amp.auto_mixed_precision
    assert set(train_amp.__all__) == set(amp.__all__)
