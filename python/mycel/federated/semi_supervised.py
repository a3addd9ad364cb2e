"""Semi-supervised federated learning: clients that hold unlabeled data take part through
pseudo-labels above a confidence threshold.

The recipe is FixMatch's (Sohn et al., NeurIPS 2020) in the federated form of FedMatch and
SemiFL (the global model is the teacher of its round): when an unlabeled client joins a round,
the global model it received labels the client's samples, seen through a weak augmentation;
a sample whose largest softmax probability reaches ``pseudo_label_threshold`` takes its argmax
as label, the others are masked out. The client then trains on the strong augmentation of its
samples with the masked cross-entropy

    unlabeled_loss_weight * sum_i mask_i * CE(net(strong(x_i)), label_i) / B

(B the batch size, not the number of confident samples, so a client the model is unsure about
moves it little), and uploads its weights like any other client: the server's FedAvg (or
FedAvgM) averages labeled and pseudo-labeled clients by their sample counts. Consistency
between the weak and the strong view is what the strong augmentation buys; without transforms
this is plain pseudo-labeling (Lee, 2013).

MindSpore Federated's server and client configs have no semi-supervised keys, so this is the
client's: ``pseudo_label_threshold`` and ``unlabeled_loss_weight`` are FixMatch's tau and
lambda_u. The pseudo-labels are computed inside the network's graph (``PseudoLabeler``), in
GRAPH and PYNATIVE mode alike.
"""
import numpy as np

from mycel import nn, ops
from mycel.common import dtype as mstype
from mycel.common.tensor import Tensor


