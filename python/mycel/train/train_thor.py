"""Training with THOR (MindSpore's ``train.ConvertModelUtils`` and the THOR step).

``ThorTrainOneStepCell`` is TrainOneStepCell's step with ``nn.thor``'s curvature refresh: every
`frequency` steps (on a batch of the optimizer's batch_size) the step runs the network with its
THOR layers capturing (their input factor A assigned in the forward pass, a zero probe added to
each output, whose gradient is the loss's gradient by that output), computes the gradients of
the weights and of the probes in one backward pass, refreshes the inverse factors on the host
(ThorMomentum.refresh) and then updates with them; the other steps are the plain compiled step
(layers not capturing), which preconditions with the stored inverses. The two are separate
compiled graphs (the capture graph belongs to an inner Cell); the layers' mode, read by the
compiler as a constant, is set before each call. The probes take their shapes from one
PYNATIVE forward pass on the first capture.

Its ``__call__`` is Python, so a data sink over it runs the steps in a Python loop.
"""
from mycel import context
from mycel.common.parameter import ParameterTuple
from mycel.nn.cell import Cell
from mycel.nn.optim.thor import (CAPTURE, PLAIN, SHAPES, ConvertNetUtils, DenseThor,
                                 ThorMomentum)
from mycel.nn.wrap import TrainOneStepCell, WithLossCell
from mycel.ops.composite import value_and_grad

__all__ = ["ThorTrainOneStepCell", "ConvertModelUtils", "ConvertNetUtils"]


class _Capture(Cell):
    """(loss, gradients of `weights`) of the network, as one compiled graph."""

    def __init__(self, network, weights):
        super().__init__(auto_prefix=False)
        self.network = network
        self.grad_fn = value_and_grad(network, None, weights)

    def construct(self, *inputs):
        return self.grad_fn(*inputs)


class ThorTrainOneStepCell(TrainOneStepCell):
    """ThorTrainOneStepCell(network, optimizer, sens=None): the training step of `network`
    (returning the loss) with a ``nn.thor`` optimizer; see the module. Returns the loss."""

    def __init__(self, network, optimizer, sens=None):
        if not isinstance(optimizer, ThorMomentum):
            raise TypeError(f"For 'ThorTrainOneStepCell', the 'optimizer' must be the one "
                            f"nn.thor returns, but got {type(optimizer).__name__}.")
        super().__init__(network, optimizer, sens)
        if self.reducer_flag or self.__dict__.get("_stepper") is not None:
            raise ValueError("For 'ThorTrainOneStepCell', THOR in distributed or pipeline "
                             "training is not built.")
        object.__setattr__(self, "_thor_step", 0)     # steps taken
        object.__setattr__(self, "_thor_since", None)  # steps since the last capture
        object.__setattr__(self, "_capture", None)

    def _set_mode(self, mode):
        for layer in self.optimizer._thor_layers:
            object.__setattr__(layer, "_thor_mode", mode)

    def _capture_step(self, inputs):
        opt = self.optimizer
        layers = opt._thor_layers
        if self._capture is None:
            # The probes' shapes: one forward pass, eagerly, recording each output's shape
            # (in inference mode: BatchNorm's moving statistics are not touched).
            mode, training = context.get_context("mode"), self.network.training
            self._set_mode(SHAPES)
            try:
                context.set_context(mode=context.PYNATIVE_MODE)
                self.network.set_train(False)
                self.network(*inputs)
            finally:
                context.set_context(mode=mode)
                self.network.set_train(training)
                self._set_mode(PLAIN)
            for layer in layers:
                if isinstance(layer, DenseThor) and len(layer._out_shape) != 2:
                    raise ValueError(f"For 'thor', the Dense layer '{layer._thor_prefix[:-1]}' "
                                     f"is called on {len(layer._out_shape)}-d inputs; THOR "
                                     "captures Dense layers on 2-d inputs only.")
                layer._make_probe()
            weights = ParameterTuple(list(opt.parameters) + [l.thor_probe for l in layers])
            object.__setattr__(self, "_capture", _Capture(self.network, weights))
        self._set_mode(CAPTURE)
        try:
            loss, grads = self._capture(*inputs)
        finally:
            self._set_mode(PLAIN)
        n = len(opt.parameters)
        grads, probes = tuple(grads[:n]), tuple(grads[n:])
        if self.sens is not None:
            grads = tuple(g * self.sens for g in grads)
            probes = tuple(d * self.sens for d in probes)
        opt.refresh(probes, self._thor_step)
        self.optimizer(grads)
        return loss

    def __call__(self, *inputs):
        opt = self.optimizer
        due = self._thor_since is None or self._thor_since >= opt.frequency
        if due and inputs and getattr(inputs[0], "shape", (None,))[0] == opt.batch_size:
            loss = self._capture_step(inputs)
            object.__setattr__(self, "_thor_since", 1)
        else:
            self._set_mode(PLAIN)
            loss = super().__call__(*inputs)
            if self._thor_since is not None:
                object.__setattr__(self, "_thor_since", self._thor_since + 1)
        object.__setattr__(self, "_thor_step", self._thor_step + 1)
        return loss


class ConvertModelUtils:
    """Builds the Model that trains with THOR (MindSpore's ``train.ConvertModelUtils``)."""

    @staticmethod
    def convert_to_thor_model(model, network, loss_fn=None, optimizer=None, metrics=None,
                              amp_level="O0", loss_scale_manager=None, keep_batchnorm_fp32=False):
        """`model` with its training step replaced by a ThorTrainOneStepCell of
        (network, loss_fn) and `optimizer` when `optimizer` is nn.thor's; otherwise `model` as
        it is. Mixed precision (amp_level other than O0) is not built with THOR."""
        if not isinstance(optimizer, ThorMomentum):
            return model
        if amp_level != "O0":
            raise ValueError(f"For 'convert_to_thor_model', THOR with amp_level {amp_level!r} "
                             "is not built (O0 only).")
        step_net = WithLossCell(network, loss_fn) if loss_fn is not None else network
        sens = None
        if loss_scale_manager is not None:
            sens = loss_scale_manager.get_loss_scale()
        model._train_network = ThorTrainOneStepCell(step_net, optimizer, sens)
        return model
