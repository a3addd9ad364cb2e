"""MatMul epilogues on the GPU: in GRAPH mode with set_context(enable_graph_kernel=True) and
the GPU as the target, Dense layers (MatMul -> BiasAdd -> ReLU / GeLU(tanh) / nothing), and
their weight and bias gradients, become MatMul epilogue graph kernels that run as one cuBLASLt
call each (compiler/passes/matmul_epilogue.cc, codegen/matmul_epilogue.h). Forward values and training steps equal the
same network on the CPU without fusion, in float32 and bfloat16."""
import re

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(24, 40, activation="relu")
        self.fc2 = nn.Dense(40, 32, activation=nn.GELU())  # GeLU's tanh form
        self.fc3 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc3(self.fc2(self.fc1(x)))


def _run(target, fused, dtype, capsys):
    ms.set_context(device_target=target, mode=ms.GRAPH_MODE, enable_graph_kernel=fused)
    ms.set_seed(4)
    net = _Mlp()
    if dtype != ms.float32:
        net.to_float(dtype)
    rng = np.random.RandomState(2)
    x = Tensor(rng.randn(33, 24).astype(np.float32))
    y = Tensor(rng.randint(0, 10, 33).astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.05, 0.9))
    capsys.readouterr()
    out = net(x).astype(ms.float32).asnumpy()  # GRAPH mode: the Cell is compiled
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    log = capsys.readouterr().err
    weights = {p.name: p.asnumpy() for p in net.trainable_params()}
    return out, np.array(losses), weights, log


@pytest.mark.parametrize("dtype, tol", [(ms.float32, 1e-4), (ms.bfloat16, 3e-2)],
                         ids=["fp32", "bf16"])
def test_dense_epilogues_match_the_cpu(monkeypatch, capsys, dtype, tol):
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    try:
        out_c, l_c, w_c, _ = _run("CPU", False, dtype, capsys)
        out_g, l_g, w_g, log = _run("GPU", True, dtype, capsys)
    finally:
        ms.set_context(enable_graph_kernel=False)
    clusters = [int(n) for n in re.findall(r"(\d+) fused clusters", log)]
    # Three Dense layers in the forward pass; in the step's, three, and three weight-and-bias
    # gradient pairs (BGRADA/BGRADB).
    assert sum(clusters) >= 9, log
    assert "not built" not in log, log
    np.testing.assert_allclose(out_g, out_c, rtol=tol, atol=tol)
    np.testing.assert_allclose(l_g, l_c, rtol=tol, atol=tol)
    for name, c in w_c.items():
        np.testing.assert_allclose(w_g[name], c, rtol=tol, atol=tol, err_msg=name)


def test_a_program_fused_for_the_cpu_is_compiled_again_for_the_gpu(monkeypatch, capsys):
    # The CPU's generated kernels do not run on the GPU: the cached CPU program is not reused
    # when the target becomes the GPU (reusing it would raise "generated kernels run on the
    # CPU").
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    ms.set_seed(4)
    net = _Mlp()
    x = np.random.RandomState(3).randn(8, 24).astype(np.float32)
    try:
        ms.set_context(device_target="CPU", mode=ms.GRAPH_MODE, enable_graph_kernel=True)
        capsys.readouterr()
        y_cpu = net(Tensor(x)).asnumpy()
        n_cpu = len(re.findall(r"mycel: compiled ", capsys.readouterr().err))
        ms.set_context(device_target="GPU")
        y_gpu = net(Tensor(x)).asnumpy()
        log = capsys.readouterr().err
    finally:
        ms.set_context(enable_graph_kernel=False)
    assert n_cpu >= 1 and len(re.findall(r"mycel: compiled ", log)) >= 1, log
    assert "fused clusters" in log, log
    np.testing.assert_allclose(y_gpu, y_cpu, rtol=1e-4, atol=1e-4)
