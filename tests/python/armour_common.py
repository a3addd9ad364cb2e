"""Shared by the test_armour_* files: a Fashion-MNIST subset in [0, 1], LeNet-5 trained on it
briefly in PyTorch (the test oracle's twin, fixed seed) and its weights copied into mycel's
LeNet5 (examples/lenet.py), so both frameworks compute the same function."""
import functools
import gzip
import os

import numpy as np

import mycel as ms
from armour_oracles import torch_lenet

FASHION = "/usr/share/datasets/fashion-mnist"


def _read(name, offset):
    with gzip.open(os.path.join(FASHION, name)) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


@functools.lru_cache(maxsize=None)
def fashion(split, n):
    """The first n images of a split as float32 [n, 1, 28, 28] in [0, 1], labels int32."""
    prefix = "train" if split == "train" else "t10k"
    x = _read(f"{prefix}-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)[:n]
    y = _read(f"{prefix}-labels-idx1-ubyte.gz", 8)[:n]
    return (x.astype(np.float32) / 255.0), y.astype(np.int32)


def train_torch(model, x, y, epochs, seed=0, lr=2e-3):
    """Adam on cross entropy, batches of 64, fixed seed; returns the model in eval mode."""
    import torch
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    for _ in range(epochs):
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            opt.step()
    return model.eval()


@functools.lru_cache(maxsize=None)
def trained_weights(n_train=4000, epochs=3, seed=0):
    """{name: float32 array} of a LeNet-5 trained in PyTorch on n_train images (about 75%
    test accuracy with the defaults, in a few seconds)."""
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(seed)
    x, y = fashion("train", n_train)
    model = train_torch(torch_lenet(), x, y, epochs, seed)
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def torch_net(weights):
    """The PyTorch twin with the given weights, in eval mode, gradients off for weights."""
    import torch
    model = torch_lenet()
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def mycel_net(weights):
    """mycel's LeNet5 (examples/lenet.py) with the given weights."""
    from lenet import LeNet5
    net = LeNet5()
    params = {p.name: p for p in net.get_parameters()}
    for name, value in weights.items():
        params[name].set_data(ms.Tensor(value))
    net.set_train(False)
    return net


def roc_auc(benign, adversarial):
    """ROC-AUC of a detector's scores: P(score of an adversarial sample > score of a benign
    one), ties counted half."""
    b, a = np.asarray(benign)[None, :], np.asarray(adversarial)[:, None]
    return float((a > b).mean() + 0.5 * (a == b).mean())


def autoencoder():
    """Three 3x3 convolutions (8, 8, 1 channels) with a sigmoid output: MagNet's
    reformer/detector autoencoder for [0, 1] images."""
    from mycel import nn

    class AutoEncoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, pad_mode="same", has_bias=True)
            self.conv2 = nn.Conv2d(8, 8, 3, pad_mode="same", has_bias=True)
            self.conv3 = nn.Conv2d(8, 1, 3, pad_mode="same", has_bias=True)
            self.relu = nn.ReLU()
            self.sigmoid = nn.Sigmoid()

        def construct(self, x):
            return self.sigmoid(self.conv3(self.relu(self.conv2(self.relu(self.conv1(x))))))

    return AutoEncoder()


def detector_setting():
    """(LeNet-5 with trained_weights(), an autoencoder trained in mycel GRAPH mode to remove
    Gaussian noise (MagNet's 0.1; 5 epochs of Adam 5e-3 on 6,000 training images, MSE about
    0.003), benign test images 200..399, their labels, FGSM eps 0.1 examples of them): what
    the detector tests and bench/armour_bench.py measure detectors on; images 0..199 are left
    for fitting the detectors. Leaves the mode at PYNATIVE."""
    from mycel import nn
    from mycel.armour.adv_robustness.attacks import FastGradientSignMethod
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = mycel_net(trained_weights())
    x, _ = fashion("train", 6000)
    ae = autoencoder()
    step = nn.TrainOneStepCell(nn.WithLossCell(ae, nn.MSELoss()),
                               nn.Adam(ae.trainable_params(), learning_rate=5e-3))
    rng = np.random.default_rng(0)
    for _ in range(5):
        for i in range(0, len(x), 100):
            noisy = np.clip(x[i:i + 100] + 0.1 * rng.standard_normal(x[i:i + 100].shape), 0, 1)
            step(ms.Tensor(noisy.astype(np.float32)), ms.Tensor(x[i:i + 100]))
    xt, yt = fashion("test", 400)
    adv = FastGradientSignMethod(net, eps=0.1, loss_fn=nn.SoftmaxCrossEntropyWithLogits(
        sparse=True)).generate(xt[200:], yt[200:])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return net, ae, xt, yt, adv
