"""The base of the defences (MindArmour's ``Defense``): ``defense(inputs, labels)`` trains on
one batch, ``batch_defense`` over a data set for some epochs."""
from mycel.armour.adv_robustness._util import check_inputs_labels
from mycel.nn.layer._check import positive_int


class Defense:
    """A defence that changes the network by training it; subclasses implement
    ``defense(inputs, labels)``."""

    def __init__(self, network):
        self._network = network

    def defense(self, inputs, labels):
        """One training step on the batch; returns the loss."""
        raise NotImplementedError(f"{type(self).__name__}.defense is not implemented.")

    def batch_defense(self, inputs, labels, batch_size=32, epochs=5):
        """``defense`` over inputs in batches of batch_size (a last short batch dropped, as
        MindArmour's), epochs times in order; returns the last loss."""
        who = f"{type(self).__name__}.batch_defense"
        inputs, labels = check_inputs_labels(who, inputs, labels)
        batch_size = positive_int(batch_size, "batch_size", who)
        epochs = positive_int(epochs, "epochs", who)
        if inputs.shape[0] < batch_size:
            raise ValueError(f"For '{who}', 'batch_size' must be <= the number of inputs "
                             f"{inputs.shape[0]}, but got {batch_size}.")
        loss = None
        for _ in range(epochs):
            for i in range(0, inputs.shape[0] - batch_size + 1, batch_size):
                loss = self.defense(inputs[i:i + batch_size], labels[i:i + batch_size])
        return loss
