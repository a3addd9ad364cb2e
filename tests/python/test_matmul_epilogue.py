"""MatMul epilogue fusion (graph kernels for a device target) on a machine without a GPU:
MYCEL_GRAPH_KERNEL_DEVICE=1 compiles as for the GPU, so Dense layers' MatMul -> BiasAdd
(-> ReLU / GeLU(tanh)) and their weight and bias gradients become MatMul epilogue graph
kernels, whose kernels run their ops on the host (the GPU's cuBLASLt epilogues are checked
in tests/gpu/test_gpu_epilogue.py). The programs compute what the unfused ones do, in
GRAPH mode, forward and training steps."""
import re

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(12, 20, activation="relu")
        self.fc2 = nn.Dense(20, 16, activation=nn.GELU())
        self.fc3 = nn.Dense(16, 5)

    def construct(self, x):
        return self.fc3(self.fc2(self.fc1(x)))


def _run(fused, capsys):
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=fused)
    ms.set_seed(4)
    net = _Mlp()
    rng = np.random.RandomState(2)
    x = Tensor(rng.randn(9, 12).astype(np.float32))
    y = Tensor(rng.randint(0, 5, 9).astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    capsys.readouterr()
    out = net(x).asnumpy()
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    log = capsys.readouterr().err
    return out, np.array(losses), {p.name: p.asnumpy() for p in net.trainable_params()}, log


@pytest.fixture
def _graph_mode_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, enable_graph_kernel=False)


def test_dense_layers_fuse_as_for_a_device_and_compute_the_same(monkeypatch, capsys,
                                                                 _graph_mode_after):
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    out0, l0, w0, _ = _run(False, capsys)
    monkeypatch.setenv("MYCEL_GRAPH_KERNEL_DEVICE", "1")
    out1, l1, w1, log = _run(True, capsys)
    clusters = [int(n) for n in re.findall(r"(\d+) fused clusters", log)]
    # The forward: three Dense layers; the step: three in its forward (GeLU's input is read
    # by its gradient too, so fc2's epilogue is the bias alone) and three weight-and-bias
    # gradient pairs.
    assert clusters and clusters[0] == 3 and sum(clusters) >= 9, log
    assert l0[-1] < l0[0]
    np.testing.assert_allclose(out1, out0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(l1, l0, rtol=1e-5, atol=1e-6)
    for name, w in w0.items():
        np.testing.assert_allclose(w1[name], w, rtol=1e-5, atol=1e-6, err_msg=name)
