"""nn.Softmin, Softmax2d, RReLU, ClipByNorm, Norm, ChannelShuffle, Dropout1d and
HingeEmbeddingLoss against torch (forward and gradients where torch has the layer), in
PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, Tensor

X = np.random.RandomState(0).randn(2, 6, 3, 4).astype(np.float32)


def _grad(cell, x, w):
    return ms.grad(lambda a: (cell(a) * Tensor(w)).sum())(Tensor(x)).asnumpy()


def _check(cell, tfn, x):
    tx = torch.tensor(x, requires_grad=True)
    ty = tfn(tx)
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), ty.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    w = np.random.RandomState(1).randn(*ty.shape).astype(np.float32)
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(_grad(cell, x, w), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_softmin_softmax2d_channel_shuffle(mode):
    _check(nn.Softmin(1), torch.nn.Softmin(1), X)
    _check(nn.Softmax2d(), torch.nn.Softmax2d(), X)
    # torch's ChannelShuffle has no backward: the same permutation by reshape/transpose
    _check(nn.ChannelShuffle(3), lambda t: t.reshape(2, 3, 2, 3, 4).transpose(1, 2)
           .reshape(2, 6, 3, 4), X)
    np.testing.assert_array_equal(nn.ChannelShuffle(3)(Tensor(X)).asnumpy(),
                                  torch.nn.ChannelShuffle(3)(torch.tensor(X)).numpy())
    with pytest.raises(ValueError):
        nn.ChannelShuffle(4)(Tensor(X))
    with pytest.raises(ValueError):
        nn.Softmax2d()(Tensor(X[0, 0]))


def test_rrelu_eval_is_the_mean_slope_and_training_draws_in_range(mode):
    cell = nn.RReLU(0.1, 0.5)
    cell.set_train(False)
    _check(cell, lambda t: torch.nn.functional.rrelu(t, 0.1, 0.5, training=False), X)
    cell.set_train(True)
    y = cell(Tensor(X)).asnumpy()
    neg = X < 0
    np.testing.assert_array_equal(y[~neg], X[~neg])
    ratio = y[neg] / X[neg]
    assert ratio.min() >= 0.1 - 1e-6 and ratio.max() <= 0.5 + 1e-6 and ratio.std() > 0.05
    with pytest.raises(TypeError):
        nn.RReLU("-1", "-1")
    with pytest.raises(ValueError):
        nn.RReLU(0.9, 0.1)


def test_clip_by_norm_and_norm(mode):
    x = np.array([[-2, 0, 0], [0, 3, 4]], np.float32)
    out = nn.ClipByNorm()(Tensor(x), Tensor(np.array([1.0], np.float32))).asnumpy()
    np.testing.assert_allclose(out, x / np.sqrt(29.0), rtol=1e-6)
    out = nn.ClipByNorm(axis=1)(Tensor(x), Tensor(np.array([3.0], np.float32))).asnumpy()
    np.testing.assert_allclose(out, [[-2, 0, 0], [0, 1.8, 2.4]], rtol=1e-6)
    np.testing.assert_allclose(nn.Norm(axis=1)(Tensor(x)).asnumpy(), [2.0, 5.0], rtol=1e-6)
    np.testing.assert_allclose(nn.Norm()(Tensor(x)).asnumpy(), np.sqrt(29.0), rtol=1e-6)


def test_dropout1d_zeroes_whole_channels(mode):
    x = np.ones((4, 64, 5), np.float32)
    cell = nn.Dropout1d(0.25)
    cell.set_train(True)
    y = cell(Tensor(x)).asnumpy()
    per_channel = y.reshape(4 * 64, 5)
    assert all(len(set(row)) == 1 for row in per_channel)  # a channel is kept or dropped whole
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.1 < (per_channel[:, 0] == 0).mean() < 0.4
    cell.set_train(False)
    np.testing.assert_array_equal(cell(Tensor(x)).asnumpy(), x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_hinge_embedding_loss(mode, reduction):
    x = np.array([[0.9, -1.2, 2], [0.8, 3.9, 2], [1, 0, -1]], np.float32)
    y = np.array([[1, -1, -1], [-1, 1, 1], [1, -1, 1]], np.float32)
    cell = nn.HingeEmbeddingLoss(margin=1.5, reduction=reduction)
    ref = torch.nn.HingeEmbeddingLoss(margin=1.5, reduction=reduction)
    out = cell(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_allclose(out, ref(torch.tensor(x), torch.tensor(y)).numpy(), rtol=1e-6)
    with pytest.raises(ValueError):
        cell(Tensor(x), Tensor(np.ones((2, 2), np.float32)))


@pytest.mark.parametrize("operator", ["SUM", "MEAN", "MAX"])
def test_multi_field_embedding_lookup_matches_numpy(mode, operator):
    rng = np.random.RandomState(0)
    batch, seq, fields, vocab, dim = 3, 7, 4, 11, 5
    ids = rng.randint(0, vocab, (batch, seq)).astype(np.int32)
    vals = rng.rand(batch, seq).astype(np.float32)
    fids = rng.randint(0, fields - 1, (batch, seq)).astype(np.int32)  # field 3 stays empty
    cell = nn.MultiFieldEmbeddingLookup(vocab, dim, fields, operator=operator)
    table = cell.embedding_table.asnumpy()
    out = cell(Tensor(ids), Tensor(vals), Tensor(fids)).asnumpy()
    expect = np.zeros((batch, fields, dim), np.float32)
    for b in range(batch):
        for f in range(fields):
            rows = [table[ids[b, s]] * vals[b, s] for s in range(seq) if fids[b, s] == f]
            if rows:
                agg = {"SUM": np.sum, "MEAN": np.mean, "MAX": np.max}[operator]
                expect[b, f] = agg(np.stack(rows), axis=0)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        cell(Tensor(ids.astype(np.int16)), Tensor(vals), Tensor(fids))
    with pytest.raises(ValueError):
        cell(Tensor(ids[0]), Tensor(vals), Tensor(fids))


def test_embedding_lookup_with_max_norm(mode):
    cell = nn.EmbeddingLookup(6, 3, max_norm=0.5, param_init="ones")
    ids = np.array([[0, 5], [2, 2]], np.int32)
    out = cell(Tensor(ids)).asnumpy()
    np.testing.assert_allclose(out, np.full((2, 2, 3), 0.5 / np.sqrt(3.0)), rtol=1e-6)


def test_cell_insert_child_apply_and_celllist_iadd():
    net = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
    seen = []
    assert net.apply(lambda c: seen.append(type(c).__name__)) is net
    assert seen == ["SequentialCell", "Dense", "ReLU"]
    host = nn.Cell()
    host.insert_child_to_cell("head", nn.Dense(2, 3))
    assert [n for n, _ in host.cells_and_names()] == ["", "head"]
    assert [n for n, _ in host.parameters_and_names()] == ["head.weight", "head.bias"]
    for bad in ("", "a.b"):
        with pytest.raises(KeyError):
            host.insert_child_to_cell(bad, nn.ReLU())
    with pytest.raises(TypeError):
        host.insert_child_to_cell("x", Tensor(np.ones(2, np.float32)))
    with pytest.raises(KeyError):
        host.insert_param_to_cell("", ms.Parameter(Tensor(np.ones(2, np.float32)), "p"))
    cells = nn.CellList([nn.ReLU()])
    cells += [nn.Tanh()]
    assert len(cells) == 2 and isinstance(cells[1], nn.Tanh)


def test_cell_flags_are_recorded_recursively():
    net = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
    assert net.add_flags_recursive(defer_inline=True) is net
    assert all(c.get_flags() == {"defer_inline": True} for _, c in net.cells_and_names())
    assert nn.Cell(flags={"a": 1}).get_flags() == {"a": 1}
    np.testing.assert_allclose(net(Tensor(np.ones((1, 2), np.float32))).shape, (1, 2))
