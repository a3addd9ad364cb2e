"""The GPU device from Python: set_context(device_target="GPU"), where tensors live, copies,
the CPU fallback for ops without a CUDA kernel, and LeNet training steps on the GPU equal to
the same steps on the CPU in both modes."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from lenet import LeNet5


def test_ops_run_where_the_context_says():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.device == "CPU"
    ms.set_context(device_target="GPU")
    y = x * 2 + 1
    assert y.device == "GPU:0"
    assert x.device == "GPU:0"  # a host input moves to the device on first use, once
    np.testing.assert_array_equal(y.asnumpy(), np.arange(6).reshape(2, 3) * 2 + 1)
    assert float(y[1, 2]) == 11.0
    assert "11." in str(y)


def test_move_to_and_back():
    a = np.random.RandomState(0).randn(4, 5).astype(np.float32)
    g = Tensor(a).move_to("GPU")
    assert g.device == "GPU:0"
    c = g.move_to("CPU")
    assert c.device == "CPU"
    np.testing.assert_array_equal(c.asnumpy(), a)
    # With the context on the CPU, an op on a GPU tensor runs on the GPU.
    z = ops.exp(g)
    assert z.device == "GPU:0"
    np.testing.assert_allclose(z.asnumpy(), np.exp(a), rtol=1e-6)


def test_every_dtype_round_trips():
    for dt in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16,
               np.float32, np.float64):
        a = (np.arange(-5, 7) % 3).astype(dt).reshape(3, 4)
        g = Tensor(a).move_to("GPU")
        np.testing.assert_array_equal(g.asnumpy(), a)
        np.testing.assert_array_equal(ops.transpose(g, (1, 0)).asnumpy(), a.T)


def test_bad_device_id_is_a_value_error():
    with pytest.raises(ValueError, match="device_id 7 is out of range"):
        ms.set_context(device_target="GPU", device_id=7)


def test_bad_gather_index_is_raised_when_the_host_reads():
    # Checked on the device; raised (once) by the next wait for it: asnumpy() here.
    ms.set_context(device_target="GPU")
    x = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = ops.gather(x, Tensor(np.array([1, 9], np.int32)), 0)
    with pytest.raises(IndexError, match="'Gather'.*index 9"):
        y.asnumpy()
    np.testing.assert_array_equal(y.asnumpy(), [[3, 4, 5], [0, 0, 0]])


def _train_steps(target, mode, steps=5):
    ms.set_context(device_target=target, mode=mode)
    ms.set_seed(3)
    net = LeNet5()
    rng = np.random.RandomState(5)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    losses = []
    for _ in range(steps):
        x = Tensor(rng.randn(16, 1, 28, 28).astype(np.float32))
        y = Tensor(rng.randint(0, 10, 16).astype(np.int32))
        losses.append(float(step(x, y)))
    weights = [p.asnumpy() for p in net.trainable_params()]
    return np.array(losses), weights


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_lenet_steps_match_the_cpu(mode):
    l_cpu, w_cpu = _train_steps("CPU", mode)
    l_gpu, w_gpu = _train_steps("GPU", mode)
    np.testing.assert_allclose(l_gpu, l_cpu, rtol=1e-4, atol=1e-5)
    for g, c in zip(w_gpu, w_cpu):
        np.testing.assert_allclose(g, c, rtol=1e-3, atol=1e-4)


def test_device_memory_is_cached_and_reported():
    ms.set_context(device_target="GPU")
    from mycel import _mycel
    x = ops.ones((1024, 1024), ms.float32) + 0
    s = _mycel._device_memory_stats("GPU", 0)
    assert s["in_use"] >= 4 << 20
    del x
    s2 = _mycel._device_memory_stats("GPU", 0)
    assert s2["cached"] >= 4 << 20
