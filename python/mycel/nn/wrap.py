"""Cells that wrap a network for training (MindSpore's ``nn.WithLossCell``)."""
from mycel.nn.cell import Cell


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: the network and its loss as one Cell, the usual
    target of ``value_and_grad(..., weights=net.trainable_params())``."""

    def __init__(self, backbone, loss_fn):
        super().__init__()
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone
