"""Single-step gradient attacks (MindArmour's ``gradient_method``): FGSM, FGM and their
random-start variants (Goodfellow et al. 2015; Tramer et al. 2018).

Every attack computes the input gradient of ``loss_fn(network(x), labels)`` with one
``GradWrapWithLoss`` cell built at construction and reused for every call (compiled once per
input shape in GRAPH mode). eps and alpha are proportions of the data range
``bounds[1] - bounds[0]``; the result is clipped to bounds."""
import numpy as np

from mycel.armour.adv_robustness._util import (GradWrapWithLoss, check_bounds, check_inputs_labels,
                                               check_network, check_norm_level, check_positive,
                                               normalize_value, tensor)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.nn.layer._check import bool_
from mycel.nn.loss import SoftmaxCrossEntropyWithLogits
from mycel.nn.wrap import WithLossCell


def loss_gradient_cell(network, loss_fn):
    """GradWrapWithLoss over WithLossCell(network, loss_fn); loss_fn None is MindArmour's
    default, SoftmaxCrossEntropyWithLogits(sparse=False) (one-hot labels)."""
    if loss_fn is None:
        loss_fn = SoftmaxCrossEntropyWithLogits(sparse=False)
    return GradWrapWithLoss(WithLossCell(network, loss_fn))


class GradientMethod(Attack):
    """GradientMethod(network, eps=0.07, alpha=None, bounds=None, loss_fn=None): the base of
    the single-step attacks. ``generate`` adds ``eps * d`` (d: the subclass's direction from
    the input gradient) times the data range; with alpha, ``(eps - alpha) * d`` plus a random
    ``alpha * sign(N(0, 1))`` part (the gradient taken at the clean input, as MindArmour)."""

    def __init__(self, network, eps=0.07, alpha=None, bounds=None, loss_fn=None):
        who = type(self).__name__
        self._network = check_network(who, network)
        self._eps = check_positive(who, "eps", eps)
        self._alpha = None if alpha is None else check_positive(who, "alpha", alpha)
        if self._alpha is not None and self._eps < self._alpha:
            raise ValueError(f"For '{who}', 'eps' must be >= 'alpha', but got eps={eps} and "
                             f"alpha={alpha}.")
        self._bounds = check_bounds(who, bounds)
        self._is_targeted = False
        self._grad_all = loss_gradient_cell(network, loss_fn)

    def _loss_gradient(self, inputs, labels):
        """The input gradient of the loss (negated for a targeted attack, which descends)."""
        grad = self._grad_all(tensor(inputs), tensor(labels)).asnumpy()
        return -grad if self._is_targeted else grad

    def _direction(self, gradient):
        raise NotImplementedError

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] (float numpy) and labels as the loss
        expects them (one-hot [N, C] for the default loss): original labels, or target labels
        with is_targeted."""
        inputs, labels = check_inputs_labels(type(self).__name__, inputs, labels)
        direction = self._direction(self._loss_gradient(inputs, labels))
        if self._alpha is not None:
            noise = np.sign(np.random.normal(size=inputs.shape)).astype(inputs.dtype)
            perturbation = (self._eps - self._alpha) * direction + self._alpha * noise
        else:
            perturbation = self._eps * direction
        if self._bounds is None:
            return (inputs + perturbation).astype(inputs.dtype)
        lo, hi = self._bounds
        adv = inputs + perturbation * (hi - lo)
        return np.clip(adv, lo, hi).astype(inputs.dtype)


class FastGradientMethod(GradientMethod):
    """FastGradientMethod(network, eps=0.07, alpha=None, bounds=(0.0, 1.0), norm_level=2,
    is_targeted=False, loss_fn=None): one step along the input gradient normalised per sample
    by its l1, l2 or l-inf norm (norm_level 1, 2 or np.inf)."""

    def __init__(self, network, eps=0.07, alpha=None, bounds=(0.0, 1.0), norm_level=2,
                 is_targeted=False, loss_fn=None):
        super().__init__(network, eps=eps, alpha=alpha, bounds=bounds, loss_fn=loss_fn)
        self._norm_level = check_norm_level(type(self).__name__, norm_level)
        self._is_targeted = bool_(is_targeted, "is_targeted", type(self).__name__)

    def _direction(self, gradient):
        return normalize_value(gradient, self._norm_level)


class RandomFastGradientMethod(FastGradientMethod):
    """RandomFastGradientMethod(network, eps=0.07, alpha=0.035, bounds=(0.0, 1.0),
    norm_level=2, is_targeted=False, loss_fn=None): FGM with a random sign step of alpha
    (eps must be >= alpha)."""

    def __init__(self, network, eps=0.07, alpha=0.035, bounds=(0.0, 1.0), norm_level=2,
                 is_targeted=False, loss_fn=None):
        super().__init__(network, eps=eps, alpha=alpha, bounds=bounds, norm_level=norm_level,
                         is_targeted=is_targeted, loss_fn=loss_fn)


class FastGradientSignMethod(GradientMethod):
    """FastGradientSignMethod(network, eps=0.07, alpha=None, bounds=(0.0, 1.0),
    is_targeted=False, loss_fn=None): one step of eps along the sign of the input gradient
    (FGSM)."""

    def __init__(self, network, eps=0.07, alpha=None, bounds=(0.0, 1.0), is_targeted=False,
                 loss_fn=None):
        super().__init__(network, eps=eps, alpha=alpha, bounds=bounds, loss_fn=loss_fn)
        self._is_targeted = bool_(is_targeted, "is_targeted", type(self).__name__)

    def _direction(self, gradient):
        return np.sign(gradient)


class RandomFastGradientSignMethod(FastGradientSignMethod):
    """RandomFastGradientSignMethod(network, eps=0.07, alpha=0.035, bounds=(0.0, 1.0),
    is_targeted=False, loss_fn=None): R+FGSM, a random sign step of alpha and an FGSM step of
    eps - alpha (eps must be >= alpha)."""

    def __init__(self, network, eps=0.07, alpha=0.035, bounds=(0.0, 1.0), is_targeted=False,
                 loss_fn=None):
        super().__init__(network, eps=eps, alpha=alpha, bounds=bounds,
                         is_targeted=is_targeted, loss_fn=loss_fn)


class LeastLikelyClassMethod(FastGradientSignMethod):
    """LeastLikelyClassMethod(network, eps=0.07, alpha=None, bounds=(0.0, 1.0),
    loss_fn=None): targeted FGSM; pass the least-likely class as the label."""

    def __init__(self, network, eps=0.07, alpha=None, bounds=(0.0, 1.0), loss_fn=None):
        super().__init__(network, eps=eps, alpha=alpha, bounds=bounds, is_targeted=True,
                         loss_fn=loss_fn)
