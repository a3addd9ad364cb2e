"""DP optimizers (MindArmour's ``DPOptimizerClassFactory``): an optimizer class that adds the
noise mechanism's noise to the gradients it is given and divides by the number of
micro-batches before the usual update. It expects what DPModel's step gives it without a
noise_mech: the sum of the micro-batch gradients, each clipped to the mechanism's norm_bound.
"""
from mycel.armour.privacy.diff_privacy.mechanisms import NoiseMechanismsFactory, noised_mean
from mycel.nn.layer._check import positive_int
from mycel.nn.optim.adam import Adam
from mycel.nn.optim.momentum import SGD, Momentum
from mycel.ops.composite import depend

_BASES = {"SGD": SGD, "Momentum": Momentum, "Adam": Adam}


def _dp_class(base, micro_batches, mech_spec):
    """A subclass of `base` whose update adds noise from a fresh mechanism built by
    ``NoiseMechanismsFactory.create(*mech_spec)`` and averages over micro_batches."""
    policy, args, kwargs = mech_spec

    class DPOptimizer(base):
        __doc__ = (f"{base.__name__} with differentially private gradients: built as "
                   f"{base.__name__}(...), it adds '{policy}' noise to the summed clipped "
                   f"micro-batch gradients and divides by {micro_batches} before each update.")

        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self._mech = NoiseMechanismsFactory.create(policy, *args, **kwargs)
            self._micro_batches = micro_batches

        @property
        def dp_micro_batches(self):
            """The number of micro-batches the gradients are averaged over."""
            return self._micro_batches

        @property
        def noise_mech(self):
            """The noise mechanism."""
            return self._mech

        def construct(self, gradients):
            grads = noised_mean(gradients, self._mech, self._mech._norm_bound,
                                self._micro_batches)
            return depend(base.construct(self, grads), self._mech.update())

    DPOptimizer.__name__ = DPOptimizer.__qualname__ = "DP" + base.__name__
    return DPOptimizer


class DPOptimizerClassFactory:
    """DPOptimizerClassFactory(micro_batches=2): makes optimizer classes for DP training.
    ``set_mechanisms(policy, *args, **kwargs)`` chooses the noise (``NoiseMechanismsFactory.
    create``'s arguments, e.g. ``'Gaussian', norm_bound=1.0, initial_noise_multiplier=1.5``);
    ``create('SGD' | 'Momentum' | 'Adam')`` returns the class, built like the plain optimizer
    (``DPMomentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)``)."""

    def __init__(self, micro_batches=2):
        self._micro_batches = positive_int(micro_batches, "micro_batches",
                                           "DPOptimizerClassFactory")
        self._mech_spec = None

    def set_mechanisms(self, policy, *args, **kwargs):
        """Chooses the noise mechanism (checked now by building one)."""
        NoiseMechanismsFactory.create(policy, *args, **kwargs)
        self._mech_spec = (policy, args, kwargs)

    def create(self, policy):
        """The DP optimizer class for policy 'SGD', 'Momentum' or 'Adam'."""
        if policy not in _BASES:
            raise ValueError(f"For 'DPOptimizerClassFactory.create', the 'policy' must be one "
                             f"of {sorted(_BASES)}, but got {policy!r}.")
        if self._mech_spec is None:
            raise ValueError("For 'DPOptimizerClassFactory.create', call set_mechanisms first.")
        return _dp_class(_BASES[policy], self._micro_batches, self._mech_spec)
