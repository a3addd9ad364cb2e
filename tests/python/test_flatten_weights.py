"""Flattened weights (MindSpore's Tensor._flatten_tensors, Cell.flatten_weights): tensors
copied into contiguous per-dtype chunks and made views of them (shared memory); an optimizer
on exactly those parameters exposes the chunks as ``_parameters`` and its updates show in
them; checked against numpy's SGD/momentum rules and an unflattened twin, in both modes."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn
from mycel.nn.optim.optimizer import Optimizer


def scalars(n, dtype=ms.float32):
    return [Parameter(Tensor(np.array([float(i + 1)]), dtype), name=f"p{i + 1}") for i in
            range(n)]


def test_chunks_by_dtype_and_fusion_size():
    ps = scalars(5)
    chunks = Tensor._flatten_tensors(ps, fusion_size=12)  # 3 float32 scalars per chunk
    assert [c.asnumpy().tolist() for c in chunks] == [[1, 2, 3], [4, 5]]
    assert Tensor._is_flattened(ps)
    assert [id(c) for c in Tensor._get_flattened_tensors(ps)] == [id(c) for c in chunks]
    assert Tensor._get_fusion_size(chunks) == 12
    assert Tensor._get_flattened_tensors(ps[:4]) == []  # the second chunk also holds p5
    # shared memory both ways
    ps[1].asnumpy()[0] = 20.0
    assert chunks[0].asnumpy().tolist() == [1, 20, 3]
    chunks[1].asnumpy()[1] = 50.0
    assert ps[4].asnumpy().tolist() == [50.0]
    # mixed dtypes and shapes: one chunk per dtype, in the order the dtypes appear
    w = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="w")
    i = Parameter(Tensor(np.array([7, 8], np.int32)), name="i")
    b = Parameter(Tensor(np.array([0.5], np.float32)), name="b")
    c32, c_int = Tensor._flatten_tensors([w, i, b])
    assert c32.dtype == ms.float32 and c_int.dtype == ms.int32
    np.testing.assert_array_equal(c32.asnumpy(), [0, 1, 2, 3, 4, 5, 0.5])
    assert w.shape == (2, 3) and w.asnumpy()[1, 2] == 5.0
    # set_data gives a tensor new memory: it is no longer flattened
    b.set_data(Tensor(np.array([9.0], np.float32)))
    assert not Tensor._is_flattened([w, i, b]) and Tensor._is_flattened([w, i])
    assert c32.asnumpy()[6] == 0.5


def test_flatten_errors():
    with pytest.raises(TypeError, match="every element must be a Tensor"):
        Tensor._flatten_tensors([Parameter(Tensor([1.0]), name="a"), 3.0])
    with pytest.raises(ValueError, match="fusion_size"):
        Tensor._flatten_tensors(scalars(2), fusion_size=-1)
    p = scalars(1)[0]
    with pytest.raises(ValueError, match="more than once"):
        Tensor._flatten_tensors([p, p])


def test_optimizer_views(mode):
    ps = scalars(3)
    opt = Optimizer(0.1, ps)
    assert not opt._use_flattened_params and opt._parameters is opt.parameters
    assert opt.cache_enable == (False, False, False)
    Tensor._flatten_tensors(ps)
    opt = nn.SGD(ps, learning_rate=0.5)
    assert opt._use_flattened_params and len(opt._parameters) == 1 and len(opt.parameters) == 3
    assert opt._grad_fusion_size == 0 and opt.cache_enable == (False,)
    grads = tuple(Tensor(np.array([g], np.float32)) for g in (1.0, -2.0, 4.0))
    (flat_g,) = opt.flatten_gradients(grads)
    np.testing.assert_array_equal(flat_g.asnumpy(), [1.0, -2.0, 4.0])
    opt(grads)  # p -= 0.5 g, on the views: the chunk moves with them
    want = np.array([1.0, 2.0, 3.0]) - 0.5 * np.array([1.0, -2.0, 4.0])
    np.testing.assert_allclose([p.asnumpy()[0] for p in ps], want, rtol=1e-6)
    np.testing.assert_allclose(opt._parameters[0].asnumpy(), want, rtol=1e-6)
    # the chunk Parameters are views, not weights of the optimizer
    assert all(not n.startswith("_chunk_param") for n, _ in opt.parameters_and_names())


def test_flatten_weights_trains_like_the_unflattened_net(mode):
    ms.set_seed(3)
    nets = [nn.Dense(4, 3), nn.Dense(4, 3)]
    for a, b in zip(nets[0].trainable_params(), nets[1].trainable_params()):
        b.set_data(Tensor(a.asnumpy().copy()))
    nets[1].flatten_weights()
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = Tensor((np.arange(8) % 3).astype(np.int32))
    steps = []
    for net in nets:
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        steps.append((nn.TrainOneStepCell(loss, opt), opt))
    assert not steps[0][1]._use_flattened_params and steps[1][1]._use_flattened_params
    for _ in range(3):
        for step, _ in steps:
            step(x, y)
    for a, b in zip(nets[0].trainable_params(), nets[1].trainable_params()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    (chunk,) = steps[1][1]._parameters
    np.testing.assert_allclose(
        chunk.asnumpy(), np.concatenate([p.asnumpy().ravel() for p in nets[1].trainable_params()]),
        rtol=0, atol=0)
