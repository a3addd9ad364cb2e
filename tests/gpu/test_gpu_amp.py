"""Mixed-precision training on the GPU: a small convnet (Conv2d, BatchNorm2d, ReLU,
MaxPool2d, a strided Conv2d, Dense) trained with mycel.amp's O2 level in bfloat16 and in
float16 with loss scaling, a few steps on the GPU against the same steps on the CPU, in
PYNATIVE and GRAPH modes.

O2 sends the convolutions, pooling, ReLU and Dense to the half type (cuDNN's half
convolutions with float accumulation, cuBLASLt's half MatMul), keeps BatchNorm in float32
(float statistics), computes the loss (log-softmax, reductions) in float32, and the
optimizer updates the float32 master weights with gradients cast back through the casts.
The CPU runs the same half ops (computing in float32 between roundings): both sides round
each op's result to the half type, so they differ by a few units in the half type's last
place per op, hence the tolerances."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, amp, nn, ops
from mycel.train import DynamicLossScaleManager, FixedLossScaleManager


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, pad_mode="same")
        self.fc = nn.Dense(16 * 4 * 4, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv1(x))))
        x = self.relu(self.conv2(x))
        return self.fc(ops.reshape(x, (x.shape[0], -1)))


def _steps(target, mode, dtype, manager, opt_scale, steps=4):
    ms.set_context(device_target=target, mode=mode)
    ms.set_seed(7)
    net = _ConvNet()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9, loss_scale=opt_scale)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = amp.build_train_network(net, opt, loss, level="O2", cast_model_type=dtype,
                                   loss_scale_manager=manager())
    rng = np.random.RandomState(11)
    x = Tensor(rng.randn(16, 1, 16, 16).astype(np.float32))
    y = Tensor(rng.randint(0, 10, 16).astype(np.int32))
    losses, flags, scales = [], [], []
    for _ in range(steps):  # one batch, so that the loss falls step by step
        r = step(x, y)
        if isinstance(r, tuple):  # TrainOneStepWithLossScaleCell: (loss, overflow, scale)
            losses.append(float(r[0].asnumpy()))
            flags.append(bool(r[1].asnumpy()))
            scales.append(float(r[2].asnumpy()))
        else:  # a fixed scale without overflow checks: TrainOneStepCell with sens = scale
            losses.append(float(r.asnumpy()))
    out = net(Tensor(rng.randn(4, 1, 16, 16).astype(np.float32)))
    assert out.dtype == dtype  # the network did compute in the half type
    weights = {p.name: p.asnumpy() for p in net.trainable_params()}
    assert all(w.dtype == np.float32 for w in weights.values())  # float32 master weights
    return np.array(losses), flags, scales, weights


CASES = {
    # dtype, loss-scale manager, the optimizer's loss_scale, steps, the overflow flags the
    # steps must report (None: a step without overflow checks), tolerance of the losses, of
    # the weights (rtol, atol).
    #
    # A fixed scale without overflow checks scales the loss in the step and the optimizer
    # divides the gradients by it (MindSpore's contract).
    "bf16-fixed-scale": (ms.bfloat16,
                         lambda: FixedLossScaleManager(64.0, drop_overflow_update=False),
                         64.0, 4, None, 3e-2, (5e-2, 5e-3)),
    # A dynamic one unscales and checks the gradients in the step and grows the scale every
    # scale_window good steps.
    "fp16-dynamic-scale": (ms.float16,
                           lambda: DynamicLossScaleManager(init_loss_scale=2.0 ** 12,
                                                           scale_window=2),
                           1.0, 4, [False] * 4, 5e-3, (1e-2, 1e-3)),
    # Overflow: float16 gradients times 2**22 are inf (this net's largest gradient is above
    # 1/8: 8 times float16's largest finite value), so the step is skipped and the scale
    # drops 256-fold to 2**14 (16 times below overflow); after two good steps it grows back
    # and the next step overflows again. Both sides must skip the same steps.
    "fp16-overflow": (ms.float16,
                      lambda: DynamicLossScaleManager(init_loss_scale=2.0 ** 22, scale_factor=256,
                                                      scale_window=2),
                      1.0, 6, [True, False, False, True, False, False], 5e-3, (1e-2, 1e-3)),
}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", list(CASES))
def test_o2_steps_on_the_gpu_match_the_cpu(mode, case):
    dtype, manager, opt_scale, steps, flags, loss_tol, w_tol = CASES[case]
    l_cpu, f_cpu, s_cpu, w_cpu = _steps("CPU", mode, dtype, manager, opt_scale, steps)
    l_gpu, f_gpu, s_gpu, w_gpu = _steps("GPU", mode, dtype, manager, opt_scale, steps)
    assert l_cpu[-1] < l_cpu[0], l_cpu  # it learns
    assert np.all(np.isfinite(l_gpu)), l_gpu
    np.testing.assert_allclose(l_gpu, l_cpu, rtol=loss_tol)
    if flags is not None:
        assert f_cpu == flags and f_gpu == flags, (f_cpu, f_gpu)
        assert s_gpu == s_cpu, (s_gpu, s_cpu)
    for name, c in w_cpu.items():
        np.testing.assert_allclose(w_gpu[name], c, rtol=w_tol[0], atol=w_tol[1], err_msg=name)
    # The steps did train: the weights moved well beyond the tolerance.
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)
    ms.set_seed(7)
    w0 = {p.name: p.asnumpy() for p in _ConvNet().trainable_params()}
    moved = max(float(np.max(np.abs(w_cpu[n] - w0[n]))) for n in w0)
    assert moved > 10 * w_tol[1], moved
