"""The base of every attack: ``generate`` on one batch, ``batch_generate`` over a larger set
in slices (MindArmour's ``Attack``)."""
import numpy as np

from mycel.armour.adv_robustness._util import check_type
from mycel.nn.layer._check import positive_int


class Attack:
    """An adversarial-example generator. Subclasses implement ``generate(inputs, labels)``:
    numpy batches in, numpy adversarial examples out (the black-box attacks return a tuple
    (is_adversarial, adversarial examples, query counts) as MindArmour's)."""

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] and their original (untargeted) or
        target (targeted) labels."""
        raise NotImplementedError(f"{type(self).__name__}.generate is not implemented.")

    def batch_generate(self, inputs, labels, batch_size=64):
        """``generate`` over inputs in slices of batch_size samples, results concatenated
        (elementwise for an attack that returns a tuple)."""
        who = f"{type(self).__name__}.batch_generate"
        check_type(who, "inputs", inputs, np.ndarray)
        check_type(who, "labels", labels, np.ndarray)
        batch_size = positive_int(batch_size, "batch_size", who)
        if labels.shape[0] != inputs.shape[0]:
            raise ValueError(f"For '{who}', 'inputs' and 'labels' must have the same batch "
                             f"size, but got shapes {inputs.shape} and {labels.shape}.")
        parts = [self.generate(inputs[i:i + batch_size], labels[i:i + batch_size])
                 for i in range(0, inputs.shape[0], batch_size)]
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate(col) for col in zip(*parts))
        return np.concatenate(parts)
