"""Adversarial training (MindArmour's ``adversarial_defense``, ``natural_adversarial_defense``,
``projected_adversarial_defense``): each batch has part of its samples replaced by
adversarial examples of the current network, then one training step runs on it.

The training step is ``nn.TrainOneStepCell`` (one compiled graph in GRAPH mode); the attacks
share the network's Parameters, so each batch is attacked with the weights of that moment."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_bounds, check_inputs_labels, check_network,
                                               check_rate, check_type, tensor)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.gradient_method import FastGradientSignMethod
from mycel.armour.adv_robustness.attacks.iterative_gradient_method import \
    ProjectedGradientDescent
from mycel.armour.adv_robustness.defenses.defense import Defense
from mycel.nn.loss import SoftmaxCrossEntropyWithLogits
from mycel.nn.optim.momentum import Momentum
from mycel.nn.wrap import TrainOneStepCell, WithLossCell


def _default_loss():
    """SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'): integer labels."""
    return SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


class AdversarialDefense(Defense):
    """AdversarialDefense(network, loss_fn=None, optimizer=None): trains network on the
    batches it is given (``defense(inputs, labels)`` returns the loss). loss_fn None:
    SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean') (integer labels); optimizer
    None: Momentum(learning_rate=0.01, momentum=0.9) over the trainable parameters."""

    def __init__(self, network, loss_fn=None, optimizer=None):
        super().__init__(check_network(type(self).__name__, network))
        if loss_fn is None:
            loss_fn = _default_loss()
        if optimizer is None:
            optimizer = Momentum(network.trainable_params(), learning_rate=0.01, momentum=0.9)
        self._loss_fn = loss_fn
        self._train_net = TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)
        self._train_net.set_train()

    def defense(self, inputs, labels):
        """One training step on (inputs, labels); returns the loss as a numpy value."""
        inputs, labels = check_inputs_labels(type(self).__name__, inputs, labels)
        return self._train_net(tensor(inputs), tensor(labels)).asnumpy()


class AdversarialDefenseWithAttacks(AdversarialDefense):
    """AdversarialDefenseWithAttacks(network, attacks, loss_fn=None, optimizer=None,
    bounds=(0.0, 1.0), replace_ratio=0.5): each batch, ceil(replace_ratio * N) random samples
    are replaced by adversarial examples, split evenly over the attacks (each attack's
    ``generate`` on its share, with the batch's labels), then one training step runs."""

    def __init__(self, network, attacks, loss_fn=None, optimizer=None, bounds=(0.0, 1.0),
                 replace_ratio=0.5):
        super().__init__(network, loss_fn=loss_fn, optimizer=optimizer)
        who = type(self).__name__
        check_type(who, "attacks", attacks, (list, tuple))
        if not attacks:
            raise ValueError(f"For '{who}', 'attacks' must not be empty.")
        for a in attacks:
            check_type(who, "attacks", a, Attack)
        self._attacks = list(attacks)
        self._bounds = check_bounds(who, bounds)
        self._replace_ratio = check_rate(who, "replace_ratio", replace_ratio)

    def defense(self, inputs, labels):
        """Replaces part of the batch by adversarial examples and trains on it; returns the
        loss."""
        inputs, labels = check_inputs_labels(type(self).__name__, inputs, labels)
        n = inputs.shape[0]
        n_adv = int(np.ceil(self._replace_ratio * n))
        per_attack = n_adv // len(self._attacks)
        ids = np.random.choice(n, size=n_adv, replace=False)
        mixed = inputs.copy()
        for k, attack in enumerate(self._attacks):
            idx = ids[k * per_attack:(k + 1) * per_attack]
            if idx.size:
                mixed[idx] = attack.generate(inputs[idx], labels[idx])
        return self._train_net(tensor(mixed), tensor(labels)).asnumpy()


class NaturalAdversarialDefense(AdversarialDefenseWithAttacks):
    """NaturalAdversarialDefense(network, loss_fn=None, optimizer=None, bounds=(0.0, 1.0),
    replace_ratio=0.5, eps=0.1): adversarial training with FGSM examples (Goodfellow et al.
    2015; Kurakin et al. 2017's mix of clean and adversarial samples); the attack
    differentiates the training loss (loss_fn, or the default on integer labels)."""

    def __init__(self, network, loss_fn=None, optimizer=None, bounds=(0.0, 1.0),
                 replace_ratio=0.5, eps=0.1):
        loss_fn = _default_loss() if loss_fn is None else loss_fn
        attack = FastGradientSignMethod(network, eps=eps, bounds=bounds, loss_fn=loss_fn)
        super().__init__(network, [attack], loss_fn=loss_fn, optimizer=optimizer,
                         bounds=bounds, replace_ratio=replace_ratio)


class ProjectedAdversarialDefense(AdversarialDefenseWithAttacks):
    """ProjectedAdversarialDefense(network, loss_fn=None, optimizer=None, bounds=(0.0, 1.0),
    replace_ratio=0.5, eps=0.3, eps_iter=0.1, nb_iter=5, norm_level='inf'): adversarial
    training with PGD examples (Madry et al. 2018)."""

    def __init__(self, network, loss_fn=None, optimizer=None, bounds=(0.0, 1.0),
                 replace_ratio=0.5, eps=0.3, eps_iter=0.1, nb_iter=5, norm_level="inf"):
        loss_fn = _default_loss() if loss_fn is None else loss_fn
        attack = ProjectedGradientDescent(network, eps=eps, eps_iter=eps_iter, bounds=bounds,
                                          nb_iter=nb_iter, norm_level=norm_level,
                                          loss_fn=loss_fn)
        super().__init__(network, [attack], loss_fn=loss_fn, optimizer=optimizer,
                         bounds=bounds, replace_ratio=replace_ratio)
