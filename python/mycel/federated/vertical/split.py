"""Split learning, the training half of vertical federated learning: two parties hold
different features of the same users (rows aligned by RunPSI's sorted intersection). The
follower trains a bottom network over its features; the leader, which also holds the labels,
trains its own bottom network and the top network over both embeddings. Per step only the
follower's embedding (the activation at the cut) goes to the leader and its gradient comes
back: raw features and labels never leave their party.

Both parties differentiate with mycel's own AD, in GRAPH or PYNATIVE mode: the leader takes
the gradient of its loss with respect to its parameters and to the follower's embedding
(``value_and_grad``), the follower pulls that gradient back through its bottom network
(``GradOperation(get_by_list=True, sens_param=True)``, the embedding gradient as the
sensitivity). The step is exactly the centralized network's (same losses and updates).
"""
import numpy as np

from mycel import nn
from mycel._mycel import Tensor
from mycel.ops.composite import GradOperation, depend, value_and_grad


class _LeaderLoss(nn.Cell):
    def __init__(self, bottom_net, top_net, loss_fn):
        super().__init__()
        self.bottom_net, self.top_net, self.loss_fn = bottom_net, top_net, loss_fn

    def construct(self, features, remote_embedding, label):
        return self.loss_fn(self.top_net(self.bottom_net(features), remote_embedding), label)


class _LeaderStep(nn.Cell):
    def __init__(self, loss_net, optimizer):
        super().__init__(auto_prefix=False)
        self.loss_net, self.optimizer = loss_net, optimizer
        self.grad_fn = value_and_grad(loss_net, 1, optimizer.parameters)

    def construct(self, features, remote_embedding, label):
        loss, (embedding_grad, grads) = self.grad_fn(features, remote_embedding, label)
        return depend(loss, self.optimizer(grads)), embedding_grad


class _FollowerStep(nn.Cell):
    def __init__(self, bottom_net, optimizer):
        super().__init__(auto_prefix=False)
        self.bottom_net, self.optimizer = bottom_net, optimizer
        self.grad_fn = GradOperation(get_by_list=True, sens_param=True)(bottom_net,
                                                                         optimizer.parameters)

    def construct(self, features, embedding_grad):
        grads = self.grad_fn(features, embedding_grad)
        return depend(embedding_grad, self.optimizer(grads))


def _check_optimizer(who, optimizer, nets):
    if not isinstance(optimizer, nn.Optimizer):
        raise TypeError(f"{who}: optimizer must be an nn.Optimizer, got "
                        f"{type(optimizer).__name__}.")
    own = {id(p) for n in nets for p in n.trainable_params()}
    stray = [p.name for p in optimizer.parameters if id(p) not in own]
    if stray:
        raise ValueError(f"{who}: the optimizer updates parameters that are not this party's "
                         f"networks': {stray[:3]}.")


def _tensor(x, who, what):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return Tensor(x)
    raise TypeError(f"{who}: {what} must be a Tensor or an ndarray, got {type(x).__name__}.")


class SplitFollower:
    """SplitFollower(bottom_net, optimizer, communicator, embedding_name="embedding"): the
    follower party. ``forward_one_step(features)`` sends ``bottom_net(features)`` to the leader
    as ``{embedding_name: ...}``; ``backward_one_step()`` waits for the leader's
    ``{embedding_name + "_grad": ...}`` (same shape and dtype, refused otherwise) and updates
    the bottom network with ``optimizer``. The bottom network runs again inside the backward
    step, so it must be deterministic (no dropout)."""

    def __init__(self, bottom_net, optimizer, communicator, embedding_name="embedding"):
        _check_optimizer("SplitFollower", optimizer, [bottom_net])
        self.bottom_net, self.communicator = bottom_net, communicator
        self.embedding_name = embedding_name
        self._peer = communicator.remote_server_config.server_name
        self._step = _FollowerStep(bottom_net, optimizer)
        self._pending = None

    def forward_one_step(self, features):
        """Computes and sends the embedding of ``features``; returns it."""
        if self._pending is not None:
            raise RuntimeError("SplitFollower: backward_one_step() of the last forward step "
                               "has not run.")
        features = _tensor(features, "SplitFollower", "features")
        embedding = self.bottom_net(features)
        self.communicator.send_tensors(self._peer, {self.embedding_name: embedding})
        self._pending = (features, tuple(embedding.shape), embedding.asnumpy().dtype)
        return embedding

    def backward_one_step(self):
        """Receives the embedding's gradient and updates the bottom network."""
        if self._pending is None:
            raise RuntimeError("SplitFollower: backward_one_step() without forward_one_step().")
        features, shape, dtype = self._pending
        self._pending = None
        msg = self.communicator.receive(self._peer)
        want = self.embedding_name + "_grad"
        if set(msg) != {want}:
            raise ValueError(f"SplitFollower: expected the message {{{want!r}}} from the leader, "
                             f"got {sorted(msg)}.")
        g = msg[want]
        if tuple(g.shape) != shape or g.dtype != dtype:
            raise ValueError(f"SplitFollower: the gradient {want!r} is {g.dtype}{list(g.shape)}, "
                             f"the embedding was {dtype}{list(shape)}.")
        self._step(features, Tensor(g))


class SplitLeader:
    """SplitLeader(bottom_net, top_net, loss_fn, optimizer, communicator,
    embedding_name="embedding"): the leader party, which holds the labels. Its network is
    ``loss_fn(top_net(bottom_net(features), follower_embedding), label)``; ``optimizer``
    updates its bottom and top networks. ``train_one_step(features, label)`` waits for the
    follower's embedding of the same rows, trains one step, sends back the embedding's
    gradient as ``{embedding_name + "_grad": ...}`` and returns the loss."""

    def __init__(self, bottom_net, top_net, loss_fn, optimizer, communicator,
                 embedding_name="embedding"):
        _check_optimizer("SplitLeader", optimizer, [bottom_net, top_net])
        self.communicator, self.embedding_name = communicator, embedding_name
        self._peer = communicator.remote_server_config.server_name
        self.network = _LeaderLoss(bottom_net, top_net, loss_fn)
        self._step = _LeaderStep(self.network, optimizer)

    def train_one_step(self, features, label):
        """One step on a batch whose follower embedding arrives from the peer; the loss."""
        features = _tensor(features, "SplitLeader", "features")
        label = _tensor(label, "SplitLeader", "label")
        msg = self.communicator.receive(self._peer)
        if set(msg) != {self.embedding_name}:
            raise ValueError(f"SplitLeader: expected the message {{{self.embedding_name!r}}} "
                             f"from the follower, got {sorted(msg)}.")
        emb = msg[self.embedding_name]
        if emb.ndim < 1 or emb.shape[0] != features.shape[0] or \
                not np.issubdtype(emb.dtype, np.floating):
            raise ValueError(f"SplitLeader: the follower's embedding is {emb.dtype}"
                             f"{list(emb.shape)}; a float batch of {features.shape[0]} rows "
                             f"was expected.")
        loss, embedding_grad = self._step(features, Tensor(emb), label)
        self.communicator.send_tensors(self._peer, {self.embedding_name + "_grad":
                                                    embedding_grad})
        return loss