def _number(who, name, v, ok, what):
    """float(v), or a TypeError (not a number) or ValueError (``ok(v)`` false) naming it."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{who}: {name} must be a number, got {type(v).__name__} {v!r}.")
    if not ok(v):
        raise ValueError(f"{who}: {name} must be {what}, got {v!r}.")
    return float(v)


class PseudoLabeler(nn.Cell):
    """The pseudo-labels of a classifier: ``(labels, mask) = PseudoLabeler(net, t)(x)``, labels
    the argmax of ``net(x)`` (int32, over the last axis), mask (float32, 1 or 0) whether its
    softmax probability is at least ``t``.

    Args:
        network (Cell): returns logits of shape (batch, classes).
        pseudo_label_threshold (float): the confidence threshold, in (0, 1].
    """

    def __init__(self, network, pseudo_label_threshold=0.95):
        super().__init__(auto_prefix=False)
        self.network = network
        self.threshold = _number("PseudoLabeler", "pseudo_label_threshold",
                                 pseudo_label_threshold, lambda v: 0 < v <= 1, "in (0, 1]")

    def construct(self, x):
        probs = ops.softmax(self.network(x), -1)
        labels = ops.cast(ops.argmax(probs, -1), mstype.int32)
        mask = ops.cast(ops.ge(ops.amax(probs, -1), self.threshold), mstype.float32)
        return labels, mask


class PseudoLabelLoss(nn.Cell):
    """FixMatch's unlabeled loss: ``weight * sum(mask * CE(net(x), labels)) / batch``, the
    cross-entropy of each sample's pseudo-label, masked, averaged over the whole batch.

    Args:
        network (Cell): returns logits of shape (batch, classes).
        unlabeled_loss_weight (float): lambda_u, >= 0.
    """

    def __init__(self, network, unlabeled_loss_weight=1.0):
        super().__init__(auto_prefix=False)
        self.network = network
        self.weight = _number("PseudoLabelLoss", "unlabeled_loss_weight",
                              unlabeled_loss_weight, lambda v: v >= 0, ">= 0")
        self.ce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="none")

    def construct(self, x, labels, mask):
        per_sample = self.ce(self.network(x), labels)
        return self.weight * ops.sum(per_sample * mask) / x.shape[0]


class SemiSupervisedClient:
    """A federated client that holds unlabeled samples only (``simulate``'s client interface:
    ``client_id``, ``data_size``, ``train(weights)``; with a FederatedClient, upload
    ``train(weights)`` of the model start_fl_job returned).

    Args:
        client_id (str): its id.
        network (Cell): the classifier (logits); its parameters are the federated model.
        optimizer (Optimizer): over the network's trainable parameters.
        x_unlabeled (ndarray): the client's samples, (n, ...) float32.
        pseudo_label_threshold (float): FixMatch's tau, in (0, 1]. Default 0.95.
        unlabeled_loss_weight (float): FixMatch's lambda_u. Default 1.0.
        batch_size (int): samples per step. Default 32.
        epochs (int): local epochs per round. Default 1.
        weak_transform, strong_transform (callable): ``f(batch, rng) -> batch`` on numpy
            arrays: the view the global model labels and the view the client trains on.
            Default: the samples as they are.
        data_size (int): the weight of its upload in FedAvg. Default: its sample count.
        seed (int): seeds its shuffling and its augmentations.

    ``train`` labels the samples with the global model (``last_labels`` and ``last_mask`` keep
    them), then trains ``epochs`` epochs of the masked loss; a batch without a confident
    sample takes no step. It returns the trained weights ({name: float32 ndarray}).
    """

    def __init__(self, client_id, network, optimizer, x_unlabeled, pseudo_label_threshold=0.95,
                 unlabeled_loss_weight=1.0, batch_size=32, epochs=1, weak_transform=None,
                 strong_transform=None, data_size=None, seed=0):
        x = np.ascontiguousarray(x_unlabeled, dtype=np.float32)
        if x.ndim < 2 or len(x) == 0:
            raise ValueError(f"SemiSupervisedClient: x_unlabeled must be a non-empty batch of "
                             f"samples (n, ...), got shape {x.shape}.")
        for name, v in (("batch_size", batch_size), ("epochs", epochs)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"SemiSupervisedClient: {name} must be a positive int, got "
                                 f"{v!r}.")
        for name, f in (("weak_transform", weak_transform),
                        ("strong_transform", strong_transform)):
            if f is not None and not callable(f):
                raise TypeError(f"SemiSupervisedClient: {name} must be callable, got "
                                f"{type(f).__name__}.")
        self.client_id, self.x = str(client_id), x
        self.data_size = len(x) if data_size is None else data_size
        self.network, self.batch_size, self.epochs = network, batch_size, epochs
        self.labeler = PseudoLabeler(network, pseudo_label_threshold)
        self.step = nn.TrainOneStepCell(PseudoLabelLoss(network, unlabeled_loss_weight),
                                        optimizer)
        self.weak = weak_transform or (lambda b, rng: b)
        self.strong = strong_transform or (lambda b, rng: b)
        self.rng = np.random.default_rng(seed)
        self.last_labels = self.last_mask = None

    def pseudo_labels(self):
        """(labels, mask) of the client's samples by the network as it is now (numpy)."""
        self.network.set_train(False)
        labels, mask = [], []
        for i in range(0, len(self.x), 1024):
            lab, m = self.labeler(Tensor(self.weak(self.x[i:i + 1024], self.rng)))
            labels.append(lab.asnumpy())
            mask.append(m.asnumpy())
        self.network.set_train(True)
        return np.concatenate(labels), np.concatenate(mask)

    def train(self, weights):
        """Loads the global model, labels the samples with it, trains on the confident ones
        and returns the new weights."""
        from mycel.federated.callback import load_weights, network_weights
        load_weights(self.network, weights)
        labels, mask = self.pseudo_labels()
        self.last_labels, self.last_mask = labels, mask
        for _ in range(self.epochs):
            order = self.rng.permutation(len(self.x))
            for i in range(0, len(order), self.batch_size):
                idx = order[i:i + self.batch_size]
                if not mask[idx].any():
                    continue
                self.step(Tensor(self.strong(self.x[idx], self.rng)), Tensor(labels[idx]),
                          Tensor(mask[idx]))
        return network_weights(self.network)
