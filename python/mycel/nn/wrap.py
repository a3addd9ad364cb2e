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
    whole step is one compiled graph.

    In data parallelism (``set_auto_parallel_context(parallel_mode="data_parallel")`` in a
    job that ``communication.init()`` joined) the gradients are all-reduced over the ranks by
    a ``DistributedGradReducer`` before the update (averaged with gradients_mean), each
    bucket as soon as the backward pass has computed its gradients (in both modes), and with
    parameter_broadcast every rank starts from rank 0's parameters."""

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
        from mycel.parallel import context as pctx
        self.reducer_flag = pctx.is_data_parallel()
        self.grad_reducer = None
        if self.reducer_flag:
            from mycel.nn.grad_reducer import DistributedGradReducer, broadcast_parameters
            if pctx.get_auto_parallel_context("parameter_broadcast"):
                params = list(network.get_parameters())  # and the optimizer's state
                seen = {id(p) for p in params}
                broadcast_parameters(params + [p for p in optimizer.get_parameters()
                                               if id(p) not in seen])
            self.grad_reducer = DistributedGradReducer(self.weights)
            if self.sens is None:  # PYNATIVE: buckets reduced while the backward runs
                self.grad_fn._weight_ready = self.grad_reducer._step

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if self.sens is not None:
            scaled = ()
            for g in grads:
                scaled = scaled + (g * self.sens,)
            grads = scaled
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        return depend(loss, self.optimizer(grads))
