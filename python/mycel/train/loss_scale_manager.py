"""Loss-scale managers, as MindSpore's ``mindspore.train.loss_scale_manager``: they hold a
loss scale's settings for ``Model(..., loss_scale_manager=...)`` and
``amp.build_train_network``, and give the update cell that ``nn.TrainOneStepWithLossScaleCell``
runs each step (``get_update_cell``)."""
from mycel.nn.wrap import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,
                           check_dynamic_scale, check_loss_scale)


class LossScaleManager:
    """The interface: get_loss_scale, update_loss_scale(overflow), get_update_cell."""

    def get_loss_scale(self):
        """The current loss scale."""
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        """Updates the scale after a step (overflow: whether its gradients overflowed)."""
        raise NotImplementedError

    def get_update_cell(self):
        """The Cell the training step runs to update the scale (None: no update, no skip)."""
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True): a constant loss
    scale. With drop_overflow_update a step whose gradients overflow skips its update (the
    training step gets a FixedLossScaleUpdateCell); without it every step updates and
    get_update_cell is None (the step only multiplies the loss by the scale and divides
    the gradients)."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        self._loss_scale = check_loss_scale(loss_scale, "FixedLossScaleManager")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"For 'FixedLossScaleManager', the 'drop_overflow_update' must be "
                            f"a bool, but got {type(drop_overflow_update).__name__}.")
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        """The loss scale."""
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether an overflowing step skips its update."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """Nothing: the scale is fixed."""

    def get_update_cell(self):
        """A FixedLossScaleUpdateCell when overflowing steps are dropped, else None."""
        if not self._drop_overflow_update:
            return None
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000): a loss
    scale that is divided by scale_factor (not below 1) on every step whose gradients
    overflow, which is skipped, and multiplied by it after scale_window steps in a row
    without overflow. ``update_loss_scale`` applies the rule on the host;
    ``get_update_cell`` gives the DynamicLossScaleUpdateCell the training step runs."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        self.loss_scale = check_loss_scale(init_loss_scale, "DynamicLossScaleManager",
                                           "init_loss_scale")
        check_dynamic_scale("DynamicLossScaleManager", scale_factor, scale_window)
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0

    def get_loss_scale(self):
        """The current loss scale."""
        return self.loss_scale

    def get_drop_overflow_update(self):
        """True: overflowing steps are skipped."""
        return True

    def update_loss_scale(self, overflow):
        """The host-side rule: lower the scale on overflow, raise it after scale_window good
        steps (the same rule DynamicLossScaleUpdateCell runs inside a step)."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1.0)
            self.last_overflow_iter = self.cur_iter
        elif (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
            self.loss_scale *= self.increase_ratio
        self.cur_iter += 1

    def get_update_cell(self):
        """The DynamicLossScaleUpdateCell for the training step."""
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
