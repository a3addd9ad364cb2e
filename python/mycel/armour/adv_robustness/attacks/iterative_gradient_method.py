"""Iterative gradient attacks (MindArmour's ``iterative_gradient_method``): BIM (Kurakin et
al. 2017), PGD (Madry et al. 2018) and MIM (Dong et al. 2018).

eps (the total perturbation) and eps_iter (one step) are proportions of the data range
``bounds[1] - bounds[0]``. Every step reuses one compiled input-gradient cell."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_bounds, check_inputs_labels, check_network,
                                               check_norm_level, check_positive, normalize_value,
                                               tensor)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.gradient_method import (FastGradientSignMethod,
                                                                loss_gradient_cell)
from mycel.nn.layer._check import bool_, positive_int


def project(delta, radius, norm_level):
    """delta [N, ...] projected per sample onto the ball of the given radius: l-inf clips
    each element, l2 rescales a sample whose norm exceeds the radius, l1 is the Euclidean
    projection onto the l1 ball (soft thresholding at the level that makes the l1 norm equal
    to the radius; Duchi et al. 2008)."""
    flat = delta.reshape(delta.shape[0], -1)
    if norm_level == np.inf:
        out = np.clip(flat, -radius, radius)
    elif norm_level == 2:
        norm = np.sqrt((flat.astype(np.float64) ** 2).sum(axis=1, keepdims=True))
        out = flat * np.minimum(1.0, radius / np.maximum(norm, 1e-12))
    else:
        out = flat.copy()
        mag = np.abs(flat)
        outside = mag.sum(axis=1) > radius
        if outside.any():
            m = mag[outside]
            desc = -np.sort(-m, axis=1)
            cums = np.cumsum(desc, axis=1) - radius
            ranks = np.arange(1, m.shape[1] + 1)
            # the largest k with desc[k-1] > (cumsum_k - radius) / k sets the threshold
            k = (desc * ranks > cums).sum(axis=1)
            theta = cums[np.arange(m.shape[0]), k - 1] / k
            out[outside] = np.sign(flat[outside]) * np.maximum(m - theta[:, None], 0)
    return out.astype(delta.dtype).reshape(delta.shape)


class IterativeGradientMethod(Attack):
    """IterativeGradientMethod(network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0), nb_iter=5,
    loss_fn=None): the base of the iterative attacks (loss_fn None: softmax cross entropy on
    one-hot labels)."""

    def __init__(self, network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0), nb_iter=5,
                 loss_fn=None):
        who = type(self).__name__
        self._network = check_network(who, network)
        self._eps = check_positive(who, "eps", eps)
        self._eps_iter = check_positive(who, "eps_iter", eps_iter)
        self._nb_iter = positive_int(nb_iter, "nb_iter", who)
        self._bounds = check_bounds(who, bounds)

    def _range(self):
        """The data range's width (1 without bounds)."""
        return 1.0 if self._bounds is None else self._bounds[1] - self._bounds[0]

    def _clip(self, x):
        return x if self._bounds is None else np.clip(x, *self._bounds)


class BasicIterativeMethod(IterativeGradientMethod):
    """BasicIterativeMethod(network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0),
    is_targeted=False, nb_iter=5, loss_fn=None): nb_iter FGSM steps of eps_iter, the total
    perturbation clipped to [-eps, eps] after each."""

    def __init__(self, network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0), is_targeted=False,
                 nb_iter=5, loss_fn=None):
        super().__init__(network, eps=eps, eps_iter=eps_iter, bounds=bounds, nb_iter=nb_iter,
                         loss_fn=loss_fn)
        self._is_targeted = bool_(is_targeted, "is_targeted", type(self).__name__)
        self._attack = FastGradientSignMethod(network, eps=eps_iter, bounds=bounds,
                                              is_targeted=is_targeted, loss_fn=loss_fn)

    def _start(self, inputs):
        return inputs

    def _constrain(self, delta):
        r = self._eps * self._range()
        return np.clip(delta, -r, r)

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] and (original or target) labels."""
        inputs, labels = check_inputs_labels(type(self).__name__, inputs, labels)
        adv = self._start(inputs)
        for _ in range(self._nb_iter):
            step = self._attack.generate(adv, labels)
            adv = self._clip(inputs + self._constrain(step - inputs)).astype(inputs.dtype)
        return adv


class ProjectedGradientDescent(BasicIterativeMethod):
    """ProjectedGradientDescent(network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0),
    is_targeted=False, nb_iter=5, norm_level='inf', loss_fn=None, random_start=False):
    BIM whose total perturbation is projected onto the eps ball of norm_level (1, 2 or inf)
    after every step. No random start unless random_start=True (then a uniform start in the
    l-inf eps box, clipped to bounds)."""

    def __init__(self, network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0), is_targeted=False,
                 nb_iter=5, norm_level="inf", loss_fn=None, random_start=False):
        super().__init__(network, eps=eps, eps_iter=eps_iter, bounds=bounds,
                         is_targeted=is_targeted, nb_iter=nb_iter, loss_fn=loss_fn)
        self._norm_level = check_norm_level(type(self).__name__, norm_level)
        self._random_start = bool_(random_start, "random_start", type(self).__name__)

    def _start(self, inputs):
        if not self._random_start:
            return inputs
        r = self._eps * self._range()
        noise = np.random.uniform(-r, r, size=inputs.shape).astype(inputs.dtype)
        return self._clip(inputs + noise).astype(inputs.dtype)

    def _constrain(self, delta):
        return project(delta, self._eps * self._range(), self._norm_level)


class MomentumIterativeMethod(IterativeGradientMethod):
    """MomentumIterativeMethod(network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0),
    is_targeted=False, nb_iter=5, decay_factor=1.0, norm_level='inf', loss_fn=None): each
    step accumulates the input gradient normalised by its norm_level norm into a momentum
    (``m = decay_factor * m + g / |g|``) and moves eps_iter along sign(m); the total
    perturbation is clipped to [-eps, eps] and the result to bounds."""

    def __init__(self, network, eps=0.3, eps_iter=0.1, bounds=(0.0, 1.0), is_targeted=False,
                 nb_iter=5, decay_factor=1.0, norm_level="inf", loss_fn=None):
        super().__init__(network, eps=eps, eps_iter=eps_iter, bounds=bounds, nb_iter=nb_iter,
                         loss_fn=loss_fn)
        who = type(self).__name__
        self._is_targeted = bool_(is_targeted, "is_targeted", who)
        self._decay_factor = check_positive(who, "decay_factor", decay_factor)
        self._norm_level = check_norm_level(who, norm_level)
        self._grad_all = loss_gradient_cell(network, loss_fn)

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] and (original or target) labels."""
        inputs, labels = check_inputs_labels(type(self).__name__, inputs, labels)
        r, width = self._eps * self._range(), self._range()
        y = tensor(labels)
        adv, momentum = inputs, np.zeros_like(inputs)
        for _ in range(self._nb_iter):
            g = self._grad_all(tensor(adv), y).asnumpy()
            if self._is_targeted:
                g = -g
            momentum = self._decay_factor * momentum + normalize_value(g, self._norm_level)
            step = adv + self._eps_iter * width * np.sign(momentum)
            adv = self._clip(inputs + np.clip(step - inputs, -r, r)).astype(inputs.dtype)
        return adv
