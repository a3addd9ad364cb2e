"""The networks of the auto_parallel tests (imported by the tests and by their Gloo workers,
which get this folder on their command line): the Megatron-style MLP of
test_semi_auto_parallel.py and the transformer block of test_semi_auto_parallel_block.py,
without strategies (the search chooses them), their sizes and dtype chosen by the caller;
and a tower of many blocks (the large graph of the recursive search)."""
import numpy as np

import mycel as ms
from mycel import nn, ops, Tensor, Parameter


class MLP(nn.Cell):
    """relu(x @ w1 + b1) @ w2 + b2."""

    def __init__(self, d, h, o, dtype=ms.float64, seed=7):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w1 = Parameter(Tensor(rng.standard_normal((d, h)) * 0.3, dtype), name="w1")
        self.b1 = Parameter(Tensor(rng.standard_normal(h) * 0.1, dtype), name="b1")
        self.w2 = Parameter(Tensor(rng.standard_normal((h, o)) * 0.3, dtype), name="w2")
        self.b2 = Parameter(Tensor(rng.standard_normal(o) * 0.1, dtype), name="b2")
        self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
        self.add, self.relu = ops.Add(), ops.ReLU()

    def construct(self, x):
        h = self.relu(self.add(self.mm1(x, self.w1), self.b1))
        return self.mm2(h, self.w2) + self.b2


def mlp_numpy(net, x, y):
    """The MLP's mean-MSE loss against y and its gradients (w1, b1, w2, b2), in numpy."""
    w1, b1, w2, b2 = (p.asnumpy() for p in net.trainable_params())
    z = x @ w1 + b1
    h = np.maximum(z, 0)
    d = h @ w2 + b2 - y
    g_out = 2 * d / d.size
    g_z = (g_out @ w2.T) * (z > 0)
    return np.mean(d ** 2), [x.T @ g_z, g_z.sum(0), h.T @ g_out, g_out.sum(0)]


def mlp_data(b, d, o, dtype=ms.float64, seed=8):
    rng = np.random.default_rng(seed)
    return (Tensor(rng.standard_normal((b, d)), dtype), Tensor(rng.standard_normal((b, o)), dtype))


class Block(nn.Cell):
    """A transformer block: a Gather embedding, LayerNorm, multi-head attention (Q/K/V, the
    scores' softmax, the output projection, a residual), LayerNorm, a tanh MLP with a
    residual, the vocabulary projection and a sparse softmax cross-entropy (the loss)."""

    def __init__(self, b=4, s=3, d=8, heads=4, f=16, v=10, dtype=ms.float64, seed=11,
                 layer_only=False):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.b, self.s, self.d, self.heads_n = b, s, d, heads
        init = {"emb": rng.standard_normal((v, d)),
                "wq": rng.standard_normal((d, d)) * 0.4, "wk": rng.standard_normal((d, d)) * 0.4,
                "wv": rng.standard_normal((d, d)) * 0.4, "wo": rng.standard_normal((d, d)) * 0.4,
                "g1": 1 + 0.1 * rng.standard_normal(d), "be1": 0.1 * rng.standard_normal(d),
                "g2": 1 + 0.1 * rng.standard_normal(d), "be2": 0.1 * rng.standard_normal(d),
                "w1": rng.standard_normal((d, f)) * 0.4, "w2": rng.standard_normal((f, d)) * 0.4,
                "head": rng.standard_normal((d, v)) * 0.4}
        if layer_only:  # a layer of a Tower: no embedding, head or loss of its own
            del init["emb"], init["head"]
        for name, value in init.items():
            setattr(self, name, Parameter(Tensor(value, dtype), name=name))
        self.gather = ops.Gather()
        self.ln1 = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
        self.ln2 = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
        self.q, self.k, self.v = ops.MatMul(), ops.MatMul(), ops.MatMul()
        self.o, self.m1, self.m2 = ops.MatMul(), ops.MatMul(), ops.MatMul()
        self.proj = ops.MatMul()
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()
        self.softmax = ops.Softmax(axis=-1)
        self.loss = ops.SparseSoftmaxCrossEntropyWithLogits()
        self.scale = 1.0 / np.sqrt(d // heads)

    def split_heads(self, t):  # [B*S, D] -> [B, HEADS, S, DH]
        return ops.transpose(ops.reshape(t, (self.b, self.s, self.heads_n,
                                             self.d // self.heads_n)), (0, 2, 1, 3))

    def construct(self, tokens, labels):
        x = self.gather(self.emb, tokens, 0)                         # [B*S, D]
        return self.loss(self.proj(self.layer(x), self.head), labels)

    def layer(self, x):
        """The attention and the MLP, each with its residual: [B*S, D] -> [B*S, D]."""
        h = self.ln1(x, self.g1, self.be1)[0]
        q = self.split_heads(self.q(h, self.wq))
        k = self.split_heads(self.k(h, self.wk))
        v = self.split_heads(self.v(h, self.wv))
        p = self.softmax(self.scores(q, k) * self.scale)             # [B, HEADS, S, S]
        ctx = ops.reshape(ops.transpose(self.mix(p, v), (0, 2, 1, 3)), (self.b * self.s, self.d))
        x = x + self.o(ctx, self.wo)
        h = self.ln2(x, self.g2, self.be2)[0]
        return x + self.m2(ops.tanh(self.m1(h, self.w1)), self.w2)


class Tower(nn.Cell):
    """`n` transformer layers (Block.layer) between one embedding and one vocabulary
    projection with its loss: about 20 searched ops per layer."""

    def __init__(self, n, b=4, s=3, d=8, heads=4, f=16, v=10, dtype=ms.float32):
        super().__init__()
        rng = np.random.default_rng(13)
        self.emb = Parameter(Tensor(rng.standard_normal((v, d)), dtype), name="emb")
        self.head = Parameter(Tensor(rng.standard_normal((d, v)) * 0.4, dtype), name="head")
        self.layers = nn.CellList([Block(b, s, d, heads, f, v, dtype, seed=100 + i,
                                         layer_only=True) for i in range(n)])
        self.gather, self.proj = ops.Gather(), ops.MatMul()
        self.loss = ops.SparseSoftmaxCrossEntropyWithLogits()

    def construct(self, tokens, labels):
        x = self.gather(self.emb, tokens, 0)
        for layer in self.layers:
            x = layer.layer(x)
        return self.loss(self.proj(x, self.head), labels)


def block_data(b=4, s=3, v=10, seed=12):
    rng = np.random.default_rng(seed)
    return (Tensor(rng.integers(0, v, (b * s,)).astype(np.int32)),
            Tensor(rng.integers(0, v, (b * s,)).astype(np.int32)))


class LeNet(nn.Cell):
    """LeNet-5 (two valid 5x5 convolutions with ReLU and 2x2 max pools, three Dense layers),
    the network of test_semi_auto_parallel_lenet.py, its weights from a seed."""

    def __init__(self, dtype=ms.float64, seed=0):
        super().__init__()
        ms.set_seed(seed)
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", dtype=dtype)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", dtype=dtype)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 4 * 4, 120, dtype=dtype)
        self.fc2 = nn.Dense(120, 84, dtype=dtype)
        self.fc3 = nn.Dense(84, 10, dtype=dtype)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.relu(self.fc1(self.flatten(x)))
        return self.fc3(self.relu(self.fc2(x)))


def lenet_data(b=8, dtype=ms.float64, seed=5):
    rng = np.random.default_rng(seed)
    return (Tensor(rng.standard_normal((b, 1, 28, 28)), dtype),
            Tensor(rng.integers(0, 10, (b,)).astype(np.int32)))
