"""ResNet-18 and the Transformer encoder (mycel.models, the networks of bench/models_bench.py
and bench/gpu_bench.py) trained on the GPU: a few training steps (forward, cross-entropy,
backward, Momentum) in PYNATIVE and GRAPH mode equal the same steps on the CPU, same seed and
data; and with AMP O2 (bfloat16) the GPU's losses follow the CPU's within bfloat16's precision.
Small sizes (a narrow ResNet-18 on batches of 8 64x64 images, whose last stage still
normalises over 32 values: fewer make BatchNorm amplify bfloat16's rounding; a 2-layer
encoder of width 32), so each case runs in seconds.

float32 on the GPU computes without TF32 (cuBLAS COMPUTE_32F, cuDNN FMA math), so the two
devices differ only in summation order: 1e-4 on the losses, 1e-3 on the weights after the
steps. Dropout is 0 (the random streams are checked on their own by mycel_cuda_tests)."""
import numpy as np
import pytest

import mycel as ms
from mycel import amp, models, nn, Tensor

STEPS = 3


def _resnet():
    return models.resnet18(num_classes=10, widths=(8, 16, 32, 64))


def _transformer():
    return models.TransformerEncoderClassifier(50, 3, d_model=32, nhead=4, num_layers=2,
                                               dim_feedforward=64, max_len=16, dropout=0.0)


def _batches(model):
    rng = np.random.RandomState(7)
    for _ in range(STEPS):
        if model == "resnet18":
            x = rng.randn(8, 3, 64, 64).astype(np.float32)
            y = rng.randint(0, 10, 8).astype(np.int32)
        else:
            x = rng.randint(0, 50, (4, 16)).astype(np.int32)
            y = rng.randint(0, 3, 4).astype(np.int32)
        yield x, y


def train(target, model, mode, level="O0", lr=0.01):
    """(losses, weights) after STEPS training steps of `model` on `target` in `mode`, with
    amp level `level` (O0: the float32 TrainOneStepCell) and learning rate `lr`."""
    ms.set_context(device_target=target, mode=mode)
    ms.set_seed(11)
    net = _resnet() if model == "resnet18" else _transformer()
    net.set_train()
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if level == "O0":
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    else:
        step = amp.build_train_network(net, opt, loss, level=level)
    losses = []
    for x, y in _batches(model):
        out = step(Tensor(x), Tensor(y))
        losses.append(float((out[0] if isinstance(out, tuple) else out).asnumpy()))
    weights = {p.name: p.asnumpy() for p in net.trainable_params()}
    if target == "GPU":
        assert next(iter(net.trainable_params())).device.startswith("GPU")
    return np.array(losses), weights


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("model", ["resnet18", "transformer"])
def test_float32_steps_match_the_cpu(model, mode):
    l_cpu, w_cpu = train("CPU", model, mode)
    l_gpu, w_gpu = train("GPU", model, mode)
    assert np.all(np.isfinite(l_gpu)), l_gpu
    np.testing.assert_allclose(l_gpu, l_cpu, rtol=1e-4, atol=1e-5)
    assert w_gpu.keys() == w_cpu.keys()
    for name, c in w_cpu.items():
        np.testing.assert_allclose(w_gpu[name], c, rtol=1e-3, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("model", ["resnet18", "transformer"])
def test_bf16_amp_steps_follow_the_cpu(model):
    # O2: bfloat16 compute on both devices (cuBLAS/cuDNN on the GPU, oneDNN on the CPU) with
    # float32 accumulation; the roundings to bfloat16 differ, so only bfloat16's precision holds.
    l_cpu, _ = train("CPU", model, ms.GRAPH_MODE, "O2")
    l_gpu, w_gpu = train("GPU", model, ms.GRAPH_MODE, "O2")
    assert np.all(np.isfinite(l_gpu)), l_gpu
    np.testing.assert_allclose(l_gpu, l_cpu, rtol=3e-2)
    assert all(w.dtype == np.float32 and np.all(np.isfinite(w)) for w in w_gpu.values())
