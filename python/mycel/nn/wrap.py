"""Cells that wrap a network for training (MindSpore's ``nn.WithLossCell``)."""
from mycel.nn.cell import Cell
from mycel.ops.composite import depend


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: the network and its loss as one Cell, the usual
    target of ``value_and_grad(..., weights=net.trainable_params())``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)  # the backbone's parameter names stay as they are
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


class TrainOneStepCell(Cell):
    """TrainOneStepCell(network, optimizer, sens=None): one training step as a Cell. Called
    with the network's inputs, it computes the loss and the gradients of the optimizer's
    parameters in one pass (value_and_grad), scales them by `sens` when given (loss scaling),
    updates the parameters with ``optimizer(grads)`` and returns the loss. In GRAPH mode the
    whole step is one compiled graph."""

    def __init__(self, network, optimizer, sens=None):
        super().__init__(auto_prefix=False)
        from mycel.nn.optim.optimizer import Optimizer
        from mycel.ops.composite import value_and_grad
        if not isinstance(network, Cell):
            raise TypeError(f"For 'TrainOneStepCell', the 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'TrainOneStepCell', the 'optimizer' must be an nn Optimizer, "
                            f"but got {type(optimizer).__name__}.")
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = None if sens is None else float(sens)
        self.grad_fn = value_and_grad(network, None, self.weights)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if self.sens is not None:
            scaled = ()
            for g in grads:
                scaled = scaled + (g * self.sens,)
            grads = scaled
        return depend(loss, self.optimizer(grads))
