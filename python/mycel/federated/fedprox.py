"""FedProx (Li et al., MLSys 2020) on the client: the local objective adds a proximal term
that keeps a client's weights near the round's global model,

    loss(w) + mu / 2 * sum_i ||w_i - w_global_i||^2,

which bounds how far heterogeneous (non-IID) clients drift in their local epochs. The server
side of FedProx is plain FedAvg, so only the client changes.
"""
import numpy as np

from mycel import nn, ops
from mycel.common.parameter import ParameterTuple
from mycel.common.tensor import Tensor


class FedProxLoss(nn.Cell):
    """Wraps a network that returns its loss (e.g. ``nn.WithLossCell``) with FedProx's
    proximal term over its trainable parameters.

    Args:
        network (Cell): the network with its loss.
        mu (float): the proximal weight, >= 0 (0 is FedAvg's local objective).

    ``set_global(weights)`` sets the anchor (the round's global model, {name: ndarray} keyed
    as the network's parameters are); FederatedLearningCallback(proximal=...) does so each
    round. Until then the anchor is the parameters' values at construction.
    """

    def __init__(self, network, mu):
        super().__init__(auto_prefix=False)  # a wrapper: the parameters keep their names
        if isinstance(mu, bool) or not isinstance(mu, (int, float)) or not mu >= 0:
            raise ValueError(f"FedProxLoss: mu must be a number >= 0, got {mu!r}.")
        self.network = network
        self.mu = float(mu)
        self.weights = ParameterTuple(network.trainable_params())
        self.anchors = self.weights.clone(prefix="fedprox_anchor")
        for a in self.anchors:
            a.requires_grad = False

    def set_global(self, weights):
        """Sets the anchor to the global model's values of the trainable parameters."""
        for w, a in zip(self.weights, self.anchors):
            if w.name not in weights:
                raise ValueError(f"FedProxLoss.set_global: the global model lacks '{w.name}'.")
            value = np.asarray(weights[w.name], dtype=np.float32)
            if tuple(value.shape) != tuple(w.shape):
                raise ValueError(f"FedProxLoss.set_global: '{w.name}' has shape "
                                 f"{tuple(value.shape)}, the parameter's is {tuple(w.shape)}.")
            a.set_data(Tensor(value))

    def construct(self, *inputs):
        loss = self.network(*inputs)
        prox = 0.0
        for w, a in zip(self.weights, self.anchors):
            prox = prox + ops.sum(ops.square(w - a))
        return loss + 0.5 * self.mu * prox
