"""The functional NN API (mycel.ops.conv2d, max_pool2d, ...) against torch.nn.functional."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import mycel as ms
from mycel import ops

rng = np.random.default_rng(3)


def arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def close(a, b, tol=1e-4):
    np.testing.assert_allclose(a.asnumpy(), b.detach().numpy() if torch.is_tensor(b) else b,
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("stride,pad_mode,padding,dilation,groups", [
    (1, "valid", 0, 1, 1), (2, "pad", 1, 1, 1), (1, "pad", (1, 2), 2, 1), (1, "valid", 0, 1, 2),
])
def test_conv2d(stride, pad_mode, padding, dilation, groups):
    x, w, b = arr(2, 4, 9, 10), arr(6, 4 // groups, 3, 3), arr(6)
    got = ops.conv2d(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), stride, pad_mode, padding,
                     dilation, groups)
    want = TF.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride,
                     padding if pad_mode == "pad" else 0, dilation, groups)
    close(got, want)


def test_conv2d_same_padding_keeps_size():
    x, w = arr(1, 2, 7, 7), arr(3, 2, 3, 3)
    got = ops.conv2d(ms.Tensor(x), ms.Tensor(w), pad_mode="same")
    close(got, TF.conv2d(torch.tensor(x), torch.tensor(w), padding=1))


def test_pooling():
    x = arr(2, 3, 9, 8)
    close(ops.max_pool2d(ms.Tensor(x), 2), TF.max_pool2d(torch.tensor(x), 2))
    close(ops.max_pool2d(ms.Tensor(x), 3, 2, 1), TF.max_pool2d(torch.tensor(x), 3, 2, 1))
    close(ops.max_pool2d(ms.Tensor(x), 2, ceil_mode=True),
          TF.max_pool2d(torch.tensor(x), 2, ceil_mode=True))
    close(ops.avg_pool2d(ms.Tensor(x), 2, 2), TF.avg_pool2d(torch.tensor(x), 2, 2))
    close(ops.avg_pool2d(ms.Tensor(x), 3, 2, 1), TF.avg_pool2d(torch.tensor(x), 3, 2, 1))
    close(ops.avg_pool2d(ms.Tensor(x), 3, 2, 1, count_include_pad=False),
          TF.avg_pool2d(torch.tensor(x), 3, 2, 1, count_include_pad=False))
    with pytest.raises(ValueError, match="dilation"):
        ops.max_pool2d(ms.Tensor(x), 2, dilation=2)


def test_batch_norm_updates_running_statistics():
    x, g, b = arr(8, 3, 4, 4), arr(3), arr(3)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    mrm, mrv = ms.Tensor(rm), ms.Tensor(rv)
    trm, trv = torch.tensor(rm), torch.tensor(rv)
    got = ops.batch_norm(ms.Tensor(x), mrm, mrv, ms.Tensor(g), ms.Tensor(b), training=True)
    want = TF.batch_norm(torch.tensor(x), trm, trv, torch.tensor(g), torch.tensor(b),
                         training=True)
    close(got, want)
    close(mrm, trm)
    close(mrv, trv)
    close(ops.batch_norm(ms.Tensor(x), mrm, mrv, ms.Tensor(g), ms.Tensor(b)),
          TF.batch_norm(torch.tensor(x), trm, trv, torch.tensor(g), torch.tensor(b)))


def test_layer_norm():
    x, g, b = arr(4, 5, 6), arr(5, 6), arr(5, 6)
    close(ops.layer_norm(ms.Tensor(x), (5, 6), ms.Tensor(g), ms.Tensor(b)),
          TF.layer_norm(torch.tensor(x), (5, 6), torch.tensor(g), torch.tensor(b)))
    close(ops.layer_norm(ms.Tensor(x), 6), TF.layer_norm(torch.tensor(x), (6,)))


def test_pad_uses_torch_order():
    x = arr(2, 3, 4)
    close(ops.pad(ms.Tensor(x), (1, 2)), TF.pad(torch.tensor(x), (1, 2)))
    close(ops.pad(ms.Tensor(x), (1, 0, 0, 2), value=3.0),
          TF.pad(torch.tensor(x), (1, 0, 0, 2), value=3.0))


def test_dropout_scales_kept_elements():
    x = np.ones((200, 200), np.float32)
    y = ops.dropout(ms.Tensor(x), p=0.25, seed=5).asnumpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    # The seed's cached primitive continues its stream (tests/python/test_random_streams.py).
    assert (ops.dropout(ms.Tensor(x), p=0.25, seed=5).asnumpy() != y).any()
    assert ops.dropout(ms.Tensor(x), training=False).asnumpy().sum() == x.sum()


def test_losses():
    logits, labels = arr(6, 5), rng.integers(0, 5, 6)
    t_logits, t_labels = torch.tensor(logits), torch.tensor(labels)
    close(ops.cross_entropy(ms.Tensor(logits), ms.Tensor(labels.astype(np.int32))),
          TF.cross_entropy(t_logits, t_labels))
    close(ops.cross_entropy(ms.Tensor(logits), ms.Tensor(labels.astype(np.int32)),
                            label_smoothing=0.1),
          TF.cross_entropy(t_logits, t_labels, label_smoothing=0.1))
    w = np.abs(arr(5)) + 0.1
    close(ops.cross_entropy(ms.Tensor(logits), ms.Tensor(labels.astype(np.int32)),
                            ms.Tensor(w)),
          TF.cross_entropy(t_logits, t_labels, torch.tensor(w)))
    probs = np.abs(arr(6, 5))
    probs /= probs.sum(1, keepdims=True)
    close(ops.cross_entropy(ms.Tensor(logits), ms.Tensor(probs)),
          TF.cross_entropy(t_logits, torch.tensor(probs)))
    y = arr(6, 5)
    close(ops.mse_loss(ms.Tensor(logits), ms.Tensor(y)), TF.mse_loss(t_logits, torch.tensor(y)))
    close(ops.l1_loss(ms.Tensor(logits), ms.Tensor(y), "sum"),
          TF.l1_loss(t_logits, torch.tensor(y), reduction="sum"))
    tgt = (arr(6, 5) > 0).astype(np.float32)
    pw = np.abs(arr(5)) + 0.5
    close(ops.binary_cross_entropy_with_logits(ms.Tensor(logits), ms.Tensor(tgt)),
          TF.binary_cross_entropy_with_logits(t_logits, torch.tensor(tgt)))
    close(ops.binary_cross_entropy_with_logits(ms.Tensor(logits), ms.Tensor(tgt),
                                               pos_weight=ms.Tensor(pw)),
          TF.binary_cross_entropy_with_logits(t_logits, torch.tensor(tgt),
                                              pos_weight=torch.tensor(pw)))


def test_activations():
    x = arr(3, 7) * 4
    tx = torch.tensor(x)
    close(ops.gelu(ms.Tensor(x)), TF.gelu(tx))
    close(ops.gelu(ms.Tensor(x), "tanh"), TF.gelu(tx, approximate="tanh"))
    close(ops.silu(ms.Tensor(x)), TF.silu(tx))
    close(ops.relu6(ms.Tensor(x)), TF.relu6(tx))
    close(ops.softplus(ms.Tensor(x)), TF.softplus(tx))
    close(ops.softplus(ms.Tensor(x), beta=2, threshold=3), TF.softplus(tx, beta=2, threshold=3))
